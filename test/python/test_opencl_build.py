"""The OpenCL build never hangs xe-run (xedialects.runtime.opencl_build).

* the limit: XE_OPENCL_BUILD_TIMEOUT / build_timeout= / xe-run --build-timeout, 0 = none, bad values;
* normal builds go through the worker process and come back as device binaries (the program runs,
  a second build of the same SPIR-V is not compiled again); a forked copy of the process does not
  touch the worker;
* a build past the limit: BuildTimeout naming the kernels, the limit and how to change it; the
  worker's whole process group is killed (a fake worker that hangs, with a child of its own) and
  the next build starts a new worker; the real compiler stopped by a tiny limit;
* a compiler that crashes kills only the worker (clear error, the next build works);
* xe-run past the limit: `xe-run: error: ...`, exit 1, no traceback, no process left behind.
"""
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import numpy as np
import pytest

from xedialects.lowering.xegpu_to_spirv.spirv_export import serialize
from xedialects.runtime import opencl_build
from xedialects.runtime.opencl import BuildTimeout, Launcher, OpenCLError, Program

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PTR = "!spirv.ptr<f32, CrossWorkgroup>"


from opencl_support import RT, needs_rt  # noqa: E402


def _scale_kernel(name: str, factor: float) -> str:
    """y[i] = factor * x[i]; `factor` makes each binary new (no cached device binary)."""
    return f"""
spirv.module @{name}_spv Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses, Int64], []> {{
  spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi64>, Input>
  spirv.func @{name}(%x: {PTR}, %y: {PTR}) "None" {{
    %p = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi64>, Input>
    %v = spirv.Load "Input" %p : vector<3xi64>
    %i = spirv.CompositeExtract %v[0 : i32] : vector<3xi64>
    %px = spirv.InBoundsPtrAccessChain %x[%i] : {PTR}, i64 -> {PTR}
    %py = spirv.InBoundsPtrAccessChain %y[%i] : {PTR}, i64 -> {PTR}
    %a = spirv.Load "CrossWorkgroup" %px : f32
    %f = spirv.Constant {factor!r} : f32
    %b = spirv.FMul %a, %f : f32
    spirv.Store "CrossWorkgroup" %py, %b : f32
    spirv.Return
  }}
  spirv.EntryPoint "Kernel" @{name}, @gid
}}"""


def _meta(name):
    return {"target": "portable", "kernels": [{
        "name": name, "workgroup_size": None, "subgroup_size": 16, "slm_bytes": 0, "named_barriers": 0,
        "args": [{"name": "x", "kind": "buffer", "element_type": "f32"},
                 {"name": "y", "kind": "buffer", "element_type": "f32"}]}]}


_COUNTER = [0]


def _fresh(name="scale"):
    """A SPIR-V binary no earlier build of this process has seen, and its metadata."""
    _COUNTER[0] += 1      # and random: two suites at once (other processes, the runtime's binary cache) differ too
    factor = 1.0 + _COUNTER[0] / 64 + (int.from_bytes(os.urandom(4), "little") % 65521) / 2 ** 22
    return serialize(_scale_kernel(name, factor)), _meta(name), np.float32(factor)


@pytest.fixture
def own_worker():
    """A test that changes the worker gets a process of its own, and leaves none behind."""
    opencl_build.stop_worker()
    yield
    opencl_build.stop_worker()


