"""Simulator: XeTile op semantics — blocked (4D) forms, order/transpose/padding, vector tile ops,
atomics, gather/scatter and work-group level (wg_map) kernels."""
import ml_dtypes
import numpy as np
import pytest

from xedialects.diagnostics import DiagnosticError
from xedialects.sim import simulate
from xedialects.sim.testing import (init_tile, parse_module, random_inputs, single_kernel_module, tile_attr,
                                    tile_type, update_offset, vec, wg_map)

BF16 = ml_dtypes.bfloat16
C0 = "%c0 = arith.constant 0 : index\n"


def sim(args_sig, body, arrays, grid=(1, 1, 1), block=(16, 1, 1), **kw):
    text = single_kernel_module(args_sig, body, grid=grid, block=block)
    return simulate(parse_module(text), "main", arrays, **kw)


def test_blocked_4d_gemm():
    M = N = K = 32
    ta = tile_type((32, 32), "bf16", tile_attr(inner_blocks=(8, 16)))
    tb = tile_type((32, 32), "bf16", tile_attr(inner_blocks=(16, 16)))
    tc = tile_type((32, 32), "f32", tile_attr(inner_blocks=(8, 16)))
    va, vb, vc = vec((4, 2, 8, 16), "bf16"), vec((2, 2, 16, 16), "bf16"), vec((4, 2, 8, 16), "f32")
    body = C0 + f"""
{init_tile("%ta", "%A", "memref<32x32xbf16>", ["%c0", "%c0"], ta)}
{init_tile("%tb", "%B", "memref<32x32xbf16>", ["%c0", "%c0"], tb)}
{init_tile("%tc", "%C", "memref<32x32xf32>", ["%c0", "%c0"], tc)}
%a = "xetile.load_tile"(%ta) : ({ta}) -> {va}
%b = "xetile.load_tile"(%tb) : ({tb}) -> {vb}
%c = "xetile.load_tile"(%tc) : ({tc}) -> {vc}
%d = "xetile.tile_mma"(%a, %b, %c) : ({va}, {vb}, {vc}) -> {vc}
"xetile.store_tile"(%d, %tc) : ({vc}, {tc}) -> ()
"""
    A, B, C = random_inputs(M, N, K)
    C[:] = 1.0
    r = sim([("A", "memref<32x32xbf16>"), ("B", "memref<32x32xbf16>"), ("C", "memref<32x32xf32>")], body,
            [A, B, C])
    exp = A.astype(np.float32) @ B.astype(np.float32) + 1
    np.testing.assert_allclose(r.buffers[2], exp, rtol=1e-5, atol=1e-4)


def test_pack_unpack_and_vector_tile_ops():
    t = tile_type((16, 32), "f32")
    body = C0 + f"""
{init_tile("%t", "%X", "memref<16x32xf32>", ["%c0", "%c0"], t)}
%x = "xetile.load_tile"(%t) : ({t}) -> vector<16x32xf32>
%p = "xetile.tile_pack"(%x) {{inner_blocks = array<i64: 8, 16>}} : (vector<16x32xf32>) -> vector<2x2x8x16xf32>
%p2 = "xetile.tile_reduce"(%p) {{kind = "maxnumf", reduction_dims = array<i64: 1, 3>}} : (vector<2x2x8x16xf32>) -> vector<2x1x8x1xf32>
%u = "xetile.tile_unpack"(%p) {{inner_blocks = array<i64: 8, 16>}} : (vector<2x2x8x16xf32>) -> vector<16x32xf32>
%r = "xetile.tile_reduce"(%u) {{kind = "add", reduction_dims = array<i64: 1>}} : (vector<16x32xf32>) -> vector<16x1xf32>
%b = "xetile.tile_broadcast"(%r) {{broadcast_dims = array<i64: 1>}} : (vector<16x1xf32>) -> vector<16x32xf32>
%tr = "xetile.tile_transpose"(%b) {{permutation = array<i64: 1, 0>}} : (vector<16x32xf32>) -> vector<32x16xf32>
{init_tile("%to", "%O", "memref<32x16xf32>", ["%c0", "%c0"], tile_type((32, 16), "f32"))}
"xetile.store_tile"(%tr, %to) : (vector<32x16xf32>, {tile_type((32, 16), "f32")}) -> ()
%m = vector.shape_cast %p2 : vector<2x1x8x1xf32> to vector<16xf32>
vector.store %m, %Mx[%c0] : memref<16xf32>, vector<16xf32>
"""
    X = np.random.default_rng(0).standard_normal((16, 32)).astype(np.float32)
    r = sim([("X", "memref<16x32xf32>"), ("O", "memref<32x16xf32>"), ("Mx", "memref<16xf32>")], body,
            [X, np.zeros((32, 16), np.float32), np.zeros(16, np.float32)])
    rows = X.sum(1, keepdims=True)
    np.testing.assert_allclose(r.buffers[1], np.broadcast_to(rows, (16, 32)).T, rtol=1e-6)
    np.testing.assert_array_equal(r.buffers[2], X.max(1))


