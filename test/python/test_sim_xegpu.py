"""Simulator: XeGPU op semantics — VC-mode 2D block loads (VNNI, transpose, clipping), 1D/SLM
descriptors, scattered ops with chunks and masks, dpas data types, named barriers and SIMT mode."""
import ml_dtypes
import numpy as np
import pytest

from xedialects.diagnostics import DiagnosticError
from xedialects.sim import simulate
from xedialects.sim.testing import (create_nd_tdesc, parse_module, random_inputs, single_kernel_module,
                                    tdesc_attr, tdesc_type, update_offset, vec)

BF16 = ml_dtypes.bfloat16
C0 = "%c0 = arith.constant 0 : index\n"


def sim(args_sig, body, arrays, grid=(1, 1, 1), block=(16, 1, 1), **kw):
    text = single_kernel_module(args_sig, body, grid=grid, block=block)
    return simulate(parse_module(text), "main", arrays, **kw)


def _store_vec(v, vt_shape, elem, mem, mem_ty):
    """vector.store of a (possibly 3D) vector into a memref of the same shape."""
    idx = ", ".join(["%c0"] * len(vt_shape))
    return f"vector.store {v}, {mem}[{idx}] : {mem_ty}, {vec(vt_shape, elem)}"


def test_load_nd_vnni_and_transpose():
    d816 = tdesc_type((8, 16), "bf16")
    d1616 = tdesc_type((16, 16), "bf16")
    d816f = tdesc_type((8, 16), "f32")
    body = C0 + f"""
{create_nd_tdesc("%da", "%A", "memref<16x16xbf16>", ["%c0", "%c0"], d816)}
{create_nd_tdesc("%db", "%A", "memref<16x16xbf16>", ["%c0", "%c0"], d1616)}
{create_nd_tdesc("%df", "%F", "memref<8x16xf32>", ["%c0", "%c0"], d816f)}
%a1 = "xegpu.load_nd"(%da) {{mode = "vc", vnni_axis = 1 : i64}} : ({d816}) -> vector<8x8x2xbf16>
%b0 = "xegpu.load_nd"(%db) {{mode = "vc", vnni_axis = 0 : i64}} : ({d1616}) -> vector<8x16x2xbf16>
%at = "xegpu.load_nd"(%da) {{mode = "vc", transpose = array<i64: 1, 0>, vnni_axis = 0 : i64}} : ({d816}) -> vector<8x8x2xbf16>
%ft = "xegpu.load_nd"(%df) {{mode = "vc", transpose = array<i64: 1, 0>}} : ({d816f}) -> vector<16x8xf32>
{_store_vec("%a1", (8, 8, 2), "bf16", "%O1", "memref<8x8x2xbf16>")}
{_store_vec("%b0", (8, 16, 2), "bf16", "%O2", "memref<8x16x2xbf16>")}
{_store_vec("%at", (8, 8, 2), "bf16", "%O3", "memref<8x8x2xbf16>")}
{_store_vec("%ft", (16, 8), "f32", "%O4", "memref<16x8xf32>")}
"""
    A = np.arange(256, dtype=np.float32).reshape(16, 16).astype(BF16)
    F = np.arange(128, dtype=np.float32).reshape(8, 16)
    outs = [np.zeros((8, 8, 2), BF16), np.zeros((8, 16, 2), BF16), np.zeros((8, 8, 2), BF16),
            np.zeros((16, 8), np.float32)]
    r = sim([("A", "memref<16x16xbf16>"), ("F", "memref<8x16xf32>"), ("O1", "memref<8x8x2xbf16>"),
             ("O2", "memref<8x16x2xbf16>"), ("O3", "memref<8x8x2xbf16>"), ("O4", "memref<16x8xf32>")],
            body, [A, F] + outs)
    a8 = A[:8]
    np.testing.assert_array_equal(r.buffers[2], a8.reshape(8, 8, 2))
    # vnni axis 0: pairs of consecutive rows interleaved: out[i, j, k] = B[2i + k, j]
    np.testing.assert_array_equal(r.buffers[3], A.reshape(8, 2, 16).transpose(0, 2, 1))
    # transpose + vnni (the DW transpose): out[c, r, k] = A[r, 2c + k]
    exp = np.empty((8, 8, 2), BF16)
    for c in range(8):
        for rr in range(8):
            for k in range(2):
                exp[c, rr, k] = a8[rr, 2 * c + k]
    np.testing.assert_array_equal(r.buffers[4], exp)
    np.testing.assert_array_equal(r.buffers[5], F.T)


