"""Lane-level export (export_upstream_lanes, convert-xegpu-to-upstream{level=lane}): linalg lowering
programs distributed by our xegpu-simt-distribute, exported as upstream's lane-level xegpu, verified
by upstream mlir-opt, imported back by our import (lane level -> SIMT mode) and simulated: the
buffers are bit-identical to simulating our own SIMT-mode kernel (same simulator model both ways).
tf32 DPAS is exported as xevm.mma (LLVM 22's xegpu has no tf32), which the import reads back into
our SIMT dpas in the tf32 builtin's lane order. What is not exported is a located error."""
import os
import sys

import numpy as np
import pytest

import xedialects
from xedialects.diagnostics import DiagnosticError
from xedialects.lowering.upstream_to_xegpu import import_upstream
from xedialects.lowering.xegpu_to_upstream import export_upstream_lanes
from xedialects.passes import run

sys.path.insert(0, os.path.dirname(__file__))
import test_upstream_export as UE  # noqa: E402

# a cross-section: bf16 (packed A loads: the DPAS A taken from the loaded vector in the lane), f16,
# the transposed B (its transposed load as a plain load + reorder), the transposed A (its 32x8 block loaded 16 wide, our
# SIMT vector gpu.shuffle per element), the scattered fallbacks (per-lane gathers / scatters), the
# 32x1 bias column of a memref<?x1xf32> (per-lane memref.load inside the descriptor's shape),
# epilogues with bias / relu, tensor programs, 8-bit GEMMs (A: lane l holds bytes 2l, 2l + 1 of each
# row of a 32-wide block, B packed: column l), tf32 (xevm.mma: A lane l slot j = A[2j + l/8][l % 8])
ROUND_TRIP = ["form:bf16_f32", "form:f16_f32", "form:transposed_a", "form:transposed_b", "form:k_1", "form:unaligned",
              "epilogue:bias_relu", "epilogue:bias_relu_unaligned", "epilogue:bias_relu_f16_out", "epilogue:bias_col_dynamic",
              "tensor:bias_relu", "tensor:batch_fill", "form:i8_i32", "epilogue:bias_relu_i8",
              "form:tf32", "form:f32_tf32"]


def _simt(name):
    mod = xedialects.parse(UE.PROGRAMS[name].src, "case.mlir")
    run(mod, "builtin.module(xe-gemm-to-xegpu, xegpu-simt-distribute)")
    return mod


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_lane_round_trip_is_bit_identical(name):
    case = UE.PROGRAMS[name]
    mod = _simt(name)
    text = export_upstream_lanes(mod)
    assert "sg_map" not in text and "mode = vc" not in text
    assert ("xevm.mma" if "tf32" in name else "xegpu.dpas") in text
    assert "intel_reqd_sub_group_size = 16 : i32" in text
    if UE.MLIR_OPT is not None:
        r = UE.mlir_opt(text, "--verify-each")
        assert r.returncode == 0, r.stderr
    UE.assert_same_buffers(mod, import_upstream(text, f"{name}.lanes.mlir"), case.entry, case.inputs())


def test_tf32_dpas_is_xevm_mma_on_f32_storage():
    text = export_upstream_lanes(_simt("form:tf32"))
    assert "xegpu.dpas" not in text and "tf32>" not in text.replace("a = tf32, b = tf32", "")
    mma = [line for line in text.splitlines() if "xevm.mma" in line]
    assert mma and all("shape = <m = 8, n = 16, k = 8>, types = <d = f32, a = tf32, b = tf32, c = f32>" in x and
                       "(vector<4xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>" in x for x in mma)
    if UE.MLIR_OPT is not None:
        r = UE.mlir_opt(text, "--verify-each")
        assert r.returncode == 0, r.stderr


def test_packed_a_reorder_is_the_inverse_of_the_imports():
    """Our packed A order (wi_layout [2, 8], wi_data [1, 2]) -> the DPAS order (lane c: column c) and
    the import's reorder back give every lane its own elements again (the tables compose to identity)."""
    from xedialects.lowering.xegpu_to_upstream.lane_order import ours_ids, upstream_block_ids

    packed, dpas = ours_ids((8, 16), (2, 8), (1, 2)), upstream_block_ids((8, 16))
    assert sorted(packed.ravel()) == sorted(dpas.ravel()) == list(range(128))
    assert np.array_equal(dpas[:, 3], 3 * 16 + np.arange(16))  # slot r of lane c: A[r, c]
    assert np.array_equal(packed[9], [16 + 2, 16 + 3, 48 + 2, 48 + 3, 80 + 2, 80 + 3, 112 + 2, 112 + 3])


def test_vc_mode_input_is_a_located_error():
    mod = xedialects.parse(UE.PROGRAMS["form:bf16_f32"].src, "case.mlir")
    run(mod, "builtin.module(xe-gemm-to-xegpu)")
    with pytest.raises(DiagnosticError) as e:
        export_upstream_lanes(mod)
    d = e.value.diagnostics[0]
    assert d.line is not None and "in VC mode is not exported at lane level" in d.message


W48 = """\
gpu.module @k {
  gpu.func @f(%a: memref<8x48xi8>) kernel attributes {intel_reqd_sub_group_size = 16 : i32} {
    %t = xegpu.create_nd_tdesc %a[0, 0] : memref<8x48xi8> -> !xegpu.tensor_desc<8x48xi8, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
    %v = xegpu.load_nd %t : !xegpu.tensor_desc<8x48xi8, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<24x1xi8>
    gpu.return
  }
}
"""


def test_8bit_block_of_unmodelled_width_is_a_located_error():
    """8-bit blocks are exported 16 wide (a byte per lane and row) or in 32-wide pieces (bytes 2l,
    2l + 1): a 48-wide one has no modelled upstream lane order."""
    with pytest.raises(DiagnosticError) as e:
        export_upstream_lanes(xedialects.parse(W48, "w48.mlir"))
    d = e.value.diagnostics[0]
    assert d.line == 4 and "8x48 block of 8-bit data is not exported at lane level" in d.message, d.message


def test_8bit_dpas_a_comes_straight_from_its_loads():
    """The i8 GEMM's A (our 8x64 [2, 8] x [1, 4] loads) as 32-wide upstream loads whose per-lane
    vectors feed the DPAS in the lane: after canonicalization no gpu.shuffle is left."""
    text = export_upstream_lanes(_simt("form:i8_i32"))
    assert "!xegpu.tensor_desc<8x32xi8> -> vector<16xi8>" in text and "<{packed}>" in text
    assert "xegpu.dpas" in text and "vector<16xi8>, vector<32xi8>, vector<8xi32> -> vector<8xi32>" in text
    if UE.MLIR_OPT is not None:
        r = UE.mlir_opt(text, "--canonicalize", "--cse")
        assert r.returncode == 0, r.stderr
        assert "gpu.shuffle" not in r.stdout and r.stdout.count("xegpu.dpas") == 4


def test_pass_level_lane_checks_the_export():
    """convert-xegpu-to-upstream{level=lane} on VC-mode input distributes a copy, exports it, and leaves
    the module as it was."""
    mod = xedialects.parse(UE.PROGRAMS["form:k_1"].src, "case.mlir")
    run(mod, "builtin.module(xe-gemm-to-xegpu)")
    before = str(mod)
    run(mod, "builtin.module(convert-xegpu-to-upstream{level=lane})")
    assert str(mod) == before
