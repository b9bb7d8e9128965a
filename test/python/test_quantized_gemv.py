"""Weight-only quantized gemvs (docs/quantized-gemm.md "gemv"): a dequantizing linalg.generic feeding a
linalg.matvec (weights N x K, i4 packed along K) or linalg.vecmat (K x N) lowers to one gemv kernel whose A tile
holds the integer weights, dequantized in registers, under `dequant-gemv=vector`; by default (dpas) the gemv is
the M = 1 DPAS GEMM kernel with the weights as B (gemv_as_gemm.py), tested at the end. Checked against upstream
MLIR's CPU run of the unfused program through the simulator and, where the OpenCL CPU runtime is present, the
portable binary and the pvc one under the emulation library; the plan counts the weights at their own width."""
import os
import sys

import pytest

import xedialects
from xedialects.passes import run
from xedialects.tools.xe_run import main as xe_run

sys.path.insert(0, os.path.dirname(__file__))
from opencl_support import needs_rt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from quantized_source import quantized_gemv_source  # noqa: E402

# (form, N, K, weights, group, zero point, y type): i8 per output, i4 per group (64: 32-byte rows of the packed
# bytes) with a zero point; f16 and bf16 (the vecmat i4 one into an f32 y)
CASES = {
    "matvec_i8_f16": ("matvec", 64, 256, "i8", None, False, None, "f16"),
    "matvec_i4_bf16": ("matvec", 48, 256, "i4", 64, True, None, "bf16"),
    "vecmat_i8_bf16": ("vecmat", 96, 128, "i8", None, False, None, "bf16"),
    "vecmat_i4_f16": ("vecmat", 128, 128, "i4", 32, True, "f32", "f16"),
    # an f32 y not filled first, few outputs: the K loop split over 4 work-groups adding into y atomically
    "matvec_i4_split_f16": ("matvec", 64, 2048, "i4", 64, True, "f32", "f16"),
}


def _source(name):
    form, n, k, wtype, group, zp, acc, elt = CASES[name]
    return quantized_gemv_source(n, k, wtype, group, elt, acc, form, zp)


def _write(tmp_path, name):
    path = tmp_path / f"{name}.mlir"
    path.write_text(_source(name))
    return str(path)


@pytest.mark.parametrize("name", list(CASES))
def test_one_launch_and_no_dequantized_matrix(name):
    m = xedialects.parse(_source(name), f"{name}.mlir")
    run(m, "builtin.module(convert-linalg-to-xetile{dequant-gemv=vector})")
    func = [o for o in m.body.operations if o.operation.name == "func.func"][0]
    host = [o.operation.name for o in func.regions[0].blocks[0].operations]
    assert host.count("gpu.launch_func") == 1, host
    assert not [n for n in host if n.startswith("linalg.") or n in ("memref.alloc", "memref.dealloc")], host
    assert host.count("builtin.unrealized_conversion_cast") == (1 if "_i4_" in name else 0), host


# the simulator for every case; the portable binary on the OpenCL CPU device and the pvc one under the emulation
# library (--backend=both also compares them with the simulator) for the i4 ones
VEC = "{dequant-gemv=vector}"
RUNS = [(name, "xe-gemm-to-spirv" + VEC, "sim") for name in CASES] + [
    pytest.param("matvec_i4_bf16", "xe-gemm-to-spirv-portable" + VEC, "both", marks=needs_rt),
    pytest.param("vecmat_i4_f16", "xe-gemm-to-spirv" + VEC, "both", marks=needs_rt)]


