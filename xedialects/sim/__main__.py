"""Command line for the simulator: `python -m xedialects.sim FILE.mlir [--entry main] [--trace]
[--reference FUNC] [--zero 2] [--seed 0]`.

Runs the host function with random inputs matching its memref arguments (arguments listed by
--zero start as zeros), prints diagnostics on failure, the --trace statistics, and with
--reference compares every memref argument after the run against the upstream-MLIR CPU run of
the named linalg function on the same inputs. Exit status 1 on errors or mismatches.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from ..diagnostics import DiagnosticError


def _inputs(types, zero, rng):
    arrays = []
    for i, t in enumerate(types):
        if t.kind == "memref":
            shape = tuple(int(d) for d in t.shape)
            if any(d < 0 for d in shape):
                raise SystemExit(f"argument {i} has a dynamic shape ({t.text}); not supported by the CLI")
            if i in zero:
                arrays.append(np.zeros(shape, t.dtype))
            elif t.dtype.kind in "iu":
                arrays.append(rng.integers(-4, 5, shape).astype(t.dtype))
            elif t.dtype.kind == "b":
                arrays.append(rng.integers(0, 2, shape).astype(bool))
            else:
                arrays.append(rng.standard_normal(shape).astype(np.float32).astype(t.dtype))
        else:
            arrays.append(np.zeros((), t.dtype) if t.dtype is not None else 0)
    return arrays


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m xedialects.sim", description=__doc__.split("\n\n")[0])
    p.add_argument("file")
    p.add_argument("--entry", default="main")
    p.add_argument("--trace", action="store_true", help="print execution statistics")
    p.add_argument("--reference", help="linalg host function to compare against")
    p.add_argument("--zero", default="", help="comma-separated argument positions initialised to zero")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--k", type=int, default=None, help="reduction length for comparison tolerances")
    a = p.parse_args(argv)

    from . import _entry_arg_types, simulate
    from .reference import compare, run_reference
    from .testing import parse_module

    text = open(a.file).read() if a.file != "-" else sys.stdin.read()
    try:
        mod = parse_module(text)  # readable or generic
        types = _entry_arg_types(mod, a.entry)[0]
        zero = {int(x) for x in a.zero.split(",") if x.strip()}
        args = _inputs(types, zero, np.random.default_rng(a.seed))
        t0 = time.perf_counter()
        res = simulate(mod, a.entry, args, trace=a.trace)
        print(f"simulated @{a.entry} in {time.perf_counter() - t0:.3f}s")
        if a.trace:
            print(res.trace.summary())
        status = 0
        if a.reference:
            ref = run_reference(mod, a.reference, args)
            for i, (t, out, r) in enumerate(zip(types, res.buffers, ref)):
                if t.kind != "memref":
                    continue
                ein = types[0].elem if types and types[0].kind == "memref" else t.elem
                ok, mx, rel = compare(out, r, ein, t.elem, k=a.k)
                print(f"arg {i} ({t.text}): {'ok' if ok else 'MISMATCH'} max_abs={mx:.3g} max_rel={rel:.3g}")
                status |= 0 if ok else 1
        return status
    except DiagnosticError as e:
        for d in e.diagnostics:
            print(d.format(), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
