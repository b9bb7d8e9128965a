"""The register file (GRF mode) of a kernel: decided once (passes/analysis/registers.grf_mode: the
planner's `xe.grf_mode` on the gpu.func or the register estimate, the larger wins), recorded per
kernel in the SPIR-V metadata by convert-xegpu-to-spirv (target pvc; portable is always
"default"), turned into the module's build option "-ze-opt-large-register-file" by the export,
read by xe-kernel-report and its performance model; the OpenCL runtime passes the option to an
Intel GPU build only (opencl_build.device_build_options) and the CPU runtime still builds and runs
a module that asks for it.

Shapes: the 4096^3 bf16 GEMM (planned large, estimate 244 GRFs), examples/gemm_bf16.mlir (256^3:
planned default, estimate 68) and a 4096x4096 f32 element-wise add (memory-bound, no plan
attribute: estimate 96, default)."""
import os
import sys
from types import SimpleNamespace

import ml_dtypes
import numpy as np
import pytest
from mlir import ir

import xedialects
from xedialects.arch import get_arch
from xedialects.lowering.xegpu_to_spirv.spirv_export import (LARGE_GRF_OPTION, PREFETCH_HOIST_OPTION, build_options,
                                                              export_spirv)
from xedialects.passes import PassFailure, run
from xedialects.passes.analysis.registers import GRF_MODE_ATTR, estimate_grfs, grf_mode
from xedialects.passes.utils.ir_walk import functions

sys.path.insert(0, os.path.dirname(__file__))
import test_linalg_lowering as LL  # noqa: E402
from opencl_support import RT, assert_opencl_matches_cpu, needs_rt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PVC = get_arch("pvc")

GEMM_4096 = """
func.func @gemm(%A: memref<4096x4096xbf16>, %B: memref<4096x4096xbf16>, %C: memref<4096x4096xf32>) {
  linalg.matmul ins(%A, %B : memref<4096x4096xbf16>, memref<4096x4096xbf16>) outs(%C : memref<4096x4096xf32>)
  return
}
"""
ADD_4096 = """
func.func @add(%A: memref<4096x4096xf32>, %B: memref<4096x4096xf32>, %C: memref<4096x4096xf32>) {
  linalg.add ins(%A, %B : memref<4096x4096xf32>, memref<4096x4096xf32>) outs(%C : memref<4096x4096xf32>)
  return
}
"""


def _example(name):
    with open(os.path.join(ROOT, "examples", name)) as f:
        return f.read()


def _xegpu(src, name="k.mlir"):
    m = xedialects.parse(src, name)
    run(m, "builtin.module(xe-gemm-to-xegpu)")
    return m


def _kernels(m):
    return list(functions(m.operation, kinds=("gpu.func",)))


def _set_mode(m, mode):
    """Every kernel of `m` carries xe.grf_mode = `mode` (None: no attribute, the estimate decides)."""
    with m.context:
        for f in _kernels(m):
            if mode is None:
                del f.attributes[GRF_MODE_ATTR]
            else:
                f.attributes[GRF_MODE_ATTR] = ir.StringAttr.get(mode)
    return m


def _meta(m, target="pvc"):
    run(m, f"builtin.module(convert-xegpu-to-spirv{{target={target}}})")
    return export_spirv(m)[1]


# ---- the decision on the XeGPU kernels ---------------------------------------------------------

@pytest.mark.parametrize("src,planned,estimate,mode", [
    (GEMM_4096, "large", 244, "large"),
    (_example("gemm_bf16.mlir"), "default", 68, "default"),
    (ADD_4096, None, 96, "default"),
], ids=["gemm_4096_bf16", "examples_gemm_bf16", "add_4096_f32"])
def test_decision_from_plan_and_estimate(src, planned, estimate, mode):
    m = _xegpu(src)
    (f,) = _kernels(m)
    g = grf_mode(f, PVC)
    assert (g.planned, g.estimate, g.mode) == (planned, estimate, mode)
    assert g.grf_count == (PVC.grf_count_large if mode == "large" else PVC.grf_count)
    assert estimate_grfs(f, PVC) == estimate


def test_estimate_decides_without_a_plan_and_the_larger_wins():
    big = _set_mode(_xegpu(GEMM_4096), None)          # 244 GRFs estimated, no plan attribute: large
    (f,) = _kernels(big)
    assert grf_mode(f, PVC).mode == "large" and grf_mode(f, PVC).planned is None
    small = _set_mode(_xegpu(_example("gemm_bf16.mlir")), "large")   # planned large, estimate 68
    (f,) = _kernels(small)
    assert grf_mode(f, PVC).mode == "large" and grf_mode(f, PVC).estimate == 68
    big = _set_mode(_xegpu(GEMM_4096), "default")     # planned default, estimate 244
    (f,) = _kernels(big)
    assert grf_mode(f, PVC).mode == "large"


