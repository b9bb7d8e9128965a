"""OpenCL backend (xedialects.runtime): SPIR-V kernels run for real on Intel's OpenCL CPU runtime.

* launcher tests with hand-written `spirv.module`s (vector add, a 16-lane subgroup kernel with
  SubgroupBlockReadINTEL + GroupNonUniformShuffle, float scalar + appended size argument): exact;
* host programs: the simulator interprets the host function, kernels run on the device (several
  launches, buffers coherent between them), sim and OpenCL agree; `xe-run --backend opencl|both`;
* error cases: runtime missing (install hint, exit 1, no traceback), bad binaries (never handed to
  the runtime, whose SPIR-V reader aborts the process on them), build failures, pvc imports the emulation lacks,
  launch/argument mismatches;
* end to end: every input program of test_linalg_lowering (FORMS, EPILOGUES, TENSORS) lowered
  with `xe-gemm-to-spirv-portable` and run against the upstream MLIR CPU reference, a few against
  the simulator; kernels with shared local memory exchanges and `scf.if` (xetile-wg-to-sg output)
  against the simulator; the whole rfc-xetile appendix 2.2 kernel (GEMM, SLM transpose, broadcast,
  cross-subgroup row reduction) and vector.multi_reduction / vector.reduction of every kind against
  the simulator and numpy.
Runtime-dependent tests skip when the runtime cannot load (`pip install -e '.[run]'`).
"""
import hashlib
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import xedialects
from xedialects.diagnostics import DiagnosticError
from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv, serialize
from xedialects.mlir_tools import spirv_val_path
from xedialects.passes import lookup, run
from xedialects.runtime import spirv_check
from xedialects.runtime.opencl import Launcher, OpenCLError, Program, run_opencl
from xedialects.sim import simulate
from xedialects.sim.reference import compare

sys.path.insert(0, os.path.dirname(__file__))
import test_linalg_lowering as LL  # noqa: E402
from test_e2e_pipeline import CASES, STAGES, _inputs  # noqa: E402
from reduction_kernels import (REDUCTION_CASES, TRANSPOSE_BROADCAST, reduction_args,  # noqa: E402
                               reduction_kernel, reduction_mismatches)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PTR = "!spirv.ptr<f32, CrossWorkgroup>"
IPTR = "!spirv.ptr<i32, CrossWorkgroup>"


from opencl_support import RT, assert_opencl_matches_cpu, needs_rt  # noqa: E402

# ----------------------------------------------------------------------------------------------
# hand-written SPIR-V

GID = 'spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi64>, Input>'
LOAD_GID = """
    %p = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi64>, Input>
    %v = spirv.Load "Input" %p : vector<3xi64>
    %i = spirv.CompositeExtract %v[0 : i32] : vector<3xi64>"""


def _elementwise(name="vadd", op="spirv.FAdd", sym="vadd_spv"):
    """c[i] = a[i] op b[i] for i < n."""
    return f"""
spirv.module @{sym} Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses, Int64], []> {{
  {GID}
  spirv.func @{name}(%a: {PTR}, %b: {PTR}, %c: {PTR}, %n: i64) "None" {{{LOAD_GID}
    %lt = spirv.SLessThan %i, %n : i64
    spirv.mlir.selection {{
      spirv.BranchConditional %lt, ^then, ^merge
    ^then:
      %pa = spirv.InBoundsPtrAccessChain %a[%i] : {PTR}, i64 -> {PTR}
      %pb = spirv.InBoundsPtrAccessChain %b[%i] : {PTR}, i64 -> {PTR}
      %pc = spirv.InBoundsPtrAccessChain %c[%i] : {PTR}, i64 -> {PTR}
      %x = spirv.Load "CrossWorkgroup" %pa : f32
      %y = spirv.Load "CrossWorkgroup" %pb : f32
      %s = {op} %x, %y : f32
      spirv.Store "CrossWorkgroup" %pc, %s : f32
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }}
    spirv.Return
  }}
  spirv.EntryPoint "Kernel" @{name}, @gid
}}"""


