"""Local k-slicing (docs/planner.md "Local k-slicing"): the planner option and its checks, the
model's choice, and numerics of k-sliced GEMMs at every pipeline stage (simulator, aligned and
unaligned shapes, 2 and 4 slices, C accumulation, fused fill + bias + relu epilogue, bf16 C),
portable SPIR-V on the OpenCL CPU device and pvc SPIR-V through spirv-val."""
import os
import subprocess
import sys

import pytest

import xedialects
from xedialects.lowering.linalg_to_xetile.gemm_plan import PlanError, plan_gemm
from xedialects.passes import run

sys.path.insert(0, os.path.dirname(__file__))
import test_linalg_lowering as LL  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TAIL = {
    "sg": "xetile-wg-to-sg",
    "blocked": "xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, xetile-check-hw",
    "vc": "xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse",
    "simt": "xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse, "
            "xegpu-simt-distribute",
}


def lowered(case, slices, tail, ks=1):
    m = xedialects.parse(case.src, "case.mlir")
    run(m, f"builtin.module(convert-linalg-to-xetile{{local-k-slices={slices} k-slices={ks}}}, {tail})")
    return m


# ---- planner ----------------------------------------------------------------------------------

def test_override_multiplies_subgroups_and_shortens_k_loop():
    p = plan_gemm(64, 128, 1024, "bf16", "bf16", "f32", overrides={"local_k_slices": 4, "k_slices": 1})
    assert p.local_k_slices == 4 and p.num_subgroups == 4 * p.inner_subgroups
    assert p.wg_size == p.num_subgroups * 16
    assert "local k-slicing  : 4 slices" in p.describe()


@pytest.mark.parametrize("ov,msg", [
    ({"local_k_slices": 3}, "must divide the subgroup C tile rows"),
    ({"local_k_slices": 2, "wg_tile": (256, 256)}, "B of SLM"),
    ({"local_k_slices": 16, "k_slices": 1}, "subgroups"),
    ({"local_k_slices": 2, "k_slices": 1, "wg_tile": (64, 128), "sg_data": (32, 32),
      "a_prefetch_map": ((4, 2), (8, 32))}, "round-robin"),
])
def test_bad_local_slicing_is_a_plan_error(ov, msg):
    with pytest.raises(PlanError, match=msg):
        plan_gemm(64, 128, 4096, "bf16", "bf16", "f32", overrides=ov)


def test_model_chooses_local_slicing_for_small_mn_tall_k():
    # bf16 C: no atomic split-K; the model prefers slicing K inside the work-groups
    p = plan_gemm(256, 256, 65536, "bf16", "bf16", "bf16")
    assert p.local_k_slices > 1 and p.k_slices == 1
    assert any("local k-slicing" in r and "performance model" in r for r in p.reasons)
    assert "local_k_slices" not in p.overrides
    # square problems keep their plans
    assert plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32").local_k_slices == 1
    assert plan_gemm(512, 512, 512, "bf16", "bf16", "f32").local_k_slices == 1


def test_perf_model_counts_the_slm_reduction():
    from xedialects.arch import get_arch
    from xedialects.passes.analysis.perf_model import predict, work_from_plan

    hw = get_arch("pvc")
    one = plan_gemm(256, 256, 65536, "bf16", "bf16", "bf16", overrides={"local_k_slices": 1})
    four = plan_gemm(256, 256, 65536, "bf16", "bf16", "bf16", overrides={"local_k_slices": 4})
    w1, w4 = work_from_plan(one, hw), work_from_plan(four, hw)
    assert w4.k_steps * 4 == w1.k_steps and w4.subgroups_per_wg == 4 * w1.subgroups_per_wg
    assert w4.slm_bytes_per_wg == 4 * 32 * 64 * 4 and w4.slm_traffic_per_wg == 2 * w4.slm_bytes_per_wg
    p4 = predict(hw, w4)
    assert p4.terms["slm"] > 0 and predict(hw, w1).terms["slm"] == 0


# ---- numerics ---------------------------------------------------------------------------------

CASES = {
    "aligned": LL.mm(64, 128, 1024),
    "unaligned": LL.mm(100, 70, 1000),
    "bias_relu": LL.bias_relu(64, 128, 1024),
    "bf16_c": LL.mm(64, 64, 768, c="bf16"),
}


@pytest.mark.parametrize("slices", [2, 4])
@pytest.mark.parametrize("name", list(CASES))
def test_numerics_subgroup_stage(name, slices):
    case = CASES[name]
    m = lowered(case, slices, TAIL["sg"])
    text = str(m)
    assert "gpu.barrier" in text and "memref.alloc() : memref<" in text
    LL.assert_ok(case, "sg", f"{name} x{slices}", module=m)


