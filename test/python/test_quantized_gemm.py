"""Weight-only quantized GEMMs (docs/quantized-gemm.md): a dequantizing linalg.generic (i8 -> f16/bf16 with
per-column or per-group scales and zero points) feeding linalg.matmul's B lowers to one GEMM kernel with the
dequantization in its B path. Checked against upstream MLIR's CPU run of the unfused program through the
simulator (pvc and portable SPIR-V pipelines) and, where the OpenCL CPU runtime is present, the portable
binary and the pvc one under the emulation library."""
import os
import sys

import pytest

import xedialects
from xedialects.passes import run
from xedialects.tools.xe_run import main as xe_run

sys.path.insert(0, os.path.dirname(__file__))
from opencl_support import needs_rt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "w8a16_gemm.mlir")

PER_COLUMN = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @f(%A: memref<40x96xT>, %W: memref<96x80xi8>, %S: memref<80xT>, %C: memref<40x80xf32>) {
  %Bd = memref.alloc() : memref<96x80xT>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<96x80xi8>, memref<80xT>) outs(%Bd : memref<96x80xT>) {
  ^bb0(%w: i8, %s: T, %o: T):
    %f = arith.sitofp %w : i8 to T
    %r = arith.mulf %f, %s : T
    linalg.yield %r : T
  }
  linalg.matmul ins(%A, %Bd : memref<40x96xT>, memref<96x80xT>) outs(%C : memref<40x80xf32>)
  memref.dealloc %Bd : memref<96x80xT>
  return
}
"""

# groups of 16 K rows (the kernel steps K by 16), zero point subtracted as an i8 -> T conversion
PER_GROUP = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#grp = affine_map<(d0, d1) -> (d0 floordiv 16, d1)>
func.func @f(%A: memref<24x64xT>, %W: memref<64x48xi8>, %S: memref<4x48xT>, %Z: memref<4x48xi8>,
             %C: memref<24x48xf32>) {
  %Bd = memref.alloc() : memref<64x48xT>
  linalg.generic {indexing_maps = [#id, #grp, #grp, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S, %Z : memref<64x48xi8>, memref<4x48xT>, memref<4x48xi8>) outs(%Bd : memref<64x48xT>) {
  ^bb0(%w: i8, %s: T, %z: i8, %o: T):
    %wf = arith.sitofp %w : i8 to T
    %zf = arith.sitofp %z : i8 to T
    %d = arith.subf %wf, %zf : T
    %r = arith.mulf %d, %s : T
    linalg.yield %r : T
  }
  linalg.matmul ins(%A, %Bd : memref<24x64xT>, memref<64x48xT>) outs(%C : memref<24x48xf32>)
  return
}
"""
PROGRAMS = {f"{form}_{t}": src.replace("xT>", f"x{t}>").replace(": T", f": {t}").replace("to T", f"to {t}")
            for form, src in (("per_column", PER_COLUMN), ("per_group", PER_GROUP)) for t in ("f16", "bf16")}


def _write(tmp_path, name):
    path = tmp_path / f"{name}.mlir"
    path.write_text(PROGRAMS[name])
    return str(path)


def _host_ops(module):
    func = [o for o in module.body.operations if o.operation.name == "func.func"][0]
    return [o.operation.name for o in func.regions[0].blocks[0].operations]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_one_launch_and_no_dequantized_buffer(name):
    m = xedialects.parse(PROGRAMS[name], f"{name}.mlir")
    run(m, "builtin.module(convert-linalg-to-xetile)")
    host = _host_ops(m)
    assert host.count("gpu.launch_func") == 1, host
    assert not [n for n in host if n.startswith("linalg.") or n in ("memref.alloc", "memref.dealloc")], host


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_simulated_kernel_matches_the_unfused_cpu_program(tmp_path, capsys, name):
    assert xe_run([_write(tmp_path, name), "--pipeline=xe-gemm-to-spirv", "--check"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("PASS") and "C: max abs error" in out, out


def test_example_checks(capsys):
    assert xe_run([EXAMPLE, "--pipeline=xe-gemm-to-spirv-portable", "--check"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("PASS")


@needs_rt
@pytest.mark.parametrize("pipeline", ["xe-gemm-to-spirv-portable", "xe-gemm-to-spirv"])
def test_opencl_and_pvc_emulation_match(tmp_path, capsys, pipeline):
    """The portable binary on the OpenCL CPU device, the pvc one under the emulation library; --backend=both
    also compares them with the simulator."""
    assert xe_run([_write(tmp_path, "per_group_bf16"), f"--pipeline={pipeline}", "--backend=both", "--check"]) == 0
    out = capsys.readouterr().out
    assert "backends agree" in out and out.rstrip().endswith("PASS"), out


def test_model_counts_the_weights_bytes():
    """The plan's performance model reads B at the weights' width: a W8A16 decode GEMM (M = 1, 4096 x 4096)
    moves about half the bytes of its f16 counterpart and is bandwidth-bound."""
    from xedialects.arch import get_arch
    from xedialects.lowering.linalg_to_xetile.convert import plan_recording
    from xedialects.passes.analysis.perf_model import predict, work_from_plan

    src = PROGRAMS["per_column_f16"]
    for a, b in (("40x96", "1x4096"), ("96x80", "4096x4096"), ("40x80", "1x4096"), ("x80x", "x4096x"),
                 ("<80x", "<4096x")):
        src = src.replace(a, b)
    m = xedialects.parse(src, "w8_decode.mlir")
    with plan_recording() as plans:
        run(m, "builtin.module(convert-linalg-to-xetile)")
    (plan,) = plans.values()
    assert plan.b_storage_type == "i8"
    pvc = get_arch("pvc")
    quant = work_from_plan(plan, pvc)
    plan.b_storage_type = None
    dense = work_from_plan(plan, pvc)
    assert 4096 * 4096 <= quant.bytes_hbm < 0.55 * dense.bytes_hbm, (quant.bytes_hbm, dense.bytes_hbm)
    assert any("B read as i8" in n for n in quant.assumptions)
    assert predict(pvc, quant).bound == "HBM"
    assert any(r.startswith("decode shape (M = 1 <= 32): DPAS kept, the model's compute term") for r in plan.reasons)


def test_split_k_keeps_the_dequantization(tmp_path, capsys):
    """An explicit k-slices > 1 (atomic partial sums) changes nothing on the B path: still one kernel, the
    per-group scale row is k / G of the absolute k."""
    path = _write(tmp_path, "per_group_f16")
    assert xe_run([path, "--pipeline=xe-gemm-to-spirv{k-slices=2}", "--check"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("PASS")