SUBGROUP = f"""
spirv.module @sg Physical64 OpenCL requires #spirv.vce<v1.3, [Kernel, Addresses, Int64, GroupNonUniform,
    GroupNonUniformShuffle, SubgroupDispatch, SubgroupBufferBlockIOINTEL], [SPV_INTEL_subgroups]> {{
  {GID}
  spirv.GlobalVariable @lane built_in("SubgroupLocalInvocationId") : !spirv.ptr<i32, Input>
  spirv.func @sg_reverse(%src: {IPTR}, %dst: {IPTR}) "None" {{{LOAD_GID}
    %lp = spirv.mlir.addressof @lane : !spirv.ptr<i32, Input>
    %l = spirv.Load "Input" %lp : i32
    %l64 = spirv.UConvert %l : i32 to i64
    %base = spirv.ISub %i, %l64 : i64
    %ps = spirv.InBoundsPtrAccessChain %src[%base] : {IPTR}, i64 -> {IPTR}
    %x = spirv.INTEL.SubgroupBlockRead %ps : {IPTR} -> i32
    %c15 = spirv.Constant 15 : i32
    %r = spirv.ISub %c15, %l : i32
    %y = spirv.GroupNonUniformShuffle <Subgroup> %x, %r : i32, i32
    %pd = spirv.InBoundsPtrAccessChain %dst[%i] : {IPTR}, i64 -> {IPTR}
    spirv.Store "CrossWorkgroup" %pd, %y : i32
    spirv.Return
  }}
  spirv.EntryPoint "Kernel" @sg_reverse, @gid, @lane
  spirv.ExecutionMode @sg_reverse "SubgroupSize", 16
}}"""

AXPY = f"""
spirv.module @axpy_spv Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses, Int64], []> {{
  {GID}
  spirv.func @axpy(%x: {PTR}, %y: {PTR}, %alpha: f32, %n: i64) "None" {{{LOAD_GID}
    %lt = spirv.SLessThan %i, %n : i64
    spirv.mlir.selection {{
      spirv.BranchConditional %lt, ^then, ^merge
    ^then:
      %px = spirv.InBoundsPtrAccessChain %x[%i] : {PTR}, i64 -> {PTR}
      %py = spirv.InBoundsPtrAccessChain %y[%i] : {PTR}, i64 -> {PTR}
      %xv = spirv.Load "CrossWorkgroup" %px : f32
      %yv = spirv.Load "CrossWorkgroup" %py : f32
      %ax = spirv.FMul %alpha, %xv : f32
      %s = spirv.FAdd %ax, %yv : f32
      spirv.Store "CrossWorkgroup" %py, %s : f32
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }}
    spirv.Return
  }}
  spirv.EntryPoint "Kernel" @axpy, @gid
  spirv.ExecutionMode @axpy "LocalSize", 16, 1, 1
}}"""
AXPY_META = {"target": "portable", "kernels": [{
    "name": "axpy", "workgroup_size": [16, 1, 1], "subgroup_size": 16, "slm_bytes": 0, "named_barriers": 0,
    "args": [{"name": "x", "kind": "buffer", "element_type": "f32"},
             {"name": "y", "kind": "buffer", "element_type": "f32"},
             {"name": "alpha", "kind": "scalar", "element_type": "f32"},
             {"name": "x_dim0", "kind": "scalar", "element_type": "i64", "dim_of": [0, 0]}]}]}

UNRESOLVED_IMPORT = f"""
spirv.module @imp Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses, Int64, Linkage], []> {{
  spirv.func @missing(%x: i32) -> i32 "None" attributes {{linkage_attributes =
      #spirv.linkage_attributes<linkage_name = "xe_no_such_function", linkage_type = <Import>>}}
  spirv.func @k(%p: {IPTR}) "None" {{
    %v = spirv.Load "CrossWorkgroup" %p : i32
    %r = spirv.FunctionCall @missing(%v) : (i32) -> i32
    spirv.Store "CrossWorkgroup" %p, %r : i32
    spirv.Return
  }}
  spirv.EntryPoint "Kernel" @k
}}"""


def _buffer_meta(name, bufs, scalars=(), wg=None):
    args = [{"name": f"b{i}", "kind": "buffer", "element_type": e} for i, e in enumerate(bufs)]
    args += [{"name": f"s{i}", "kind": "scalar", "element_type": e} for i, e in enumerate(scalars)]
    return {"target": "portable", "kernels": [{"name": name, "args": args, "workgroup_size": wg,
                                               "subgroup_size": 16, "slm_bytes": 0, "named_barriers": 0}]}


_BINARIES = {}


def _binary(text):
    if text not in _BINARIES:
        _BINARIES[text] = serialize(text)
    return _BINARIES[text]


def _spirv_val(binary, env):
    r = subprocess.run([spirv_val_path(), "--target-env", env, "-"], input=binary, capture_output=True)
    assert r.returncode == 0, (r.stdout + r.stderr).decode()