@pytest.mark.parametrize("stage", ["blocked", "vc", "simt"])
@pytest.mark.parametrize("name,slices", [("aligned", 4), ("unaligned", 2), ("bias_relu", 2)])
def test_numerics_later_stages(name, slices, stage):
    case = CASES[name]
    LL.assert_ok(case, stage, f"{name} x{slices} {stage}", module=lowered(case, slices, TAIL[stage]))


MORE = {
    "transpose_a": (LL.mm_t(64, 128, 1024, "a"), 2, ""),
    "transpose_b": (LL.mm_t(64, 128, 1024, "b"), 4, ""),
    "batch": (LL.batch(2, 64, 64, 512), 2, ""),
    "alpha_beta": (LL.alpha_beta(64, 128, 1024), 4, ""),          # reads C: added once, after the reduce
    "i8": (LL.mm(64, 128, 1024, a="i8", c="i32"), 2, ""),
    "dynamic": (LL.mm(100, 70, 1000, dyn=True), 4, " wg-tile=32x64"),
    "dynamic_bias_relu": (LL.bias_relu(64, 128, 1000, dyn=True), 2, " wg-tile=32x64"),
}


@pytest.mark.parametrize("name", list(MORE))
def test_numerics_more_forms(name):
    case, slices, extra = MORE[name]
    m = xedialects.parse(case.src, "case.mlir")
    run(m, f"builtin.module(convert-linalg-to-xetile{{local-k-slices={slices}{extra}}}, {TAIL['vc']})")
    assert "gpu.barrier" in str(m)
    LL.assert_ok(case, "vc", f"{name} x{slices}", module=m)


def test_with_global_split_k():
    case = LL.mm(64, 128, 2048)
    m = lowered(case, 2, TAIL["vc"], ks=2)
    assert "atomic" in str(m)
    LL.assert_ok(case, "vc", "local x global", module=m)


def test_epilogue_applies_once():
    """The bias is added and relu applied once, after the reduction (in the reduce map)."""
    m = xedialects.parse(CASES["bias_relu"].src, "case.mlir")
    run(m, "builtin.module(convert-linalg-to-xetile{local-k-slices=2 k-slices=1})")
    text = xedialects.print_ir(m)
    assert text.count("arith.maximumf") == 1 and text.count("xetile.tile_broadcast") == 1
    body = text.split("gpu.barrier")[1]
    assert "arith.maximumf" in body and "sg_layout = [8, 2], sg_data = [4, 32]" in body


# ---- SPIR-V -----------------------------------------------------------------------------------

def _spirv(case, target, slices=2):
    m = xedialects.parse(case.src, "case.mlir")
    run(m, f"builtin.module(xe-bufferize, convert-linalg-to-xetile{{local-k-slices={slices} k-slices=1}}, "
           f"{TAIL['vc']}, convert-xegpu-to-spirv{{target={target}}})")
    return m


@pytest.mark.usefixtures("spirv_val")
@pytest.mark.parametrize("target", ["pvc", "portable"])
def test_spirv_validates(target):
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv, validate

    binary, meta = export_spirv(_spirv(CASES["unaligned"], target), target=target)
    validate(binary)


def test_portable_spirv_on_opencl_matches_cpu():
    from opencl_support import RT, assert_opencl_matches_cpu, needs_rt  # noqa: F401
    if RT is None:
        pytest.skip("OpenCL runtime unavailable")
    from xedialects.runtime.opencl import program_for_module

    for name in ("unaligned", "bias_relu"):
        m = _spirv(CASES[name], "portable", slices=4 if name == "unaligned" else 2)
        assert_opencl_matches_cpu(name, CASES[name], m, program_for_module(m, RT))


def test_pvc_binary_on_opencl_matches_cpu():
    """The pvc binary (DPAS / 2D block builtins emulated on the CPU device) of a k-sliced GEMM."""
    from opencl_support import RT, assert_opencl_matches_cpu
    if RT is None:
        pytest.skip("OpenCL runtime unavailable")
    from xedialects.runtime.opencl import program_for_module

    m = _spirv(CASES["bias_relu"], "pvc")
    program = program_for_module(m, RT)
    assert program.emulated
    assert_opencl_matches_cpu("bias_relu pvc", CASES["bias_relu"], m, program)


# ---- tools ------------------------------------------------------------------------------------

def test_xe_opt_bad_slices_is_a_located_error(tmp_path):
    src = tmp_path / "g.mlir"
    src.write_text(CASES["aligned"].src)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-opt.py"), str(src),
                        "--convert-linalg-to-xetile=local-k-slices=3"], capture_output=True, text=True)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "g.mlir:3:3: error: GEMM plan" in r.stderr and "local_k_slices 3 must divide" in r.stderr
