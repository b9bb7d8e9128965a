"""xe-run's non-simulator backends: `opencl` (the kernels' SPIR-V on an OpenCL device) and `both`
(the simulator and OpenCL on the same inputs, compared with each other).

`run_backend` prints one summary line per backend (and for `both` one agreement line per buffer)
and returns the result that xe-run checks against the CPU reference (OpenCL's) together with the
agreement verdict. The simulator runs on a copy of the inputs, so both backends see the same data.
"""
from __future__ import annotations

import numpy as np

from .opencl import program_for_module, run_opencl
from .opencl_env import load

BACKENDS = ("sim", "opencl", "both")


def compare_results(a, b, labels, in_dtype, k: int, tolerance_type=None):
    """[(label, ok, max_abs, max_rel)] of two results' buffers and returns, with the tolerances of
    the comparison against the CPU reference (exact for integers; `tolerance_type` maps a buffer's
    element type to the output type whose tolerance applies, as xe-run's check does)."""
    from ..sim.reference import compare

    rows = []
    ga = list(a.buffers) + list(a.returns)
    gb = list(b.buffers) + list(b.returns)
    names = list(labels) + [f"result{i}" for i in range(len(a.returns))]
    for lab, x, y in zip(names, ga, gb):
        if not isinstance(x, np.ndarray) or x.ndim == 0:
            continue
        ok, mx, rel = compare(x, y, in_dtype or x.dtype, tolerance_type(x.dtype) if tolerance_type else x.dtype, k=k)
        rows.append((lab, ok, mx, rel))
    return rows


def run_backend(backend: str, module, entry: str, inputs, *, trace: bool = False, labels=(), k: int = 1,
                in_dtype=None, target: str = "portable", build_timeout: float | None = None, tolerance_type=None):
    """Run `entry` with `backend` ("opencl" or "both"); (result, agree). Raises OpenCLError (e.g.
    runtime not installed, or the kernels' build exceeded `build_timeout` seconds) before anything
    runs."""
    from ..sim import simulate

    if backend not in ("opencl", "both"):
        raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    runtime = load()
    program = program_for_module(module, runtime, target, build_timeout=build_timeout)
    sim = None
    if backend == "both":
        sim = simulate(module, entry, [np.array(a, copy=True) for a in inputs], trace=trace)
        if trace and sim.trace is not None:
            print(sim.trace.summary())
        print(f"simulated @{entry} in {sim.seconds:.3f} s")
    run = run_opencl(module, entry, [np.array(a, copy=True) for a in inputs], runtime=runtime, program=program,
                     trace=trace)
    if trace and run.result.trace is not None:
        for r in run.result.trace.launches:
            print(f"  opencl launch {r.kernel} grid={r.grid} block={r.block} ({r.seconds:.4f}s)")
    print(f"ran @{entry} on OpenCL device {run.device} in {run.result.seconds:.3f} s ({run.stats})")
    agree = True
    if sim is not None:
        for lab, ok, mx, rel in compare_results(run.result, sim, labels, in_dtype, k, tolerance_type):
            agree &= ok
            print(f"  sim vs opencl {lab}: max abs diff {mx:.3g}, max rel diff {rel:.3g}  "
                  f"{'agree' if ok else 'DISAGREE'}")
        print("backends agree" if agree else "backends DISAGREE")
    return run.result, agree
