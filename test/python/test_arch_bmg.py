"""arch=bmg (Battlemage / Arc B580, Xe2): the table, where it differs from PVC (both pinned), and
the GEMM through planner, lowering, simulator, SPIR-V and the performance model."""
import os
import subprocess
import sys

import pytest

import xedialects
from xedialects.arch import ARCHS, ArchError, get_arch
from xedialects.lowering.linalg_to_xetile.gemm_plan import plan_gemm
from xedialects.passes import Pipeline, PassPipelineError, run
from xedialects.passes.analysis.kernel_report import format_report, kernel_report
from xedialects.passes.analysis.perf_model import predict, work_from_plan

sys.path.insert(0, os.path.dirname(__file__))
from opencl_support import needs_rt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PVC, BMG = get_arch("pvc"), get_arch("bmg")


def gemm_src(m, n, k):
    return (f"func.func @gemm(%A: memref<{m}x{k}xbf16>, %B: memref<{k}x{n}xbf16>, %C: memref<{m}x{n}xf32>) {{\n"
            f"  linalg.matmul ins(%A, %B : memref<{m}x{k}xbf16>, memref<{k}x{n}xbf16>) "
            f"outs(%C : memref<{m}x{n}xf32>)\n  return\n}}\n")


# ---- the table ----------------------------------------------------------------------------------

def test_registry_and_aliases():
    assert set(ARCHS) == {"pvc", "bmg"}
    for alias in ("bmg", "BMG", "battlemage", "b580", "xe2", "intel_gpu_bmg_g21"):
        assert get_arch(alias) is BMG
    with pytest.raises(ArchError, match=r"unknown architecture 'xe3' \(known: bmg, pvc\)"):
        get_arch("xe3")


def test_shared_dpas_rules_are_every_archs(monkeypatch):
    # the xegpu.dpas verifier (no target known) checks the DPAS rules all architectures share
    from dataclasses import replace

    from xedialects import arch
    from xedialects.arch import shared_dpas_shape

    for a, b, c in PVC.dpas_types():
        assert shared_dpas_shape(a, b, c) == PVC.dpas_shape(a, b, c) == BMG.dpas_shape(a, b, c)
    with pytest.raises(ArchError, match=r"^pvc: DPAS does not support bf16 x bf16 -> f16"):
        shared_dpas_shape("bf16", "bf16", "f16")
    wide = replace(PVC, name="wide", dpas=replace(PVC.dpas, exec_size=32))
    monkeypatch.setitem(arch.ARCHS, "wide", wide)
    with pytest.raises(ArchError, match=r"differs between the architectures \(pvc: M<=8, N=16, K=16; "
                                        r"bmg: M<=8, N=16, K=16; wide: M<=8, N=32, K=16\)"):
        shared_dpas_shape("bf16", "bf16", "f32")


def test_every_fact_names_a_source():
    assert BMG.dpas.source and BMG.surface.source and BMG.peak.source
    assert all(r.source for r in BMG.blocks)
    assert all(f.source for _, f in BMG.perf.items())
    for key in ("xe_cores", "clock", "threads", "slm"):
        assert BMG.source(key)
    assert "[MODEL]" in BMG.perf.xmx_efficiency.source   # not calibrated on BMG: says so


def test_where_xe2_differs_from_pvc():
    # machine size and memory system
    assert (PVC.xe_cores, BMG.xe_cores) == (128, 20)
    assert (PVC.perf.stacks.value, BMG.perf.stacks.value) == (2, 1)
    assert (PVC.l1_bytes_per_core, BMG.l1_bytes_per_core) == (512 * 1024, 256 * 1024)
    assert (PVC.l2_bytes, BMG.l2_bytes) == (408 * 2**20, 18 * 2**20)
    assert (PVC.mem_bandwidth_gbs, BMG.mem_bandwidth_gbs) == (3276.8, 456.0)
    assert (PVC.clock_mhz, BMG.clock_mhz) == (1600, 2670)
    # XMX: 2048-bit engines on Xe2 (half of PVC's per clock), f64 at 1/8 of f32
    assert dict(PVC.peak.xmx_ops_per_clk)["bf16"] == 4096 and dict(BMG.peak.xmx_ops_per_clk)["bf16"] == 2048
    assert dict(PVC.peak.xmx_ops_per_clk)["s8"] == 8192 and dict(BMG.peak.xmx_ops_per_clk)["s8"] == 4096
    assert dict(PVC.peak.vector_ops_per_clk)["f64"] == 256 and dict(BMG.peak.vector_ops_per_clk)["f64"] == 32
    assert PVC.peak_tflops("bf16") == pytest.approx(838.86, abs=0.01)
    assert BMG.peak_tflops("bf16") == pytest.approx(20 * 2048 * 2.67e9 / 1e12)    # 109.4
    assert BMG.peak_tflops("s8") == pytest.approx(218.7, abs=0.1)                 # Intel: 233 at ~2.85 GHz
    assert BMG.peak_tflops("f32", engine="vector") == pytest.approx(13.67, abs=0.01)  # TechPowerUp