@pytest.mark.usefixtures("spirv_val")
def test_hand_written_modules_validate():
    _spirv_val(_binary(_elementwise()), "opencl2.0")
    _spirv_val(_binary(AXPY), "opencl2.0")
    _spirv_val(_binary(SUBGROUP), "spv1.4")   # GroupNonUniformShuffle needs SPIR-V 1.3 (OpenCL 2.0 env: 1.0)


@needs_rt
def test_vector_add_exact():
    prog = Program(RT, _binary(_elementwise()), _buffer_meta("vadd", ["f32"] * 3, ["i64"]))
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(100, np.float32), rng.standard_normal(100, np.float32)
    c = np.full(100, -7, np.float32)
    launcher = Launcher(prog)
    launcher.run("vadd", (7, 1, 1), (16, 1, 1), [a, b, c, 100])
    assert np.array_equal(c, a + b)
    assert launcher.stats.launches == 1 and launcher.stats.build_seconds > 0


@needs_rt
def test_subgroup_block_read_and_shuffle_exact():
    prog = Program(RT, _binary(SUBGROUP), _buffer_meta("sg_reverse", ["i32", "i32"]))
    src = np.arange(128, dtype=np.int32) * 3 - 50
    dst = np.zeros(128, np.int32)
    Launcher(prog).run("sg_reverse", (4, 1, 1), (32, 1, 1), [src, dst])
    assert np.array_equal(dst, src.reshape(-1, 16)[:, ::-1].reshape(-1))   # reversed within each 16-lane subgroup


@needs_rt
def test_float_scalar_and_appended_size_argument():
    prog = Program(RT, _binary(AXPY), AXPY_META)
    x = np.arange(50, dtype=np.float32) / 8
    y = np.ones(50, np.float32)
    Launcher(prog).run("axpy", (4, 1, 1), (16, 1, 1), [x, y, 2.0])      # n = x.shape[0] is appended
    assert np.array_equal(y, 2 * x + 1)


# ----------------------------------------------------------------------------------------------
# host programs: the simulator interprets the host, kernels run on the device

def _host_module(op="spirv.FAdd"):
    spv = _elementwise(op=op).replace("\n", "\n    ")
    return f"""
module attributes {{gpu.container_module}} {{
  gpu.module @k {{
    {spv}
    gpu.func @vadd(%a: memref<100xf32>, %b: memref<100xf32>, %c: memref<100xf32>, %n: index) kernel
        attributes {{known_block_size = array<i32: 16, 1, 1>}} {{
      %i = gpu.global_id x
      %lt = arith.cmpi slt, %i, %n : index
      scf.if %lt {{
        %x = memref.load %a[%i] : memref<100xf32>
        %y = memref.load %b[%i] : memref<100xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %c[%i] : memref<100xf32>
      }}
      gpu.return
    }}
  }}
  func.func @main(%a: memref<100xf32>, %b: memref<100xf32>, %c: memref<100xf32>, %d: memref<100xf32>) {{
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c16 = arith.constant 16 : index
    %n = arith.constant 100 : index
    gpu.launch_func @k::@vadd blocks in (%c7, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%a : memref<100xf32>, %b : memref<100xf32>, %c : memref<100xf32>, %n : index)
    gpu.launch_func @k::@vadd blocks in (%c7, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%c : memref<100xf32>, %b : memref<100xf32>, %d : memref<100xf32>, %n : index)
    return
  }}
}}"""


def _vectors(n=4, seed=2):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(100, np.float32) for _ in range(n)]


@needs_rt
def test_host_program_two_launches_match_simulator():
    m = xedialects.parse(_host_module(), "host.mlir")
    a, b, c, d = _vectors()
    ocl = run_opencl(m, "main", [a, b, c, d], trace=True)
    got = ocl.result.buffers
    assert np.array_equal(got[2], a + b) and np.array_equal(got[3], (a + b) + b)   # 2nd launch sees the 1st
    assert ocl.stats.launches == 2
    assert [r.level for r in ocl.result.trace.launches] == ["opencl", "opencl"]
    sim = simulate(m, "main", [a, b, c, d]).buffers
    assert all(np.array_equal(x, y) for x, y in zip(got, sim))
    assert np.array_equal(a, got[0])      # inputs are copied, not modified


@needs_rt
def test_launch_errors_are_located():
    m = xedialects.parse(_host_module().replace("threads in (%c16, %c1, %c1)\n        args(%a",
                                                 "threads in (%c7, %c1, %c1)\n        args(%a"), "host.mlir")
    with pytest.raises(DiagnosticError) as e:
        run_opencl(m, "main", _vectors())
    text = str(e.value.diagnostics[0].format())
    assert "compiled for work-group size (16, 1, 1)" in text and "host.mlir" in text


