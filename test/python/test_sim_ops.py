"""Simulator: upstream op semantics (arith, math, vector, memref, scf, affine) run at host level and
in kernels (divergent control flow, SLM, SIMT work-item kernels)."""
import math

import ml_dtypes
import numpy as np

from xedialects.sim import simulate
from xedialects.sim.testing import parse_module, single_kernel_module

BF16 = ml_dtypes.bfloat16


def run(text, args, entry="f", **kw):
    return simulate(parse_module(text), entry, args, **kw)


def test_arith_integer_semantics():
    text = """
    func.func @f(%o: memref<12xi32>) {
      %a = arith.constant -7 : i32
      %b = arith.constant 2 : i32
      %m1 = arith.constant -1 : i32
      %big = arith.constant 2147483647 : i32
      %r0 = arith.divsi %a, %b : i32
      %r1 = arith.remsi %a, %b : i32
      %r2 = arith.floordivsi %a, %b : i32
      %r3 = arith.ceildivsi %a, %b : i32
      %r4 = arith.divui %m1, %b : i32
      %r5 = arith.shrui %m1, %b : i32
      %r6 = arith.shrsi %a, %b : i32
      %r7 = arith.addi %big, %b : i32
      %r8 = arith.maxui %m1, %b : i32
      %cmp = arith.cmpi ult, %b, %m1 : i32
      %r9 = arith.extui %cmp : i1 to i32
      %r10 = arith.extsi %cmp : i1 to i32
      %x64 = arith.constant 4294967298 : i64
      %r11 = arith.trunci %x64 : i64 to i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c9 = arith.constant 9 : index
      %c10 = arith.constant 10 : index
      %c11 = arith.constant 11 : index
      memref.store %r0, %o[%c0] : memref<12xi32>
      memref.store %r1, %o[%c1] : memref<12xi32>
      memref.store %r2, %o[%c2] : memref<12xi32>
      memref.store %r3, %o[%c3] : memref<12xi32>
      memref.store %r4, %o[%c4] : memref<12xi32>
      memref.store %r5, %o[%c5] : memref<12xi32>
      memref.store %r6, %o[%c6] : memref<12xi32>
      memref.store %r7, %o[%c7] : memref<12xi32>
      memref.store %r8, %o[%c8] : memref<12xi32>
      memref.store %r9, %o[%c9] : memref<12xi32>
      memref.store %r10, %o[%c10] : memref<12xi32>
      memref.store %r11, %o[%c11] : memref<12xi32>
      return
    }"""
    r = run(text, [np.zeros(12, np.int32)])
    assert r.buffers[0].tolist() == [-3, -1, -4, -3, 2147483647, 1073741823, -2, -2147483647, -1, 1, -1, 2]


def test_float_conversions_and_math():
    text = """
    func.func @f(%x: memref<64xf32>, %o: memref<64xbf16>, %e: memref<64xf32>) {
      %c0 = arith.constant 0 : index
      %v = vector.load %x[%c0] : memref<64xf32>, vector<64xf32>
      %t = arith.truncf %v : vector<64xf32> to vector<64xbf16>
      vector.store %t, %o[%c0] : memref<64xbf16>, vector<64xbf16>
      %a = math.erf %v : vector<64xf32>
      %b = math.tanh %a : vector<64xf32>
      %c = math.rsqrt %b : vector<64xf32>
      %d = math.exp %c : vector<64xf32>
      vector.store %d, %e[%c0] : memref<64xf32>, vector<64xf32>
      return
    }"""
    x = np.random.default_rng(1).uniform(0.1, 3, 64).astype(np.float32)
    x[0] = np.float32(1.0 + 2 ** -8)  # a tie: rounds to even
    x[1] = np.float32(1.0 + 3 * 2 ** -8)
    r = run(text, [x, np.zeros(64, BF16), np.zeros(64, np.float32)])
    assert np.array_equal(r.buffers[1].view(np.uint16), x.astype(BF16).view(np.uint16))
    assert float(r.buffers[1][0]) == 1.0 and float(r.buffers[1][1]) == 1.015625
    erf = np.array([math.erf(float(v)) for v in x], np.float32)
    exp = np.exp(1 / np.sqrt(np.tanh(erf.astype(np.float64))))
    np.testing.assert_allclose(r.buffers[2], exp, rtol=1e-5)