def test_load_tile_padding_transpose_and_order():
    # A 20x24 matrix; tile 16x16 at (8, 16) is partially out of bounds -> padding 1.0
    t = tile_type((16, 16), "bf16")
    tt = tile_type((16, 8), "bf16")
    # column-major view of BT (8 x 20 row-major) as a 20x8 matrix for an order = [0, 1] tile
    tcol = tile_type((16, 8), "bf16", tile_attr(order=(0, 1)))
    body = C0 + f"""
%c8 = arith.constant 8 : index
%c16 = arith.constant 16 : index
{init_tile("%t", "%A", "memref<20x24xbf16>", ["%c8", "%c16"], t)}
%v = "xetile.load_tile"(%t) {{padding = 1.000000e+00 : bf16}} : ({t}) -> vector<16x16xbf16>
{init_tile("%to", "%O1", "memref<16x16xbf16>", ["%c0", "%c0"], t)}
"xetile.store_tile"(%v, %to) : (vector<16x16xbf16>, {t}) -> ()
{init_tile("%t2", "%A", "memref<20x24xbf16>", ["%c0", "%c0"], tt)}
%w = "xetile.load_tile"(%t2) {{transpose = array<i64: 1, 0>}} : ({tt}) -> vector<8x16xbf16>
{init_tile("%to2", "%O2", "memref<8x16xbf16>", ["%c0", "%c0"], tile_type((8, 16), "bf16"))}
"xetile.store_tile"(%w, %to2) : (vector<8x16xbf16>, {tile_type((8, 16), "bf16")}) -> ()
%bt = memref.reinterpret_cast %BT to offset: [0], sizes: [20, 8], strides: [1, 20] : memref<8x20xbf16> to memref<20x8xbf16, strided<[1, 20]>>
{init_tile("%tc", "%bt", "memref<20x8xbf16, strided<[1, 20]>>", ["%c8", "%c0"], tcol)}
%x = "xetile.load_tile"(%tc) : ({tcol}) -> vector<16x8xbf16>
{init_tile("%to3", "%O3", "memref<16x8xbf16>", ["%c0", "%c0"], tt)}
"xetile.store_tile"(%x, %to3) : (vector<16x8xbf16>, {tt}) -> ()
"""
    rng = np.random.default_rng(3)
    A = rng.standard_normal((20, 24)).astype(BF16)
    BT = rng.standard_normal((8, 20)).astype(BF16)
    outs = [np.zeros((16, 16), BF16), np.zeros((8, 16), BF16), np.zeros((16, 8), BF16)]
    r = sim([("A", "memref<20x24xbf16>"), ("BT", "memref<8x20xbf16>"), ("O1", "memref<16x16xbf16>"),
             ("O2", "memref<8x16xbf16>"), ("O3", "memref<16x8xbf16>")], body, [A, BT] + outs)
    exp = np.ones((16, 16), np.float32)
    exp[:12, :8] = A[8:20, 16:24].astype(np.float32)
    np.testing.assert_array_equal(r.buffers[2].astype(np.float32), exp)
    np.testing.assert_array_equal(r.buffers[3], A[:16, :8].T)
    np.testing.assert_array_equal(r.buffers[4][:12], BT.T[8:20])
    np.testing.assert_array_equal(r.buffers[4][12:].astype(np.float32), 0)


def test_order_01_on_row_major_memref_is_an_error():
    tcol = tile_type((16, 8), "bf16", tile_attr(order=(0, 1)))
    body = C0 + f"""
{init_tile("%tc", "%A", "memref<32x32xbf16>", ["%c0", "%c0"], tcol)}
"""
    with pytest.raises(DiagnosticError, match="column-major"):
        sim([("A", "memref<32x32xbf16>")], body, [np.zeros((32, 32), BF16)])


