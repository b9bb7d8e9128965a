"""Launch-wide global-memory bytes (xedialects/passes/analysis/kernel_bytes.py) on hand-written kernels."""
import pytest

from xedialects import parse
from xedialects.arch import get_arch
from xedialects.passes.analysis import kernel_bytes as kb
from xedialects.passes.analysis.kernel_bytes import bandwidth_bound, kernel_bytes
from xedialects.passes.utils.ir_walk import functions

PVC = get_arch("pvc")


def _bytes(body, args, grid, block=(16, 1, 1)):
    m = parse(f"gpu.module @k {{\n gpu.func @f({args}) kernel {{\n{body}\n gpu.return\n }}\n}}\n")
    (func,) = functions(m.operation, kinds=("gpu.func",))
    return kernel_bytes(func, (grid, block), PVC)


def test_block_rows_clipped_at_the_edge():
    # 3 work-groups of 8 rows on 20 rows: 20 x 16 f32 read, not 24 x 16
    r = _bytes("""
    %c8 = arith.constant 8 : index
    %b = gpu.block_id y
    %r = arith.muli %b, %c8 : index
    %d = xegpu.create_nd_tdesc %A[%r, 0] {mode = vc} : memref<20x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    xegpu.store_nd %v, %d {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>""",
               "%A: memref<20x16xf32>", (1, 3, 1))
    assert (r["read"], r["write"], r["exact"]) == (20 * 16 * 4, 20 * 16 * 4, True)
    assert (r["hbm_read"], r["hbm_write"], r["re_reads"]) == (1280, 1280, False)


LOOP = """
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %lanes = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>
    %n = arith.constant dense<40> : vector<16xindex>
    %b = gpu.block_id x
    %o = arith.muli %b, %c16 : index
    %ob = vector.broadcast %o : index to vector<16xindex>
    %offs = arith.addi %ob, %lanes : vector<16xindex>
    %mask = arith.cmpi ult, %offs, %n : vector<16xindex>
    %t = xegpu.create_tdesc %X, %offs {mode = vc} : memref<40xf32>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
    %g = xegpu.load_gather %t, %mask {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xf32>
    %d0 = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<8x56xf32> -> !xegpu.tensor_desc<8x16xf32>
    %r = scf.for %k = %c0 to %c64 step %c16 iter_args(%d = %d0) -> (!xegpu.tensor_desc<8x16xf32>) {
      %v = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      %d2 = xegpu.update_nd_offset %d, [0, 16] {mode = vc} : !xegpu.tensor_desc<8x16xf32>
      scf.yield %d2 : !xegpu.tensor_desc<8x16xf32>
    }"""


def test_masked_lanes_and_loop_carried_descriptor():
    # scattered: 3 work-groups x 16 lanes at 16 x block id, masked to the 40 elements; a K loop of 4
    # steps moving an 8x16 block by 16 columns over 56 columns: 16 + 16 + 16 + 8 columns in bounds
    r = _bytes(LOOP, "%X: memref<40xf32>, %A: memref<8x56xf32>", (3, 1, 1))
    a_reads = 3 * 8 * 56 * 4                    # every work-group reads all of A
    assert r["read"] == 40 * 4 + a_reads and r["exact"]
    assert r["per_arg"]["0"]["read"] == 160 and r["per_arg"]["1"]["read"] == a_reads
    assert r["hbm_read"] == 160 + 8 * 56 * 4 and r["re_reads"]       # A's re-reads hit L2


def test_large_launches_in_bands(monkeypatch):
    # the launch evaluated a work-group at a time counts the same bytes
    whole = _bytes(LOOP, "%X: memref<40xf32>, %A: memref<8x56xf32>", (3, 1, 1))
    monkeypatch.setattr(kb, "MAX_POINTS", 1)
    banded = _bytes(LOOP, "%X: memref<40xf32>, %A: memref<8x56xf32>", (3, 1, 1))
    assert banded == whole


def test_unknown_offsets_and_branches():
    # offsets from a kernel argument: whole blocks, an upper bound; an scf.if on the block id
    # counts its store for the taken work-groups only
    r = _bytes("""
    %c1 = arith.constant 1 : index
    %b = gpu.block_id x
    %d = xegpu.create_nd_tdesc %A[%m, 0] {mode = vc} : memref<64x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %c = arith.cmpi ult, %b, %c1 : index
    scf.if %c {
      %e = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %v, %e {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    }""", "%A: memref<64x16xf32>, %m: index", (4, 1, 1))
    assert r["read"] == 4 * 8 * 16 * 4 and not r["exact"]
    assert any("offsets not known" in n for n in r["notes"]["upper"]) and r["complete"]
    assert r["write"] == 8 * 16 * 4


def test_bandwidth_bound_pvc():
    bw = bandwidth_bound(PVC, 2 * 1024 * 1024)
    assert bw["sustained_gbs"] == 2000 and "STREAM" in bw["source"]     # 2 stacks x 1000 GB/s [ALCF]
    assert bw["time_s"] == pytest.approx(2097152 / 2e12)                 # 1.049 us
    assert bw["peak_time_s"] == pytest.approx(2097152 / 3276.8e9)        # 0.640 us
