"""Run a whole program: the host code JIT-compiled by upstream MLIR's ExecutionEngine, the device
calls, guards and runner utilities as Python callbacks, all in a supervised child (supervise.py).

Exceptions cannot cross the JIT's C frames: a failing kernel, guard or utility flushes stdout,
prints its located error to stderr and ends the process with status 1 (`os._exit`; the parent
raises `HostExit`). C stdio (printMemref*) and Python output are flushed in turn, so stdout shows
them in program order.
"""
from __future__ import annotations

import ctypes
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from mlir import ir

from ...diagnostics import Diagnostic, DiagnosticError, at
from . import runner_utils, supervise
from .device import Device
from .host_lowering import extract_host, lower_host
from .sizes import check_host_types


class ProgramError(DiagnosticError):
    """The program cannot run (bad entry, unknown external function, host code that does not lower)."""


@dataclass
class RunStats:
    seconds: dict = field(default_factory=dict)      # phase -> seconds ("kernels" is part of "run")
    launches: int = 0


def runner_libs() -> list[str]:
    """Upstream's runner-utils libraries shipped with the MLIR bindings wheel."""
    import mlir.ir as mir

    lib = Path(mir.__file__).resolve().parent / "lib"
    return [str(lib / n) for n in ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so") if (lib / n).exists()]


def _exported(libs, symbol) -> bool:
    for path in libs:
        try:
            if hasattr(ctypes.CDLL(path), symbol):
                return True
        except OSError:
            continue
    return symbol in ("malloc", "free", "abort", "puts", "putchar", "printf", "rand", "srand") or \
        hasattr(ctypes.CDLL(None), symbol)


def die(message: str) -> None:
    """Report an error from inside a callback and end the process (status 1)."""
    try:
        runner_utils.flush_c()
        sys.stdout.flush()
        print(message, file=sys.stderr)
        sys.stderr.flush()
    finally:
        os._exit(1)


def _guard(fn, site_loc: str, note=None):
    def call(*raw):
        try:
            if note is not None:
                note()
            fn(*raw)
        except DiagnosticError as e:
            die("\n".join(d.format() for d in e.diagnostics))
        except BaseException as e:
            d = at(site_loc, "error", f"device call failed: {type(e).__name__}: {e}")
            die(d.format())

    return call


def _entry_check(module, entry: str, void_result: bool):
    body = module.body
    for op in body.operations:
        op = op.operation
        if op.name == "func.func" and "sym_name" in op.attributes and \
                ir.StringAttr(op.attributes["sym_name"]).value == entry:
            ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            if not op.regions[0].blocks:
                raise ProgramError([at(op.location, "error", f"@{entry} is a declaration; the entry needs a body")])
            if len(ft.inputs) or (void_result and len(ft.results)):
                raise ProgramError([at(op.location, "error",
                                       f"entry @{entry} has type {ft}; with --entry-point-result=void it must "
                                       "take no arguments and return nothing")])
            return
    names = sorted(ir.StringAttr(o.operation.attributes["sym_name"]).value for o in body.operations
                   if o.operation.name == "func.func" and "sym_name" in o.operation.attributes)
    raise ProgramError([at(module.operation.location, "error",
                           f"no function @{entry} in the program (functions: "
                           f"{', '.join('@' + n for n in names) or 'none'}; choose one with -e NAME)")])


def run_program(module, entry: str = "main", *, program=None, opt_level: int = 2, shared_libs=(),
                trace: bool = False, jobs: int = 1, host_checks: bool = False, timeout: float | None = None,
                supervised: bool = True) -> RunStats:
    """Run `entry` (no arguments, no results) of `module` (our context; kernels in gpu.modules,
    already through any pipeline). `program`: an OpenCL `Program` to run the kernels on (None:
    the simulator, its work-groups in `jobs` processes as `xe-run --jobs`). `host_checks`: upstream's
    runtime verification in the host code; `timeout`: seconds the host may take (lowering, JIT and
    run). The host runs in a supervised child unless `supervised` is False (supervise.py). Returns
    the phase times; an error the program reports itself raises supervise.HostExit."""
    t0 = time.perf_counter()
    _entry_check(module, entry, True)
    check_host_types(module)
    host = extract_host(module, entry)
    loc = _entry_loc(module, entry)
    board = supervise.Board()

    def work():
        return _run(module, host, entry, program=program, opt_level=opt_level, shared_libs=shared_libs,
                    trace=trace, jobs=jobs, host_checks=host_checks, board=board, t0=t0)

    if not supervised or not supervise.available():
        return work()
    return supervise.run(work, board=board, loc=loc, entry=entry, timeout=timeout)


def _entry_loc(module, entry: str) -> str:
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and "sym_name" in op.attributes and \
                ir.StringAttr(op.attributes["sym_name"]).value == entry:
            return str(op.location)
    return ""


def _run(module, host, entry, *, program, opt_level, shared_libs, trace, jobs, host_checks, board, t0) -> RunStats:
    from mlir import execution_engine

    stats = RunStats()
    board.note("lowering the host code to LLVM")
    ctx, llvm_module, guards = lower_host(host, host_checks=host_checks)
    t1 = time.perf_counter()
    stats.seconds["host lowering"] = t1 - t0
    libs = list(dict.fromkeys(runner_libs() + list(shared_libs)))
    device = Device(module, program, trace=trace, jobs=jobs)
    keep = []                                     # callbacks must outlive the engine
    registrations = []

    def noting(what, loc):
        return lambda: board.note(what, loc)

    def check_util_arg(s, what, loc):
        first, nbytes = s.span()
        device.memory.check(s.allocated, first, nbytes, what, loc)

    for name, (loc, inputs, results) in host.externals.items():
        if name in runner_utils.UTILS:
            try:
                cb = runner_utils.make_callback(
                    name, inputs, results, die, before=noting(f"runner utility @{name} (declared here)", loc),
                    check=lambda s, what, loc=loc: check_util_arg(s, what, loc))
            except runner_utils.UtilSignatureError as e:
                raise ProgramError([at(loc, "error", str(e))]) from None
            registrations.append((name, cb))
            continue
        cname = f"_mlir_ciface_{name}" if any(t.kind == "memref" for t in inputs) else name
        if not _exported(libs, cname):
            raise ProgramError([at(loc, "error", f"external function @{name} is neither an xe-run runner utility "
                                                 "nor exported by the runner-utils libraries; the host cannot call "
                                                 "it")])
    methods = {"gpu.launch_func": device.launch, "gpu.memset": device.memset, "gpu.alloc": device.alloc,
               "gpu.dealloc": device.dealloc, "gpu.memcpy": device.memcpy}
    for site in host.sites:
        types = [ctypes.c_void_p if a.kind == "memref" else ctypes.c_int64 if a.kind in ("int", "ptr") else ctypes.c_double
                 for a in site.args]
        if site.result is not None:             # a returned memref: its descriptor's address comes first
            types.insert(0, ctypes.c_void_p)
        fn = (lambda m, s: lambda *raw: m(s, list(raw)))(methods[site.op], site)
        what = f"{site.op} {site.kernel}".strip()
        registrations.append((site.name, ctypes.CFUNCTYPE(None, *types)(_guard(fn, site.loc, noting(what, site.loc)))))
    for g in guards:
        fail = (lambda g: lambda *raw: die(g.message(raw)))(g)
        registrations.append((g.name, ctypes.CFUNCTYPE(None, *[ctypes.c_int64] * g.ndyn)(fail)))
    board.note("JIT-compiling the host code")
    with ctx:
        try:
            engine = execution_engine.ExecutionEngine(llvm_module, opt_level=opt_level, shared_libs=libs)
        except Exception as e:
            raise ProgramError([Diagnostic("error", f"the host code cannot be JIT-compiled: {str(e).strip()}")])
        for name, cb in registrations:
            keep.append(cb)
            engine.register_runtime(name, cb)
        t2 = time.perf_counter()
        stats.seconds["jit"] = t2 - t1
        sys.stdout.flush()
        board.note(f"running @{entry}, before any runtime call")
        try:
            engine.invoke(entry)
        finally:
            runner_utils.flush_c()
            sys.stdout.flush()
        stats.seconds["run"] = time.perf_counter() - t2
    stats.seconds["kernels"] = device.kernel_seconds
    stats.launches = device.launches
    keep.clear()
    return stats