def test_block_clipping_and_unchecked_descriptor_errors():
    d = tdesc_type((8, 16), "f32")
    body = C0 + f"""
%c4 = arith.constant 4 : index
%cm2 = arith.constant -2 : index
{create_nd_tdesc("%d", "%X", "memref<10x12xf32>", ["%c4", "%cm2"], d)}
%v = "xegpu.load_nd"(%d) {{mode = "vc"}} : ({d}) -> vector<8x16xf32>
{create_nd_tdesc("%o", "%Y", "memref<10x12xf32>", ["%cm2", "%c4"], d)}
"xegpu.store_nd"(%v, %o) {{mode = "vc"}} : (vector<8x16xf32>, {d}) -> ()
"""
    X = np.arange(120, dtype=np.float32).reshape(10, 12) + 1
    r = sim([("X", "memref<10x12xf32>"), ("Y", "memref<10x12xf32>")], body, [X, np.zeros((10, 12), np.float32)])
    blk = np.zeros((8, 16), np.float32)
    blk[:6, 2:14] = X[4:10, 0:12]
    exp = np.zeros((10, 12), np.float32)
    exp[0:6, 4:12] = blk[2:8, 0:8]
    np.testing.assert_array_equal(r.buffers[1], exp)

    dn = tdesc_type((8, 16), "f32", tdesc_attr(boundary_check=False))
    body2 = C0 + f"""
%c4 = arith.constant 4 : index
{create_nd_tdesc("%d", "%X", "memref<10x12xf32>", ["%c4", "%c0"], dn)}
%v = "xegpu.load_nd"(%d) {{mode = "vc"}} : ({dn}) -> vector<8x16xf32>
"""
    with pytest.raises(DiagnosticError, match="boundary_check = false") as ei:
        sim([("X", "memref<10x12xf32>")], body2, [X])
    assert ei.value.diagnostics[0].line is not None


def test_slm_1d_descriptors_from_addresses():
    d1 = tdesc_type((16,), "f32", tdesc_attr(memory_scope="slm", boundary_check=False))
    body = C0 + f"""
%sg = gpu.subgroup_id : index
%wg = gpu.block_id x
%slm = memref.alloc() : memref<64xf32, 3>
%p = memref.extract_aligned_pointer_as_index %slm : memref<64xf32, 3> -> index
%pi = arith.index_cast %p : index to i64
%c16 = arith.constant 16 : index
%off = arith.muli %sg, %c16 : index
{create_nd_tdesc("%d", "%pi", "i64", ["%off"], d1)}
%wgf = arith.index_cast %wg : index to i32
%wf = arith.sitofp %wgf : i32 to f32
%v = vector.broadcast %wf : f32 to vector<16xf32>
"xegpu.store_nd"(%v, %d) {{mode = "vc"}} : (vector<16xf32>, {d1}) -> ()
gpu.barrier
%c3 = arith.constant 3 : index
%n = arith.subi %c3, %sg : index
%off2 = arith.muli %n, %c16 : index
{create_nd_tdesc("%d2", "%pi", "i64", ["%off2"], d1)}
%w = "xegpu.load_nd"(%d2) {{mode = "vc"}} : ({d1}) -> vector<16xf32>
%sgf = arith.index_cast %sg : index to i32
%sf = arith.sitofp %sgf : i32 to f32
%sv = vector.broadcast %sf : f32 to vector<16xf32>
%x = arith.addf %w, %sv : vector<16xf32>
%g = arith.constant 64 : index
%gb = arith.muli %wg, %g : index
%go = arith.addi %gb, %off : index
vector.store %x, %O[%go] : memref<128xf32>, vector<16xf32>
"""
    r = sim([("O", "memref<128xf32>")], body, [np.zeros(128, np.float32)], grid=(2, 1, 1), block=(64, 1, 1))
    exp = np.concatenate([np.repeat(np.arange(4, dtype=np.float32), 16) + w for w in range(2)])
    np.testing.assert_array_equal(r.buffers[0], exp)


