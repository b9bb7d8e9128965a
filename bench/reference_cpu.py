"""Benchmark: the CPU reference of `xe-run --check` on bf16 -> f32 GEMMs (docs/simulator-scaling.md
"The CPU reference"). For each size: compile and run time of the fast path (tiled, vectorized,
`--jobs` row blocks on threads), of a sampled check's blocks (the elements of 8 work-groups of
256 x 256), and with `--loops` of the scalar loops it replaced (slow: ~95 s at 2048^3).

    python bench/reference_cpu.py [--sizes 512,1024,2048] [--jobs 2] [--loops]
"""
import argparse
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xedialects.sim import reference, reference_fast  # noqa: E402
from xedialects.sim.reference import run_reference  # noqa: E402


def gemm(n: int) -> str:
    t = f"memref<{n}x{n}xbf16>"
    return (f"func.func @gemm(%A: {t}, %B: {t}, %C: memref<{n}x{n}xf32>) {{\n"
            f"  linalg.matmul ins(%A, %B : {t}, {t}) outs(%C : memref<{n}x{n}xf32>)\n  return\n}}\n")


def timed(text, args, **kw):
    reference._ENGINE_CACHE.clear()
    t0 = time.perf_counter()
    reference.prepare(text, "gemm")
    t1 = time.perf_counter()
    out = run_reference(text, "gemm", args, **kw)
    return t1 - t0, time.perf_counter() - t1, out


def sample_mask(n: int) -> np.ndarray:
    """The output elements of 8 work-groups of 256 x 256 (the corners and four inside)."""
    mask = np.zeros((n, n), bool)
    t = min(256, n)
    for r, c in [(0, 0), (0, n - t), (n - t, 0), (n - t, n - t), (n // 4, n // 2), (n // 2, n // 4),
                 (n // 2, n // 2), (3 * n // 4, n // 4)]:
        mask[r:r + t, c:c + t] = True
    return mask.reshape(-1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="512,1024,2048")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--loops", action="store_true", help="also time the scalar loops (slow)")
    a = ap.parse_args()
    print(f"{'n':>6} {'path':<22} {'compile s':>10} {'run s':>8} {'GFLOP/s':>8}")
    for n in (int(s) for s in a.sizes.split(",")):
        rng = np.random.default_rng(0)
        args = [rng.uniform(-1, 1, (n, n)).astype(ml_dtypes.bfloat16) for _ in range(2)]
        args.append(rng.uniform(-1, 1, (n, n)).astype(np.float32))
        text = gemm(n)
        rows = [("fast, 1 thread", {}), (f"fast, {a.jobs} threads", {"jobs": a.jobs}),
                ("fast, 8-group sample", {"checked": {2: sample_mask(n)}})]
        if a.jobs < 2:
            rows.pop(1)
        results = {}
        for name, kw in rows:
            if "jobs" in kw:     # the row blocks run at every size here, not only above the threshold
                saved, reference._PARALLEL_MIN_ELEMENTS = reference._PARALLEL_MIN_ELEMENTS, 1
            c, r, out = timed(text, args, **kw)
            if "jobs" in kw:
                reference._PARALLEL_MIN_ELEMENTS = saved
            results[name] = out[2]
            gflops = 2 * n ** 3 / r / 1e9 if "checked" not in kw else float("nan")
            print(f"{n:>6} {name:<22} {c:>10.2f} {r:>8.2f} {gflops:>8.1f}")
        if a.loops:
            saved, reference_fast.MIN_POINTS = reference_fast.MIN_POINTS, 1 << 62
            c, r, out = timed(text, args)
            reference_fast.MIN_POINTS = saved
            print(f"{n:>6} {'scalar loops':<22} {c:>10.2f} {r:>8.2f} {2 * n ** 3 / r / 1e9:>8.1f}")
        one = results["fast, 1 thread"]
        assert all(np.array_equal(one, v) for k, v in results.items() if "sample" not in k)
        m = sample_mask(n)
        assert np.array_equal(one.reshape(-1)[m], results["fast, 8-group sample"].reshape(-1)[m])
    return 0


if __name__ == "__main__":
    sys.exit(main())
