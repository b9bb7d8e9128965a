"""IMEX's XeTile (docs/imex-xetile.md): its op spellings, attributes and pass names, simulated at
subgroup and work-group level against numpy, and lowered through our pipeline (simulated as XeGPU)."""
import numpy as np
import pytest

import xedialects
from xedialects.diagnostics import DiagnosticError
from xedialects.passes import PassFailure, run
from xedialects.sim import simulate
from xedialects.sim.testing import single_kernel_module

LOWER = "imex-xetile-to-xegpu"


def _module(args, body, nsg=1):
    return xedialects.parse(single_kernel_module(args, body, block=(16 * nsg, 1, 1)), "imex.mlir")


def _sim(args, body, arrays, nsg=1, pipeline=None):
    m = _module(args, body, nsg)
    if pipeline:
        run(m, f"builtin.module({pipeline})")
    return simulate(m, "main", arrays).buffers


def _both(args, body, arrays, nsg=1):
    """Buffers after simulating the XeTile program and its XeGPU lowering (which must agree)."""
    a = _sim(args, body, [x.copy() for x in arrays], nsg)
    b = _sim(args, body, [x.copy() for x in arrays], nsg, LOWER)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-5)
    return a


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# -- spellings -------------------------------------------------------------------------------------

def test_imex_spellings_parse_into_our_ops():
    body = """
%c0 = arith.constant 0 : index
%t = xetile.init_tile %X[%c0, %c0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
%v = xetile.load_tile %t {padding = 0.0 : f32, l1_hint = #xetile.cache_hint<cached>} : !xetile.tile<16x32xf32> -> vector<16x32xf32>
%r = xetile.reduction <maxnumf>, %v [1] : vector<16x32xf32> -> vector<16x1xf32>
%b = xetile.broadcast %r [1] : vector<16x1xf32> -> vector<16x32xf32>
%s = xetile.transpose %b, [1, 0] : vector<16x32xf32> -> vector<32x16xf32>
"""
    printed = xedialects.print_ir(_module([("X", "memref<16x32xf32>")], body))
    for ours in ("xetile.tile_reduce <maxnumf> %", "xetile.tile_broadcast %", "xetile.tile_transpose %",
                 "l1_hint = #xetile.cache_hint<cached>"):
        assert ours in printed
    assert xedialects.print_ir(xedialects.parse(printed, "again.mlir")) == printed


def test_verifier_messages_for_imex_ops():
    bad = """
%v = arith.constant dense<1.0> : vector<8x16xf32>
%r = xetile.reduction <add>, %v [0] : vector<8x16xf32> -> vector<2x16xf32>
"""
    with pytest.raises(DiagnosticError, match=r"result must be vector<1x16xf32>"):
        _module([], bad)


# -- subgroup level ----------------------------------------------------------------------------------

def test_reduction_broadcast_transpose_subgroup():
    body = """
%c0 = arith.constant 0 : index
%t = xetile.init_tile %X[%c0, %c0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
%v = xetile.load_tile %t : !xetile.tile<16x32xf32> -> vector<16x32xf32>
%r = xetile.reduction <add>, %v [0] : vector<16x32xf32> -> vector<1x32xf32>
%b = xetile.broadcast %r [0] : vector<1x32xf32> -> vector<16x32xf32>
%d = arith.subf %v, %b : vector<16x32xf32>
%s = xetile.transpose %d, [1, 0] : vector<16x32xf32> -> vector<32x16xf32>
%o = xetile.init_tile %O[%c0, %c0] : memref<32x16xf32> -> !xetile.tile<32x16xf32>
xetile.store_tile %s, %o : vector<32x16xf32>, !xetile.tile<32x16xf32>
"""
    X = _rand(16, 32)
    out = _both([("X", "memref<16x32xf32>"), ("O", "memref<32x16xf32>")], body, [X, np.zeros((32, 16), np.float32)])
    np.testing.assert_allclose(out[1], (X - X.sum(0, keepdims=True)).T, rtol=1e-5, atol=1e-5)