def test_scattered_ops_with_chunks_masks_and_atomics():
    ds = tdesc_type((16, 4), "f32", tdesc_attr(scattered=True, chunk=4))
    d1 = tdesc_type((16,), "f32", tdesc_attr(scattered=True))
    offs = ", ".join(str(8 * i) for i in range(16))
    mask = ", ".join("true" if i % 3 else "false" for i in range(16))
    body = C0 + f"""
%offs = arith.constant dense<[{offs}]> : vector<16xindex>
%m = arith.constant dense<[{mask}]> : vector<16xi1>
%d = "xegpu.create_tdesc"(%X, %offs) {{mode = "vc"}} : (memref<128xf32>, vector<16xindex>) -> {ds}
%v = "xegpu.load_gather"(%d, %m) {{mode = "vc", transpose = array<i64: 1, 0>}} : ({ds}, vector<16xi1>) -> vector<4x16xf32>
vector.store %v, %O[%c0, %c0] : memref<4x16xf32>, vector<4x16xf32>
%one = arith.constant dense<1> : vector<16xindex>
%d2 = "xegpu.update_offset"(%d, %one) {{mode = "vc"}} : ({ds}, vector<16xindex>) -> {ds}
%w = "xegpu.load_gather"(%d2, %m) {{mode = "vc"}} : ({ds}, vector<16xi1>) -> vector<16x4xf32>
%e = "xegpu.create_tdesc"(%Y, %offs) {{mode = "vc"}} : (memref<128xf32>, vector<16xindex>) -> {ds}
"xegpu.store_scatter"(%w, %e, %m) {{mode = "vc"}} : (vector<16x4xf32>, {ds}, vector<16xi1>) -> ()
%all = arith.constant dense<true> : vector<16xi1>
%z = arith.constant dense<0> : vector<16xindex>
%a = "xegpu.create_tdesc"(%S, %z) {{mode = "vc"}} : (memref<1xf32>, vector<16xindex>) -> {d1}
%ones = arith.constant dense<1.0> : vector<16xf32>
%old = "xegpu.atomic_rmw"(%ones, %a, %all) {{kind = "addf", mode = "vc"}} : (vector<16xf32>, {d1}, vector<16xi1>) -> vector<16xf32>
"""
    X = np.arange(128, dtype=np.float32)
    r = sim([("X", "memref<128xf32>"), ("Y", "memref<128xf32>"), ("O", "memref<4x16xf32>"), ("S", "memref<1xf32>")],
            body, [X, np.zeros(128, np.float32), np.zeros((4, 16), np.float32), np.zeros(1, np.float32)],
            block=(32, 1, 1))
    m = np.array([i % 3 != 0 for i in range(16)])
    exp = np.zeros((4, 16), np.float32)
    for i in range(16):
        if m[i]:
            exp[:, i] = X[8 * i:8 * i + 4]
    np.testing.assert_array_equal(r.buffers[2], exp)
    expy = np.zeros(128, np.float32)
    for i in range(16):
        if m[i]:
            expy[8 * i:8 * i + 4] = X[8 * i + 1:8 * i + 5]
    np.testing.assert_array_equal(r.buffers[1], expy)
    assert r.buffers[3][0] == 32.0  # 2 subgroups x 16 lanes


