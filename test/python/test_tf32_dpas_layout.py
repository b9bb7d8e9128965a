"""tf32 DPAS without lane moves (docs/spirv.md, "tf32 DPAS A operands").

`intel_sub_group_tf32_tf32_matrix_mad_k8` takes A (M x 8) with rows 2i and 2i+1 in lanes 0-7 and
8-15 of value i; a 32-bit 2D block read 16 wide puts a column on each lane, so A read that way
needed one shuffle + select per A register before each DPAS (IGC 2.40, tf32 4096^3 K loop: 268
instructions per 32 DPAS on pvc, 261 on bmg). A block read only as tf32 DPAS A operands is now read
as 8-wide blocks side by side (`32b_<h>r8x2c`, one message), which is that layout.

Pinned here: the 8x2c lane layout is the DPAS A layout and the emulation library defines those
reads; the tf32 4096^3 K loop of the SPIR-V has no shuffle (pvc, bmg); with IGC, that K loop has at
most 1.5 non-DPAS instructions per DPAS, 32 DPAS, no spill, at the metadata's GRF mode (pvc, bmg);
on the OpenCL CPU runtime the pvc binaries (static and dynamic with both the builtin and the
per-lane fallback of the surface guard) match the CPU reference and give the same bits as the
16-wide read with shuffles.
"""
import os
import sys

import numpy as np
import pytest

import xedialects
from xedialects.lowering.xegpu_to_spirv import kernel_block_io
from xedialects.lowering.xegpu_to_spirv import spirv_builtins as bi
from xedialects.passes import run
from xedialects.passes.utils.ir_walk import walk
from xedialects.runtime.igc import igc_available

sys.path.insert(0, os.path.dirname(__file__))
import test_linalg_lowering as LL  # noqa: E402
from opencl_support import RT, assert_opencl_matches_cpu, needs_rt  # noqa: E402

needs_igc = pytest.mark.skipif(not igc_available(), reason="IGC not installed (xe-opt --install-igc)")
MAD = "intel_sub_group_tf32_tf32_matrix_mad_k8"


def _gemm_tf32(n=4096, a="tf32"):
    t, c = f"memref<{n}x{n}x{a}>", f"memref<{n}x{n}xf32>"
    return f"""
func.func @gemm(%A: {t}, %B: {t}, %C: {c}) {{
  linalg.matmul ins(%A, %B : {t}, {t}) outs(%C : {c})
  return
}}"""


def _callee(op) -> str:
    return str(op.attributes["callee"]) if op.name == "spirv.FunctionCall" else ""


def _k_loop(module):
    """Op names and callees of the innermost spirv.mlir.loop with the most tf32 DPAS calls."""
    best = None
    for op in walk(module.operation):
        if op.name != "spirv.mlir.loop":
            continue
        inner = list(walk(op))
        if any(o.name == "spirv.mlir.loop" for o in inner):
            continue
        n = sum(MAD in _callee(o) for o in inner)
        if n and (best is None or n > best[0]):
            best = (n, inner)
    assert best is not None, "no loop with tf32 DPAS"
    return best[1]


