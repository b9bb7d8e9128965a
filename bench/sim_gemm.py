"""Benchmark: simulating a linalg.matmul lowered by our own pipeline to XeGPU (VC mode, and SIMT
mode after xegpu-simt-distribute), printed next to numpy's matmul time for the same GEMM.

    python bench/sim_gemm.py [--size 1024] [--pipeline xe-gemm-to-xegpu]

Issue target: 1024x1024x1024 bf16 -> f32 simulated in under 20 s on the 2-core CI machine.
"""
import argparse
import time

import ml_dtypes
import numpy as np

import xedialects
from gemm_source import gemm_source
from xedialects.passes import run
from xedialects.sim import simulate
from xedialects.sim.reference import compare



def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1024, help="M = N = K (default 1024)")
    ap.add_argument("--pipeline", default="xe-gemm-to-xegpu", help="lowering pipeline (default xe-gemm-to-xegpu)")
    args = ap.parse_args()
    M = N = K = args.size
    rng = np.random.default_rng(0)
    A = rng.uniform(-1, 1, (M, K)).astype(ml_dtypes.bfloat16)
    B = rng.uniform(-1, 1, (K, N)).astype(ml_dtypes.bfloat16)

    t0 = time.perf_counter()
    want = A.astype(np.float32) @ B.astype(np.float32)
    t_np = time.perf_counter() - t0
    print(f"{M}x{N}x{K} bf16 -> f32")
    print(f"  numpy matmul (f32)             {t_np:8.3f} s")

    for mode, extra in (("XeGPU VC", ""), ("XeGPU SIMT", ",xegpu-simt-distribute")):
        module = xedialects.parse(gemm_source(M, N, K), "gemm.mlir")
        t0 = time.perf_counter()
        run(module, f"builtin.module({args.pipeline}{extra})")
        t_lower = time.perf_counter() - t0
        C = np.zeros((M, N), np.float32)
        t0 = time.perf_counter()
        res = simulate(module, "gemm", [A, B, C], trace=True)
        t_sim = time.perf_counter() - t0
        ok, max_abs, _ = compare(res.buffers[2], want, "bf16", "f32", k=K)
        print(f"  {mode:<12} lowering {t_lower:6.2f} s, simulation {t_sim:8.3f} s "
              f"({res.trace.dpas} DPAS, {res.trace.block_loads} block loads) "
              f"{'PASS' if ok else 'FAIL'} max abs err {max_abs:.2e}")


if __name__ == "__main__":
    main()
