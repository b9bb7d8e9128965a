"""Calibration table of the performance model (xedialects/passes/analysis/perf_model.py) for PVC
and BMG: the model's prediction against public figures, with the error in percent.

    python bench/perf_model_calibration.py

Sources: [ALCF] docs.alcf.anl.gov/aurora/node-performance-overview (one tile = one stack of a
Max 1550); the oneMKL GEMM figure is the one quoted by issue 22 (from the same ALCF page).
XeTLA / sycl-tla GEMM figures are not included: no figure could be confirmed.
BMG (Arc B580): only specification figures could be confirmed -- [INTEL] Intel's B580 launch
figure 233 peak TOPS INT8, [TPU] TechPowerUp's FP32/FP16/FP64 peaks at 2670 MHz, [ARK] 456 GB/s.
No measured B580 GEMM or STREAM figure was found, so BMG's xmx_efficiency and sustained
bandwidth are assumptions (arch/bmg.py) and the 4096^3 prediction is printed without a reference.
"""
import xedialects  # noqa: F401 - registers the dialects
from xedialects.arch import get_arch
from xedialects.lowering.linalg_to_xetile.gemm_plan import plan_gemm
from xedialects.passes.analysis.perf_model import predict, work_from_plan


def rows_pvc():
    pvc = get_arch("pvc")
    pf = pvc.perf
    cores1 = pvc.xe_cores // int(pf.stacks.value)
    clk = pvc.clock_mhz * 1e6
    plan = plan_gemm(8192, 8192, 8192, "bf16", "bf16", "f32", arch=pvc)
    gemm = predict(pvc, work_from_plan(plan, pvc), stacks=1)
    vec = dict(pvc.peak.vector_ops_per_clk)
    rows = [
        ("oneMKL bf16 GEMM 8192^3, 1 stack", "TFLOP/s", 273.0, gemm.tflops,
         "[ALCF] via issue 22 (fitted: sets xmx_efficiency)", f"bound {gemm.bound}, plan wg {plan.wg_tile}"),
        ("f32 FMA chain, 1 stack", "TFLOP/s", 23.0, cores1 * vec["f32"] * clk / 1e12,
         "[ALCF] micro-benchmarks", "vector-engine rate"),
        ("f64 FMA chain, 1 stack", "TFLOP/s", 17.0, cores1 * vec["f64"] * clk / 1e12,
         "[ALCF] micro-benchmarks", "vector-engine rate"),
        ("STREAM triad, 1 stack", "TB/s", 1.0, pf.hbm_gbs_per_stack.value / 1e3,
         "[ALCF] micro-benchmarks (sets hbm_gbs_per_stack)", "HBM term"),
        ("bf16 XMX peak, 2 stacks", "TFLOP/s", 128 * 4096 * 1.6e9 / 1e12, pvc.peak_tflops("bf16"),
         "issue 22 text: 128 Xe-cores x 4096 x 1.6 GHz", "spec, not a measurement"),
    ]
    return rows, gemm


def rows_bmg():
    bmg = get_arch("bmg")
    clk = bmg.clock_mhz * 1e6
    vec = dict(bmg.peak.vector_ops_per_clk)
    plan = plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32", arch=bmg)
    gemm = predict(bmg, work_from_plan(plan, bmg))
    rows = [
        ("B580 INT8 XMX peak", "TOP/s", 233.0, bmg.peak_tflops("s8"),
         "[INTEL] launch figure", f"model clock {bmg.clock_mhz} MHz ([ARK]); 233 implies ~2.85 GHz"),
        ("B580 FP32 vector peak", "TFLOP/s", 13.67, bmg.xe_cores * vec["f32"] * clk / 1e12, "[TPU]", "spec"),
        ("B580 FP16 vector peak", "TFLOP/s", 27.34, bmg.xe_cores * vec["f16"] * clk / 1e12, "[TPU]", "spec"),
        ("B580 FP64 vector peak", "TFLOP/s", 1.709, bmg.xe_cores * vec["f64"] * clk / 1e12, "[TPU]", "1:8"),
        ("B580 GDDR6 bandwidth (peak)", "GB/s", 456.0, bmg.perf.hbm_gbs_per_stack.value,
         "[ARK] spec", "model: sustained = 0.8 x peak, assumed"),
    ]
    return rows, gemm, plan


def _table(rows):
    print(f"{'point':36} {'unit':8} {'published':>10} {'model':>10} {'error':>8}  source / note")
    for name, unit, pub, model, src, note in rows:
        err = 100.0 * (model - pub) / pub
        print(f"{name:36} {unit:8} {pub:10.1f} {model:10.1f} {err:+7.1f}%  {src}; {note}")


def main():
    rows, gemm = rows_pvc()
    print("== pvc (Max 1550)")
    _table(rows)
    print()
    print("constants:")
    for name, value, unit, src in gemm.constants:
        print(f"  {name} = {value:g} {unit} -- {src}")
    print("not included: XeTLA and sycl-tla published GEMM figures (not confirmed from a public source here)")
    print()
    rows, gemm, plan = rows_bmg()
    print("== bmg (Arc B580)")
    _table(rows)
    print(f"prediction without a published reference: bf16 GEMM 4096^3 {gemm.tflops:.1f} TFLOP/s, "
          f"bound {gemm.bound}, plan wg {plan.wg_tile} ({plan.group_order}), "
          f"{gemm.tflops / get_arch('bmg').peak_tflops('bf16'):.0%} of the bf16 XMX peak")
    print("not included: measured B580 GEMM / STREAM figures (none confirmed from a public source here)")


if __name__ == "__main__":
    main()