def test_xetile_kernel_is_not_estimated_but_keeps_the_plan():
    m = xedialects.parse(GEMM_4096, "g.mlir")
    run(m, "builtin.module(xe-linalg-to-xetile)")
    (f,) = _kernels(m)
    g = grf_mode(f, PVC)
    assert g.estimate is None and g.planned == "large" and g.mode == "large"


# ---- the SPIR-V metadata -----------------------------------------------------------------------

def test_gemm_4096_bf16_pvc_metadata_asks_for_the_large_register_file():
    m = xedialects.parse(GEMM_4096, "gemm4096.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv)")
    binary, meta = export_spirv(m)
    (k,) = meta["kernels"]
    assert k["grf_mode"] == "large" and k["grf_count"] == PVC.grf_count_large
    assert LARGE_GRF_OPTION == "-ze-opt-large-register-file"
    # its K loop prefetches with 2D block builtins: IGC is asked to hoist their payloads too
    assert meta["build_options"] == f"{LARGE_GRF_OPTION} {PREFETCH_HOIST_OPTION}"
    # the plan attribute stays on the XeGPU kernel, the SPIR-V kernel does not carry it
    assert f'{GRF_MODE_ATTR} = "large"' in str(m) and "spirv.func @gemm_0" in str(m)


@pytest.mark.parametrize("src", [_example("gemm_bf16.mlir"), ADD_4096], ids=["examples_gemm_bf16", "add_4096_f32"])
def test_default_kernels_do_not_ask_for_the_large_register_file(src):
    meta = _meta(_xegpu(src))
    (k,) = meta["kernels"]
    assert (k["grf_mode"], k["grf_count"]) == ("default", PVC.grf_count)
    assert LARGE_GRF_OPTION not in meta["build_options"]


def test_portable_target_records_default_and_no_build_options():
    meta = _meta(_set_mode(_xegpu(_example("gemm_bf16.mlir")), "large"), "portable")
    (k,) = meta["kernels"]
    assert (k["grf_mode"], k["grf_count"], meta["build_options"]) == ("default", None, "")


def test_bmg_counts_come_from_its_table():
    bmg = get_arch("bmg")
    m = _set_mode(_xegpu(_example("gemm_bf16.mlir")), "large")
    run(m, "builtin.module(convert-xegpu-to-spirv{target=pvc arch=bmg})")
    meta = export_spirv(m)[1]
    assert meta["arch"] == "bmg" and meta["kernels"][0]["grf_count"] == bmg.grf_count_large


def test_one_large_kernel_makes_the_whole_module_large():
    """Kernels of two gpu.modules exported as one binary: IGC takes one register file per module,
    so one large kernel makes the module's build option large (the others keep their own mode)."""
    src = GEMM_4096 + _example("gemm_bf16.mlir").replace("@gemm(", "@small(")
    m = xedialects.parse(src, "two.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv)")
    meta = export_spirv(m)[1]
    assert {k["name"]: k["grf_mode"] for k in meta["kernels"]} == {"gemm_0": "large", "small_0": "default"}
    assert meta["build_options"] == f"{LARGE_GRF_OPTION} {PREFETCH_HOIST_OPTION}"


def test_build_options_of_kernels():
    assert build_options([]) == ""
    assert build_options([{"grf_mode": "default"}, {}]) == ""
    assert build_options([{"grf_mode": "default"}, {"grf_mode": "large"}]) == LARGE_GRF_OPTION
    assert build_options([{"grf_mode": "default"}], prefetches_2d=True) == PREFETCH_HOIST_OPTION
    assert build_options([{"grf_mode": "large"}], True) == f"{LARGE_GRF_OPTION} {PREFETCH_HOIST_OPTION}"


@pytest.mark.parametrize("value", ['"huge"', "256 : i32"])
def test_unknown_grf_mode_attribute_is_a_located_error(value):
    m = xedialects.parse("gpu.module @k {\n  gpu.func @f(%A: memref<16xf32>) kernel attributes "
                         f"{{xe.grf_mode = {value}}} {{\n    gpu.return\n  }}\n}}\n", "bad.mlir")
    with pytest.raises(PassFailure) as e:
        run(m, "builtin.module(convert-xegpu-to-spirv)")
    assert f"bad.mlir:2:3: error: xe.grf_mode must be one of 'default', 'large', got {value}" in str(e.value)


# ---- report and performance model: the same decision --------------------------------------------