def test_unmasked_scatter_out_of_bounds_is_reported():
    d1 = tdesc_type((16,), "f32", tdesc_attr(scattered=True))
    body = C0 + f"""
%offs = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 100]> : vector<16xindex>
%m = arith.constant dense<true> : vector<16xi1>
%d = "xegpu.create_tdesc"(%X, %offs) {{mode = "vc"}} : (memref<32xf32>, vector<16xindex>) -> {d1}
%v = "xegpu.load_gather"(%d, %m) {{mode = "vc"}} : ({d1}, vector<16xi1>) -> vector<16xf32>
"""
    with pytest.raises(DiagnosticError, match="outside the buffer"):
        sim([("X", "memref<32xf32>")], body, [np.zeros(32, np.float32)])


def test_dpas_int8_and_tf32():
    da = tdesc_type((8, 32), "i8")
    db = tdesc_type((32, 16), "i8")
    dfa = tdesc_type((8, 8), "f32")
    dfb = tdesc_type((8, 16), "f32")
    body = C0 + f"""
{create_nd_tdesc("%da", "%A", "memref<8x32xi8>", ["%c0", "%c0"], da)}
{create_nd_tdesc("%db", "%B", "memref<32x16xi8>", ["%c0", "%c0"], db)}
%a = "xegpu.load_nd"(%da) {{mode = "vc"}} : ({da}) -> vector<8x32xi8>
%b = "xegpu.load_nd"(%db) {{mode = "vc", vnni_axis = 0 : i64}} : ({db}) -> vector<8x16x4xi8>
%c = "xegpu.dpas"(%a, %b) {{mode = "vc"}} : (vector<8x32xi8>, vector<8x16x4xi8>) -> vector<8x16xi32>
vector.store %c, %C[%c0, %c0] : memref<8x16xi32>, vector<8x16xi32>
{create_nd_tdesc("%dfa", "%FA", "memref<8x8xf32>", ["%c0", "%c0"], dfa)}
{create_nd_tdesc("%dfb", "%FB", "memref<8x16xf32>", ["%c0", "%c0"], dfb)}
%fa = "xegpu.load_nd"(%dfa) {{mode = "vc"}} : ({dfa}) -> vector<8x8xf32>
%fb = "xegpu.load_nd"(%dfb) {{mode = "vc"}} : ({dfb}) -> vector<8x16xf32>
%ac = arith.constant dense<0.0> : vector<8x16xf32>
%fc = "xegpu.dpas"(%fa, %fb, %ac) {{mode = "vc"}} : (vector<8x8xf32>, vector<8x16xf32>, vector<8x16xf32>) -> vector<8x16xf32>
vector.store %fc, %FC[%c0, %c0] : memref<8x16xf32>, vector<8x16xf32>
"""
    rng = np.random.default_rng(5)
    A = rng.integers(-128, 127, (8, 32)).astype(np.int8)
    B = rng.integers(-128, 127, (32, 16)).astype(np.int8)
    FA = np.full((8, 8), 1.0 + 2 ** -12, np.float32)  # not representable in tf32: rounds to 1.0
    FB = np.ones((8, 16), np.float32)
    r = sim([("A", "memref<8x32xi8>"), ("B", "memref<32x16xi8>"), ("C", "memref<8x16xi32>"),
             ("FA", "memref<8x8xf32>"), ("FB", "memref<8x16xf32>"), ("FC", "memref<8x16xf32>")], body,
            [A, B, np.zeros((8, 16), np.int32), FA, FB, np.zeros((8, 16), np.float32)])
    np.testing.assert_array_equal(r.buffers[2], A.astype(np.int32) @ B.astype(np.int32))
    np.testing.assert_array_equal(r.buffers[5], np.full((8, 16), 8.0, np.float32))