def _gone(pid: int, wait: float = 5.0) -> bool:
    """The process has exited (absent, or a zombie nobody reaped yet)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


# ----------------------------------------------------------------------------------------------
# the limit


def test_limit_from_argument_environment_default(monkeypatch):
    monkeypatch.delenv("XE_OPENCL_BUILD_TIMEOUT", raising=False)
    assert opencl_build.build_timeout() == opencl_build.DEFAULT_TIMEOUT == 120
    monkeypatch.setenv("XE_OPENCL_BUILD_TIMEOUT", "2.5")
    assert opencl_build.build_timeout() == 2.5
    assert opencl_build.build_timeout(7) == 7          # the argument (xe-run --build-timeout) wins
    monkeypatch.setenv("XE_OPENCL_BUILD_TIMEOUT", "0")
    assert opencl_build.build_timeout() == 0
    assert opencl_build.build_timeout(float("inf")) == 0
    monkeypatch.setenv("XE_OPENCL_BUILD_TIMEOUT", "soon")
    with pytest.raises(OpenCLError, match=r"XE_OPENCL_BUILD_TIMEOUT=soon is not a number of seconds \(0: no limit\)"):
        opencl_build.build_timeout()
    with pytest.raises(OpenCLError, match="must be a number of seconds >= 0"):
        opencl_build.build_timeout(-1)


# ----------------------------------------------------------------------------------------------
# normal builds


@needs_rt
def test_build_goes_through_the_worker_and_runs(own_worker):
    binary, meta, factor = _fresh()
    prog = Program(RT, binary, meta)
    pid = opencl_build.worker_pid()
    assert pid is not None and pid != os.getpid()
    x = np.arange(32, dtype=np.float32)
    y = np.zeros(32, np.float32)
    Launcher(prog).run("scale", (2, 1, 1), (16, 1, 1), [x, y])
    assert np.array_equal(y, x * factor)
    # the same SPIR-V again: the device binary is reused (nothing compiled), same worker
    again = Program(RT, binary, meta)
    assert again.build_seconds < prog.build_seconds and opencl_build.worker_pid() == pid
    y2 = np.zeros(32, np.float32)
    Launcher(again).run("scale", (2, 1, 1), (16, 1, 1), [x, y2])
    assert np.array_equal(y2, y)


@needs_rt
def test_forked_process_leaves_the_worker_alone(own_worker):
    Program(RT, *_fresh()[:2])
    pid = opencl_build.worker_pid()
    child = os.fork()
    if child == 0:                                   # e.g. a multiprocessing child exiting normally
        opencl_build.stop_worker()
        os._exit(0 if opencl_build.worker_pid() is None else 1)
    assert os.waitpid(child, 0)[1] == 0
    assert opencl_build.worker_pid() == pid and not _gone(pid, wait=0)
    Program(RT, *_fresh()[:2])                       # still serving this process
    assert opencl_build.worker_pid() == pid


@needs_rt
def test_no_limit_builds_in_process(own_worker):
    binary, meta, factor = _fresh()
    prog = Program(RT, binary, meta, build_timeout=0)
    assert opencl_build.worker_pid() is None
    x = np.ones(16, np.float32)
    y = np.zeros(16, np.float32)
    Launcher(prog).run("scale", (1, 1, 1), (16, 1, 1), [x, y])
    assert np.array_equal(y, x * factor)


# ----------------------------------------------------------------------------------------------
# past the limit, crashes

FAKE_WORKER = textwrap.dedent("""\
    import os, subprocess, sys, time
    from multiprocessing.connection import Connection
    requests = Connection(int(sys.argv[1]), writable=False)
    replies = Connection(int(sys.argv[2]), readable=False)
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])   # same process group
    with open(os.environ["FAKE_WORKER_PIDS"], "w") as f:
        f.write(f"{os.getpid()} {helper.pid}")
    replies.send({"ready": True})
    requests.recv()
    if os.environ["FAKE_WORKER_MODE"] == "crash":
        helper.kill()
        os.abort()
    time.sleep(600)                    # a compiler that never finishes
