"""Benchmark: simulating a linalg.matmul lowered by our own pipeline to XeGPU (VC mode, and SIMT
mode after xegpu-simt-distribute), printed next to numpy's matmul time for the same GEMM.

    python bench/sim_gemm.py [--size 1024] [--pipeline xe-gemm-to-xegpu]
    python bench/sim_gemm.py --size 4096 --scaling-only [--jobs N] [--sample-groups K]

Prints the simulation time and its ratio to numpy, and the share of the multiply-accumulate
model (docs/numerics.md) next to what a plain f32 BLAS product of the same operands takes (the
model before it became BLAS-independent). Reference, 2-core machine: VC mode 0.34 s before the
model, at most 1.5x that after.

Then the scaling section (VC mode, docs/simulator-scaling.md): the full simulation serially
(one batch, --jobs 1), in parallel (--jobs, default the cores) and on a sample of work-groups,
each with its ratio to numpy, whether serial and parallel are bit-identical, and the sampled
elements' check against numpy. The load average and the CPU seconds (this process and its workers)
are printed: wall times on a shared machine vary. Reference, 2 cores nearly idle, 4096^3: serial
28.7 s, --jobs 2 10.1 s, 8 sampled work-groups 0.73 s, numpy 0.37 s (docs/simulator-scaling.md).
"""
import argparse
import os
import resource
import time

import ml_dtypes
import numpy as np

import xedialects
from gemm_source import gemm_source
from xedialects.passes import run
from xedialects.sim import numerics, simulate
from xedialects.sim.ops import xegpu, xetile
from xedialects.sim.parallel import Scheduler, default_jobs
from xedialects.sim.reference import compare


class ModelTimer:
    """Times the model (numerics.operand + numerics.multiply_accumulate as the simulator calls
    them) and, on the same operands, a plain f32 BLAS product (the model before)."""

    def __init__(self):
        self.model = self.blas = 0.0
        self.calls = 0

    def operand(self, *args, **kw):
        t0 = time.perf_counter()
        r = numerics.operand(*args, **kw)
        self.model += time.perf_counter() - t0
        return r

    def multiply_accumulate(self, a, b, acc, out_dtype, *args, **kw):
        t0 = time.perf_counter()
        r = numerics.multiply_accumulate(a, b, acc, out_dtype, *args, **kw)
        t1 = time.perf_counter()
        x, y = (v.values if isinstance(v, numerics.Operand) else v for v in (a, b))
        if not kw.get("spec") and x.dtype.kind not in "iu":
            p = np.matmul(x.astype(np.float32), y.astype(np.float32))
            (p if acc is None else p + acc).astype(out_dtype)
        self.model += t1 - t0
        self.blas += time.perf_counter() - t1
        self.calls += 1
        return r


