"""xe-run: run a program's kernels in the functional simulator and check them against upstream MLIR.

    xe-run FILE [--entry FUNC] [--pipeline NAME|'builtin.module(...)'] [--seed N]
           [--inputs in.npz] [--output out.npz] [--check] [--trace] [--backend sim|opencl|both]
           [--build-timeout SECONDS]

The input is either a host function that launches kernels (`gpu.launch_func`) or a plain linalg
function plus a `--pipeline` that lowers it. Arguments are random (seeded) or read from `--inputs`
(keyed by the argument names of the source, `%A` -> `A`, or by position `arg0`). With `--check`
every buffer after the run is compared with the *original* linalg function compiled for the CPU by
upstream MLIR; exit status 1 on FAIL or on any error. A function on tensors is bufferized first
(`xe-bufferize`) and runs as that memref function; its returned buffer is checked too.

`--backend opencl` runs the kernels' SPIR-V (`convert-xegpu-to-spirv{target=portable}`, applied
here when the pipeline stops at XeGPU) on an OpenCL device, e.g. Intel's OpenCL CPU runtime
(`pip install -e '.[run]'`); the host function is still interpreted. `--backend both` runs the
simulator and OpenCL and also fails when they disagree. The OpenCL build of the SPIR-V is stopped
after `--build-timeout` seconds (default: $XE_OPENCL_BUILD_TIMEOUT, else 120; 0: no limit).
"""
from __future__ import annotations

import argparse
import os
import re
import sys

import numpy as np

from ..diagnostics import DiagnosticError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="xe-run", description=__doc__.split("\n\n")[0])
    p.add_argument("input", help="input .mlir file ('-' for stdin)")
    p.add_argument("--entry", help="host function to run (default: the only host function)")
    p.add_argument("--pipeline", default="", help="pass pipeline applied before running: a registered "
                   "pipeline/pass name or a textual 'builtin.module(...)' pipeline")
    p.add_argument("--seed", type=int, default=0, help="seed for random inputs (default 0)")
    p.add_argument("--inputs", help=".npz file with input arrays keyed by argument name or position")
    p.add_argument("--output", help="write every buffer after the run to this .npz file")
    p.add_argument("--check", action="store_true", help="compare with the CPU result of the original program")
    p.add_argument("--trace", action="store_true", help="print per-op execution counts (DPAS, block IO, bytes)")
    p.add_argument("--backend", default="sim", choices=["sim", "opencl", "both"],
                   help="execution backend: sim (functional simulator, default), opencl (SPIR-V on an OpenCL "
                   "device; pip install -e '.[run]'), both (run both, compare them)")
    p.add_argument("--build-timeout", type=float, metavar="SECONDS",
                   help="stop the OpenCL build of the kernels after this long (default: $XE_OPENCL_BUILD_TIMEOUT, "
                   "else 120; 0: no limit)")
    return p


_SIG = re.compile(r"func\.func\s+(?:private\s+)?@([\w$.]+)\s*\(([^)]*)\)")


def arg_names(source: str, entry: str) -> list[str]:
    """Argument names of `entry` as written in the source (`%A` -> `A`)."""
    for m in _SIG.finditer(source):
        if m.group(1) == entry:
            return [a.split(":")[0].strip().lstrip("%") for a in m.group(2).split(",") if a.strip()]
    return []


def host_functions(module) -> list[str]:
    from mlir import ir

    names = []
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and "sym_visibility" not in op.attributes:
            names.append(ir.StringAttr(op.attributes["sym_name"]).value)
    return names


def random_inputs(types, rng):
    arrays = []
    for i, t in enumerate(types):
        if t.kind != "memref":
            raise ValueError(f"argument {i}: only memref arguments can be generated; pass --inputs")
        shape = tuple(int(d) for d in t.shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"argument {i} has a dynamic shape ({t.text}); give its array with --inputs")
        if t.dtype.kind in "iu":
            arrays.append(rng.integers(-4, 5, shape).astype(t.dtype))
        else:
            arrays.append(rng.uniform(-1, 1, shape).astype(np.float32).astype(t.dtype))
    return arrays


def _narrowest_float(types):
    """The lowest-precision float element type among the arguments (the GEMM input type that sets
    the comparison tolerance), or None."""
    import ml_dtypes

    floats = [t.dtype for t in types if t.dtype is not None and np.dtype(t.dtype).kind in "fV"]
    return min(floats, key=lambda d: ml_dtypes.finfo(d).nmant, default=None)


def load_inputs(path, names, types):
    data = np.load(path)
    arrays = []
    for i, t in enumerate(types):
        key = names[i] if i < len(names) and names[i] in data else f"arg{i}" if f"arg{i}" in data else str(i)
        if key not in data:
            raise ValueError(f"{path}: no array for argument {i} ('{names[i] if i < len(names) else i}'); "
                             f"keys are {', '.join(data.files)}")
        arrays.append(data[key].astype(t.dtype) if t.dtype is not None else data[key])
    return arrays