@needs_rt
def test_argument_mismatches():
    launcher = Launcher(Program(RT, _binary(AXPY), AXPY_META))
    x, y = np.zeros(32, np.float32), np.zeros(32, np.float32)
    with pytest.raises(OpenCLError, match="takes 3 arguments, 2 given"):
        launcher.run("axpy", (2, 1, 1), (16, 1, 1), [x, y])
    with pytest.raises(OpenCLError, match="takes f32 elements, the buffer holds float16"):
        launcher.run("axpy", (2, 1, 1), (16, 1, 1), [x.astype(np.float16), y, 1.0])
    with pytest.raises(OpenCLError, match="takes a buffer"):
        launcher.run("axpy", (2, 1, 1), (16, 1, 1), [1.0, y, 1.0])
    with pytest.raises(OpenCLError, match="no metadata for kernel 'nope'"):
        launcher.run("nope", (2, 1, 1), (16, 1, 1), [x, y, 1.0])
    with pytest.raises(OpenCLError, match=r"compiled for work-group size \(16, 1, 1\)"):
        launcher.run("axpy", (1, 1, 1), (32, 1, 1), [x, y, 1.0])


# ----------------------------------------------------------------------------------------------
# bad binaries and build failures


def _words(*ws):
    return struct.pack(f"<{len(ws)}I", *ws)


HEADER = _words(0x07230203, 0x00010000, 0, 10, 0)


@pytest.mark.parametrize("binary,message", [
    (b"__kernel void f() {}", "not a SPIR-V module"),
    (_words(0xDEADBEEF, 0x00010000, 0, 10, 0), "magic number 0xdeadbeef"),
    (HEADER, "no OpMemoryModel"),                                     # the runtime hangs on this one
    (HEADER + _words((3 << 16) | 14, 2, 1), "is not OpenCL"),          # GLSL450 memory model
    (HEADER + _words((4 << 16) | 17, 6), "truncated module"),         # the runtime exits the process
    (HEADER + _words((2 << 16) | 17, 6, (3 << 16) | 14, 2, 2), "no Kernel entry point"),
])
def test_bad_binaries_rejected_before_the_runtime(binary, message):
    with pytest.raises(spirv_check.BadSpirv, match=message):
        spirv_check.check_binary(binary, validate=False)


@pytest.mark.usefixtures("spirv_val")
def test_spirv_val_catches_what_the_structure_check_cannot():
    good = _binary(_elementwise())
    bad = good[:-8] + _words((1 << 16) | 0xFFFF, (1 << 16) | 0xFFFF)   # unknown opcodes: the runtime exits the process
    spirv_check.check_binary(good)
    with pytest.raises(spirv_check.BadSpirv, match="spirv-val rejected"):
        spirv_check.check_binary(bad)