def test_reduction_size_semantics():
    body = """
%c0 = arith.constant 0 : index
%t = xetile.init_tile %X[%c0, %c0] : memref<8x64xf32> -> !xetile.tile<8x64xf32>
%v = xetile.load_tile %t : !xetile.tile<8x64xf32> -> vector<8x64xf32>
%r = xetile.reduction <add>, %v [1] {reduction_size = 16 : i64} : vector<8x64xf32> -> vector<8x4xf32>
%o = xetile.init_tile %O[%c0, %c0] : memref<8x4xf32> -> !xetile.tile<8x4xf32>
xetile.store_tile %r, %o : vector<8x4xf32>, !xetile.tile<8x4xf32>
"""
    X = _rand(8, 64)
    args = [("X", "memref<8x64xf32>"), ("O", "memref<8x4xf32>")]
    exp = X.reshape(32, 16).sum(1).reshape(8, 4)
    out = _sim(args, body, [X, np.zeros((8, 4), np.float32)])
    np.testing.assert_allclose(out[1], exp, rtol=1e-5, atol=1e-5)
    # xetile-canonicalization expands reduction_size into shape casts around a plain reduction
    out = _sim(args, body, [X, np.zeros((8, 4), np.float32)], pipeline="xetile-canonicalization")
    np.testing.assert_allclose(out[1], exp, rtol=1e-5, atol=1e-5)


def test_gather_scatter_atomic_and_scattered_update():
    body = """
%c0 = arith.constant 0 : index
%c32 = arith.constant 32 : index
%c16 = arith.constant 16 : index
%idx = arith.constant dense<[[0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]]> : vector<1x16xindex>
%step = arith.constant dense<32> : vector<1x16xindex>
%on = arith.constant dense<true> : vector<1x16xi1>
%ta = xetile.init_tile %A, %idx : memref<64xf32>, vector<1x16xindex> -> !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>
%tb = xetile.init_tile %B, %idx : memref<64xf32>, vector<1x16xindex> -> !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>
%tc = xetile.init_tile %C, %idx : memref<64xf32>, vector<1x16xindex> -> !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>
%r:3 = scf.for %i = %c0 to %c32 step %c16 iter_args(%a = %ta, %b = %tb, %c = %tc) -> (!xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>) {
  %x = xetile.load %b, %on : !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, vector<1x16xi1> -> vector<1x16xf32>
  %old = xetile.atomic_rmw addf %x, %a : vector<1x16xf32>, !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>> -> vector<1x16xf32>
  xetile.store %old, %c, %on : vector<1x16xf32>, !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, vector<1x16xi1>
  %a2 = xetile.update_tile_offset %a, %step : !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, vector<1x16xindex>
  %b2 = xetile.update_tile_offset %b, %step : !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, vector<1x16xindex>
  %c2 = xetile.update_tile_offset %c, %step : !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, vector<1x16xindex>
  scf.yield %a2, %b2, %c2 : !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>
}
"""
    # two trips moving the even-element tiles by 32: elements 0, 2, .., 30 then 32, .., 62
    A, B = _rand(64), _rand(64, seed=1)
    C = np.zeros(64, np.float32)
    out = _both([("A", "memref<64xf32>"), ("B", "memref<64xf32>"), ("C", "memref<64xf32>")], body, [A, B, C])
    expA, expC = A.copy(), C.copy()
    for it in range(2):
        sel = np.arange(0, 32, 2) + 32 * it
        expC[sel] = expA[sel]
        expA[sel] += B[sel]
    np.testing.assert_allclose(out[0], expA, rtol=1e-6)
    np.testing.assert_allclose(out[2], expC, rtol=1e-6)


def test_padding_f32_on_f16_tile_and_batched_init_tile():
    body = """
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%t = xetile.init_tile %X[%c1, %c0, %c8, %c0] : memref<2x3x16x32xf16> -> !xetile.tile<16x32xf16>
%v = xetile.load_tile %t {padding = 2.5 : f32} : !xetile.tile<16x32xf16> -> vector<16x32xf16>
%o = xetile.init_tile %O[%c0, %c0] : memref<16x32xf16> -> !xetile.tile<16x32xf16>
xetile.store_tile %v, %o : vector<16x32xf16>, !xetile.tile<16x32xf16>
"""
    X = _rand(2, 3, 16, 32).astype(np.float16)
    exp = np.full((16, 32), 2.5, np.float16)
    exp[:8] = X[1, 0, 8:]
    for pipeline in (None, "xetile-canonicalize", LOWER):
        out = _sim([("X", "memref<2x3x16x32xf16>"), ("O", "memref<16x32xf16>")], body,
                   [X, np.zeros((16, 32), np.float16)], pipeline=pipeline)
        np.testing.assert_array_equal(out[1], exp)