def run(argv=None) -> int:
    from .. import parse
    from ..sim import simulate
    from ..sim.reference import compare, run_reference
    from ..sim.typeinfo import parse_type

    args = _parser().parse_args(argv)
    name = "<stdin>" if args.input == "-" else args.input
    try:
        source = sys.stdin.read() if args.input == "-" else open(args.input, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"xe-run: error: cannot read {name}: {e}", file=sys.stderr)
        return 1
    module = parse(source, name)
    hosts = host_functions(module)
    entry = args.entry or (hosts[0] if len(hosts) == 1 else None)
    if entry is None:
        print(f"xe-run: error: {name} has host functions {', '.join('@' + h for h in hosts) or '(none)'}; "
              "choose one with --entry", file=sys.stderr)
        return 1
    if entry not in hosts:
        print(f"xe-run: error: no host function @{entry} in {name}", file=sys.stderr)
        return 1
    if args.backend != "sim":
        from ..runtime.opencl_build import build_timeout, prestart
        from ..runtime.opencl_env import OpenCLError, load

        try:
            build_timeout(args.build_timeout)
        except OpenCLError as e:
            where = "" if args.build_timeout is None else f"--build-timeout {args.build_timeout:g}: "
            print(f"xe-run: error: {where}{e}", file=sys.stderr)
            return 1
        try:   # no runtime: say so before lowering; else the build worker starts while we lower
            prestart(load(), args.build_timeout)
        except OpenCLError as e:
            print(f"xe-run: error: {e}", file=sys.stderr)
            return 1
    from mlir import ir

    def entry_type():
        fop = next(op.operation for op in module.body.operations if op.operation.name == "func.func" and
                   ir.StringAttr(op.operation.attributes["sym_name"]).value == entry)
        return ir.FunctionType(ir.TypeAttr(fop.attributes["function_type"]).value)

    reference_program = source
    if "tensor<" in str(entry_type()):
        # a tensor program runs (and is checked) as its bufferized form: memref arguments, the
        # result tensor becomes a returned buffer
        from ..passes import run as run_pipeline

        run_pipeline(module, "builtin.module(xe-bufferize)")
        reference_program = module
    ftype = entry_type()
    types = [parse_type(t) for t in ftype.inputs]
    ret_types = [parse_type(t) for t in ftype.results]
    names = arg_names(source, entry)
    try:
        inputs = load_inputs(args.inputs, names, types) if args.inputs else \
            random_inputs(types, np.random.default_rng(args.seed))
    except (ValueError, OSError) as e:
        print(f"xe-run: error: {e}", file=sys.stderr)
        return 1
    reference = None
    if args.check:
        reference, ref_returns = run_reference(reference_program, entry, inputs, returns=True)
    if args.pipeline:
        from ..passes import run as run_pipeline

        pipeline = args.pipeline if "(" in args.pipeline else f"builtin.module({args.pipeline})"
        run_pipeline(module, pipeline)
    labels = [names[i] if i < len(names) else f"arg{i}" for i in range(len(types))]
    k = max((max(np.shape(a)) for a in inputs if np.ndim(a)), default=1)
    agree = True
    if args.backend == "sim":
        result = simulate(module, entry, inputs, trace=args.trace)
    else:
        from ..runtime.backends import run_backend
        from ..runtime.opencl_env import OpenCLError

        try:
            result, agree = run_backend(args.backend, module, entry, inputs, trace=args.trace, labels=labels, k=k,
                                        in_dtype=_narrowest_float(types), build_timeout=args.build_timeout)
        except OpenCLError as e:
            print(f"xe-run: error: {e}", file=sys.stderr)
            return 1
    ret_labels = [f"result{i}" for i in range(len(result.returns))]
    if args.output:
        np.savez(args.output, **{lab: np.asarray(b) for lab, b in zip(labels + ret_labels,
                                                                     list(result.buffers) + list(result.returns))})
    if args.backend == "sim":   # the other backends print their own summaries
        if args.trace and result.trace is not None:
            print(result.trace.summary())
        print(f"simulated @{entry} in {result.seconds:.3f} s")
    if reference is None:
        return 0 if agree else 1
    ok_all = agree
    checks = list(zip(labels, result.buffers, reference, types))
    checks += list(zip(ret_labels, result.returns, ref_returns, ret_types))
    for lab, got, want, t in checks:
        ok, mx, rel = compare(got, want, _narrowest_float(types) or t.dtype, t.dtype, k=k)
        ok_all &= ok
        print(f"  {lab}: max abs error {mx:.3g}, max rel error {rel:.3g}  {'ok' if ok else 'MISMATCH'}")
    print("PASS" if ok_all else "FAIL")
    return 0 if ok_all else 1


def main(argv=None) -> int:
    try:
        return run(argv)
    except DiagnosticError as e:
        for d in e.diagnostics:
            print(d.format(), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # never a traceback for users
        if os.environ.get("XE_RUN_DEBUG"):
            raise
        print(f"xe-run: internal error: {type(e).__name__}: {e} (set XE_RUN_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