def _occupancy(report) -> str:
    (line,) = [x for x in report["perf"]["lines"] if "occupancy:" in x]
    return line


def test_report_and_plan_agree_on_the_mode():
    from xedialects.lowering.linalg_to_xetile.gemm_plan import plan_gemm
    from xedialects.passes.analysis.kernel_report import kernel_report
    from xedialects.passes.analysis.perf_model import work_from_plan

    plan = plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32", arch=PVC)
    (r,) = kernel_report(_xegpu(GEMM_4096), PVC)
    assert plan.grf_mode == r["grf_mode"] == r["grf_mode_planned"] == "large"
    assert "(large GRF)" in _occupancy(r)
    assert work_from_plan(plan, PVC).large_grf
    # a kernel planned large whose estimate would fit the default file: the occupancy is large's
    small = _set_mode(_xegpu(_example("gemm_bf16.mlir")), "large")
    (r,) = kernel_report(small, PVC)
    assert r["grf_mode"] == "large" and r["est_grfs"] == 68 and "(large GRF)" in _occupancy(r)


# ---- the OpenCL runtime -------------------------------------------------------------------------

def _device(gpu: bool, vendor_id: int):
    import pyopencl as cl

    return SimpleNamespace(type=cl.device_type.GPU if gpu else cl.device_type.CPU, vendor_id=vendor_id)


@needs_rt
def test_device_build_options_keep_ze_options_for_intel_gpus_only():
    from xedialects.runtime.opencl_build import device_build_options

    meta = {"build_options": f"{LARGE_GRF_OPTION} {PREFETCH_HOIST_OPTION} -cl-fast-relaxed-math"}
    assert device_build_options(meta, _device(True, 0x8086)) == meta["build_options"]
    assert device_build_options(meta, _device(False, 0x8086)) == "-cl-fast-relaxed-math"
    assert device_build_options(meta, _device(True, 0x10DE)) == "-cl-fast-relaxed-math"
    assert device_build_options({}, _device(True, 0x8086)) == ""
    assert device_build_options(meta, RT.device) == "-cl-fast-relaxed-math"   # the CPU runtime


@needs_rt
@pytest.mark.parametrize("option", [LARGE_GRF_OPTION, PREFETCH_HOIST_OPTION])
def test_cpu_runtime_rejects_the_option_itself(option):
    """Why the rule exists: Intel's OpenCL CPU compiler does not know IGC's -ze-* / -igc_opts options."""
    from xedialects.runtime.opencl import OpenCLError
    from xedialects.runtime.opencl_build import build_program

    m = _xegpu(_example("gemm_bf16.mlir"))
    binary, _ = export_spirv(m, target="portable")
    with pytest.raises(OpenCLError, match="INVALID_BUILD_OPTIONS|Unrecognized build options"):
        build_program(RT, binary, ["gemm_0"], options=option)


@needs_rt
def test_cpu_runtime_runs_a_pvc_module_that_asks_for_large_grf():
    """The 256^3 bf16 GEMM with the plan's mode set to large, converted for pvc: its metadata asks
    for the large register file; on the CPU (pvc builtins emulated) the option is dropped and the
    result matches upstream MLIR."""
    from xedialects.runtime.opencl import program_for_module

    case = LL.FORMS["plain"]
    m = _set_mode(_xegpu(case.src, "plain.mlir"), "large")
    run(m, "builtin.module(convert-xegpu-to-spirv{target=pvc})")
    program = program_for_module(m, RT)
    assert program.emulated and program.meta["build_options"] == f"{LARGE_GRF_OPTION} {PREFETCH_HOIST_OPTION}"
    assert program.build_options == ""
    assert_opencl_matches_cpu("plain", case, m, program)


@needs_rt
def test_cpu_runtime_runs_a_portable_binary_whose_metadata_asks_for_large_grf():
    from xedialects.runtime.opencl import Launcher, Program

    m = _xegpu(_example("gemm_bf16.mlir"))
    binary, meta = export_spirv(m, target="portable")
    meta["build_options"] = LARGE_GRF_OPTION
    (k,) = meta["kernels"]
    rng = np.random.default_rng(0)
    A = rng.integers(-3, 4, (256, 256)).astype(np.float32)     # small integers: exact in bf16 and f32
    B = rng.integers(-3, 4, (256, 256)).astype(np.float32)
    C = np.zeros((256, 256), np.float32)
    program = Program(RT, binary, meta)
    assert program.build_options == ""
    Launcher(program).run(k["name"], (4, 8, 1), k["workgroup_size"],
                          [A.astype(ml_dtypes.bfloat16), B.astype(ml_dtypes.bfloat16), C])
    assert np.array_equal(C, A @ B)