@pytest.mark.parametrize("h", [2, 4, 8, 16, 32])
@pytest.mark.parametrize("w", [8, 16])
def test_8_wide_read_is_the_dpas_a_layout(h, w):
    blk = bi.block_read(32, h, w, False, False, dpas_a=True)
    assert (blk.kind, blk.bits, blk.rows, blk.width, blk.count) == ("read", 32, h, 8, w // 8)
    assert blk.values_per_lane == h * w // 16
    rows, cols = np.indices((h, w))
    lane, value, _ = blk.lane_of(rows, cols)
    for m0 in range(0, h, 8):                       # each 8 x 8 DPAS A tile of the block
        for k0 in range(0, w, 8):
            mm, kk = np.indices((min(8, h - m0), 8))
            a_lane, a_slot = bi.dpas_a_lane("tf32", mm, kk)
            tile_lane = lane[m0:m0 + 8, k0:k0 + 8]
            tile_value = value[m0:m0 + 8, k0:k0 + 8]
            assert (tile_lane == a_lane).all()
            assert (tile_value - tile_value.min() == a_slot).all()
    # without the DPAS-only use: unchanged (a column per lane)
    if w == 16:
        plain = bi.block_read(32, h, w, False, False)
        assert (plain.width, plain.count) == (16, 1)


def test_emulation_library_defines_the_8_wide_pair_reads():
    from xedialects.runtime.pvc_emulation import library

    for h in (2, 4, 8, 16, 32):
        assert bi.Block2D("read", 32, h, 8, 2).builtin.mangled in library.mangled_names()


@pytest.mark.parametrize("arch", ["pvc", "bmg"])
def test_tf32_k_loop_has_no_shuffle(arch):
    m = xedialects.parse(_gemm_tf32(), "gemm_tf32.mlir")
    run(m, f"builtin.module(xe-gemm-to-spirv{{arch={arch}}})")
    loop = _k_loop(m)
    callees = [_callee(o) for o in loop]
    assert sum(MAD in c for c in callees) == 32
    assert not [o for o in loop if o.name.startswith("spirv.GroupNonUniformShuffle")]
    assert any("2d_block_read_32b_32r8x2c" in c for c in callees)


@needs_igc
@pytest.mark.parametrize("arch", ["pvc", "bmg"])
def test_tf32_k_loop_isa_has_at_most_1_5_non_dpas_per_dpas(arch):
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv
    from xedialects.runtime.igc import build_module

    m = xedialects.parse(_gemm_tf32(), "gemm_tf32.mlir")
    run(m, f"builtin.module(xe-gemm-to-spirv{{arch={arch}}})")
    binary, meta = export_spirv(m)
    k = build_module(binary, meta).kernels["gemm_0"]       # with the metadata's build options
    assert "-ze-opt-large-register-file" in meta["build_options"] and k.grf_count == 256
    assert (k.spill_bytes, k.total.scratch_messages) == (0, 0)
    assert k.k_loop is not None and k.k_loop.dpas == 32
    assert k.k_loop.non_dpas_per_dpas <= 1.5, k.k_loop


CASES = {
    "static": LL.mm(40, 48, 24, "tf32", "f32"),
    "f32_inputs": LL.mm(64, 48, 40, "f32", "f32"),
    "dynamic_builtins": LL.mm(40, 48, 24, "tf32", "f32", dyn=True),       # A surface 96 B wide
    "dynamic_fallback": LL.mm(40, 48, 12, "tf32", "f32", dyn=True),       # 48 B: per-lane loads
}


def _run_pvc(case, name):
    from xedialects.runtime.opencl import program_for_module, run_opencl

    m = xedialects.parse(case.src, f"{name}.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv)")
    program = program_for_module(m, RT)
    assert program.emulated
    out = run_opencl(m, case.entry, [np.copy(a) for a in case.inputs(0)], runtime=RT, program=program).result
    return m, program, out


@needs_rt
@pytest.mark.parametrize("name", list(CASES))
def test_pvc_binary_matches_and_keeps_the_bits(name, monkeypatch):
    case = CASES[name]
    m, program, new = _run_pvc(case, name)
    text = str(m)
    assert "r8x2c" in text and "spirv.GroupNonUniformShuffle" not in text
    assert_opencl_matches_cpu(name, case, m, program)
    # the 16-wide read with shuffles gives the same bits (only the data movement changed)
    monkeypatch.setattr(kernel_block_io, "feeds_tf32_dpas_a_only", lambda v: False)
    m_old, _, old = _run_pvc(case, name + "_old")
    assert "r8x2c" not in str(m_old)
    for got, want in zip(new.buffers, old.buffers):
        assert np.array_equal(np.asarray(got).view(np.uint32), np.asarray(want).view(np.uint32))
