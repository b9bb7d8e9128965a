"""xegpu-simt-distribute on `vector.bitcast` and on layout conversions, numerically.

* A bitcast changes the element count along the innermost dimension; it is distributed as a
  per-work-item bitcast when each work-item holds whole groups of consecutive elements (a K block
  loaded as 32-bit pairs of f16, reinterpreted as f16 and transposed into a DPAS B operand; a
  16-bit block joined into 32-bit elements), else reported at the bitcast.
* A DPAS A operand computed by an element-wise chain from a DPAS result (attention's
  P = exp(S * scale - rowmax) then P x V) is computed in the DPAS C layout ([1, 16] x [1, 1]) and
  reordered across the work-items once into the packed A order, shared by the DPAS using it.

Each VC kernel and its SIMT distribution are simulated (`xedialects.sim`): the same arithmetic on
the same data, so the buffers are bit-identical; they are also compared with numpy."""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from test_simt_scattered import assert_reported, both, module, same  # noqa: E402


# C = Q x K^T with K (16 x 16 f16, rows = the N columns of C) read as 16 x 8 f32 pairs (a 32-bit
# block load), bitcast to f16, transposed and VNNI-packed into the DPAS B operand
QK_T = """
%qd = xegpu.create_nd_tdesc %Q[0, 0] {mode = vc} : memref<8x16xf16> -> !xegpu.tensor_desc<8x16xf16>
%q = xegpu.load_nd %qd {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
%kd = xegpu.create_nd_tdesc %K[0, 0] {mode = vc} : memref<16x8xf32> -> !xegpu.tensor_desc<16x8xf32>
%k32 = xegpu.load_nd %kd {mode = vc} : !xegpu.tensor_desc<16x8xf32> -> vector<16x8xf32>
%k = vector.bitcast %k32 : vector<16x8xf32> to vector<16x16xf16>
%kt = vector.transpose %k, [1, 0] : vector<16x16xf16> to vector<16x16xf16>
%k3 = vector.shape_cast %kt : vector<16x16xf16> to vector<8x2x16xf16>
%b = vector.transpose %k3, [0, 2, 1] : vector<8x2x16xf16> to vector<8x16x2xf16>
%s = xegpu.dpas %q, %b {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16> -> vector<8x16xf32>
"""
QK_ARGS = [("Q", "memref<8x16xf16>"), ("K", "memref<16x8xf32>")]


def _qk_data(seed=0):
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1, 1, (8, 16)).astype(np.float16)
    k = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    return q, k


def test_bitcast_of_k_pairs_feeds_dpas_b():
    # the transposed B wants [1, 16] x [2, 1] on K^T, i.e. [16, 1] x [1, 2] on the f16 K block,
    # so the f32 load takes [16, 1] x [1, 1] (work-item l reads K row l as 8 pairs) and the bitcast
    # is per work-item: vector<8x1xf32> to vector<8x2xf16>; no data crosses work-items
    body = QK_T + """
%cd = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
xegpu.store_nd %s, %cd {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
"""
    q, k = _qk_data()
    text = module(QK_ARGS + [("C", "memref<8x16xf32>")], body)
    vc, simt, ir_text = both(text, [q, k.view(np.float32), np.zeros((8, 16), np.float32)])
    same(vc, simt)
    np.testing.assert_allclose(simt.buffers[2], q.astype(np.float32) @ k.astype(np.float32).T, rtol=1e-3, atol=1e-3)
    assert "sg_map = <wi_layout = [16, 1], wi_data = [1, 1]>>> -> vector<8x1xf32>" in ir_text
    assert "vector.bitcast %" in ir_text and ": vector<8x1xf32> to vector<8x2xf16>" in ir_text
    assert "gpu.shuffle" not in ir_text


def test_widening_bitcast_of_pairs_stored():
    # f16 pairs joined into f32: the f32 store's [1, 16] x [1, 1] asks [1, 16] x [1, 2] of the
    # f16 load (work-item l holds columns 2l, 2l + 1: one f32 each)
    body = """
%xd = xegpu.create_nd_tdesc %X[0, 0] {mode = vc} : memref<8x32xf16> -> !xegpu.tensor_desc<8x32xf16>
%x = xegpu.load_nd %xd {mode = vc} : !xegpu.tensor_desc<8x32xf16> -> vector<8x32xf16>
%y = vector.bitcast %x : vector<8x32xf16> to vector<8x16xf32>
%yd = xegpu.create_nd_tdesc %Y[0, 0] {mode = vc} : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
xegpu.store_nd %y, %yd {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
"""
    x = np.random.default_rng(1).uniform(-4, 4, (8, 32)).astype(np.float16)
    text = module([("X", "memref<8x32xf16>"), ("Y", "memref<8x16xf32>")], body)
    vc, simt, ir_text = both(text, [x, np.zeros((8, 16), np.float32)])
    same(vc, simt)
    np.testing.assert_array_equal(simt.buffers[1].view(np.uint32), x.view(np.uint32))
    assert "wi_layout = [1, 16], wi_data = [1, 2]>>> -> vector<8x2xf16>" in ir_text
    assert ": vector<8x2xf16> to vector<8x1xf32>" in ir_text


