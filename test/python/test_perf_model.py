"""The PVC performance model (xedialects/passes/analysis/perf_model.py) on hand-computed cases."""
import pytest

from xedialects.arch import get_arch
from xedialects.passes.analysis.perf_model import KernelWork, predict, work_from_plan

PVC = get_arch("pvc")
XMX_RATE = 4096 * 1.6e9 * 0.65          # bf16 ops/s of one Xe-core at the calibrated efficiency


def test_compute_bound_gemm_8192_one_stack():
    # 256x256 work-group tiles, 32 subgroups of 32x64, k_step 32: 1024 WGs on 64 Xe-cores (one stack)
    w = KernelWork(work_groups=1024, subgroups_per_wg=32, k_steps=256, dpas_ops_per_step=2 * 32 * 64 * 32,
                   bytes_hbm=2 * 8192 ** 2 * 2 + 2 * 8192 ** 2 * 4,
                   bytes_l2=1024 * 256 * 8192 * 2 * 2 + 2 * 8192 ** 2 * 4,
                   large_grf=True, prefetch_distance=3, flops=2 * 8192 ** 3)
    p = predict(PVC, w, stacks=1)
    assert p.xe_cores == 64 and p.wg_per_core == 1 and p.waves == 16
    t = 16 * (2 * 32 * 64 * 32 * 256 * 32) / XMX_RATE           # 16 WGs per core x ops per WG
    assert p.terms["compute"] == pytest.approx(t)                # 4.033 ms
    assert p.terms["hbm"] == pytest.approx(805306368 / 1e12)
    assert p.terms["l2"] == pytest.approx((8589934592 + 536870912) / 4e12)
    assert p.terms["latency"] == pytest.approx(16 * (256 * 1000 / 4 + 1000) / 1.6e9)
    assert p.bound == "compute"
    assert p.time_s == pytest.approx(t)
    assert p.tflops == pytest.approx(2 * 8192 ** 3 / t / 1e12)   # 272.6 TFLOP/s
    assert p.tflops == pytest.approx(272.6, abs=0.1)


def test_hbm_bound_small_m():
    # M=8, N=16384, K=8192: 128 WGs x 8 subgroups, each subgroup one 8x16 C tile, k_step 32
    hbm = 8192 * 16384 * 2 + 8 * 8192 * 2 + 2 * 8 * 16384 * 4
    w = KernelWork(work_groups=128, subgroups_per_wg=8, k_steps=256, dpas_ops_per_step=2 * 8 * 16 * 32,
                   bytes_hbm=hbm, bytes_l2=hbm, prefetch_distance=3, flops=2 * 8 * 16384 * 8192)
    p = predict(PVC, w)                                          # both stacks: 128 Xe-cores
    assert p.xe_cores == 128 and p.waves == 1 and p.xmx_utilization == 1.0
    assert p.terms["hbm"] == pytest.approx(hbm / 2e12)           # 134.8 us
    assert p.terms["compute"] == pytest.approx(8 * 256 * 8192 / XMX_RATE)
    assert p.terms["latency"] == pytest.approx((256 * 1000 / 4 + 1000) / 1.6e9)
    assert p.bound == "HBM"
    assert p.tflops == pytest.approx(2 * 8 * 16384 * 8192 / (hbm / 2e12) / 1e12)   # 15.93
    assert p.tflops == pytest.approx(15.93, abs=0.01)


def test_tail_wave():
    # M=N=4352, K=4096 with 256x256 tiles: 17 x 17 = 289 WGs on 128 Xe-cores -> 3 on the busiest core
    w = KernelWork(work_groups=289, subgroups_per_wg=32, k_steps=128, dpas_ops_per_step=2 * 32 * 64 * 32,
                   bytes_hbm=2 * 4352 * 4096 * 2 + 2 * 4352 ** 2 * 4,
                   bytes_l2=289 * 256 * 4096 * 2 * 2 + 2 * 4352 ** 2 * 4,
                   large_grf=True, prefetch_distance=3, flops=2 * 4352 * 4352 * 4096)
    p = predict(PVC, w)
    assert p.wave_efficiency == pytest.approx(289 / 384)
    assert p.waves == 3
    t = 3 * (2 * 32 * 64 * 32 * 128 * 32) / XMX_RATE            # 378.1 us
    assert p.terms["compute"] == pytest.approx(t)
    assert p.bound == "tail wave"
    assert p.tflops == pytest.approx(2 * 4352 * 4352 * 4096 / t / 1e12)


def test_low_occupancy_scales_xmx():
    # one work-group of 2 subgroups: 2 of the 8 vector engines drive their XMX
    w = KernelWork(work_groups=1, subgroups_per_wg=2, k_steps=1000, dpas_ops_per_step=2 * 8 * 16 * 16)
    p = predict(PVC, w)
    assert p.xmx_utilization == pytest.approx(0.25)
    assert p.terms["xmx"] == pytest.approx(2 * 1000 * 4096 / (XMX_RATE * 0.25))


