"""Benchmark: one bf16 GEMM lowered by our pipeline, run three ways -- the portable SPIR-V on the
OpenCL CPU runtime (`xe-run --backend=opencl`), the functional simulator on the same kernels at
XeGPU level, and numpy's matmul -- with the time of each and their agreement.

    python bench/opencl_vs_sim.py [--size 512]

Needs the `run` extra (`pip install -e '.[run]'`); without it the OpenCL line says why.
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
    ap.add_argument("--size", type=int, default=512, help="M = N = K (default 512)")
    args = ap.parse_args()
    M = N = K = args.size
    rng = np.random.default_rng(0)
    A = rng.uniform(-1, 1, (M, K)).astype(ml_dtypes.bfloat16)
    B = rng.uniform(-1, 1, (K, N)).astype(ml_dtypes.bfloat16)
    C = np.zeros((M, N), np.float32)
    print(f"{M}x{N}x{K} bf16 -> f32")

    t0 = time.perf_counter()
    want = A.astype(np.float32) @ B.astype(np.float32)
    print(f"  numpy matmul (f32):            {time.perf_counter() - t0:8.3f} s")

    src = gemm_source(M, N, K)
    xegpu = xedialects.parse(src, "gemm.mlir")
    run(xegpu, "builtin.module(xe-gemm-to-xegpu)")
    sim = simulate(xegpu, "gemm", [A, B, C.copy()])
    ok, mx, _ = compare(sim.buffers[2], want, "bf16", "f32", k=K)
    print(f"  simulator (XeGPU VC):          {sim.seconds:8.3f} s   max abs err {mx:.3g} {'PASS' if ok else 'FAIL'}")

    try:
        from xedialects.runtime.opencl import OpenCLError, run_opencl
        spv = xedialects.parse(src, "gemm.mlir")
        run(spv, "builtin.module(xe-gemm-to-spirv-portable)")
        t0 = time.perf_counter()
        res = run_opencl(spv, "gemm", [A, B, C.copy()])
        total = time.perf_counter() - t0
    except (ImportError, OpenCLError) as e:
        print(f"  OpenCL CPU runtime:            unavailable ({e})")
        return
    ok, mx, _ = compare(res.result.buffers[2], want, "bf16", "f32", k=K)
    print(f"  OpenCL (portable SPIR-V):      {total:8.3f} s   max abs err {mx:.3g} {'PASS' if ok else 'FAIL'}")
    print(f"      device {res.device}: {res.stats}")


if __name__ == "__main__":
    main()