def test_widening_bitcast_of_split_pairs_is_reported():
    # the loaded block is also a DPAS A operand straight from its load ([1, 16] x [1, 1]: work-item l
    # holds column l), so no work-item holds both halves of an f32: reported at the bitcast
    body = """
%ad = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<8x16xf16> -> !xegpu.tensor_desc<8x16xf16>
%a = xegpu.load_nd %ad {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
%bd = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<16x16xf16> -> !xegpu.tensor_desc<16x16xf16>
%b = xegpu.load_nd %bd {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xf16> -> vector<8x16x2xf16>
%c = xegpu.dpas %a, %b {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16> -> vector<8x16xf32>
%w = vector.bitcast %a : vector<8x16xf16> to vector<8x8xf32>
"""
    text = module([("A", "memref<8x16xf16>"), ("B", "memref<16x16xf16>")], body)
    assert_reported(text, "vector.bitcast", r"vector.bitcast joins 2 consecutive elements .* work-item 0 holds "
                                            r"elements 0, 16, .* not whole groups of 2 consecutive elements")


def test_exp_chain_converted_once_into_dpas_a():
    # attention's inner step on one 8 x 16 block: S = Q x K^T (K bitcast from f32 pairs), the row
    # max m, P = exp(S * 0.5 - m) in f16 as the A operand of P x V for two 16-column blocks of V,
    # plus the row sums of P; S, m and P are computed in the DPAS C layout, P is reordered into the
    # packed A order once (two gpu.shuffle idx) and used by both DPAS. P x V is bit-identical to VC
    # mode; the row sums are added across the work-items in another order
    body = QK_T + """
%ninf = arith.constant dense<0xFF800000> : vector<8xf32>
%zero = arith.constant dense<0.0> : vector<8xf32>
%half = arith.constant dense<0.5> : vector<8x16xf32>
%mx = vector.multi_reduction <maximumf>, %s, %ninf [1] : vector<8x16xf32> to vector<8xf32>
%m8 = vector.shape_cast %mx : vector<8xf32> to vector<8x1xf32>
%mb = vector.broadcast %m8 : vector<8x1xf32> to vector<8x16xf32>
%ss = arith.mulf %s, %half : vector<8x16xf32>
%d = arith.subf %ss, %mb : vector<8x16xf32>
%e = math.exp %d : vector<8x16xf32>
%l = vector.multi_reduction <add>, %e, %zero [1] : vector<8x16xf32> to vector<8xf32>
%p = arith.truncf %e : vector<8x16xf32> to vector<8x16xf16>
%v0d = xegpu.create_nd_tdesc %V[0, 0] {mode = vc} : memref<16x32xf16> -> !xegpu.tensor_desc<16x16xf16>
%v1d = xegpu.create_nd_tdesc %V[0, 16] {mode = vc} : memref<16x32xf16> -> !xegpu.tensor_desc<16x16xf16>
%v0 = xegpu.load_nd %v0d {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xf16> -> vector<8x16x2xf16>
%v1 = xegpu.load_nd %v1d {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xf16> -> vector<8x16x2xf16>
%o0 = xegpu.dpas %p, %v0 {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16> -> vector<8x16xf32>
%o1 = xegpu.dpas %p, %v1 {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16> -> vector<8x16xf32>
%o0d = xegpu.create_nd_tdesc %O[0, 0] {mode = vc} : memref<8x32xf32> -> !xegpu.tensor_desc<8x16xf32>
%o1d = xegpu.create_nd_tdesc %O[0, 16] {mode = vc} : memref<8x32xf32> -> !xegpu.tensor_desc<8x16xf32>
xegpu.store_nd %o0, %o0d {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
xegpu.store_nd %o1, %o1d {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
%l2 = vector.shape_cast %l : vector<8xf32> to vector<8x1xf32>
%ld = xegpu.create_nd_tdesc %L[0, 0] {mode = vc} : memref<8x1xf32> -> !xegpu.tensor_desc<8x1xf32>
xegpu.store_nd %l2, %ld {mode = vc} : vector<8x1xf32>, !xegpu.tensor_desc<8x1xf32>
"""
    q, k = _qk_data(2)
    v = np.random.default_rng(3).uniform(-1, 1, (16, 32)).astype(np.float16)
    text = module(QK_ARGS + [("V", "memref<16x32xf16>"), ("O", "memref<8x32xf32>"), ("L", "memref<8x1xf32>")], body)
    arrays = [q, k.view(np.float32), v, np.zeros((8, 32), np.float32), np.zeros((8, 1), np.float32)]
    vc, simt, ir_text = both(text, arrays)
    same(vc, simt, inexact=(4,))  # the row sums: added across work-items in another order
    np.testing.assert_allclose(simt.buffers[4], vc.buffers[4], rtol=1e-6)
    s = q.astype(np.float32) @ k.astype(np.float32).T
    e = np.exp(s * 0.5 - s.max(axis=1, keepdims=True))
    np.testing.assert_allclose(simt.buffers[3], e.astype(np.float16).astype(np.float32) @ v.astype(np.float32),
                               rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(simt.buffers[4][:, 0], e.sum(axis=1), rtol=1e-4)
    # the chain in the C layout (one column per work-item), converted once for both DPAS
    assert re.search(r"math\.exp %\S+ : vector<8x1xf32>", ir_text)
    assert re.search(r"arith\.truncf %\S+ : vector<8x1xf32> to vector<8x1xf16>", ir_text)
    assert ir_text.count("gpu.shuffle  idx") == 2
    assert len(re.findall(r"xegpu\.dpas %\S+, %\S+ : vector<4x2xf16>, vector<8x1x2xf16>", ir_text)) == 2


def test_bitcast_tables():
    # the index tables behind the bitcast rule (analysis/bitcasts.py), on a 2 x 32 f16 block
    from xedialects.passes.xegpu.simt_distribute.analysis.bitcasts import (grouped_order, narrowed_table,
                                                                            widened_table)
    lanes = np.arange(16)[:, None]
    # work-item l holds the pairs (2l, 2l + 1) of both rows, consecutive: joined in place
    rows = np.concatenate([2 * lanes, 2 * lanes + 1, 32 + 2 * lanes, 33 + 2 * lanes], axis=1)
    tbl = rows[:, [0, 1, 2, 3]]
    np.testing.assert_array_equal(widened_table(tbl, 2, 4), np.concatenate([lanes, 16 + lanes], axis=1))
    np.testing.assert_array_equal(narrowed_table(widened_table(tbl, 2, 4), 2), tbl)
    # the same elements column by column (e(0, 2l), e(1, 2l), e(0, 2l + 1), e(1, 2l + 1)): the pairs
    # are rearranged in registers first, at the same positions in every work-item
    cols = rows[:, [0, 2, 1, 3]]
    assert widened_table(cols, 2, 4) is None
    np.testing.assert_array_equal(grouped_order(cols, 2), tbl)
    # one element per pair (work-item l holds column l): the pairs are split over work-items
    assert grouped_order(np.concatenate([lanes, 16 + lanes], axis=1), 2) is None


def test_widening_bitcast_rearranged_in_registers():
    # X is also stored as it is ([1, 16] x [1, 1]: work-item l holds columns l and l + 16 of both
    # rows), so the transposed block's pairs are whole in each work-item but not consecutive in the
    # loaded fragment: the transpose puts them in the order the bitcast's want asks ([16, 1] x [1, 2])
    # with an in-register shuffle, and they are joined (no data crosses work-items)
    body = """
%xd = xegpu.create_nd_tdesc %X[0, 0] {mode = vc} : memref<2x32xf16> -> !xegpu.tensor_desc<2x32xf16>
%x = xegpu.load_nd %xd {mode = vc} : !xegpu.tensor_desc<2x32xf16> -> vector<2x32xf16>
%yd = xegpu.create_nd_tdesc %Y[0, 0] {mode = vc} : memref<2x32xf16> -> !xegpu.tensor_desc<2x32xf16>
xegpu.store_nd %x, %yd {mode = vc} : vector<2x32xf16>, !xegpu.tensor_desc<2x32xf16>
%t = vector.transpose %x, [1, 0] : vector<2x32xf16> to vector<32x2xf16>
%w = vector.bitcast %t : vector<32x2xf16> to vector<32x1xf32>
%zd = xegpu.create_nd_tdesc %Z[0, 0] {mode = vc} : memref<32x1xf32> -> !xegpu.tensor_desc<32x1xf32>
xegpu.store_nd %w, %zd {mode = vc} : vector<32x1xf32>, !xegpu.tensor_desc<32x1xf32>
"""
    x = np.random.default_rng(4).uniform(-4, 4, (2, 32)).astype(np.float16)
    text = module([("X", "memref<2x32xf16>"), ("Y", "memref<2x32xf16>"), ("Z", "memref<32x1xf32>")], body)
    vc, simt, ir_text = both(text, [x, np.zeros_like(x), np.zeros((32, 1), np.float32)])
    same(vc, simt)
    joined = np.ascontiguousarray(x.T).view(np.uint32)[:, 0]
    np.testing.assert_array_equal(simt.buffers[2][:, 0].view(np.uint32), joined)
    assert "vector.shuffle" in ir_text and "gpu.shuffle" not in ir_text
    assert re.search(r"vector\.bitcast %\S+ : vector<2x2xf16> to vector<2x1xf32>", ir_text)
