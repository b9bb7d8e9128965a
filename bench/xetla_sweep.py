"""Plan sweep against XeTLA (issue 22): for each shape of XeTLA's tuned GEMM table, our default
plan and XeTLA's configuration forced through planner overrides, both predicted by the PVC
performance model (`passes/analysis/perf_model.py`, `work_from_plan`), with a reason per row where
ours loses.

    python bench/xetla_sweep.py            # the table
    python bench/xetla_sweep.py --describe # plus both plans' descriptions
    python bench/xetla_sweep.py --from-ir  # plus the model from the lowered XeGPU of both plans

`--from-ir` lowers each plan's kernel (the plan forced through convert-linalg-to-xetile options)
to VC-mode XeGPU and predicts it from `xe-kernel-report`'s IR counts (`work_from_report`: no tile
reuse known, so it is a pessimistic cross-check of the plan-based columns).

The configurations are the numbers (shape, wg/sg tile, sg_k, global/local k-slicing, swizzle) of
`benchmarks/xetla_kernel/gemm/gemm_config.hpp` in intel/intel-xpu-backend-for-triton (all
bf16 x bf16 -> f32, row-major A and B). XeTLA's prefetch depth is not in that table; its GEMM
default of 3 stages is assumed (`XETLA_PREFETCH`).
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xedialects.arch import get_arch  # noqa: E402
from xedialects.lowering.linalg_to_xetile.gemm_plan import PlanError, plan_gemm  # noqa: E402
from xedialects.passes.analysis.perf_model import predict, work_from_plan  # noqa: E402

XETLA_PREFETCH = 3
# (batch, M, K, N, wg_m, wg_n, sg_m, sg_n, sg_k, global k-slicing, local k-slicing, m_first swizzle)
XETLA = [
    (1, 1024, 1024, 1024, 128, 128, 16, 32, 16, 1, 1, False),
    (1, 2048, 2048, 2048, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 4096, 4096, 4096, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 8192, 8192, 8192, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 1, 5120, 13824, 8, 512, 8, 16, 16, 1, 1, False),
    (1, 4, 4096, 12288, 8, 512, 8, 16, 32, 1, 1, False),
    (1, 512, 8192, 8192, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 512, 8192, 32768, 256, 256, 32, 64, 32, 1, 1, True),
    (1, 512, 32768, 8192, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 1024, 16384, 8192, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 1024, 28672, 8192, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 3072, 4096, 3072, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 4096, 16384, 8192, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 8192, 16384, 1024, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 8192, 16384, 4096, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 16384, 1024, 8192, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 16384, 4096, 8192, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 16384, 8192, 1024, 256, 256, 32, 64, 32, 1, 1, False),
    (1, 16384, 8192, 4096, 256, 256, 32, 64, 32, 1, 1, False),
    (4, 32768, 128, 4096, 256, 256, 32, 64, 32, 1, 1, False),
    (4, 32768, 4096, 128, 256, 256, 32, 64, 32, 1, 1, False),
    (32, 4096, 4096, 128, 64, 128, 16, 16, 32, 1, 1, False),
    (4096, 8, 128, 16384, 8, 512, 8, 16, 16, 1, 1, False),
    (4096, 8, 16384, 128, 8, 512, 8, 16, 32, 1, 1, False),
]
TYPES = ("bf16", "bf16", "f32")
# (M, N, K, C type): small M x N, long K -- where the planner's model picks local k-slicing
LOCAL_SLICING = [(256, 256, 65536, "bf16"), (128, 128, 16384, "bf16"), (256, 256, 16384, "f32")]


def xetla_overrides(row) -> dict:
    b, m, k, n, wm, wn, sm, sn, sk, gk, lk, m_first = row
    ov = {"wg_tile": (wm, wn), "sg_data": (sm, sn), "k_step": sk, "prefetch_distance": XETLA_PREFETCH,
          "k_slices": gk}
    if lk > 1:
        ov["local_k_slices"] = lk
    if m_first:
        ov.update(group_order="swizzle", group_size=max(1, m // wm))
    else:
        ov["group_order"] = "row_major"
    return ov


def plans(row, arch="pvc"):
    b, m, k, n = row[:4]
    ours = plan_gemm(m, n, k, *TYPES, arch=arch, batch=b)
    theirs = plan_gemm(m, n, k, *TYPES, arch=arch, batch=b, overrides=xetla_overrides(row))
    return ours, theirs


def short(plan) -> str:
    s = (f"{plan.wg_tile[0]}x{plan.wg_tile[1]}/{plan.sg_data[0]}x{plan.sg_data[1]}"
         f" k{plan.k_step} pf{plan.prefetch_distance}")
    if plan.k_slices > 1:
        s += f" gk{plan.k_slices}"
    if getattr(plan, "local_k_slices", 1) > 1:
        s += f" lk{plan.local_k_slices}"
    if plan.group_order == "swizzle":
        s += f" sw{plan.group_size}"
    return s


def loss_reason(po, pt, wo, wt) -> str:
    """Why our prediction is lower: the model term that differs most."""
    if po.tflops >= pt.tflops * 0.995:
        return ""
    bits = []
    if po.bound != pt.bound:
        bits.append(f"ours {po.bound}-bound, XeTLA {pt.bound}-bound")
    if po.wave_efficiency < pt.wave_efficiency - 0.01:
        bits.append(f"wave efficiency {po.wave_efficiency:.2f} < {pt.wave_efficiency:.2f}")
    if po.xmx_utilization < pt.xmx_utilization - 0.01:
        bits.append(f"XMX utilization {po.xmx_utilization:.2f} < {pt.xmx_utilization:.2f}")
    if wo.bytes_l2 > wt.bytes_l2 * 1.01:
        bits.append(f"L2 bytes x{wo.bytes_l2 / wt.bytes_l2:.2f}")
    if po.terms["latency"] > pt.terms["latency"] * 1.01:
        bits.append("longer latency term")
    return "; ".join(bits) or "model terms differ slightly"


def rows(arch_name="pvc"):
    arch = get_arch(arch_name)
    out = []
    for row in XETLA:
        b, m, k, n = row[:4]
        ours, theirs = plans(row, arch_name)
        wo, wt = work_from_plan(ours, arch), work_from_plan(theirs, arch)
        po, pt = predict(arch, wo), predict(arch, wt)
        out.append(dict(shape=f"{b}x{m}x{k}x{n}", ours=short(ours), xetla=short(theirs),
                        ours_tflops=po.tflops, xetla_tflops=pt.tflops, ratio=po.tflops / pt.tflops,
                        ours_bound=po.bound, xetla_bound=pt.bound, reason=loss_reason(po, pt, wo, wt),
                        plans=(ours, theirs)))
    return out


def _source(b, m, k, n) -> str:
    if b > 1:
        ta, tb, tc = f"memref<{b}x{m}x{k}xbf16>", f"memref<{b}x{k}x{n}xbf16>", f"memref<{b}x{m}x{n}xf32>"
        op = "linalg.batch_matmul"
    else:
        ta, tb, tc = f"memref<{m}x{k}xbf16>", f"memref<{k}x{n}xbf16>", f"memref<{m}x{n}xf32>"
        op = "linalg.matmul"
    return (f"func.func @g(%A: {ta}, %B: {tb}, %C: {tc}) {{\n  {op} ins(%A, %B : {ta}, {tb}) outs(%C : {tc})\n"
            f"  return\n}}\n")


def ir_tflops(row, plan, arch="pvc") -> float:
    """TFLOP/s the model predicts from the lowered XeGPU of `plan`'s kernel (xe-kernel-report)."""
    import xedialects
    from xedialects.passes import run
    from xedialects.passes.analysis.kernel_report import kernel_report

    b, m, k, n = row[:4]
    lay = plan.sg_layout
    opts = (f"arch={arch} wg-tile={plan.wg_tile[0]}x{plan.wg_tile[1]} sg-layout={lay[0]}x{lay[1]} "
            f"k-step={plan.k_step} prefetch-distance={plan.prefetch_distance} k-slices={plan.k_slices} "
            f"local-k-slices={plan.local_k_slices}")
    mod = xedialects.parse(_source(b, m, k, n), "sweep.mlir")
    run(mod, f"builtin.module(convert-linalg-to-xetile{{{opts}}}, xetile-wg-to-sg, xetile-canonicalize, "
             "xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse)")
    (r,) = kernel_report(mod, arch, from_ir=True)   # the IR counts, not the planner's xe.model
    return 2 * m * n * k * b / r["perf"]["time_s"] / 1e12


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--describe", action="store_true", help="print both plans of every shape")
    ap.add_argument("--arch", default="pvc")
    ap.add_argument("--from-ir", action="store_true", help="also predict from each plan's lowered XeGPU")
    args = ap.parse_args(argv)
    try:
        table = rows(args.arch)
    except (PlanError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    hdr = f"{'shape (BxMxKxN)':<20} {'ours':<34} {'XeTLA':<34} {'ours':>7} {'XeTLA':>7} {'ratio':>6}  reason"
    print("bf16 x bf16 -> f32, TFLOP/s predicted by the PVC model (2 stacks)")
    print(hdr)
    print("-" * len(hdr))
    for row, r in zip(XETLA, table):
        print(f"{r['shape']:<20} {r['ours']:<34} {r['xetla']:<34} {r['ours_tflops']:7.1f} "
              f"{r['xetla_tflops']:7.1f} {r['ratio']:6.2f}  {r['reason'] or '-'}")
        if args.from_ir:
            o, t = (ir_tflops(row, p, args.arch) for p in r["plans"])
            print(f"{'':<20} from the lowered XeGPU (IR counts, no reuse): ours {o:.1f}, XeTLA {t:.1f}")
        if args.describe:
            for p in r["plans"]:
                print(p.describe())
    losses = sum(1 for r in table if r["reason"])
    print(f"\n{len(table)} shapes, ours loses on {losses}")
    print("\nlocal k-slicing (model-chosen for K >= 4 x max(M, N)) against the same plan without it:")
    arch = get_arch(args.arch)
    for m, n, k, c in LOCAL_SLICING:
        on = plan_gemm(m, n, k, "bf16", "bf16", c, arch=args.arch)
        off = plan_gemm(m, n, k, "bf16", "bf16", c, arch=args.arch, overrides={"local_k_slices": 1})
        t_on, t_off = (predict(arch, work_from_plan(p, arch)).tflops for p in (on, off))
        print(f"  {m}x{k}x{n} -> {c:<5} {short(on):<34} {t_on:7.1f}   without: {short(off):<30} {t_off:7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
