"""Build SPIR-V for an OpenCL device within a time limit.

A build cannot be interrupted inside the process that runs it, and Intel's OpenCL CPU compiler once
spent 37 minutes on one bad binary. `build_program` therefore compiles in a worker process
(`_build_worker.py`, started once per process and reused) and waits at most the limit:

* in time: the worker sends back the device binary (`program.binaries`) and the program is created
  here from it, without compiling again (about 2 ms); the binary is remembered for the process, so
  the same SPIR-V is compiled once;
* too late: the worker's process group is killed and `BuildTimeout` names the kernels, the limit and
  how to raise it; the next build starts a new worker;
* a compiler crash (the runtime's SPIR-V reader exits the process on some malformed input) kills
  only the worker and is reported as an `OpenCLError`.

The limit is the `timeout` argument (xe-run --build-timeout), else `XE_OPENCL_BUILD_TIMEOUT`
(seconds), else 120 s. 0 means no limit: the build then runs in this process, without a worker.
With `link=(source, options)` the SPIR-V is compiled, the OpenCL C `source` compiled and both
linked (clCompileProgram + clLinkProgram; the pvc emulation library, `pvc_emulation`), in the worker
under the same limit.
`prestart()` starts the worker in the background (xe-run does while it parses and lowers), so its
start-up (~0.2 s: Python, pyopencl, the runtime) overlaps other work.

`device_build_options(meta, device)` is the one rule for which of the SPIR-V metadata's
`build_options` a device's build gets: IGC's `-ze-*` options (the large register file) and
`-igc_opts '...'` only on an Intel GPU; Intel's OpenCL CPU compiler rejects them (INVALID_BUILD_OPTIONS).
"""
from __future__ import annotations

import atexit
import hashlib
import math
import os
import re
import signal
import subprocess
import sys
import threading
import warnings
from multiprocessing.connection import Connection
from pathlib import Path

from .opencl_env import OpenCLError

__all__ = ["BuildTimeout", "DEFAULT_TIMEOUT", "TIMEOUT_ENV", "build_program", "build_timeout", "device_build_options",
           "prestart", "stop_worker", "worker_pid"]

DEFAULT_TIMEOUT = 120.0
TIMEOUT_ENV = "XE_OPENCL_BUILD_TIMEOUT"
STARTUP_SECONDS = 60.0          # the worker's own start-up (not counted against the build limit)
WORKER_SCRIPT = Path(__file__).with_name("_build_worker.py")
HOW_TO_CHANGE = (f"raise the limit with {TIMEOUT_ENV}=SECONDS or xe-run --build-timeout SECONDS "
                 "(0: no limit)")


GPU_ONLY_OPTION_PREFIX = "-ze-"     # IGC's (Level Zero / Intel GPU compiler) options
INTEL_VENDOR_ID = 0x8086           # PCI vendor id of Intel (CL_DEVICE_VENDOR_ID)


class BuildTimeout(OpenCLError):
    """The OpenCL compiler did not finish within the limit (it was stopped)."""


def device_build_options(meta: dict, device) -> str:
    """The options `device` is built with: the SPIR-V metadata's `build_options` (spirv_export:
    e.g. "-ze-opt-large-register-file" when a kernel needs the large register file). Options
    starting with "-ze-" and "-igc_opts" are IGC's, for Intel GPUs only: they are dropped for any other device --
    Intel's OpenCL CPU runtime rejects them (clBuildProgram / clCompileProgram fail with
    INVALID_BUILD_OPTIONS / INVALID_COMPILER_OPTIONS, "Unrecognized build options"), and a CPU has
    no GRF modes to choose. Every other option is kept."""
    options = str((meta or {}).get("build_options") or "")
    import pyopencl as cl   # the device exists, so the runtime is loaded

    intel_gpu = bool(device.type & cl.device_type.GPU) and device.vendor_id == INTEL_VENDOR_ID
    return options.strip() if intel_gpu else cpu_build_options(options)


def cpu_build_options(options: str) -> str:
    """`options` without IGC's: `-ze-*` and `-igc_opts 'KEY=VALUE,...'` (its quoted argument too)."""
    kept = re.sub(r"""-igc_opts\s+(?:'[^']*'|"[^"]*"|\S+)""", " ", options)
    return " ".join(o for o in kept.split() if not o.startswith(GPU_ONLY_OPTION_PREFIX))