def test_padding_i32_on_f16_tile_and_batched_init_tile_with_shape_and_strides():
    """IMEX's conversion tests: three offsets into a 3D memref with dynamic dims, its shape and
    strides given (the leading offset selects the batch), and `padding = <int> : i32` on an f16 tile."""
    body = """
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c2 = arith.constant 2 : index
%c8 = arith.constant 8 : index
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%c512 = arith.constant 512 : index
%t = xetile.init_tile %X[%c1, %c8, %c0], [%c2, %c16, %c32], [%c512, %c32, %c1] : memref<?x16x32xf16> -> !xetile.tile<16x32xf16>
%v = xetile.load_tile %t {padding = 3 : i32} : !xetile.tile<16x32xf16> -> vector<16x32xf16>
%o = xetile.init_tile %O[%c0, %c0] : memref<16x32xf16> -> !xetile.tile<16x32xf16>
xetile.store_tile %v, %o : vector<16x32xf16>, !xetile.tile<16x32xf16>
"""
    X = _rand(2, 16, 32).astype(np.float16)
    exp = np.full((16, 32), 3, np.float16)
    exp[:8] = X[1, 8:]
    for pipeline in (None, "xetile-canonicalize", LOWER):
        out = _sim([("X", "memref<?x16x32xf16>"), ("O", "memref<16x32xf16>")], body,
                   [X, np.zeros((16, 32), np.float16)], pipeline=pipeline)
        np.testing.assert_array_equal(out[1], exp)


# -- work-group level ----------------------------------------------------------------------------

WG = "#xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 16]>"


def test_work_group_reduction_broadcast_convert_layout():
    tile = f"!xetile.tile<32x32xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [16, 16]>>>"
    body = f"""
%c0 = arith.constant 0 : index
%t = xetile.init_tile %X[%c0, %c0] : memref<32x32xf32> -> {tile}
%v = xetile.load_tile %t : {tile} -> vector<32x32xf32>
%w = xetile.convert_layout %v {{wg_map_result = #xetile.wg_map<sg_layout = [4, 1], sg_data = [8, 32]>, wg_map_source = {WG}}} : vector<32x32xf32>
%u = xetile.convert_layout %w {{wg_map_result = {WG}}} : vector<32x32xf32>
%r = xetile.reduction <add>, %u [1] {{map = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 1]>}} : vector<32x32xf32> -> vector<32x1xf32>
%b = xetile.broadcast %r [1] {{map = {WG}}} : vector<32x1xf32> -> vector<32x32xf32>
%s = xetile.transpose %b, [1, 0] {{map = {WG}}} : vector<32x32xf32> -> vector<32x32xf32>
%o = xetile.init_tile %O[%c0, %c0] : memref<32x32xf32> -> {tile}
xetile.store_tile %s, %o : vector<32x32xf32>, {tile}
"""
    X = _rand(32, 32)
    args = [("X", "memref<32x32xf32>"), ("O", "memref<32x32xf32>")]
    m = _module(args, body, nsg=4)
    assert "wg_map = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 1]>" in xedialects.print_ir(m)
    out = _sim(args, body, [X, np.zeros((32, 32), np.float32)], nsg=4)
    exp = np.broadcast_to(X.sum(1, keepdims=True), (32, 32)).T
    np.testing.assert_allclose(out[1], exp, rtol=1e-5, atol=1e-5)


def test_work_group_transpose_lowers():
    tile = "!xetile.tile<32x32xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [16, 16]>>>"
    body = f"""
%c0 = arith.constant 0 : index
%t = xetile.init_tile %X[%c0, %c0] : memref<32x32xf32> -> {tile}
%v = xetile.load_tile %t : {tile} -> vector<32x32xf32>
%s = vector.transpose %v, [1, 0] {{map = {WG}}} : vector<32x32xf32> to vector<32x32xf32>
%o = xetile.init_tile %O[%c0, %c0] : memref<32x32xf32> -> {tile}
xetile.store_tile %s, %o : vector<32x32xf32>, {tile}
"""
    X = _rand(32, 32)
    out = _both([("X", "memref<32x32xf32>"), ("O", "memref<32x32xf32>")], body,
                [X, np.zeros((32, 32), np.float32)], nsg=4)
    np.testing.assert_allclose(out[1], X.T, rtol=1e-6)