def test_vector_ops():
    text = """
    func.func @f(%a: memref<4x8xf32>, %o1: memref<8x4xf32>, %o2: memref<4xf32>, %o3: memref<2x4xf32>,
                 %o4: memref<4x8xf32>, %o5: memref<4x4xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %pad = arith.constant 0.0 : f32
      %v = vector.load %a[%c0, %c0] : memref<4x8xf32>, vector<4x8xf32>
      %t = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
      vector.store %t, %o1[%c0, %c0] : memref<8x4xf32>, vector<8x4xf32>
      %acc = arith.constant dense<1.0> : vector<4xf32>
      %red = vector.multi_reduction <add>, %v, %acc [1] : vector<4x8xf32> to vector<4xf32>
      vector.store %red, %o2[%c0] : memref<4xf32>, vector<4xf32>
      %s = vector.extract_strided_slice %v {offsets = [1, 2], sizes = [2, 4], strides = [1, 1]} : vector<4x8xf32> to vector<2x4xf32>
      vector.store %s, %o3[%c0, %c0] : memref<2x4xf32>, vector<2x4xf32>
      %row = vector.extract %v[2] : vector<8xf32> from vector<4x8xf32>
      %e = vector.extract %row[%c1] : f32 from vector<8xf32>
      %b = vector.broadcast %e : f32 to vector<2x4xf32>
      %z = arith.constant dense<0.0> : vector<4x8xf32>
      %ins = vector.insert_strided_slice %b, %z {offsets = [2, 4], strides = [1, 1]} : vector<2x4xf32> into vector<4x8xf32>
      %ins2 = vector.insert %row, %ins[0] : vector<8xf32> into vector<4x8xf32>
      %sc = vector.shape_cast %ins2 : vector<4x8xf32> to vector<32xf32>
      %sc2 = vector.shape_cast %sc : vector<32xf32> to vector<4x8xf32>
      vector.store %sc2, %o4[%c0, %c0] : memref<4x8xf32>, vector<4x8xf32>
      %cz = arith.constant dense<0.5> : vector<4x4xf32>
      %mm = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
                                              affine_map<(i, j, k) -> (i, j)>],
                             iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
            %v, %t, %cz : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
      vector.store %mm, %o5[%c0, %c0] : memref<4x4xf32>, vector<4x4xf32>
      return
    }"""
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    outs = [np.zeros(s, np.float32) for s in [(8, 4), (4,), (2, 4), (4, 8), (4, 4)]]
    r = run(text, [a] + outs)
    assert np.array_equal(r.buffers[1], a.T)
    assert np.array_equal(r.buffers[2], a.sum(1) + 1)
    assert np.array_equal(r.buffers[3], a[1:3, 2:6])
    exp = np.zeros((4, 8), np.float32)
    exp[2:4, 4:8] = a[2, 1]
    exp[0] = a[2]
    assert np.array_equal(r.buffers[4], exp)
    assert np.allclose(r.buffers[5], a @ a.T + 0.5)