def build_timeout(value=None) -> float:
    """The build time limit in seconds, 0 for none: `value` if given, else $XE_OPENCL_BUILD_TIMEOUT,
    else DEFAULT_TIMEOUT."""
    what = "the build timeout"
    if value is None:
        raw = os.environ.get(TIMEOUT_ENV, "").strip()
        if not raw:
            return DEFAULT_TIMEOUT
        what = f"{TIMEOUT_ENV}={raw}"
        try:
            value = float(raw)
        except ValueError:
            raise OpenCLError(f"{what} is not a number of seconds (0: no limit)") from None
    value = float(value)
    if math.isnan(value) or value < 0:
        raise OpenCLError(f"{what} must be a number of seconds >= 0 (0: no limit)")
    return 0.0 if math.isinf(value) else value


def _status(code) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


class _Worker:
    """One build worker process and its two pipes."""

    def __init__(self, library: str | None):
        self.library = library
        self.ready = False
        self.owner = os.getpid()      # a forked copy of this process must not use or kill it
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        env = dict(os.environ)
        env.pop("XE_OPENCL_WORKER_LIBRARY", None)
        if library:
            env["XE_OPENCL_WORKER_LIBRARY"] = library
        try:
            self.proc = subprocess.Popen(
                [sys.executable, str(WORKER_SCRIPT), str(req_r), str(rep_w), str(os.getpid())],
                pass_fds=(req_r, rep_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env,
                start_new_session=True)   # its own process group: killed as a whole, not hit by Ctrl-C
        except OSError as e:
            os.close(req_w)
            os.close(rep_r)
            raise OpenCLError(f"cannot start the OpenCL build worker ({sys.executable}): {e}; "
                              f"{TIMEOUT_ENV}=0 builds without it (and without a time limit)") from None
        finally:
            os.close(req_r)
            os.close(rep_w)
        self.requests = Connection(req_w, readable=False)
        self.replies = Connection(rep_r, writable=False)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self):
        """Kill the worker's process group, reap it, close the pipes; its exit code."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        code = self.proc.wait()
        for conn in (self.requests, self.replies):
            try:
                conn.close()
            except OSError:
                pass
        return code

    def wait_ready(self):
        if self.ready:
            return
        if not self.replies.poll(STARTUP_SECONDS):
            self.kill()
            raise OpenCLError(f"the OpenCL build worker did not start within {STARTUP_SECONDS:g} s; "
                              f"{TIMEOUT_ENV}=0 builds without it (and without a time limit)")
        try:
            msg = self.replies.recv()
        except (EOFError, OSError):
            raise OpenCLError(f"the OpenCL build worker exited while starting ({_status(self.kill())}); "
                              f"{TIMEOUT_ENV}=0 builds without it (and without a time limit)") from None
        if "error" in msg:
            self.kill()
            raise OpenCLError(f"{msg['error']}; {TIMEOUT_ENV}=0 builds without the worker (and without a time "
                              "limit)")
        self.ready = True


_LOCK = threading.RLock()
_WORKER: _Worker | None = None
_BINARIES: dict = {}            # (spirv hash, device, options) -> device binary


def _worker(library: str | None) -> _Worker:
    """The running worker for `library` (started when there is none or it died)."""
    global _WORKER
    if _WORKER is not None and _WORKER.owner != os.getpid():
        _WORKER = None                # started by the process we were forked from: its worker
    if _WORKER is not None and (not _WORKER.alive() or _WORKER.library != library):
        _WORKER.kill()
        _WORKER = None
    if _WORKER is None:
        _WORKER = _Worker(library)
    return _WORKER


def stop_worker() -> None:
    """Kill the build worker, if any (also registered with atexit)."""
    global _WORKER
    with _LOCK:
        if _WORKER is not None and _WORKER.owner == os.getpid():
            _WORKER.kill()
        _WORKER = None


atexit.register(stop_worker)


def worker_pid() -> int | None:
    """The process id of the running build worker (for tests and diagnostics)."""
    w = _WORKER
    return w.proc.pid if w is not None and w.owner == os.getpid() and w.alive() else None


def prestart(runtime, timeout=None) -> None:
    """Start the worker for `runtime` in the background, unless builds run without a limit.
    Best effort: problems are reported by the build itself."""
    try:
        if build_timeout(timeout) == 0:
            return
        with _LOCK:
            _worker(runtime.library)
    except OpenCLError:
        pass


def _kernels_text(kernels) -> str:
    names = [f"@{k}" for k in kernels] or ["(none)"]
    return f"kernel{'s' if len(names) > 1 else ''} {', '.join(names)}"


def _failed(runtime, message: str) -> OpenCLError:
    return OpenCLError(f"the OpenCL runtime failed to build the SPIR-V module on {runtime.device_name}:\n{message}")


def _build_here(runtime, spirv: bytes, options: str, link=None):
    cl = runtime.cl
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # pyopencl's "non-empty compiler output"
            if link is None:
                return cl.Program(runtime.context, spirv).build(options=options)
            lib = cl.Program(runtime.context, link[0]).compile(options=link[1])
            kernel = cl.Program(runtime.context, spirv).compile(options=options)
            return cl.link_program(runtime.context, [kernel, lib], options=options or None)
    except cl.Error as e:
        raise _failed(runtime, str(e).strip() or type(e).__name__) from None


def _build_in_worker(runtime, spirv: bytes, kernels, limit: float, options: str, link=None) -> bytes:
    global _WORKER
    device = runtime.device
    request = {"spirv": spirv, "platform": device.platform.name.strip(), "device": device.name.strip(),
               "options": options, "link": None if link is None else {"source": link[0], "options": link[1]}}
    what = f"the SPIR-V module of {_kernels_text(kernels)} on {runtime.device_name}"
    with _LOCK:
        try:
            worker = _worker(runtime.library)
            worker.wait_ready()
            try:
                worker.requests.send(request)
            except OSError:       # it died while idle: one fresh worker
                worker.kill()
                worker = _WORKER = _Worker(runtime.library)
                worker.wait_ready()
                worker.requests.send(request)
            if not worker.replies.poll(limit):
                stop_worker()
                raise BuildTimeout(f"building {what} did not finish within {limit:g} s, so the OpenCL compiler was "
                                   f"stopped; {HOW_TO_CHANGE}")
            try:
                reply = worker.replies.recv()
            except (EOFError, OSError):
                status = _status(worker.kill())
                _WORKER = None
                raise OpenCLError(f"the OpenCL compiler crashed ({status}) while building {what}") from None
        except BaseException as e:
            if not isinstance(e, OpenCLError):   # e.g. Ctrl-C while it compiles: never leave it running
                stop_worker()
            raise
    if "binary" in reply:
        return reply["binary"]
    if reply.get("build_failed"):
        raise _failed(runtime, reply["error"])
    raise OpenCLError(f"the OpenCL build worker could not build {what}: {reply['error']}")


def build_program(runtime, spirv: bytes, kernels=(), *, timeout=None, options: str = "", link=None):
    """A built cl.Program of the SPIR-V module `spirv` for `runtime`'s device, compiled within the
    time limit (see the module docstring); `kernels` (the module's entry points) name it in errors;
    `link=(OpenCL C source, its compiler options)` links that library in."""
    cl = runtime.cl
    spirv = bytes(spirv)
    limit = build_timeout(timeout)
    if limit == 0:
        return _build_here(runtime, spirv, options, link)
    device = runtime.device
    key = (hashlib.sha256(spirv).hexdigest(), device.platform.name.strip(), device.name.strip(),
           device.driver_version, options, None if link is None else hashlib.sha256(repr(link).encode()).hexdigest())
    binary = _BINARIES.get(key)
    if binary is None:
        binary = _BINARIES[key] = _build_in_worker(runtime, spirv, kernels, limit, options, link)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return cl.Program(runtime.context, [device], [binary]).build(options=options)
    except cl.Error:
        # the device did not take the binary it produced: the compile is known to finish in time
        _BINARIES.pop(key, None)
        return _build_here(runtime, spirv, options, link)