@pytest.mark.parametrize("level", ["subgroup", "workgroup"])
def test_vector_ops_through_xe_gemm_to_xegpu(level):
    # IMEX's vector.transpose / broadcast / multi_reduction go through our default pipeline too
    nsg, wg = (1, "") if level == "subgroup" else (4, f" {{map = {WG}}}")
    tile = ("!xetile.tile<32x32xf32>" if level == "subgroup" else
            f"!xetile.tile<32x32xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [16, 16]>>>")
    red = "" if level == "subgroup" else " {map = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 1]>}"
    body = f"""
%c0 = arith.constant 0 : index
%t = xetile.init_tile %X[%c0, %c0] : memref<32x32xf32> -> {tile}
%v = xetile.load_tile %t : {tile} -> vector<32x32xf32>
%s = vector.transpose %v, [1, 0]{wg} : vector<32x32xf32> to vector<32x32xf32>
%z = arith.constant dense<0.0> : vector<32xf32>
%r = vector.multi_reduction <add>, %s, %z{red} [1] : vector<32x32xf32> to vector<32xf32>
%c = vector.shape_cast %r{red} : vector<32xf32> to vector<32x1xf32>
%b = vector.broadcast %c{wg} : vector<32x1xf32> to vector<32x32xf32>
%w = arith.addf %s, %b{wg} : vector<32x32xf32>
%o = xetile.init_tile %O[%c0, %c0] : memref<32x32xf32> -> {tile}
xetile.store_tile %w, %o : vector<32x32xf32>, {tile}
"""
    X = _rand(32, 32)
    args = [("X", "memref<32x32xf32>"), ("O", "memref<32x32xf32>")]
    want = X.T + X.T.sum(1, keepdims=True)
    for pipeline in (None, "xe-gemm-to-xegpu"):
        out = _sim(args, body, [X, np.zeros((32, 32), np.float32)], nsg, pipeline)
        np.testing.assert_allclose(out[1], want, rtol=1e-5, atol=1e-5)



def _segmented_body(src_data):
    tile = f"!xetile.tile<64x32xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = {src_data}>>>"
    res = "#xetile.wg_map<sg_layout = [2, 2], sg_data = [1, 16]>"
    otile = f"!xetile.tile<2x32xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [1, 16]>>>"
    return f"""
%c0 = arith.constant 0 : index
%t = xetile.init_tile %X[%c0, %c0] : memref<64x32xf32> -> {tile}
%v = xetile.load_tile %t : {tile} -> vector<64x32xf32>
%z = arith.constant {{map = {res}}} dense<1.0> : vector<2x32xf32>
%s = vector.shape_cast %v {{map = #xetile.wg_map<sg_layout = [2, 2], sg_data = {src_data}>}} : vector<64x32xf32> to vector<2x32x32xf32>
%r = vector.multi_reduction <maximumf>, %s, %z {{map = {res}}} [1] : vector<2x32x32xf32> to vector<2x32xf32>
%o = xetile.init_tile %O[%c0, %c0] : memref<2x32xf32> -> {otile}
xetile.store_tile %r, %o : vector<2x32xf32>, {otile}
"""


def test_work_group_segmented_reduction():
    # IMEX's wg_reduction form: groups of 32 rows reduced (shape_cast to 3D + multi_reduction [1]),
    # each subgroup owning whole groups; as written and through both pipelines
    X = _rand(64, 32)
    args = [("X", "memref<64x32xf32>"), ("O", "memref<2x32xf32>")]
    want = np.maximum(X.reshape(2, 32, 32).max(axis=1), 1.0)
    for pipeline in (None, LOWER, "xe-gemm-to-xegpu"):
        out = _sim(args, _segmented_body("[32, 16]"), [X, np.zeros((2, 32), np.float32)], 4, pipeline)
        np.testing.assert_array_equal(out[1], want)


def test_work_group_segmented_reduction_not_local_is_a_located_error():
    m = _module([("X", "memref<64x32xf32>"), ("O", "memref<2x32xf32>")], _segmented_body("[16, 16]"), nsg=4)
    with pytest.raises(PassFailure) as e:
        run(m, f"builtin.module({LOWER})")
    assert "imex.mlir:" in str(e.value) and "is not local to each subgroup" in str(e.value)