def test_what_xe2_shares_with_pvc():
    """Upstream MLIR's BMGuArch registers PVC's DPAS and 2D block instructions; compute-runtime
    gives 8 threads per XVE and 128 KiB SLM: both tables agree."""
    for a in (PVC, BMG):
        assert a.dpas_shape("bf16", "bf16", "f32") == (8, 16, 16)
        assert a.dpas_shape("f32", "f32", "f32") == (8, 16, 8)          # tf32 on both ([SYCL])
        assert a.dpas_shape("i8", "i8", "i32") == (8, 16, 32)
        assert a.threads_per_core() == 64 and a.threads_per_core(large_grf=True) == 32
        assert a.slm_bytes_per_core == 128 * 1024 and a.subgroup_size == 16
        assert a.is_legal_block_load(32, 16, 2, array_len=2, vnni=True) == (True, "")
        assert a.is_legal_block_store(8, 16, 2)[0] and not a.is_legal_block_store(16, 16, 2)[0]
        assert a.legal_surface(64, 64, 64, 8)[0] and not a.legal_surface(32, 64, 64, 8)[0]
    assert [(r.op, r.elem_bits, r.max_block()) for r in PVC.blocks] == \
        [(r.op, r.elem_bits, r.max_block()) for r in BMG.blocks]
    # the tf32 rate differs (an assumption, stated as such)
    assert dict(BMG.peak.xmx_ops_per_clk)["tf32"] * 2 == dict(BMG.peak.xmx_ops_per_clk)["bf16"]


# ---- planner and model ----------------------------------------------------------------------------

def test_plan_1024_differs_by_core_count():
    p, b = (plan_gemm(1024, 1024, 1024, "bf16", "bf16", "f32", arch=a) for a in ("pvc", "bmg"))
    assert (p.arch, b.arch) == ("pvc", "bmg")
    # PVC shrinks tiles until 128 work-groups fill 128 Xe-cores; BMG needs only 20
    assert p.wg_tile == (128, 64) and p.num_work_groups == 128
    assert b.wg_tile == (256, 128) and b.num_work_groups == 32 and b.grf_mode == "large"
    assert ">= 20 Xe-cores" in "\n".join(b.reasons)