def test_scf_and_memref_views():
    text = """
    func.func @f(%m: memref<8x8xi32>, %o: memref<3xi32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      %sv = memref.subview %m[2, %c1] [4, 4] [1, 2] : memref<8x8xi32> to memref<4x4xi32, strided<[8, 2], offset: ?>>
      %z = arith.constant 0 : i32
      %sum = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %z) -> (i32) {
        %inner = scf.for %j = %c0 to %c8 step %c2 iter_args(%a2 = %acc) -> (i32) {
          %jj = arith.divui %j, %c2 : index
          %x = memref.load %sv[%i, %jj] : memref<4x4xi32, strided<[8, 2], offset: ?>>
          %y = arith.addi %a2, %x : i32
          scf.yield %y : i32
        }
        scf.yield %inner : i32
      }
      memref.store %sum, %o[%c0] : memref<3xi32>
      %ten = arith.constant 10 : i32
      %w = scf.while (%arg = %z) : (i32) -> i32 {
        %cond = arith.cmpi slt, %arg, %ten : i32
        scf.condition(%cond) %arg : i32
      } do {
      ^bb0(%arg: i32):
        %three = arith.constant 3 : i32
        %n = arith.addi %arg, %three : i32
        scf.yield %n : i32
      }
      memref.store %w, %o[%c1] : memref<3xi32>
      %flat = memref.collapse_shape %m [[0, 1]] : memref<8x8xi32> into memref<64xi32>
      %c63 = arith.constant 63 : index
      %last = memref.load %flat[%c63] : memref<64xi32>
      %cond = arith.cmpi sgt, %last, %ten : i32
      %sel = scf.if %cond -> (i32) {
        scf.yield %last : i32
      } else {
        scf.yield %ten : i32
      }
      memref.store %sel, %o[%c2] : memref<3xi32>
      return
    }"""
    m = np.arange(64, dtype=np.int32).reshape(8, 8)
    r = run(text, [m, np.zeros(3, np.int32)])
    sv = m[2:6, 1:9:2]
    assert r.buffers[1].tolist() == [int(sv[:2].sum()), 12, 63]


def test_affine_and_index_casts():
    text = """
    #map = affine_map<(d0)[s0] -> (d0 * 3 + s0 floordiv 2, d0 mod 4)>
    func.func @f(%o: memref<3xindex>) {
      %c5 = arith.constant 5 : index
      %c7 = arith.constant 7 : index
      %a = affine.min #map(%c5)[%c7]
      %b = affine.apply affine_map<(d0) -> (d0 ceildiv 2)>(%c7)
      %i = arith.index_cast %c7 : index to i32
      %f = arith.sitofp %i : i32 to f32
      %g = arith.fptosi %f : f32 to i64
      %h = arith.index_cast %g : i64 to index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      memref.store %a, %o[%c0] : memref<3xindex>
      memref.store %b, %o[%c1] : memref<3xindex>
      memref.store %h, %o[%c2] : memref<3xindex>
      return
    }"""
    r = run(text, [np.zeros(3, np.int64)])
    assert r.buffers[0].tolist() == [1, 4, 7]