def test_work_group_kernel_with_named_barrier_in_k_loop():
    # IMEX's wg_gemm_4k_8x4_sg_layout in small: a work-group level VC kernel whose 4 subgroups meet
    # at a named barrier (init_nbarrier with 4 participants) in every step of a loop; as written
    # (one batch element per work-group acts for its subgroups) and lowered (per subgroup)
    tile = f"!xetile.tile<32x32xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [16, 16]>>>"
    body = f"""
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c3 = arith.constant 3 : index
%c0_i8 = arith.constant 0 : i8
%c4_i8 = arith.constant 4 : i8
%t = xetile.init_tile %X[%c0, %c0] : memref<32x96xf32> -> {tile}
%z = arith.constant {{map = {WG}}} dense<0.0> : vector<32x32xf32>
xegpu.alloc_nbarrier 1
%nb = xegpu.init_nbarrier %c0_i8, %c4_i8 : i8, i8 -> !xegpu.nbarrier
%r:2 = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %z, %tk = %t) -> (vector<32x32xf32>, {tile}) {{
  xegpu.nbarrier_arrive %nb : !xegpu.nbarrier
  %v = xetile.load_tile %tk : {tile} -> vector<32x32xf32>
  %s = arith.addf %acc, %v : vector<32x32xf32>
  %tn = xetile.update_tile_offset %tk, [%c0, 32] : {tile}
  xegpu.nbarrier_wait %nb : !xegpu.nbarrier
  scf.yield %s, %tn : vector<32x32xf32>, {tile}
}}
%o = xetile.init_tile %O[%c0, %c0] : memref<32x32xf32> -> {tile}
xetile.store_tile %r#0, %o : vector<32x32xf32>, {tile}
"""
    args = [("X", "memref<32x96xf32>"), ("O", "memref<32x32xf32>")]
    text = single_kernel_module(args, body, block=(4, 1, 1)).replace(
        ") kernel {", ") kernel attributes {VectorComputeFunctionINTEL} {", 1)
    X = _rand(32, 96)
    want = X[:, :32] + X[:, 32:64] + X[:, 64:]
    for pipeline in (None, LOWER, "xe-gemm-to-xegpu"):
        m = xedialects.parse(text, "nbar.mlir")
        if pipeline:
            run(m, f"builtin.module({pipeline})")
        out = simulate(m, "main", [X.copy(), np.zeros((32, 32), np.float32)]).buffers
        np.testing.assert_allclose(out[1], want, rtol=1e-6)



def test_vc_kernel_known_block_size_counts_subgroups():
    # IMEX's kernels give known_block_size in subgroups (threads of a VC kernel): 2 x 2 = 4 subgroups
    args = [("X", "memref<64x32xf32>"), ("O", "memref<2x32xf32>")]
    text = single_kernel_module(args, _segmented_body("[32, 16]"), block=(4, 1, 1)).replace(
        ") kernel {", ") kernel attributes {VectorComputeFunctionINTEL, known_block_size = array<i32: 2, 2, 1>} {", 1)
    m = xedialects.parse(text, "vc.mlir")
    run(m, "builtin.module(xetile-canonicalization{vector-ops-only=true}, xetile-wg-to-sg)")
    assert "wg_map" not in xedialects.print_ir(m)


# -- pass names ----------------------------------------------------------------------------------

def test_canonicalization_turns_vector_ops_into_xetile_ops():
    body = """
%c0 = arith.constant 0 : index
%t = xetile.init_tile %X[%c0, %c0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
%v = xetile.load_tile %t : !xetile.tile<16x32xf32> -> vector<16x32xf32>
%z = arith.constant dense<1.0> : vector<16xf32>
%r = vector.multi_reduction <maximumf>, %v, %z [1] : vector<16x32xf32> to vector<16xf32>
%o = xetile.init_tile %O[%c0] : memref<16xf32> -> !xetile.tile<16xf32>
vector.store %r, %O[%c0] : memref<16xf32>, vector<16xf32>
"""
    body = body.replace('%o = xetile.init_tile %O[%c0] : memref<16xf32> -> !xetile.tile<16xf32>\n', "")
    args = [("X", "memref<16x32xf32>"), ("O", "memref<16xf32>")]
    m = _module(args, body)
    run(m, "builtin.module(xetile-canonicalization)")
    text = xedialects.print_ir(m)
    assert "vector.multi_reduction" not in text and "xetile.tile_reduce <maximumf>" in text
    assert "arith.maximumf" in text  # the accumulator is combined with the reduction's own kind
    X = _rand(16, 32)
    out = simulate(m, "main", [X, np.zeros(16, np.float32)]).buffers
    np.testing.assert_allclose(out[1], np.maximum(X.max(1), 1.0), rtol=1e-6)