def test_store_tile_drops_out_of_bounds_and_atomics():
    t = tile_type((8, 16), "f32")
    body = C0 + f"""
%c4 = arith.constant 4 : index
{init_tile("%t", "%C", "memref<10x20xf32>", ["%c4", "%c4"], t)}
%ones = arith.constant dense<1.0> : vector<8x16xf32>
%old = "xetile.atomic_rmw_tile"(%ones, %t) {{kind = "addf"}} : (vector<8x16xf32>, {t}) -> vector<8x16xf32>
{init_tile("%t2", "%D", "memref<10x20xf32>", ["%c4", "%c4"], t)}
"xetile.store_tile"(%old, %t2) : (vector<8x16xf32>, {t}) -> ()
"""
    C = np.zeros((10, 20), np.float32)
    D = np.full((10, 20), -1, np.float32)
    r = sim([("C", "memref<10x20xf32>"), ("D", "memref<10x20xf32>")], body, [C, D], block=(64, 1, 1))
    exp = np.zeros((10, 20), np.float32)
    exp[4:, 4:] = 4.0  # 4 subgroups, each adds one; out-of-bounds part dropped
    np.testing.assert_array_equal(r.buffers[0], exp)
    d = r.buffers[1]
    assert (d[:4] == -1).all() and (d[:, :4] == -1).all()
    assert set(np.unique(d[4:, 4:]).tolist()) <= {0.0, 1.0, 2.0, 3.0}


def test_scattered_gather_scatter():
    ts = tile_type((1, 16), "f32", tile_attr(scattered=True))
    body = C0 + f"""
%p = memref.extract_aligned_pointer_as_index %X : memref<64xf32> -> index
%pi = arith.index_cast %p : index to i64
%idx = arith.constant dense<[[0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60]]> : vector<1x16xindex>
%t = "xetile.init_tile"(%pi, %idx) {{operandSegmentSizes = array<i32: 1, 0, 0, 0, 1>, static_offsets = array<i64>, static_shape = array<i64>, static_strides = array<i64>}} : (i64, vector<1x16xindex>) -> {ts}
%mask = arith.constant dense<[[true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false]]> : vector<1x16xi1>
%v = "xetile.load_gather"(%t, %mask) {{padding = -1.000000e+00 : f32}} : ({ts}, vector<1x16xi1>) -> vector<1x16xf32>
%two = arith.constant dense<2.0> : vector<1x16xf32>
%w = arith.mulf %v, %two : vector<1x16xf32>
%t2 = "xetile.init_tile"(%Y, %idx) {{operandSegmentSizes = array<i32: 1, 0, 0, 0, 1>, static_offsets = array<i64>, static_shape = array<i64>, static_strides = array<i64>}} : (memref<64xf32>, vector<1x16xindex>) -> {ts}
"xetile.store_scatter"(%w, %t2, %mask) : (vector<1x16xf32>, {ts}, vector<1x16xi1>) -> ()
"""
    X = np.arange(64, dtype=np.float32)
    r = sim([("X", "memref<64xf32>"), ("Y", "memref<64xf32>")], body, [X, np.zeros(64, np.float32)])
    exp = np.zeros(64, np.float32)
    exp[0:48:4] = 2 * X[0:48:4]
    np.testing.assert_array_equal(r.buffers[1], exp)