def _nbar_body(wait_first_group=False):
    # subgroups 0,1 produce into SLM, 2,3 consume after a named barrier
    return C0 + f"""
%sg = gpu.subgroup_id : index
%c2 = arith.constant 2 : index
%n = arith.constant 1 : i8
"xegpu.alloc_nbarrier"(%n) : (i8) -> ()
%id = arith.constant 0 : i8
%is_prod = arith.cmpi ult, %sg, %c2 : index
%rp = arith.constant 1 : i8
%rc = arith.constant 2 : i8
%role = arith.select %is_prod, %rp, %rc : i8
%nb = "xegpu.create_nbarrier"(%id, %role) {{num_producers = 2 : i8, num_consumers = 2 : i8}} : (i8, i8) -> !xegpu.nbarrier
%slm = memref.alloc() : memref<2xf32, 3>
scf.if %is_prod {{
  %f = arith.constant 7.0 : f32
  memref.store %f, %slm[%sg] : memref<2xf32, 3>
  {'' if wait_first_group else '"xegpu.nbarrier_arrive"(%nb) : (!xegpu.nbarrier) -> ()'}
}} else {{
  "xegpu.nbarrier_wait"(%nb) : (!xegpu.nbarrier) -> ()
  %i = arith.subi %sg, %c2 : index
  %v = memref.load %slm[%i] : memref<2xf32, 3>
  memref.store %v, %O[%i] : memref<2xf32>
}}
"""


def test_named_barrier_producer_consumer():
    r = sim([("O", "memref<2xf32>")], _nbar_body(), [np.zeros(2, np.float32)], block=(64, 1, 1), trace=True)
    np.testing.assert_array_equal(r.buffers[0], [7.0, 7.0])
    assert r.trace.nbarrier_arrives == 2 and r.trace.nbarrier_waits == 2


def test_named_barrier_mismatch_is_reported():
    with pytest.raises(DiagnosticError, match="arrive/wait mismatch"):
        sim([("O", "memref<2xf32>")], _nbar_body(wait_first_group=True), [np.zeros(2, np.float32)],
            block=(64, 1, 1))


def _simt_gemm(M, N, K, via_arith=False):
    sgA = ((2, 8), (1, 2))
    sgB = ((1, 16), (2, 1))
    sgC = ((1, 16), (1, 1))
    dA = tdesc_type((8, 16), "bf16", tdesc_attr(sg=sgA))
    dB = tdesc_type((16, 16), "bf16", tdesc_attr(sg=sgB))
    dC = tdesc_type((8, 16), "f32", tdesc_attr(sg=sgC))
    mA, mB, mC = f"memref<{M}x{K}xbf16>", f"memref<{K}x{N}xbf16>", f"memref<{M}x{N}xf32>"
    body = C0 + f"""
%c8 = arith.constant 8 : index
%c16 = arith.constant 16 : index
%cK = arith.constant {K} : index
%bx = gpu.block_id x
%by = gpu.block_id y
%m = arith.muli %by, %c8 : index
%n = arith.muli %bx, %c16 : index
%zero = arith.constant dense<0.0> : vector<8x1xf32>
{create_nd_tdesc("%a0", "%A", mA, ["%m", "%c0"], dA, mode=None)}
{create_nd_tdesc("%b0", "%B", mB, ["%c0", "%n"], dB, mode=None)}
%r:3 = scf.for %k = %c0 to %cK step %c16 iter_args(%a = %a0, %b = %b0, %acc = %zero) -> ({dA}, {dB}, vector<8x1xf32>) {{
  %xa = "xegpu.load_nd"(%a) : ({dA}) -> vector<4x2xbf16>
  %xb = "xegpu.load_nd"(%b) {{vnni_axis = 0 : i64}} : ({dB}) -> vector<8x2xbf16>
  {"%za = arith.constant dense<0.0> : vector<4x2xbf16>" if via_arith else ""}
  {"%ya = arith.addf %xa, %za : vector<4x2xbf16>" if via_arith else "%ya = vector.shape_cast %xa : vector<4x2xbf16> to vector<4x2xbf16>"}
  %p = "xegpu.dpas"({"%ya" if via_arith else "%xa"}, %xb, %acc) : (vector<4x2xbf16>, vector<8x2xbf16>, vector<8x1xf32>) -> vector<8x1xf32>
  {update_offset("%a2", "xegpu.update_nd_offset", "%a", dA, [0, 16])}
  {update_offset("%b2", "xegpu.update_nd_offset", "%b", dB, [16, 0])}
  scf.yield %a2, %b2, %p : {dA}, {dB}, vector<8x1xf32>
}}
{create_nd_tdesc("%cc", "%C", mC, ["%m", "%n"], dC, mode=None)}
"xegpu.store_nd"(%r#2, %cc) : (vector<8x1xf32>, {dC}) -> ()
"""
    return [("A", mA), ("B", mB), ("C", mC)], body