def test_constants_name_sources():
    p = predict(PVC, KernelWork(work_groups=1, subgroups_per_wg=8, k_steps=1, dpas_ops_per_step=4096))
    names = {c[0] for c in p.constants}
    assert {"hbm_gbs_per_stack", "l2_gbs_per_stack", "mem_latency_clk", "xmx_efficiency", "clock"} <= names
    assert all(c[3] for c in p.constants)


def test_plan_8192_matches_onemkl_point():
    from xedialects.lowering.linalg_to_xetile.gemm_plan import plan_gemm

    plan = plan_gemm(8192, 8192, 8192, "bf16", "bf16", "f32", arch=PVC)
    p = predict(PVC, work_from_plan(plan, PVC), stacks=1)
    assert p.bound == "compute"
    assert p.tflops == pytest.approx(273, rel=0.05)


def test_kernel_report_has_prediction():
    import xedialects
    from xedialects.passes import run
    from xedialects.passes.analysis.kernel_report import format_report, kernel_report

    src = """func.func @gemm(%A: memref<512x512xbf16>, %B: memref<512x512xbf16>, %C: memref<512x512xf32>) {
  linalg.matmul ins(%A, %B : memref<512x512xbf16>, memref<512x512xbf16>) outs(%C : memref<512x512xf32>)
  return
}"""
    m = xedialects.parse(src, "g.mlir")
    run(m, "builtin.module(xe-gemm-to-xegpu)")
    (r,) = kernel_report(m)
    assert r["k_trips"] == 16 and r["perf"]["bound"]
    text = format_report(r)
    assert "model: predicted" in text and "bound:" in text
    assert "128 Xe-cores" in text and "assumed: no gpu.launch_func" not in text


def test_memory_bound_report_uses_launch_bytes():
    # a kernel without DPAS takes L2 / HBM bytes from the launch-wide count (kernel_bytes.py);
    # a GEMM keeps the arguments-once HBM and K-loop-loads L2 of the IR counts
    from xedialects.passes.analysis.perf_model import work_from_report

    gm = {"counted": True, "complete": True, "read": 56000, "write": 28000, "hbm_read": 56000, "hbm_write": 28000}
    rep = {"known_block_size": (32, 1, 1), "memref_arg_bytes": 84000, "dpas_ops_total": 0, "global_memory": gm}
    w = work_from_report(rep, ((3, 13, 1), (32, 1, 1)), PVC)
    assert (w.bytes_l2, w.bytes_hbm, w.work_groups) == (84000, 84000, 39)
    assert any("memory-bound kernel" in a for a in w.assumptions)
    gemm = dict(rep, dpas_ops_total=4096, k_loop=True, k_trips=4, per_k_step={"bytes_loaded": 1024, "dpas_ops": 1024})
    w = work_from_report(gemm, ((1, 1, 1), (16, 1, 1)), PVC)
    assert (w.bytes_l2, w.bytes_hbm) == (4096, 84000)


def _isa_row(loop_instructions, loop_dpas=32, scratch=0):
    total = {"instructions": 500, "dpas": loop_dpas, "scratch_messages": scratch}
    loop = {"instructions": loop_instructions, "dpas": loop_dpas, "scratch_messages": scratch}
    return {"total": total, "k_loop": loop}


def test_isa_issue_term_and_spill_traffic():
    """With IGC's machine code the compute term is the larger of XMX and instruction issue (one per clock
    per vector engine); scratch messages add 256 B each to the L2 bytes; both are stated."""
    from xedialects.passes.analysis.perf_model import SCRATCH_MESSAGE_BYTES, _with_isa

    pvc = get_arch("pvc")
    base = KernelWork(work_groups=256, subgroups_per_wg=32, k_steps=128, dpas_ops_per_step=32 * 2 * 8 * 16 * 16,
                      large_grf=True, bytes_l2=10**9)
    tight = _with_isa(base, _isa_row(73), 32, 128)
    assert tight.isa_instructions_per_sg == (500 - 73) + 73 * 128
    p = predict(pvc, tight)
    assert p.terms["issue"] < p.terms["xmx"] and p.terms["compute"] == pytest.approx(p.terms["xmx"] + p.terms["vector"]
                                                                                      + p.terms["slm"])
    assert any(a.startswith("issue: IGC's K loop: 73 instructions") for a in p.assumptions)
    # 7,570 instructions per K step (a guarded dynamic loop): issue-bound, and its spill costs L2 bytes
    slow = _with_isa(base, _isa_row(7570, scratch=258), 32, 128)
    q = predict(pvc, slow)
    assert q.terms["issue"] > q.terms["xmx"] and q.terms["compute"] >= q.terms["issue"]
    assert slow.bytes_l2 - base.bytes_l2 == 258 * 128 * SCRATCH_MESSAGE_BYTES * 32 * 256
    # IGC unrolled the loop twice: its iteration holds two K steps
    two = _with_isa(base, _isa_row(146, loop_dpas=64), 32, 128)
    assert two.isa_instructions_per_sg == (500 - 146) + 146 * 64
    # no row: the IR's model
    assert _with_isa(base, None, 32, 128) is base