""")


@pytest.fixture
def fake_worker(tmp_path, monkeypatch, own_worker):
    script = tmp_path / "fake_worker.py"
    script.write_text(FAKE_WORKER)
    pids = tmp_path / "pids"
    monkeypatch.setattr(opencl_build, "WORKER_SCRIPT", script)
    monkeypatch.setenv("FAKE_WORKER_PIDS", str(pids))

    def pids_of():
        return [int(p) for p in pids.read_text().split()]
    return monkeypatch, pids_of


@needs_rt
def test_hanging_build_is_stopped_with_a_clear_error(fake_worker):
    monkeypatch, pids_of = fake_worker
    monkeypatch.setenv("FAKE_WORKER_MODE", "hang")
    binary, meta, _ = _fresh("slow_kernel")
    t0 = time.perf_counter()
    with pytest.raises(BuildTimeout) as e:
        Program(RT, binary, meta, build_timeout=0.5)
    assert time.perf_counter() - t0 < 30
    msg = str(e.value)
    assert "kernel @slow_kernel" in msg and "did not finish within 0.5 s" in msg
    assert "XE_OPENCL_BUILD_TIMEOUT=SECONDS" in msg and "xe-run --build-timeout SECONDS" in msg
    worker, helper = pids_of()
    assert _gone(worker) and _gone(helper), "the worker's process group must be killed"
    assert opencl_build.worker_pid() is None
    # the next build starts a new (real) worker and succeeds
    monkeypatch.undo()
    binary, meta, _ = _fresh()
    Program(RT, binary, meta)
    assert opencl_build.worker_pid() not in (None, worker)


@needs_rt
def test_compiler_crash_kills_only_the_worker(fake_worker):
    monkeypatch, pids_of = fake_worker
    monkeypatch.setenv("FAKE_WORKER_MODE", "crash")
    binary, meta, _ = _fresh("crashing")
    with pytest.raises(OpenCLError, match=r"the OpenCL compiler crashed \(killed by SIGABRT\) while building the "
                                          r"SPIR-V module of kernel @crashing"):
        Program(RT, binary, meta)
    assert _gone(pids_of()[0]) and opencl_build.worker_pid() is None


@needs_rt
def test_real_compiler_stopped_by_a_tiny_limit(own_worker):
    binary, meta, _ = _fresh("tiny_limit")
    Program(RT, *_fresh()[:2])                    # a started worker: only the build itself is timed
    pid = opencl_build.worker_pid()
    with pytest.raises(BuildTimeout, match=r"kernel @tiny_limit .* did not finish within 0.001 s, so the OpenCL "
                                           r"compiler was stopped"):
        Program(RT, binary, meta, build_timeout=0.001)
    assert _gone(pid)
    Program(RT, binary, meta)                      # with the default limit it builds


@needs_rt
def test_interrupted_build_leaves_no_worker(fake_worker):
    """Ctrl-C while the compiler runs: the worker (in its own session, so not hit by the terminal's
    SIGINT) is killed before the interrupt propagates."""
    monkeypatch, pids_of = fake_worker
    monkeypatch.setenv("FAKE_WORKER_MODE", "hang")
    binary, meta, _ = _fresh("interrupted")
    previous = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        with pytest.raises(KeyboardInterrupt):
            Program(RT, binary, meta, build_timeout=60)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    worker, helper = pids_of()
    assert _gone(worker) and _gone(helper) and opencl_build.worker_pid() is None


# ----------------------------------------------------------------------------------------------
# xe-run

MATMUL = """
func.func @mm(%A: memref<32x32xf16>, %B: memref<32x32xf16>, %C: memref<32x32xf32>) {
  linalg.matmul ins(%A, %B : memref<32x32xf16>, memref<32x32xf16>) outs(%C : memref<32x32xf32>)
  return
}
"""


def _leftover_processes(token: str) -> list[int]:
    """Live processes whose environment holds `token`."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if token.encode() in f.read() and not _gone(int(entry), wait=0):
                    out.append(int(entry))
        except OSError:
            continue
    return out


@needs_rt
@pytest.mark.parametrize("how", ["env", "option"])
def test_xe_run_build_timeout(tmp_path, how):
    path = tmp_path / "mm.mlir"
    path.write_text(MATMUL)
    token = f"xe-build-test-{uuid.uuid4().hex}"
    env = dict(os.environ, XE_TEST_TOKEN=token)
    args = [sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), str(path),
            "--pipeline=xe-gemm-to-spirv-portable", "--backend=opencl", "--check"]
    if how == "env":
        env["XE_OPENCL_BUILD_TIMEOUT"] = "0.001"
    else:
        env.pop("XE_OPENCL_BUILD_TIMEOUT", None)
        args += ["--build-timeout", "0.001"]
    r = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.startswith("xe-run: error: building the SPIR-V module of kernel @mm_0 on "), r.stderr
    assert "did not finish within 0.001 s, so the OpenCL compiler was stopped; raise the limit with " \
           "XE_OPENCL_BUILD_TIMEOUT=SECONDS or xe-run --build-timeout SECONDS (0: no limit)" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr and "PASS" not in r.stdout
    assert _leftover_processes(token) == []


@needs_rt
def test_xe_run_bad_limit(tmp_path):
    path = tmp_path / "mm.mlir"
    path.write_text(MATMUL)
    base = [sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), str(path), "--backend=opencl"]
    r = subprocess.run(base + ["--build-timeout", "-1"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1 and r.stderr.startswith("xe-run: error: --build-timeout -1: ") and "Traceback" not in r.stderr
    r = subprocess.run(base, capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, XE_OPENCL_BUILD_TIMEOUT="later"))
    assert r.returncode == 1 and "xe-run: error: XE_OPENCL_BUILD_TIMEOUT=later is not a number" in r.stderr