def test_plan_and_model_4096():
    plan = plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32", arch="bmg")
    assert plan.wg_tile == (256, 256) and plan.num_work_groups == 256
    w = work_from_plan(plan, BMG)
    p = predict(BMG, w)
    assert p.xe_cores == 20 and p.waves == 13 and p.wave_efficiency == pytest.approx(256 / 260)
    # XMX: 13 work-groups per Xe-core x 2 x 256 x 256 x 4096 ops / (2048 x 2.67 GHz x 0.65)
    t_xmx = 13 * 2 * 256 * 256 * 4096 / (2048 * 2.67e9 * 0.65)
    assert p.terms["xmx"] == pytest.approx(t_xmx)
    # A + B (64 MB) exceed the 18 MB L2: A once, B once per sweep of the swizzle group
    sweeps = -(-16 // plan.group_size) if plan.group_order == "swizzle" else 16
    hbm = 4096 * 4096 * 2 * (1 + sweeps) + 2 * 4096 * 4096 * 4
    assert w.bytes_hbm == hbm and "A + B exceed L2" in w.assumptions[0]
    assert p.bound == "compute" and p.time_s == pytest.approx(p.terms["compute"])
    # the same GEMM on PVC: same tiles, 128 Xe-cores, compulsory traffic
    pp = predict(PVC, work_from_plan(plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32", arch="pvc"), PVC))
    assert pp.tflops > 5 * p.tflops


# ---- the pipeline ---------------------------------------------------------------------------------

def test_pipeline_expansion_names_arch_on_every_pass_that_takes_it():
    els = [e.render() for e in Pipeline("builtin.module(xe-gemm-to-spirv{arch=bmg})")._expanded()]
    for name in ("convert-linalg-to-xetile", "xetile-wg-to-sg", "xetile-blocking", "convert-xetile-to-xegpu"):
        assert f"{name}{{arch=bmg}}" in els
    assert "convert-xegpu-to-spirv{target=pvc arch=bmg}" in els
    assert "cse" in els


def test_named_pipeline_forwards_arch():
    m = xedialects.parse(gemm_src(1024, 1024, 1024), "g.mlir")
    run(m, "builtin.module(xe-gemm-to-xegpu{arch=bmg})")
    (r,) = kernel_report(m, "bmg")
    assert r["k_trips"] == 1024 // 32
    text = format_report(r)
    assert "20 Xe-cores" in text
    # one work-group = 16 subgroups of 16: the BMG plan (PVC would have 8)
    assert "gpu.launch_func" in str(m) and "known_block_size = array<i32: 256, 1, 1>" in str(m)
    with pytest.raises(PassPipelineError, match="has no pass with option 'bogus'"):
        Pipeline("builtin.module(xe-gemm-to-xegpu{bogus=1})").run(xedialects.parse(gemm_src(64, 64, 64), "g.mlir"))


def test_lower_4096_plan_lowering_model_only():
    m = xedialects.parse(gemm_src(4096, 4096, 4096), "g.mlir")
    Pipeline().add("xe-gemm-to-xegpu", arch="bmg").run(m)
    (r,) = kernel_report(m, "bmg")
    assert r["k_trips"] == 128 and r["per_k_step"]["dpas_ops"] > 0
    assert r["perf"]["xe_cores"] == 20 and r["perf"]["waves"] == 13


def test_simulates_small_gemm(tmp_path):
    from xedialects.tools.xe_run import main

    path = tmp_path / "g.mlir"
    path.write_text(gemm_src(128, 128, 256))
    assert main([str(path), "--pipeline=xe-gemm-to-xegpu{arch=bmg}", "--check"]) == 0


def test_spirv_for_bmg_validates(spirv_val):
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv, validate

    m = xedialects.parse(gemm_src(128, 128, 256), "g.mlir")
    binary, meta = export_spirv(m, "pvc", arch="bmg")
    assert meta["arch"] == "bmg" and meta["target"] == "pvc"
    validate(binary)
    m2 = xedialects.parse(gemm_src(128, 128, 256), "g.mlir")
    run(m2, "builtin.module(xe-gemm-to-spirv{arch=bmg})")
    assert '__arch__ = "bmg"' in str(m2)
    # the simulator reads the recorded arch (its SLM limit comes from that table)
    from xedialects.lowering.xegpu_to_spirv.spirv_export import recorded_arch
    from xedialects.sim.core import Simulator

    assert recorded_arch(m2) == "bmg" and recorded_arch(m) is None
    assert Simulator(m2).arch is BMG and Simulator(m2).slm_limit == BMG.slm_bytes_per_workgroup


@pytest.mark.parametrize("tool,args", [
    ("xe-opt.py", ["--xe-gemm-to-xegpu=arch=b5800"]),
    ("xe-opt.py", ["--xe-kernel-report=arch=b5800"]),
    ("xe-run.py", ["--pipeline=xe-gemm-to-xegpu{arch=b5800}", "--check"]),
])
def test_unknown_arch_is_a_clean_error(tmp_path, tool, args):
    path = tmp_path / "g.mlir"
    path.write_text(gemm_src(64, 64, 64))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", tool), str(path), *args],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert "unknown architecture 'b5800' (known: bmg, pvc)" in r.stderr
    assert "Traceback" not in r.stderr


@needs_rt
def test_bmg_binary_runs_on_the_opencl_cpu_device(tmp_path):
    """The bmg binary (pvc-style builtins) runs with the emulation library like a pvc one."""
    from xedialects.tools.xe_run import main

    path = tmp_path / "g.mlir"
    path.write_text(gemm_src(128, 128, 256))
    assert main([str(path), "--pipeline=xe-gemm-to-spirv{arch=bmg}", "--backend=opencl", "--check"]) == 0