def test_init_duplicate_splits_load_and_store_uses():
    body = """
%c0 = arith.constant 0 : index
%t = xetile.init_tile %X[%c0, %c0] : memref<8x16xf32> -> !xetile.tile<8x16xf32>
%v = xetile.load_tile %t : !xetile.tile<8x16xf32> -> vector<8x16xf32>
%w = arith.addf %v, %v : vector<8x16xf32>
xetile.prefetch_tile %t : !xetile.tile<8x16xf32>
xetile.store_tile %w, %t : vector<8x16xf32>, !xetile.tile<8x16xf32>
"""
    args = [("X", "memref<8x16xf32>")]
    m = _module(args, body)
    run(m, "builtin.module(xetile-init-duplicate, xetile-blockop-fallback{device=pvc})")
    text = xedialects.print_ir(m)
    assert text.count("xetile.init_tile") == 2
    X = _rand(8, 16)
    np.testing.assert_allclose(simulate(m, "main", [X.copy()]).buffers[0], 2 * X)


def test_unsupported_lowering_is_a_located_error():
    tile = "!xetile.tile<256x128xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 4], sg_data = [32, 32]>>>"
    body = f"""
%c0 = arith.constant 0 : index
%t = xetile.init_tile %X[%c0, %c0] : memref<256x128xf32> -> {tile}
%v = xetile.load_tile %t : {tile} -> vector<256x128xf32>
%s = vector.shape_cast %v {{map = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 32]>}} : vector<256x128xf32> to vector<8x32x128xf32>
"""
    m = _module([("X", "memref<256x128xf32>")], body, nsg=32)
    with pytest.raises(PassFailure) as e:
        run(m, f"builtin.module({LOWER})")
    assert "imex.mlir:" in str(e.value) and "vector.shape_cast" in str(e.value)


def test_vc_kernel_threads_are_subgroups_with_named_barrier():
    # IMEX's kernels: each launched thread is one subgroup, gpu.thread_id names it
    body = """
%c8 = arith.constant 8 : index
%c0_i8 = arith.constant 0 : i8
%c2_i8 = arith.constant 2 : i8
xegpu.alloc_nbarrier 1
%nb = xegpu.init_nbarrier %c0_i8, %c2_i8 : i8, i8 -> !xegpu.nbarrier
%tid = gpu.thread_id x
%row = arith.muli %tid, %c8 : index
%t = xetile.init_tile %X[%row, 0] : memref<16x16xf32> -> !xetile.tile<8x16xf32>
%v = xetile.load_tile %t : !xetile.tile<8x16xf32> -> vector<8x16xf32>
xegpu.nbarrier_arrive %nb : !xegpu.nbarrier
xegpu.nbarrier_wait %nb : !xegpu.nbarrier
xegpu.compile_hint
%w = arith.addf %v, %v : vector<8x16xf32>
%o = xetile.init_tile %O[%row, 0] : memref<16x16xf32> -> !xetile.tile<8x16xf32>
xetile.store_tile %w, %o : vector<8x16xf32>, !xetile.tile<8x16xf32>
"""
    args = [("X", "memref<16x16xf32>"), ("O", "memref<16x16xf32>")]
    text = single_kernel_module(args, body, block=(2, 1, 1)).replace(
        ") kernel {", ") kernel attributes {VectorComputeFunctionINTEL} {", 1)
    X = _rand(16, 16)
    for pipeline in (None, LOWER):
        m = xedialects.parse(text, "vc.mlir")
        if pipeline:
            run(m, f"builtin.module({pipeline})")
            assert "VectorComputeFunctionINTEL" in xedialects.print_ir(m)
        out = simulate(m, "main", [X.copy(), np.zeros((16, 16), np.float32)]).buffers
        np.testing.assert_allclose(out[1], 2 * X)