def _wg_gemm_text(M, N, K, WM, WN, layout, kstep=32, nsg=None):
    LM, LN = layout
    SM, SN = WM // LM, WN // LN
    ta = tile_type((WM, kstep), "bf16", tile_attr(wg=(layout, (SM, kstep))))
    tb = tile_type((kstep, WN), "bf16", tile_attr(wg=(layout, (kstep, SN))))
    tc = tile_type((WM, WN), "f32", tile_attr(wg=(layout, (SM, SN))))
    tpa = tile_type((WM, kstep), "bf16", tile_attr(wg=((LM * LN, 1), (WM // (LM * LN), kstep))))
    va, vb, vc = vec((WM, kstep), "bf16"), vec((kstep, WN), "bf16"), vec((WM, WN), "f32")
    mc = wg_map(layout, (SM, SN))
    mc2 = wg_map((LM * LN, 1), (WM // (LM * LN), WN))
    body = f"""
%c0 = arith.constant 0 : index
%cK = arith.constant {K} : index
%cks = arith.constant {kstep} : index
%cWM = arith.constant {WM} : index
%cWN = arith.constant {WN} : index
%bx = gpu.block_id x
%by = gpu.block_id y
%m0 = arith.muli %by, %cWM : index
%n0 = arith.muli %bx, %cWN : index
{init_tile("%ta", "%A", f"memref<{M}x{K}xbf16>", ["%m0", "%c0"], ta)}
{init_tile("%tpa", "%A", f"memref<{M}x{K}xbf16>", ["%m0", "%c0"], tpa)}
{init_tile("%tb", "%B", f"memref<{K}x{N}xbf16>", ["%c0", "%n0"], tb)}
%zero = arith.constant dense<0.0> : {vc}
%r:4 = scf.for %k = %c0 to %cK step %cks iter_args(%a = %ta, %b = %tb, %pa = %tpa, %acc = %zero) -> ({ta}, {tb}, {tpa}, {vc}) {{
  %xa = "xetile.load_tile"(%a) : ({ta}) -> {va}
  %xb = "xetile.load_tile"(%b) : ({tb}) -> {vb}
  "xetile.prefetch_tile"(%pa) : ({tpa}) -> ()
  %acc2 = "xetile.tile_mma"(%xa, %xb, %acc) {{wg_map_c = {mc}}} : ({va}, {vb}, {vc}) -> {vc}
  {update_offset("%a2", "xetile.update_tile_offset", "%a", ta, [0, kstep])}
  {update_offset("%b2", "xetile.update_tile_offset", "%b", tb, [kstep, 0])}
  {update_offset("%pa2", "xetile.update_tile_offset", "%pa", tpa, [0, kstep])}
  scf.yield %a2, %b2, %pa2, %acc2 : {ta}, {tb}, {tpa}, {vc}
}}
%cl = "xetile.tile_conv_layout"(%r#3) {{wg_map = {mc2}, wg_map_source = {mc}}} : ({vc}) -> {vc}
{init_tile("%tc", "%C", f"memref<{M}x{N}xf32>", ["%m0", "%n0"], tc)}
"xetile.store_tile"(%cl, %tc) : ({vc}, {tc}) -> ()
"""
    nsg = nsg or LM * LN
    args = [("A", f"memref<{M}x{K}xbf16>"), ("B", f"memref<{K}x{N}xbf16>"), ("C", f"memref<{M}x{N}xf32>")]
    return single_kernel_module(args, body, grid=(N // WN, M // WM, 1), block=(nsg * 16, 1, 1))


def test_workgroup_level_gemm():
    M = N = K = 256
    text = _wg_gemm_text(M, N, K, 128, 128, (2, 2))
    A, B, C = random_inputs(M, N, K)
    r = simulate(parse_module(text), "main", [A, B, C], trace=True)
    np.testing.assert_allclose(r.buffers[2], A.astype(np.float32) @ B.astype(np.float32), rtol=1e-4, atol=1e-3)
    assert r.trace.launches[0].level == "workgroup" and r.trace.launches[0].batch == 4
    assert r.trace.prefetches == 4 * (K // 32)


def test_workgroup_level_needs_enough_subgroups():
    text = _wg_gemm_text(64, 64, 64, 64, 64, (2, 2), nsg=2)
    A, B, C = random_inputs(64, 64, 64)
    with pytest.raises(DiagnosticError, match="needs 4 subgroups"):
        simulate(parse_module(text), "main", [A, B, C])


def test_dynamic_memref_with_explicit_shape_and_strides():
    t = tile_type((8, 16), "f32")
    body = C0 + f"""
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
%h = memref.dim %X, %c0 : memref<?x?xf32>
%w = memref.dim %X, %c1 : memref<?x?xf32>
{init_tile("%t", "%X", "memref<?x?xf32>", ["%c4", "%c4"], t, shape=["%h", "%w"], strides=["%w", 1])}
%v = "xetile.load_tile"(%t) : ({t}) -> vector<8x16xf32>
{init_tile("%o", "%O", "memref<8x16xf32>", ["%c0", "%c0"], t)}
"xetile.store_tile"(%v, %o) : (vector<8x16xf32>, {t}) -> ()
"""
    X = np.arange(10 * 18, dtype=np.float32).reshape(10, 18) + 1
    r = sim([("X", "memref<?x?xf32>"), ("O", "memref<8x16xf32>")], body, [X, np.zeros((8, 16), np.float32)])
    exp = np.zeros((8, 16), np.float32)
    exp[:6, :14] = X[4:, 4:]
    np.testing.assert_array_equal(r.buffers[1], exp)