def use_model(operand, multiply_accumulate):
    """Point the xetile (tile_mma) and xegpu (dpas) handlers at these model functions."""
    xetile.multiply_accumulate = multiply_accumulate
    xegpu.operand, xegpu.multiply_accumulate = operand, multiply_accumulate


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1024, help="M = N = K (default 1024)")
    ap.add_argument("--pipeline", default="xe-gemm-to-xegpu", help="lowering pipeline (default xe-gemm-to-xegpu)")
    ap.add_argument("--jobs", type=int, default=default_jobs(), help="processes of the parallel run (default: cores)")
    ap.add_argument("--sample-groups", type=int, default=8, help="work-groups of the sampled run (default 8)")
    ap.add_argument("--scaling-only", action="store_true", help="only the scaling section (serial/parallel/sampled)")
    args = ap.parse_args()
    M = N = K = args.size
    rng = np.random.default_rng(0)
    A = rng.uniform(-1, 1, (M, K)).astype(ml_dtypes.bfloat16)
    B = rng.uniform(-1, 1, (K, N)).astype(ml_dtypes.bfloat16)

    t_np = float("inf")
    for _ in range(3):  # best of 3: the first call also starts BLAS threads
        t0 = time.perf_counter()
        want = A.astype(np.float32) @ B.astype(np.float32)
        t_np = min(t_np, time.perf_counter() - t0)
    print(f"{M}x{N}x{K} bf16 -> f32")
    print(f"  numpy matmul (f32)             {t_np:8.3f} s")

    for mode, extra in () if args.scaling_only else (("XeGPU VC", ""), ("XeGPU SIMT", ",xegpu-simt-distribute")):
        module = xedialects.parse(gemm_source(M, N, K), "gemm.mlir")
        t0 = time.perf_counter()
        run(module, f"builtin.module({args.pipeline}{extra})")
        t_lower = time.perf_counter() - t0
        C = np.zeros((M, N), np.float32)
        t0 = time.perf_counter()
        res = simulate(module, "gemm", [A, B, C], trace=True)
        t_sim = time.perf_counter() - t0
        ok, max_abs, _ = compare(res.buffers[2], want, "bf16", "f32", k=K)
        print(f"  {mode:<12} lowering {t_lower:6.2f} s, simulation {t_sim:8.3f} s = {t_sim / t_np:6.1f}x numpy "
              f"({res.trace.dpas} DPAS, {res.trace.block_loads} block loads) "
              f"{'PASS' if ok else 'FAIL'} max abs err {max_abs:.2e}")
        timer = ModelTimer()
        use_model(timer.operand, timer.multiply_accumulate)
        try:
            simulate(module, "gemm", [A, B, np.zeros((M, N), np.float32)])
        finally:
            use_model(numerics.operand, numerics.multiply_accumulate)
        print(f"  {'':<12} multiply-accumulate model {timer.model:6.3f} s in {timer.calls} calls "
              f"(plain f32 BLAS on the same operands: {timer.blas:6.3f} s)")
    scaling(args, A, B, want, t_np)


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the parallel run's workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def scaling(args, A, B, want, t_np):
    """Full serial, full parallel and sampled simulation of the VC-mode GEMM."""
    M, K = A.shape
    N = B.shape[1]
    module = xedialects.parse(gemm_source(M, N, K), "gemm.mlir")
    run(module, f"builtin.module({args.pipeline})")
    print(f"  scaling, XeGPU VC ({os.cpu_count()} cores, {_load()})")
    out = {}
    for label, sched in (("serial (--jobs 1)", Scheduler(jobs=1)),
                         (f"parallel (--jobs {args.jobs})", Scheduler(jobs=args.jobs)),
                         (f"sampled ({args.sample_groups} wg, --jobs {args.jobs})",
                          Scheduler(jobs=args.jobs, sample=args.sample_groups))):
        t0, c0 = time.perf_counter(), _cpu()
        res = simulate(module, "gemm", [A, B, np.zeros((M, N), np.float32)], launcher=sched)
        t, cpu = time.perf_counter() - t0, _cpu() - c0
        C = res.buffers[2]
        if sched.sample:
            m = sched.written_mask("arg2").reshape(M, N)
            ok = compare(C[m], want[m], "bf16", "f32", k=K)[0]
            note = (f"{sched.groups_run} of {sched.groups_total} work-groups, {int(m.sum())} elements "
                    f"{'PASS' if ok else 'FAIL'}")
        else:
            out[label] = C
            note = f"{sched.modes[0]}, {'PASS' if compare(C, want, 'bf16', 'f32', k=K)[0] else 'FAIL'}"
        print(f"  {label:<28} {t:8.3f} s = {t / t_np:7.1f}x numpy, CPU {cpu:7.2f} s  ({note})")
    a, b = out.values()
    print(f"  serial and parallel results bit-identical: {np.array_equal(a.view(np.uint32), b.view(np.uint32))}"
          f"  ({_load()})")


if __name__ == "__main__":
    main()