@pytest.mark.parametrize("name, pipeline, backend", RUNS)
def test_kernel_matches_the_unfused_cpu_program(tmp_path, capsys, name, pipeline, backend):
    assert xe_run([_write(tmp_path, name), f"--pipeline={pipeline}", f"--backend={backend}", "--check"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("PASS") and "y: max abs error" in out, out
    assert backend == "sim" or "backends agree" in out, out


def test_plan_counts_the_weights_at_their_width():
    """The plan of a 4096 x 4096 decode matvec: i4 tiles of 64 columns (32 bytes of packed weights, the narrowest
    plain 8-bit block read), a K step dividing the group, and the bytes in flight counted at 1 and 1/2 byte per
    weight; the kernel's launch reads the weights' bytes, not the f16 matrix's."""
    from xedialects.arch import get_arch
    from xedialects.lowering.linalg_to_xetile.memory_plan import plan_gemv
    from xedialects.passes.analysis.kernel_bytes import kernel_bytes
    from xedialects.passes.analysis.launch_sizes import launches
    from xedialects.passes.utils.ir_walk import walk

    pvc = get_arch("pvc")
    f16 = plan_gemv(4096, 4096, 1, 1, "f16", pvc)
    i8 = plan_gemv(4096, 4096, 1, 1, "f16", pvc, weights=("i8", None))
    i4 = plan_gemv(4096, 4096, 1, 1, "f16", pvc, weights=("i4", 128))
    assert (f16.sg_data, i8.sg_data, i4.sg_data) == ((8, 32), (8, 32), (8, 64))
    assert any("32-byte rows of the weights' bytes" in r for r in i4.reasons)
    def per_tile(p):   # KiB in flight per Xe-core and A tile of a step
        why = next(r for r in p.reasons if "in flight per Xe-core" in r)
        return float(why.split("): ")[1].split()[0]) / p.unroll

    assert per_tile(i8) == pytest.approx(per_tile(f16) / 2) and per_tile(i4) == pytest.approx(per_tile(f16) / 2)
    g16 = plan_gemv(4096, 4096, 1, 1, "f16", pvc, weights=("i4", 16))
    assert g16.sg_data == (8, 16) and any("divides the dequantization group 16" in r for r in g16.reasons)

    def hbm_read(src):
        m = xedialects.parse(src, "q.mlir")
        run(m, "builtin.module(xe-gemm-to-xegpu" + VEC + ")")
        grids = launches(m.operation)
        func = next(o for o in walk(m.operation) if o.name == "gpu.func")
        return kernel_bytes(func, grids.get("qgemv_0"), pvc, True)["hbm_read"]

    w8, w4 = (hbm_read(quantized_gemv_source(4096, 4096, t, g)) for t, g in (("i8", None), ("i4", 128)))
    assert 4096 * 4096 <= w8 < 4096 * 4096 * 1.01, w8          # the i8 weights, x and the scales
    assert 4096 * 4096 // 2 <= w4 < 4096 * 4096 // 2 * 1.05, w4



# ---- the default (dequant-gemv=dpas): the gemv as the M = 1 DPAS GEMM (gemv_as_gemm.py) ------------------------
# (form, N, K, weights, group, zero point, y type, x type): vecmat i8 per column f16, matvec i4 per group with a zero
# point bf16 (docs/quantized-gemm.md "gemv")
DPAS_CASES = {"vecmat_i8_f16": ("vecmat", 96, 128, "i8", None, False, None, "f16"),
              "matvec_i4_bf16": ("matvec", 48, 256, "i4", 64, True, None, "bf16")}


@pytest.mark.parametrize("name", list(DPAS_CASES))
def test_default_is_the_m1_gemm_kernel(name, capsys):
    """One launch of the GEMM kernel (tile_mma; B the weights, read transposed for the matvec's N x K) with x and y
    as 1 x n views; --xe-print-plan names the form and why."""
    from xedialects.lowering.linalg_to_xetile.convert import plan_printing
    from xedialects.passes.utils.ir_walk import walk

    form, n, k, wtype, group, zp, acc, elt = DPAS_CASES[name]
    m = xedialects.parse(quantized_gemv_source(n, k, wtype, group, elt, acc, form, zp), f"{name}.mlir")
    with plan_printing():
        run(m, "builtin.module(convert-linalg-to-xetile)")
    err = capsys.readouterr().err
    assert f"GEMM plan [pvc]: C[1x{n} {elt}] += A[1x{k} {elt}] * B{'^T' if form == 'matvec' else ''}[{k}x{n}" in err
    assert "the dequantizing gemv as the M = 1 DPAS GEMM (dequant-gemv=dpas; IGC 2.40" in err, err
    func = [o for o in m.body.operations if o.operation.name == "func.func"][0]
    host = [o.operation.name for o in func.regions[0].blocks[0].operations]
    assert host.count("gpu.launch_func") == 1 and host.count("memref.expand_shape") == 2, host
    assert not [h for h in host if h.startswith("linalg.") or h == "memref.alloc"], host
    names = {o.name for o in walk(m.operation)}
    assert "xetile.tile_mma" in names and "xetile.tile_reduce" not in names


@pytest.mark.parametrize("name", list(DPAS_CASES))
def test_default_matches_the_unfused_cpu_program(tmp_path, capsys, name):
    form, n, k, wtype, group, zp, acc, elt = DPAS_CASES[name]
    path = tmp_path / f"{name}.mlir"
    path.write_text(quantized_gemv_source(n, k, wtype, group, elt, acc, form, zp))
    assert xe_run([str(path), "--pipeline=xe-gemm-to-spirv", "--check"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("PASS") and "y: max abs error" in out, out


@needs_rt
def test_default_matvec_on_opencl(tmp_path, capsys):
    """The portable binary of the default (GEMM) kernel of the i4 matvec on the OpenCL CPU device."""
    form, n, k, wtype, group, zp, acc, elt = DPAS_CASES["matvec_i4_bf16"]
    path = tmp_path / "mv.mlir"
    path.write_text(quantized_gemv_source(n, k, wtype, group, elt, acc, form, zp))
    assert xe_run([str(path), "--pipeline=xe-gemm-to-spirv-portable", "--backend=opencl", "--check"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("PASS"), out