@pytest.mark.parametrize("via_arith", [False, True])
def test_simt_mode_gemm(via_arith):
    # via_arith: the A fragment reaches dpas through another op, so dpas uses the canonical
    # hardware layout (wi_layout [2, 8], wi_data [1, 2]) instead of the load's sg_map
    M, N, K = 24, 32, 48
    sig, body = _simt_gemm(M, N, K, via_arith)
    A, B, C = random_inputs(M, N, K)
    r = sim(sig, body, [A, B, C], grid=(N // 16, M // 8, 1), block=(16, 1, 1), trace=True)
    np.testing.assert_allclose(r.buffers[2], A.astype(np.float32) @ B.astype(np.float32), rtol=1e-5, atol=1e-4)
    assert r.trace.launches[0].level == "simt"
    assert r.trace.dpas == (M // 8) * (N // 16) * (K // 16)


def test_simt_fragment_distribution():
    # lane l of a [1,16]x[1,1] mapped 8x16 block holds column l
    d = tdesc_type((8, 16), "f32", tdesc_attr(sg=((1, 16), (1, 1))))
    body = C0 + f"""
%lane = gpu.lane_id
{create_nd_tdesc("%d", "%X", "memref<8x16xf32>", ["%c0", "%c0"], d, mode=None)}
%v = "xegpu.load_nd"(%d) : ({d}) -> vector<8x1xf32>
%s = vector.shape_cast %v : vector<8x1xf32> to vector<8xf32>
vector.store %s, %O[%lane, %c0] : memref<16x8xf32>, vector<8xf32>
"""
    X = np.arange(128, dtype=np.float32).reshape(8, 16)
    r = sim([("X", "memref<8x16xf32>"), ("O", "memref<16x8xf32>")], body, [X, np.zeros((16, 8), np.float32)])
    np.testing.assert_array_equal(r.buffers[1], X.T)


def test_simt_scattered_per_lane():
    d = tdesc_type((16, 2), "f32", tdesc_attr(scattered=True, chunk=2, sg=((1, 16), (1, 1))))
    body = C0 + f"""
%lane = gpu.lane_id
%c3 = arith.constant 3 : index
%off = arith.muli %lane, %c3 : index
%c8 = arith.constant 8 : index
%m = arith.cmpi ult, %lane, %c8 : index
%offv = vector.broadcast %off : index to vector<1xindex>
%mv = vector.broadcast %m : i1 to vector<1xi1>
%t = "xegpu.create_tdesc"(%X, %offv) : (memref<64xf32>, vector<1xindex>) -> {d}
%v = "xegpu.load_gather"(%t, %mv) : ({d}, vector<1xi1>) -> vector<2xf32>
%c2 = arith.constant 2 : index
%o = arith.muli %lane, %c2 : index
vector.store %v, %O[%o] : memref<32xf32>, vector<2xf32>
"""
    X = np.arange(64, dtype=np.float32)
    r = sim([("X", "memref<64xf32>"), ("O", "memref<32xf32>")], body, [X, np.full(32, -1, np.float32)])
    exp = np.zeros(32, np.float32)
    for l in range(8):
        exp[2 * l:2 * l + 2] = X[3 * l:3 * l + 2]
    np.testing.assert_array_equal(r.buffers[1], exp)