@needs_rt
def test_bad_binary_clear_error():
    good = _binary(_elementwise())
    with pytest.raises(OpenCLError, match="bad SPIR-V binary: truncated module"):
        Program(RT, good[:len(good) // 2 // 4 * 4])
    with pytest.raises(OpenCLError, match="bad SPIR-V binary: not a SPIR-V module"):
        Program(RT, b"\x00" * 7)


@needs_rt
def test_build_failure_reports_the_runtime_log():
    with pytest.raises(OpenCLError, match="failed to build the SPIR-V module") as e:
        Program(RT, _binary(UNRESOLVED_IMPORT), _buffer_meta("k", ["i32"]))
    assert "xe_no_such_function" in str(e.value)


@needs_rt
def test_pvc_target_import_outside_the_emulation_rejected_on_cpu():
    # target=pvc runs with the emulation library linked (test_pvc_on_cpu.py); an import it does not
    # provide is named before the runtime sees the binary
    meta = _buffer_meta("k", ["i32"])
    meta["target"] = "pvc"
    with pytest.raises(OpenCLError, match=r"target=pvc .* does not provide .*xe_no_such_function"):
        Program(RT, _binary(UNRESOLVED_IMPORT), meta)


@needs_rt
def test_metadata_must_match_entry_points():
    with pytest.raises(OpenCLError, match="kernel\\(s\\) other that the SPIR-V module does not define"):
        Program(RT, _binary(_elementwise()), _buffer_meta("other", ["f32"]))


# ----------------------------------------------------------------------------------------------
# xe-run


def _xe_run(args, env=None, stdin=None):
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-run.py")] + args, capture_output=True,
                          text=True, env=full_env, input=stdin, cwd=ROOT)


def _host_file(tmp_path, op="spirv.FAdd"):
    path = tmp_path / "host.mlir"
    path.write_text(_host_module(op))
    return str(path)


@pytest.mark.parametrize("env,message", [
    ({"XE_OPENCL_RUNTIME": "/nonexistent/libintelocl.so", "OCL_ICD_VENDORS": "", "OCL_ICD_FILENAMES": ""},
     "cannot be loaded"),
    ({"XE_OPENCL_RUNTIME": "", "OCL_ICD_VENDORS": "/nonexistent-vendors-dir"}, "no OpenCL platform"),
])
def test_runtime_missing_message(tmp_path, env, message):
    r = _xe_run([_host_file(tmp_path), "--backend=opencl"], env=env)
    assert r.returncode == 1
    assert message in r.stderr and "pip install -e '.[run]'" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


def test_pyopencl_missing_message(tmp_path):
    code = ("import sys; sys.modules['pyopencl'] = None; sys.path.insert(0, sys.argv[1]); "
            "from xedialects.tools.xe_run import main; sys.exit(main(sys.argv[2:]))")
    r = subprocess.run([sys.executable, "-c", code, ROOT, _host_file(tmp_path), "--backend", "both"],
                       capture_output=True, text=True, env=dict(os.environ, OCL_ICD_VENDORS="/nonexistent"))
    assert r.returncode == 1
    assert "pyopencl is not installed" in r.stderr and "pip install -e '.[run]'" in r.stderr
    assert "Traceback" not in r.stderr


@needs_rt
def test_xe_run_both_backends_agree(tmp_path):
    out = tmp_path / "out.npz"
    r = _xe_run([_host_file(tmp_path), "--backend=both", "--seed", "3", "--output", str(out)])
    assert r.returncode == 0, r.stderr
    assert "ran @main on OpenCL device" in r.stdout and "backends agree" in r.stdout
    got = np.load(out)
    assert np.array_equal(got["c"], got["a"] + got["b"])


@needs_rt
def test_xe_run_both_backends_disagree(tmp_path):
    """The SPIR-V subtracts where the gpu.func adds: --backend both must fail."""
    r = _xe_run([_host_file(tmp_path, op="spirv.FSub"), "--backend=both"])
    assert r.returncode == 1
    assert "sim vs opencl c:" in r.stdout and "DISAGREE" in r.stdout


@needs_rt
@pytest.mark.parametrize("backend", ["opencl", "both"])
def test_xe_run_linalg_check(tmp_path, backend):
    src, _ = CASES["bf16_unaligned"]
    path = tmp_path / "mm.mlir"
    path.write_text(src)
    r = _xe_run([str(path), "--pipeline", _to_spirv("portable"), "--check", f"--backend={backend}"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.rstrip().endswith("PASS")


@needs_rt
def test_xe_run_needs_kernels(tmp_path):
    src, _ = CASES["f16_f32"]
    path = tmp_path / "mm.mlir"
    path.write_text(src)
    r = _xe_run([str(path), "--backend=opencl"])
    assert r.returncode == 1 and "no gpu kernels to run" in r.stderr and "Traceback" not in r.stderr


# ----------------------------------------------------------------------------------------------
# end to end: linalg -> XeGPU -> SPIR-V (portable) -> OpenCL CPU device vs upstream MLIR on the CPU


def _to_spirv(target):
    """The named pipeline once all its passes exist, else the stage route to VC-mode XeGPU + SPIR-V."""
    if lookup("xetile-blocking") is not None and lookup("xetile-canonicalize") is not None:
        return f"xe-gemm-to-spirv{'-portable' if target == 'portable' else ''}"
    return f"{STAGES['vc']},convert-xegpu-to-spirv{{target={target}}}"


def _lowered(case):
    m = xedialects.parse(CASES[case][0], "case.mlir")
    run(m, f"builtin.module({_to_spirv('portable')})")
    return m


_PROGRAMS = {}


def _program(module):
    """The built Program of a lowered module's SPIR-V, shared between tests whose kernels are
    identical (the dynamic-shape GEMMs of FORMS, TENSORS and CASES): building is most of the time."""
    binary, meta = export_spirv(module, target="portable")
    key = hashlib.sha256(binary + json.dumps(meta, sort_keys=True).encode()).hexdigest()
    if key not in _PROGRAMS:
        _PROGRAMS[key] = Program(RT, binary, meta)
    return _PROGRAMS[key]


def _k(specs):
    return max(specs[1][0][-2], specs[1][0][-1])


# Every input program of test_linalg_lowering (FORMS, EPILOGUES, TENSORS: plain, unaligned, transposed,
# generic, batch, dynamic, each element type; fused bias / relu / gelu (tanh, erf) / alpha-beta /
# named-op / residual epilogues; tensor programs) through xe-gemm-to-spirv-portable, validated by
# spirv-val (the runner's check) and run on the device; every buffer and returned value is compared
# with the original program run on the CPU by upstream MLIR. (The e2e CASES are FORMS entries.)
LINALG = {f"{group.lower()}:{name}": case for group in ("FORMS", "EPILOGUES", "TENSORS")
          for name, case in getattr(LL, group).items()}


@needs_rt
@pytest.mark.parametrize("name", list(LINALG))
def test_linalg_program_on_opencl_matches_cpu_reference(name):
    case = LINALG[name]
    m = xedialects.parse(case.src, f"{name}.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv-portable)")
    assert_opencl_matches_cpu(name, case, m, _program(m))


@needs_rt
@pytest.mark.parametrize("case", ["bf16_unaligned", "i8_i32", "dynamic"])
def test_portable_pipeline_sim_and_opencl_agree(case):
    _, specs = CASES[case]
    args = _inputs(specs, seed=5)
    m = _lowered(case)
    ocl = run_opencl(m, "f", [a.copy() for a in args], runtime=RT, program=_program(m)).result.buffers[2]
    sim = simulate(m, "f", [a.copy() for a in args]).buffers[2]
    ok, max_abs, max_rel = compare(ocl, sim, specs[0][1], specs[2][1], k=_k(specs))
    assert ok, f"{case}: sim vs opencl max abs {max_abs:.3g}, max rel {max_rel:.3g}"


# ----------------------------------------------------------------------------------------------
# shared local memory and scf.if in kernels: exchanges between subgroups as xetile-wg-to-sg
# generates them (test/lit/Transforms/wg-to-sg/slm-exchange.mlir, appendix-2.2), lowered to XeGPU,
# simulated there, converted to portable SPIR-V and run on the device

SLM_EXCHANGE = """
module attributes {gpu.container_module} {
  func.func @main(%A: memref<128x64xf32>, %B: memref<128x64xf32>) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @m::@conv blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%A : memref<128x64xf32>, %B : memref<128x64xf32>)
    return
  }
gpu.module @m {
  gpu.func @conv(%A: memref<128x64xf32>, %B: memref<128x64xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, xe.subgroup_size = 16 : i32} {
    %t = xetile.init_tile %A[0, 0] : memref<128x64xf32> -> !xetile.tile<128x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [32, 32]>>>
    %v = xetile.load_tile %t : !xetile.tile<128x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [32, 32]>>> -> vector<128x64xf32>
    %w = xetile.tile_conv_layout %v {wg_map = #xetile.wg_map<sg_layout = [8, 1], sg_data = [8, 64]>} : vector<128x64xf32> -> vector<128x64xf32>
    %o = xetile.init_tile %B[0, 0] : memref<128x64xf32> -> !xetile.tile<128x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 1], sg_data = [8, 64]>>>
    xetile.store_tile %w, %o : vector<128x64xf32>, !xetile.tile<128x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 1], sg_data = [8, 64]>>>
    gpu.return
  }
}
}
"""

# TRANSPOSE_BROADCAST (reduction_kernels): appendix 2.2 at 64x64, C = A x Bt^T + bias, the row sums


def _slm_case(src, wg_to_sg, shapes, seed=0):
    m = xedialects.parse(src, "slm.mlir")
    run(m, f"builtin.module({wg_to_sg}, convert-xetile-to-xegpu, canonicalize, cse)")
    rng = np.random.default_rng(seed)
    args = [rng.uniform(-1, 1, s).astype(dt) for s, dt in shapes]
    sim = simulate(m, "main", [a.copy() for a in args]).buffers
    text = str(m)
    run(m, "builtin.module(convert-xegpu-to-spirv{target=portable})")
    ocl = run_opencl(m, "main", [a.copy() for a in args])
    return text, args, sim, ocl


@needs_rt
@pytest.mark.parametrize("budget", [None, 8192])
def test_slm_exchange_on_opencl_matches_simulator(budget):
    """tile_conv_layout through SLM: whole (one buffer) or in four bands under scf.if (slm-budget)."""
    opt = "" if budget is None else f"{{slm-budget={budget}}}"
    text, args, sim, ocl = _slm_case(SLM_EXCHANGE, f"xetile-wg-to-sg{opt}", [((128, 64), np.float32)] * 2)
    assert "memref.alloc() : memref<" in text and ", 3>" in text and "gpu.barrier" in text
    assert ("scf.if" in text) == (budget is not None)
    got = ocl.result.buffers
    assert np.array_equal(got[1], sim[1]) and np.array_equal(got[1], args[0])
    assert ocl.stats.launches == 1


@needs_rt
def test_slm_transpose_broadcast_on_opencl_matches_simulator():
    shapes = [((64, 64), np.float16), ((64, 64), np.float16), ((64,), np.float32), ((64, 1), np.float32)]
    text, args, sim, ocl = _slm_case(TRANSPOSE_BROADCAST, "xetile-wg-to-sg", shapes)
    assert text.count("memref.alloc()") == 2 and "xegpu.load_gather" in text
    assert "vector.multi_reduction <add>" in text
    got = ocl.result.buffers[3]
    a, bt, bias = (x.astype(np.float32) for x in args[:3])
    ok, max_abs, max_rel = compare(got, sim[3], "f16", "f32", k=64)
    assert ok, f"sim vs opencl: max abs {max_abs:.3g}, max rel {max_rel:.3g}"
    ok, max_abs, max_rel = compare(got, (a @ bt.T + bias).sum(1, keepdims=True), "f16", "f32", k=64)
    assert ok, f"numpy vs opencl: max abs {max_abs:.3g}, max rel {max_rel:.3g}"


# a loop carrying an accumulator whose trip count is a kernel argument: upstream scf-to-spirv
# returns loop results through variables only the body writes, so zero trips must still yield
# the initial value (the lowering guards such loops with scf.if lb < ub)
DYNAMIC_TRIP = """
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @acc(%A: memref<16x32xf32>, %C: memref<16x32xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ta = xetile.init_tile %A[0, 0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
      %tc = xetile.init_tile %C[0, 0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
      %a = xetile.load_tile %ta : !xetile.tile<16x32xf32> -> vector<16x32xf32>
      %c = xetile.load_tile %tc : !xetile.tile<16x32xf32> -> vector<16x32xf32>
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (vector<16x32xf32>) {
        %s = arith.addf %acc, %a : vector<16x32xf32>
        scf.yield %s : vector<16x32xf32>
      }
      xetile.store_tile %r, %tc : vector<16x32xf32>, !xetile.tile<16x32xf32>
      gpu.return
    }
  }
  func.func @main(%A: memref<16x32xf32>, %C0: memref<16x32xf32>, %C3: memref<16x32xf32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %n0 = arith.constant 0 : index
    %n3 = arith.constant 3 : index
    gpu.launch_func @k::@acc blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%A : memref<16x32xf32>, %C0 : memref<16x32xf32>, %n0 : index)
    gpu.launch_func @k::@acc blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%A : memref<16x32xf32>, %C3 : memref<16x32xf32>, %n3 : index)
    return
  }
}"""


@needs_rt
def test_loop_with_dynamic_trip_count_including_zero_trips():
    m = xedialects.parse(DYNAMIC_TRIP, "trip.mlir")
    run(m, "builtin.module(xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse)")
    rng = np.random.default_rng(0)
    A, C0, C3 = (rng.uniform(-1, 1, (16, 32)).astype(np.float32) for _ in range(3))
    sim = simulate(m, "main", [A.copy(), C0.copy(), C3.copy()]).buffers
    run(m, "builtin.module(convert-xegpu-to-spirv{target=portable})")
    got = run_opencl(m, "main", [A.copy(), C0.copy(), C3.copy()]).result.buffers
    for out in (sim, got):
        assert np.array_equal(out[1], C0)                       # n = 0: the loop's init value
        np.testing.assert_allclose(out[2], C3 + 3 * A, rtol=0, atol=1e-6)


@needs_rt
def test_appendix_2_2_on_opencl_matches_simulator_and_numpy():
    """The whole rfc-xetile appendix 2.2 kernel (256x256 work-group tile, 32 subgroups): GEMM with
    the transposed B through SLM, bias broadcast, tile_conv_layout and the cross-subgroup row
    reduction, through wg-to-sg, canonicalize, blocking and convert-xetile-to-xegpu (the route of
    test_wg_to_sg.test_appendix_2_2_numeric), portable SPIR-V on the device."""
    from test_wg_to_sg import appendix_2_2_kernel

    K = 64
    rng = np.random.default_rng(22)
    A = rng.uniform(-1, 1, (256, K)).astype(np.float16)
    BT = rng.uniform(-1, 1, (256, K)).astype(np.float16)
    bias = rng.uniform(-1, 1, (1, 256)).astype(np.float32)
    args = [A, BT, bias, np.zeros((256, 1), np.float32)]
    m = xedialects.parse(appendix_2_2_kernel(K), "appendix-2.2.mlir")
    run(m, "builtin.module(xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, convert-xetile-to-xegpu, "
           "canonicalize, cse)")
    text = str(m)
    assert "xetile." not in xedialects.print_ir(m) and "vector.multi_reduction <add>" in text
    sim = simulate(m, "main", [a.copy() for a in args]).buffers[3]
    run(m, "builtin.module(convert-xegpu-to-spirv{target=portable})")
    ocl = run_opencl(m, "main", [a.copy() for a in args], runtime=RT)
    got = ocl.result.buffers[3]
    assert ocl.stats.launches == 1
    want = (A.astype(np.float32) @ BT.astype(np.float32).T + bias).sum(1, keepdims=True)
    for label, ref in (("sim", sim), ("numpy", want)):
        ok, max_abs, max_rel = compare(got, ref, "f16", "f32", k=K)
        assert ok, f"{label} vs opencl: max abs {max_abs:.3g}, max rel {max_rel:.3g}"


# ----------------------------------------------------------------------------------------------
# vector.multi_reduction / vector.reduction of every kind: one subgroup reduces an 8x32 pair of
# blocks (columns on the lanes) by rows (across lanes: subgroup reductions), by columns (within
# lanes), to a scalar; accumulators in either layout (a splat: element i in lane i; a slice of the
# block: all in lane 0, as convert-xetile-to-xegpu produces them). The kernels (reduction_kernels,
# shared with test_simt_reduce) store each result in its row of O (1x8 or 1x16).


@needs_rt
@pytest.mark.parametrize("case", list(REDUCTION_CASES))
def test_reductions_on_opencl_match_simulator_and_numpy(case):
    elt, kinds, args = reduction_args(case)
    m = xedialects.parse(reduction_kernel(elt, kinds), "reductions.mlir")
    sim = simulate(m, "main", [a.copy() for a in args]).buffers[1]
    run(m, "builtin.module(convert-xegpu-to-spirv{target=portable})")
    assert "spirv.GroupNonUniform" in str(m)
    got = run_opencl(m, "main", [a.copy() for a in args], runtime=RT).result.buffers[1]
    bad = reduction_mismatches(elt, kinds, args[0], got, {"sim": sim})
    assert not bad, "\n".join(bad)


STRIDED_KERNEL = """module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<4x8xf32, strided<[1, 4]>>, %b: memref<4x8xf32>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>} {
      gpu.return
    }
  }
}"""


def test_buffer_strides_checked_against_the_kernels_static_strides():
    # a column-major view passed to a kernel compiled for it (IMEX's transpose_col_major_b)
    from xedialects.runtime.opencl import _check_view, _gpu_kernels, _View, infer_kernel_meta

    m = xedialects.parse(STRIDED_KERNEL, "k.mlir")
    _, meta = export_spirv(m, target="portable")
    args = meta["kernels"][0]["args"]
    assert [a["strides"] for a in args] == [[1, 4], [8, 1]]
    assert [a["strides"] for a in infer_kernel_meta(_gpu_kernels(m)["k"])["args"]] == [[1, 4], [8, 1]]
    flat = np.zeros(32, np.float32)
    _check_view(_View(flat, flat.dtype, 0, (4, 8), (1, 4)), args[0], 0, set(), "argument 0")
    _check_view(_View(flat, flat.dtype, 0, (4, 8), (8, 1)), args[1], 1, set(), "argument 1")
    with pytest.raises(OpenCLError, match=r"stride 8 in dimension 0 \(the kernel was compiled for 1\)"):
        _check_view(_View(flat, flat.dtype, 0, (4, 8), (8, 1)), args[0], 0, set(), "argument 0")
    with pytest.raises(OpenCLError, match=r"stride 1 in dimension 0 \(a row-major buffer has 8\)"):
        _check_view(_View(flat, flat.dtype, 0, (4, 8), (1, 4)), {"kind": "buffer"}, 0, set(), "argument 0")