def test_divergent_if_and_loops_in_kernel():
    # each subgroup s writes s+1 into out[wg, s] only if s is odd; loop trip count depends on s
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %wg = gpu.block_id x
    %sg = gpu.subgroup_id : index
    %odd = arith.remui %sg, %c2 : index
    %is_odd = arith.cmpi eq, %odd, %c1 : index
    %v = scf.if %is_odd -> (index) {
      %s1 = arith.addi %sg, %c1 : index
      %i = arith.index_cast %s1 : index to i32
      memref.store %i, %out[%wg, %sg] : memref<2x4xi32>
      scf.yield %s1 : index
    } else {
      scf.yield %c0 : index
    }
    %z = arith.constant 0 : i32
    %sum = scf.for %k = %c0 to %sg step %c1 iter_args(%a = %z) -> (i32) {
      %one = arith.constant 1 : i32
      %a2 = arith.addi %a, %one : i32
      scf.yield %a2 : i32
    }
    memref.store %sum, %cnt[%wg, %sg] : memref<2x4xi32>
    """
    text = single_kernel_module([("out", "memref<2x4xi32>"), ("cnt", "memref<2x4xi32>")], body,
                                grid=(2, 1, 1), block=(64, 1, 1))
    r = simulate(parse_module(text), "main", [np.full((2, 4), -1, np.int32), np.zeros((2, 4), np.int32)])
    assert r.buffers[0].tolist() == [[-1, 2, -1, 4]] * 2
    assert r.buffers[1].tolist() == [[0, 1, 2, 3]] * 2


def test_slm_exchange_with_barrier():
    # subgroup s stores its id into SLM, barrier, then reads the value of subgroup (s+1)%4
    body = """
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %wg = gpu.block_id x
    %sg = gpu.subgroup_id : index
    %slm = memref.alloc() : memref<4xindex, 3>
    %v = arith.muli %wg, %c4 : index
    %v2 = arith.addi %v, %sg : index
    memref.store %v2, %slm[%sg] : memref<4xindex, 3>
    gpu.barrier
    %n = arith.addi %sg, %c1 : index
    %n2 = arith.remui %n, %c4 : index
    %x = memref.load %slm[%n2] : memref<4xindex, 3>
    memref.store %x, %out[%wg, %sg] : memref<3x4xindex>
    """
    text = single_kernel_module([("out", "memref<3x4xindex>")], body, grid=(3, 1, 1), block=(64, 1, 1))
    r = simulate(parse_module(text), "main", [np.zeros((3, 4), np.int64)], trace=True)
    exp = np.array([[w * 4 + (s + 1) % 4 for s in range(4)] for w in range(3)])
    assert np.array_equal(r.buffers[0], exp)
    assert r.trace.barriers == 1


def test_simt_work_item_kernel():
    # a plain per-work-item kernel: out[gid] = a[gid] * 2 for gid < n, with a partial subgroup
    body = """
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %bd = gpu.block_dim x
    %base = arith.muli %bid, %bd : index
    %gid = arith.addi %base, %tid : index
    %n = arith.constant 50 : index
    %ok = arith.cmpi ult, %gid, %n : index
    scf.if %ok {
      %x = memref.load %a[%gid] : memref<50xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %out[%gid] : memref<50xf32>
    }
    """
    text = single_kernel_module([("a", "memref<50xf32>"), ("out", "memref<50xf32>")], body,
                                grid=(3, 1, 1), block=(20, 1, 1))
    a = np.arange(50, dtype=np.float32)
    r = simulate(parse_module(text), "main", [a, np.zeros(50, np.float32)])
    assert np.array_equal(r.buffers[1], 2 * a)


def test_simt_shuffle_and_subgroup_reduce():
    body = """
    %lane = gpu.lane_id
    %tid = gpu.thread_id x
    %x = memref.load %a[%tid] : memref<32xf32>
    %w = arith.constant 16 : i32
    %one = arith.constant 1 : i32
    %s, %ok = gpu.shuffle xor %x, %one, %w : f32
    memref.store %s, %sh[%tid] : memref<32xf32>
    %r = gpu.subgroup_reduce add %x : (f32) -> f32
    memref.store %r, %red[%tid] : memref<32xf32>
    """
    text = single_kernel_module([("a", "memref<32xf32>"), ("sh", "memref<32xf32>"), ("red", "memref<32xf32>")],
                                body, grid=(1, 1, 1), block=(32, 1, 1))
    a = np.arange(32, dtype=np.float32)
    r = simulate(parse_module(text), "main", [a, np.zeros(32, np.float32), np.zeros(32, np.float32)])
    assert np.array_equal(r.buffers[1], a[np.arange(32) ^ 1])
    assert np.array_equal(r.buffers[2], np.repeat([a[:16].sum(), a[16:].sum()], 16))


def test_host_gpu_memory_ops():
    text = """
    module attributes {gpu.container_module} {
      gpu.module @kernels {
        gpu.func @k(%m: memref<16xf32>) kernel {
          %c0 = arith.constant 0 : index
          %v = vector.load %m[%c0] : memref<16xf32>, vector<16xf32>
          %w = arith.mulf %v, %v : vector<16xf32>
          vector.store %w, %m[%c0] : memref<16xf32>, vector<16xf32>
          gpu.return
        }
      }
      func.func @main(%h: memref<16xf32>) {
        %c1 = arith.constant 1 : index
        %c16 = arith.constant 16 : index
        %d = gpu.alloc () : memref<16xf32>
        gpu.memcpy %d, %h : memref<16xf32>, memref<16xf32>
        gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%d : memref<16xf32>)
        gpu.memcpy %h, %d : memref<16xf32>, memref<16xf32>
        gpu.dealloc %d : memref<16xf32>
        return
      }
    }"""
    h = np.arange(16, dtype=np.float32)
    r = simulate(parse_module(text), "main", [h])
    assert np.array_equal(r.buffers[0], h * h)
    assert np.array_equal(h, np.arange(16, dtype=np.float32))  # inputs are not modified


def test_transfer_read_write_and_reductions():
    text = """
    func.func @f(%m: memref<5x6xf32>, %o: memref<8x8xf32>, %r: memref<2xf32>) {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %pad = arith.constant -1.0 : f32
      %v = vector.transfer_read %m[%c3, %c3], %pad : memref<5x6xf32>, vector<4x4xf32>
      vector.transfer_write %v, %o[%c0, %c0] : vector<4x4xf32>, memref<8x8xf32>
      %t = vector.transfer_read %m[%c0, %c0], %pad {permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<5x6xf32>, vector<4x4xf32>
      %c4 = arith.constant 4 : index
      vector.transfer_write %t, %o[%c4, %c4] : vector<4x4xf32>, memref<8x8xf32>
      %s = vector.shape_cast %v : vector<4x4xf32> to vector<16xf32>
      %mx = vector.reduction <maxnumf>, %s : vector<16xf32> into f32
      %acc = arith.constant 0.5 : f32
      %sm = vector.reduction <add>, %s, %acc : vector<16xf32> into f32
      memref.store %mx, %r[%c0] : memref<2xf32>
      %c1 = arith.constant 1 : index
      memref.store %sm, %r[%c1] : memref<2xf32>
      return
    }"""
    m = np.arange(30, dtype=np.float32).reshape(5, 6)
    r = run(text, [m, np.zeros((8, 8), np.float32), np.zeros(2, np.float32)])
    blk = np.full((4, 4), -1, np.float32)
    blk[:2, :3] = m[3:5, 3:6]
    exp = np.zeros((8, 8), np.float32)
    exp[:4, :4] = blk
    exp[4:, 4:] = m[:4, :4].T
    np.testing.assert_array_equal(r.buffers[1], exp)
    assert r.buffers[2].tolist() == [blk.max(), blk.sum() + 0.5]


def test_subgroup_reduce_with_partial_subgroup():
    body = """
    %tid = gpu.thread_id x
    %x = memref.load %a[%tid] : memref<20xf32>
    %r = gpu.subgroup_reduce add %x : (f32) -> f32
    %m = gpu.subgroup_reduce maxnumf %x : (f32) -> f32
    memref.store %r, %red[%tid] : memref<20xf32>
    memref.store %m, %mx[%tid] : memref<20xf32>
    """
    text = single_kernel_module([("a", "memref<20xf32>"), ("red", "memref<20xf32>"), ("mx", "memref<20xf32>")],
                                body, block=(20, 1, 1))
    a = np.arange(20, dtype=np.float32) - 5
    r = simulate(parse_module(text), "main", [a, np.zeros(20, np.float32), np.zeros(20, np.float32)])
    np.testing.assert_array_equal(r.buffers[1], np.r_[np.full(16, a[:16].sum()), np.full(4, a[16:].sum())])
    np.testing.assert_array_equal(r.buffers[2], np.r_[np.full(16, a[:16].max()), np.full(4, a[16:].max())])


def test_workgroup_attribution_is_per_workgroup_slm():
    body = """
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %wg = gpu.block_id x
    %sg = gpu.subgroup_id : index
    %v = arith.muli %wg, %c4 : index
    %v2 = arith.addi %v, %sg : index
    memref.store %v2, %w[%sg] : memref<4xindex, 3>
    gpu.barrier
    %n = arith.addi %sg, %c1 : index
    %n2 = arith.remui %n, %c4 : index
    %x = memref.load %w[%n2] : memref<4xindex, 3>
    memref.store %x, %out[%wg, %sg] : memref<3x4xindex>
    """
    text = single_kernel_module([("out", "memref<3x4xindex>")], body, grid=(3, 1, 1), block=(64, 1, 1),
                                kernel_attrs="workgroup(%w : memref<4xindex, 3>) ")
    r = simulate(parse_module(text), "main", [np.zeros((3, 4), np.int64)])
    exp = np.array([[w * 4 + (s + 1) % 4 for s in range(4)] for w in range(3)])
    assert np.array_equal(r.buffers[0], exp)


def test_subgroup_reduce_unsigned_and_clusters():
    body = """
    %tid = gpu.thread_id x
    %x = memref.load %a[%tid] : memref<16xi32>
    %u = gpu.subgroup_reduce maxui %x : (i32) -> i32
    %v = gpu.subgroup_reduce minui %x : (i32) -> i32
    %c = gpu.subgroup_reduce add %x cluster(size = 4) : (i32) -> i32
    %d = gpu.subgroup_reduce add %x cluster(size = 2, stride = 4) : (i32) -> i32
    memref.store %u, %o1[%tid] : memref<16xi32>
    memref.store %v, %o2[%tid] : memref<16xi32>
    memref.store %c, %o3[%tid] : memref<16xi32>
    memref.store %d, %o4[%tid] : memref<16xi32>
    """
    args = [("a", "memref<16xi32>")] + [(f"o{i}", "memref<16xi32>") for i in range(1, 5)]
    text = single_kernel_module(args, body, block=(16, 1, 1))
    a = np.array([3, -1, 7, 0, 5, -8, 2, 9, 1, 4, -3, 6, 11, 12, 13, 14], np.int32)
    r = simulate(parse_module(text), "main", [a] + [np.zeros(16, np.int32) for _ in range(4)]).buffers
    u = a.view(np.uint32)
    assert (r[1] == np.int32(u.max().astype(np.uint32).view(np.int32))).all() and r[1][0] == -1   # 0xffffffff
    assert (r[2] == 0).all()                                                                     # unsigned min
    np.testing.assert_array_equal(r[3], np.repeat(a.reshape(4, 4).sum(axis=1), 4))
    lanes = np.arange(16)
    partner = np.where((lanes // 4) % 2 == 0, lanes + 4, lanes - 4)   # clusters {l, l + 4} in blocks of 8
    np.testing.assert_array_equal(r[4], a + a[partner])


def test_expand_shape_of_0d_memref():
    # Empty reassociation: every result dim is a unit dim with stride 1; the view aliases the source.
    text = """
    func.func @f(%s: memref<f32>, %o: memref<1x1xf32>) {
      %c0 = arith.constant 0 : index
      %e = memref.expand_shape %s [] output_shape [1, 1] : memref<f32> into memref<1x1xf32>
      %x = memref.load %e[%c0, %c0] : memref<1x1xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %o[%c0, %c0] : memref<1x1xf32>
      memref.store %y, %e[%c0, %c0] : memref<1x1xf32>
      %base, %off, %sz:2, %st:2 = memref.extract_strided_metadata %e : memref<1x1xf32> -> memref<f32>, index, index, index, index, index
      %st0 = arith.index_cast %st#0 : index to i32
      %st0f = arith.sitofp %st0 : i32 to f32
      %z = arith.addf %y, %st0f : f32
      memref.store %z, %o[%c0, %c0] : memref<1x1xf32>
      return
    }"""
    r = run(text, [np.array(1.5, np.float32), np.zeros((1, 1), np.float32)])
    assert r.buffers[0].tolist() == 3.0
    assert r.buffers[1].tolist() == [[4.0]]
