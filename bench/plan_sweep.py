"""Benchmark table: the GEMM planner's choices over a sweep of shapes and types (pipeline role:
shows what `convert-linalg-to-xetile` would generate for each problem).

    python bench/plan_sweep.py              # the table
    python bench/plan_sweep.py --describe   # plus every plan's full description and reasons

Each row: work-group tile, subgroup layout and C tile, K step, prefetch distance and cooperative
prefetch maps, split-K (k_sl; "/L4": 4 local k-slices per work-group), launch grid (x = N tiles, y = M tiles, z = batch x k-slices), work-groups
per Xe-core, GRF mode, group order, and a roofline lower bound (max of compute at the DPAS peak
and compulsory HBM traffic) from the arch table.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xedialects.arch import elem_bytes, get_arch  # noqa: E402
from xedialects.lowering.linalg_to_xetile.gemm_plan import plan_gemm  # noqa: E402

# (label, M, N, K, a, b, c, kwargs)
SWEEP = [
    ("4096^3 bf16 (appendix 2.1)", 4096, 4096, 4096, "bf16", "bf16", "f32", {}),
    ("1024^3 bf16", 1024, 1024, 1024, "bf16", "bf16", "f32", {}),
    ("1000^3 bf16 (unaligned)", 1000, 1000, 1000, "bf16", "bf16", "f32", {}),
    ("1x4096x4096 bf16 (GEMV)", 1, 4096, 4096, "bf16", "bf16", "f32", {}),
    ("4096x7x64 bf16", 4096, 7, 64, "bf16", "bf16", "f32", {}),
    ("256x256x65536 bf16 (tall K)", 256, 256, 65536, "bf16", "bf16", "f32", {}),
    ("512^3 f32 (tf32)", 512, 512, 512, "f32", "f32", "f32", {}),
    ("2048^3 i8 -> i32", 2048, 2048, 2048, "i8", "i8", "i32", {}),
    ("4096^3 f16 -> f16", 4096, 4096, 4096, "f16", "f16", "f16", {}),
    ("8192^3 bf16 (group remap)", 8192, 8192, 8192, "bf16", "bf16", "f32", {}),
    ("8 x 512^3 bf16 (batched)", 512, 512, 512, "bf16", "bf16", "f32", {"batch": 8}),
    ("2048^3 bf16, B transposed", 2048, 2048, 2048, "bf16", "bf16", "f32", {"transpose_b": True}),
    ("128x128x16384 bf16 -> bf16 (local k)", 128, 128, 16384, "bf16", "bf16", "bf16", {}),
    ("?x?x? bf16 (dynamic)", None, None, None, "bf16", "bf16", "f32", {}),
]


def _pair(p):
    return f"{p[0]}x{p[1]}"


def _map(m):
    return f"{_pair(m[0])}:{_pair(m[1])}"


def roofline_us(plan, arch):
    M, N, K = plan.planned_mnk
    ab = "tf32" if plan.a_type == "f32" else plan.a_type
    flops = 2.0 * M * N * K * plan.batch
    t_c = flops / (arch.peak_tflops(ab) * 1e12)
    nbytes = plan.batch * (M * K * elem_bytes(plan.a_type) + K * N * elem_bytes(plan.b_type)
                           + M * N * elem_bytes(plan.c_type) * (2 if plan.k_slices == 1 else 1))
    t_m = nbytes / (arch.mem_bandwidth_gbs * 1e9)
    return max(t_c, t_m) * 1e6, "compute" if t_c >= t_m else "memory"


def rows(arch_name="pvc"):
    arch = get_arch(arch_name)
    out = []
    for label, M, N, K, a, b, c, kw in SWEEP:
        p = plan_gemm(M, N, K, a, b, c, arch=arch_name, **kw)
        us, bound = roofline_us(p, arch)
        out.append((label, p, us, bound))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="pvc")
    ap.add_argument("--describe", action="store_true", help="print each plan's full description")
    args = ap.parse_args(argv)
    arch = get_arch(args.arch)
    print(arch.summary())
    print()
    hdr = ("problem", "wg_tile", "sg_lay", "sg_data", "k_step", "pf", "A prefetch", "B prefetch",
           "k_sl", "grid x,y,z", "WGs/core", "GRF", "order", "roofline")
    table = []
    results = rows(args.arch)
    for label, p, us, bound in results:
        order = p.group_order if p.group_order == "row_major" else f"swizzle/{p.group_size}"
        table.append((label, _pair(p.wg_tile), _pair(p.sg_layout), _pair(p.sg_data), str(p.k_step),
                      str(p.prefetch_distance), _map(p.a_prefetch_map), _map(p.b_prefetch_map),
                      str(p.k_slices) + (f"/L{p.local_k_slices}" if p.local_k_slices > 1 else ""),
                      ",".join(map(str, p.grid)),
                      f"{p.num_work_groups / arch.xe_cores:.2f}", p.grf_mode, order,
                      f"{us:9.1f} us {bound}"))
    widths = [max(len(r[i]) for r in table + [hdr]) for i in range(len(hdr))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    print(fmt.format(*hdr))
    print(fmt.format(*("-" * w for w in widths)))
    for r in table:
        print(fmt.format(*r))
    if args.describe:
        for label, p, _, _ in results:
            print()
            print(f"== {label}")
            print(p.describe())
    return 0


if __name__ == "__main__":
    sys.exit(main())
