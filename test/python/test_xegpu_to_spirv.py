"""convert-xegpu-to-spirv: every linalg input form of the pipeline (test_e2e_pipeline.CASES: 256^3 bf16,
100x70x50 unaligned, f16, f32 (tf32), i8, transposed A/B, linalg.generic, batch, dynamic) lowered to
VC-mode XeGPU, converted to SPIR-V for both targets, serialized and accepted by spirv-val; the
kernel metadata contract of spirv_export; the builtin name mangling; xe-opt --emit=spirv-binary.
Every input program of test_linalg_lowering (FORMS, EPILOGUES, TENSORS) goes through xe-gemm-to-spirv
(pvc) and its exported binary through spirv-val.
When pyopencl and an OpenCL device are available the portable binaries also run and are compared
with numpy."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import xedialects
from xedialects.lowering.xegpu_to_spirv import spirv_builtins as bi
from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv, validate
from xedialects.passes import lookup, run

sys.path.insert(0, os.path.dirname(__file__))
import test_linalg_lowering as LL  # noqa: E402
from test_e2e_pipeline import CASES, STAGES, _inputs  # noqa: E402
from opencl_support import RT, needs_rt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
needs_val = pytest.mark.usefixtures("spirv_val")  # fails (no skip) when the test extra's spirv-val is missing


def _to_xegpu():
    """The full named pipeline once xetile-blocking exists, else the stage-2 route."""
    if lookup("xetile-blocking") is not None and lookup("xetile-canonicalize") is not None:
        return "xe-gemm-to-xegpu"
    return STAGES["vc"]


def _lower(case, target):
    m = xedialects.parse(CASES[case][0], "case.mlir")
    run(m, f"builtin.module({_to_xegpu()},convert-xegpu-to-spirv{{target={target}}})")
    return m


@needs_val
@pytest.mark.parametrize("target", ["pvc", "portable"])
@pytest.mark.parametrize("case", list(CASES))
def test_pipeline_to_valid_spirv(case, target):
    m = _lower(case, target)
    binary, meta = export_spirv(m)
    assert binary[:4] == b"\x03\x02\x23\x07"
    validate(binary)
    assert meta["target"] == target
    assert tuple(int(x) for x in meta["spirv_version"].split(".")) <= (1, 4)
    (k,) = meta["kernels"]
    assert k["subgroup_size"] == 16 and k["workgroup_size"][0] % 16 == 0
    kinds = [a["kind"] for a in k["args"][:3]]
    assert kinds == ["buffer"] * 3
    if target == "portable":
        assert "Linkage" not in meta["capabilities"]
        assert not any(e.startswith("SPV_INTEL") for e in meta["extensions"])


def test_metadata_dynamic_shapes():
    m = _lower("dynamic", "portable")
    _, meta = export_spirv(m)
    args = meta["kernels"][0]["args"]
    assert [a["kind"] for a in args[:3]] == ["buffer"] * 3
    assert "shape" not in args[0] and args[0]["element_type"] == "bf16"
    extra = args[3:]
    assert all(a["kind"] == "scalar" and a["element_type"] == "i64" for a in extra)
    assert [a.get("dim_of") for a in extra if "dim_of" in a] == [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]]


def test_host_side_kept():
    m = _lower("bf16_256", "pvc")
    text = xedialects.print_ir(m.operation)
    assert "gpu.launch_func" in text and "xegpu.dpas" in text and "spirv.module @__spv__" in text


@needs_val
def test_export_converts_earlier_stages():
    m = xedialects.parse(CASES["f16_f32"][0], "case.mlir")
    run(m, f"builtin.module({STAGES['vc']})")
    binary, meta = export_spirv(m, target="portable")
    assert meta["target"] == "portable" and meta["kernels"][0]["name"].startswith("f_")
    validate(binary)


@pytest.mark.parametrize("name,params,want", [
    ("intel_sub_group_2d_block_read_16b_8r16x2c", ["global void*", "int", "int", "int", "int2", "private ushort*"],
     "_Z41intel_sub_group_2d_block_read_16b_8r16x2cPU3AS1viiiDv2_iPt"),
    ("intel_sub_group_f16_f16_matrix_mad_k16", ["short8", "int8", "float8"],
     "_Z38intel_sub_group_f16_f16_matrix_mad_k16Dv8_sDv8_iDv8_f"),
    ("intel_sub_group_i8_i8_matrix_mad_k32", ["short8", "int8", "int8"],
     "_Z36intel_sub_group_i8_i8_matrix_mad_k32Dv8_sDv8_iS0_"),
])
def test_mangling(name, params, want):
    assert bi.mangle(name, params) == want


def test_xe_opt_emit(tmp_path):
    src = tmp_path / "g.mlir"
    src.write_text(CASES["bf16_unaligned"][0])
    out = tmp_path / "k.spv"
    cmd = [sys.executable, os.path.join(ROOT, "tools", "xe-opt.py"), str(src)]
    stages = [f"--{p.strip()}" for p in _to_xegpu().split(",")]
    r = subprocess.run(cmd + stages + ["--convert-xegpu-to-spirv", "--xe-target=portable", "--emit=spirv-binary",
                                       "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    meta = json.loads((tmp_path / "k.spv.json").read_text())
    assert meta["target"] == "portable" and out.read_bytes()[:4] == b"\x03\x02\x23\x07"
    r = subprocess.run(cmd + ["--emit=spirv-binary"], capture_output=True, text=True)
    assert r.returncode == 1 and "needs an output file" in r.stderr


@pytest.mark.parametrize("case,grid", [("bf16_unaligned", (2, 4, 1)), ("i8_i32", (1, 2, 1)),
                                       ("transposed_b", (1, 3, 1))])
@needs_rt
def test_portable_runs_on_opencl(case, grid):
    rt = RT
    from xedialects.runtime.opencl import Launcher, Program

    binary, meta = export_spirv(_lower(case, "portable"))
    k = meta["kernels"][0]
    A, B, C = (np.ascontiguousarray(x).copy() for x in _inputs(CASES[case][1]))
    C0 = C.copy()
    Launcher(Program(rt, binary, meta)).run(k["name"], grid, k["workgroup_size"], [A, B, C])
    out = C
    Bm = B.T if case == "transposed_b" else B
    ref = A.astype(np.float64) @ Bm.astype(np.float64) + C0
    assert np.abs(out - ref).max() <= 1e-3 * max(1.0, np.abs(ref).max())


# Every input program of the pipeline tests (test_linalg_lowering: FORMS, EPILOGUES, TENSORS -- plain,
# unaligned, transposed, generic, batch, dynamic, each element type, fused epilogues, tensor programs)
# through xe-gemm-to-spirv (pvc), exported and accepted by spirv-val.
LINALG = {f"{group.lower()}:{name}": case for group in ("FORMS", "EPILOGUES", "TENSORS")
          for name, case in getattr(LL, group).items()}


@needs_val
@pytest.mark.parametrize("name", list(LINALG))
def test_linalg_program_to_valid_spirv(name):
    m = xedialects.parse(LINALG[name].src, f"{name}.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv)")
    binary, meta = export_spirv(m, target="pvc")
    assert binary[:4] == b"\x03\x02\x23\x07"
    validate(binary)
    assert meta["target"] == "pvc" and meta["kernels"]
    assert all(k["subgroup_size"] == 16 for k in meta["kernels"])


@needs_val
def test_appendix_2_2_to_valid_pvc_spirv():
    """rfc-xetile appendix 2.2 (GEMM, SLM transpose, broadcast, cross-subgroup row reduction) for pvc:
    2D block IO / DPAS builtins next to the subgroup reductions (the portable binary runs in
    test_opencl_backend)."""
    from test_wg_to_sg import appendix_2_2_kernel

    m = xedialects.parse(appendix_2_2_kernel(64), "appendix-2.2.mlir")
    run(m, "builtin.module(xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, convert-xetile-to-xegpu, "
           "canonicalize, cse, convert-xegpu-to-spirv{target=pvc})")
    binary, meta = export_spirv(m)
    validate(binary)
    assert "GroupNonUniformArithmetic" in meta["capabilities"] and "Linkage" in meta["capabilities"]


@needs_val
def test_guarded_block_io_on_unproven_surfaces_is_valid_spirv():
    """The pvc target's run-time guards of the 2D block surface rules (dynamic width / height,
    dynamic base offset: spirv.ConvertPtrToU), hoisted to the entry of a body versioned on them,
    and the per-lane fallbacks pass spirv-val (test/lit/Conversion/xegpu-to-spirv/surface-guard.mlir
    pins the form); the metadata counts the surfaces each kernel tests at its entry."""
    path = os.path.join(ROOT, "test", "lit", "Conversion", "xegpu-to-spirv", "surface-guard.mlir")
    with open(path) as f:
        m = xedialects.parse(f.read(), path)
    run(m, "builtin.module(convert-xegpu-to-spirv{target=pvc})")
    binary, meta = export_spirv(m)
    validate(binary)
    assert meta["target"] == "pvc"
    # versioned on their surfaces: the distinct surfaces tested at the entry (dyn: A and B)
    assert {k["name"]: k.get("surface_tests", 0) for k in meta["kernels"]} == \
        {"dyn": 2, "lead": 1, "narrow": 0, "slm": 1}


def test_fast_copy_k_loop_runs_at_least_once():
    """In the fast copy of a surface-versioned GEMM the entry test proves A at least 64 bytes wide, so
    the K loop (to ceil(K / 32) * 32) runs at least once: no zero-trip guard there, its bound
    max(ub, 32) (one s_max); the slow copy keeps the guard. Before, IGC kept the zero-trip path's
    accumulators beside the loop's: epilogue alpha_beta_dynamic spilled 6.6 KB in its fast copy
    (docs/igc.md "Dynamic shapes")."""
    from xedialects.lowering.xegpu_to_spirv.entry_bounds import lower_bound

    src = open(os.path.join(ROOT, "examples", "gemm_dynamic.mlir")).read()
    m = xedialects.parse(src, "gemm_dynamic.mlir")
    run(m, "builtin.module(xe-gemm-to-xegpu, convert-xegpu-to-spirv{target=pvc})")
    text = str(m)
    assert text.count("spirv.CL.s_max") == 1, text.count("spirv.CL.s_max")
    portable = xedialects.parse(src, "gemm_dynamic.mlir")        # no versioning: the guard stays
    run(portable, "builtin.module(xe-gemm-to-xegpu, convert-xegpu-to-spirv{target=portable})")
    assert "spirv.CL.s_max" not in str(portable)
    # the bound: K >= 32 (64 bytes of bf16) through (K + 31) / 32 * 32
    from mlir import ir
    from mlir.dialects import arith
    with ir.Context(), ir.Location.unknown():
        mod = ir.Module.create()
        with ir.InsertionPoint(mod.body):
            i = ir.IndexType.get()
            k = arith.ConstantOp(i, 0).result            # stands for K: a fact, not a constant
            k = arith.AddIOp(k, k).result
            c31, c32 = (arith.ConstantOp(i, n).result for n in (31, 32))
            ub = arith.MulIOp(arith.DivUIOp(arith.AddIOp(k, c31).result, c32).result, c32).result
            assert lower_bound(ub, {k: 32}, {}) == 32 and lower_bound(ub, {k: 1}, {}) == 32
            assert lower_bound(ub, {}, {}) == 0 and lower_bound(arith.SubIOp(k, c31).result, {k: 32}, {}) is None


# Three host functions, so three gpu.modules merged into one binary: the first (the reduce) lacks
# SubgroupId, the element-wise kernels of the next two both import it -- the merge must not define it
# twice. The memory-bound path: a linalg.reduce, an element-wise add, an element-wise mul then a matvec.
THREE_KERNEL_FUNCS = """
func.func @red(%A: memref<64x32xf32>, %r: memref<64xf32>) {
  linalg.reduce ins(%A : memref<64x32xf32>) outs(%r : memref<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return
}
func.func @ew(%A: memref<64x32xf32>, %B: memref<64x32xf32>, %C: memref<64x32xf32>) {
  linalg.add ins(%A, %B : memref<64x32xf32>, memref<64x32xf32>) outs(%C : memref<64x32xf32>)
  return
}
func.func @mv(%A: memref<64x32xf32>, %C: memref<64x32xf32>, %x: memref<32xf32>, %y: memref<64xf32>) {
  linalg.mul ins(%A, %C : memref<64x32xf32>, memref<64x32xf32>) outs(%C : memref<64x32xf32>)
  linalg.matvec ins(%C, %x : memref<64x32xf32>, memref<32xf32>) outs(%y : memref<64xf32>)
  return
}
func.func @main(%A: memref<64x32xf32>, %B: memref<64x32xf32>, %C: memref<64x32xf32>, %x: memref<32xf32>,
                %r: memref<64xf32>, %y: memref<64xf32>) {
  call @red(%A, %r) : (memref<64x32xf32>, memref<64xf32>) -> ()
  call @ew(%A, %B, %C) : (memref<64x32xf32>, memref<64x32xf32>, memref<64x32xf32>) -> ()
  call @mv(%A, %C, %x, %y) : (memref<64x32xf32>, memref<64x32xf32>, memref<32xf32>, memref<64xf32>) -> ()
  return
}
"""


@needs_val
def test_three_gpu_modules_merge_shared_builtins():
    m = xedialects.parse(THREE_KERNEL_FUNCS, "three.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv-portable)")
    binary, meta = export_spirv(m)
    validate(binary)
    assert sorted(k["name"] for k in meta["kernels"]) == ["ew_0", "mv_0", "mv_1", "red_0"]


@needs_rt
def test_three_gpu_modules_run_on_opencl(tmp_path, capsys):
    from xedialects.tools.xe_run import main as xe_run

    path = tmp_path / "three.mlir"
    path.write_text(THREE_KERNEL_FUNCS)
    assert xe_run([str(path), "--entry", "main", "--pipeline=xe-gemm-to-spirv-portable", "--backend=opencl",
                   "--check"]) == 0
    out = capsys.readouterr().out
    assert "4 launches" in out and out.rstrip().endswith("PASS"), out


def _arg_kernel(space):
    return xedialects.parse(f"gpu.module @k {{\n  gpu.func @f(%A: memref<16xf32, {space}>) kernel {{\n"
                            "    gpu.return\n  }\n}\n", "k.mlir")


@pytest.mark.parametrize("space", ["1 : i64", "0 : i8", "#gpu.address_space<global>"])
def test_global_kernel_argument_spellings_are_buffers(space):
    """Every spelling of the global memory space is a buffer argument, not only the printed forms
    the old text match knew ('1 : i64' and '0 : i8' were rejected)."""
    m = _arg_kernel(space)
    run(m, "builtin.module(convert-xegpu-to-spirv)")
    _, meta = export_spirv(m)
    (arg,) = meta["kernels"][0]["args"]
    assert arg["kind"] == "buffer" and arg["shape"] == [16]


@pytest.mark.parametrize("space", ["3 : i16", "#gpu.address_space<workgroup>", "#gpu.address_space<private>"])
def test_non_global_kernel_argument_is_located_error(space):
    from xedialects.passes import PassFailure
    with pytest.raises(PassFailure) as e:
        run(_arg_kernel(space), "builtin.module(convert-xegpu-to-spirv)")
    assert (f"k.mlir:2:3: error: kernel argument 0: memref in memory space {space} is not supported "
            "(global buffers only)") in str(e.value)
