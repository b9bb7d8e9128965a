"""Lane-level (SIMT-mode) kernels as SPIR-V (convert-xegpu-to-spirv's `kernel_simt.LaneKernelLowering`,
docs/spirv.md "Lane-level kernels"): xe-opt's SIMT pipeline (xe-gemm-to-xegpu, xegpu-simt-distribute)
lowered for pvc and portable passes spirv-val and runs on the OpenCL CPU device like upstream MLIR on the
CPU (pvc binaries with the emulation library); per-lane ops -- the four gpu.shuffle modes and their
valid flag, gpu.subgroup_reduce, dynamic extracts, scattered accesses -- agree with the simulator bit
for bit; atomics per work-item."""
import os
import sys

import numpy as np
import pytest

import xedialects
from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv
from xedialects.passes import run
from xedialects.runtime.opencl import program_for_module, run_opencl
from xedialects.sim import simulate

sys.path.insert(0, os.path.dirname(__file__))
import test_linalg_lowering as LL  # noqa: E402
from opencl_support import RT, assert_opencl_matches_cpu, needs_rt  # noqa: E402

SIMT = "builtin.module(xe-gemm-to-xegpu, xegpu-simt-distribute, convert-xegpu-to-spirv{{target={}}})"


def _lowered(name, target):
    case = LL.FORMS[name]
    m = xedialects.parse(case.src, f"{name}.mlir")
    run(m, SIMT.format(target))
    return case, m


@pytest.mark.usefixtures("spirv_val")
@pytest.mark.parametrize("target", ["pvc", "portable"])
@pytest.mark.parametrize("name", ["transposed_b", "i8_i32", "tf32"])
def test_simt_pipeline_output_is_valid_spirv(name, target):
    _case, m = _lowered(name, target)
    binary, meta = export_spirv(m)              # serialized and checked by spirv-val
    assert binary and meta["target"] == target
    builtins = "intel_sub_group_2d_block_read" in str(m)
    assert builtins == (target == "pvc")


@needs_rt
@pytest.mark.parametrize("name,target", [("plain", "pvc"), ("transposed_b", "pvc"), ("i8_i32", "pvc"),
                                         ("bf16_bf16", "portable")])
def test_simt_gemm_runs_on_opencl_like_the_cpu_reference(name, target):
    case, m = _lowered(name, target)
    program = program_for_module(m, RT)
    assert program.emulated == (target == "pvc")
    assert_opencl_matches_cpu(name, case, m, program)


def _lane_program(name):
    import test_upstream_import as UI
    rng = np.random.default_rng(3)

    def f16(*shape):
        return rng.integers(-4, 5, shape).astype(np.float16)
    if name == "transposed_b":          # B^T read as 32-bit words by a transposed load (lane n: row n)
        return UI.LANE_TRANSPOSED_B, [f16(8, 16), np.ascontiguousarray(f16(16, 16).T).view(np.float32),
                                      np.zeros((8, 16), np.float32)]
    return UI._lane_i8_mma("u8"), [rng.integers(0, 256, (8, 32)).astype(np.uint8),      # xevm.mma, u8
                                   rng.integers(0, 256, (32, 16)).astype(np.uint8),
                                   rng.integers(-5, 5, (8, 16)).astype(np.int32)]


@needs_rt
@pytest.mark.parametrize("name,target", [("transposed_b", "pvc"), ("u8_mma", "pvc"), ("u8_mma", "portable")])
def test_imported_lane_level_program_on_opencl_as_simulated(name, target):
    """Upstream lane-level programs of test_upstream_import, imported into SIMT mode: the same bits on
    OpenCL as in the simulator (u8 operands up to 255: zero-extended in the builtin and the k loop)."""
    from xedialects.lowering.upstream_to_xegpu import import_upstream

    src, args = _lane_program(name)
    want = simulate(import_upstream(src, f"{name}.mlir"), "main", [np.copy(a) for a in args]).buffers
    got = run_opencl(import_upstream(src, f"{name}.mlir"), "main", [np.copy(a) for a in args], runtime=RT,
                     target=target).result.buffers
    assert all(np.array_equal(g, w) for g, w in zip(got, want))
    assert np.any(got[-1] != args[-1])


_T = "!xegpu.tensor_desc<16x{}, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>"
TF, TI = _T.format("f32"), _T.format("i32")

LANES = f"""
module attributes {{gpu.container_module}} {{
  gpu.module @k {{
    gpu.func @lanes(%x: memref<16xf32>, %n: memref<16xi32>, %o: memref<128xf32>, %oi: memref<96xi32>) kernel
        attributes {{known_block_size = array<i32: 16, 1, 1>}} {{
      %lane = gpu.lane_id
      %true = arith.constant true
      %tx = xegpu.create_tdesc %x, %lane : memref<16xf32>, index -> {TF}
      %v = xegpu.load_gather %tx, %true : {TF}, i1 -> f32
      %tn = xegpu.create_tdesc %n, %lane : memref<16xi32>, index -> {TI}
      %k = xegpu.load_gather %tn, %true : {TI}, i1 -> i32
      %c16 = arith.constant 16 : i32
      %c3 = arith.constant 3 : i32
      %s0, %ok0 = gpu.shuffle idx %v, %k, %c16 : f32
      %s1, %ok1 = gpu.shuffle xor %v, %c3, %c16 : f32
      %s2, %ok2 = gpu.shuffle up %v, %c3, %c16 : f32
      %s3, %ok3 = gpu.shuffle down %v, %c3, %c16 : f32
      %r0 = gpu.subgroup_reduce add %v : (f32) -> f32
      %r1 = gpu.subgroup_reduce maxnumf %v : (f32) -> f32
      %r2 = gpu.subgroup_reduce minsi %k : (i32) -> i32
      %r3 = gpu.subgroup_reduce xor %k : (i32) -> i32
      %vec = vector.from_elements %s0, %s1, %s2, %s3, %r0, %r1, %v, %v : vector<8xf32>
      %c8 = arith.constant 8 : index
      %at = arith.remui %lane, %c8 : index
      %e = vector.extract %vec[%at] : f32 from vector<8xf32>
      %rev = vector.shuffle %vec, %vec [7, 6, 5, 4, 3, 2, 1, 0] : vector<8xf32>, vector<8xf32>
      %f = vector.extract %rev[%at] : f32 from vector<8xf32>
      %g = arith.addf %e, %f : f32
      %outs = vector.from_elements %s0, %s1, %s2, %s3, %r0, %r1, %e, %g : vector<8xf32>
      %b0 = arith.extui %ok0 : i1 to i32
      %b1 = arith.extui %ok1 : i1 to i32
      %b2 = arith.extui %ok2 : i1 to i32
      %b3 = arith.extui %ok3 : i1 to i32
      %ints = vector.from_elements %b0, %b1, %b2, %b3, %r2, %r3 : vector<6xi32>
""" + "".join(f"""      %c{j}o = arith.constant {16 * j} : index
      %p{j} = arith.addi %lane, %c{j}o : index
      %to{j} = xegpu.create_tdesc %o, %p{j} : memref<128xf32>, index -> {TF}
      %x{j} = vector.extract %outs[{j}] : f32 from vector<8xf32>
      xegpu.store_scatter %x{j}, %to{j}, %true : f32, {TF}, i1
""" for j in range(8)) + "".join(f"""      %ti{j} = xegpu.create_tdesc %oi, %p{j} : memref<96xi32>, index -> {TI}
      %y{j} = vector.extract %ints[{j}] : i32 from vector<6xi32>
      xegpu.store_scatter %y{j}, %ti{j}, %true : i32, {TI}, i1
""" for j in range(6)) + """      gpu.return
    }
  }
  func.func @main(%x: memref<16xf32>, %n: memref<16xi32>, %o: memref<128xf32>, %oi: memref<96xi32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @k::@lanes blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%x : memref<16xf32>, %n : memref<16xi32>, %o : memref<128xf32>, %oi : memref<96xi32>)
    return
  }
}
"""


@needs_rt
@pytest.mark.parametrize("target", ["portable", "pvc"])
def test_lane_ops_agree_with_the_simulator(target):
    """Shuffles (source lanes from data, 4 of them outside the subgroup: invalid, the own value),
    reductions, per-lane dynamic extracts and vector.shuffle; small integers, so sums are exact."""
    rng = np.random.default_rng(5)
    x = rng.integers(-50, 50, 16).astype(np.float32)
    n = rng.permutation(20)[:16].astype(np.int32)
    args = [x, n, np.zeros(128, np.float32), np.zeros(96, np.int32)]
    sim = simulate(xedialects.parse(LANES, "lanes.mlir"), "main", [np.copy(a) for a in args]).buffers
    got = run_opencl(xedialects.parse(LANES, "lanes.mlir"), "main", [np.copy(a) for a in args], runtime=RT,
                     target=target).result.buffers
    o, oi = got[2].reshape(8, 16), got[3].reshape(6, 16)
    lane = np.arange(16)
    assert np.array_equal(oi[0], (n < 16).astype(np.int32)) and oi[0].sum() < 16
    assert np.array_equal(o[0], np.where(n < 16, x[np.minimum(n, 15)], x))
    assert np.array_equal(o[1], x[lane ^ 3]) and np.array_equal(oi[2], (lane >= 3).astype(np.int32))
    assert np.array_equal(o[4], np.full(16, x.sum())) and np.array_equal(oi[4], np.full(16, n.min()))
    assert np.array_equal(got[2], sim[2]) and np.array_equal(got[3], sim[3])


ATOMIC = f"""
module attributes {{gpu.container_module}} {{
  gpu.module @k {{
    gpu.func @f(%a: memref<4xf32>, %o: memref<16xf32>) kernel attributes {{known_block_size = array<i32: 16, 1, 1>}} {{
      %lane = gpu.lane_id
      %c4 = arith.constant 4 : index
      %c12 = arith.constant 12 : index
      %slot = arith.remui %lane, %c4 : index
      %m = arith.cmpi ult, %lane, %c12 : index
      %t = xegpu.create_tdesc %a, %slot : memref<4xf32>, index -> {TF}
      %one = arith.constant 1.0 : f32
      %old = xegpu.atomic_rmw addf %one, %t, %m : f32, {TF}, i1 -> f32
      %to = xegpu.create_tdesc %o, %lane : memref<16xf32>, index -> {TF}
      %true = arith.constant true
      xegpu.store_scatter %old, %to, %true : f32, {TF}, i1
      gpu.return
    }}
  }}
  func.func @main(%a: memref<4xf32>, %o: memref<16xf32>) {{
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%a : memref<4xf32>, %o : memref<16xf32>)
    return
  }}
}}
"""


@needs_rt
def test_lane_atomics_each_work_item_its_own_element():
    """Work-items 0..11 add 1 to a[lane % 4] (masked off: 12..15): every element gets 3; each old value
    is what the work-item saw (0, 1 or 2; 0 where masked off)."""
    got = run_opencl(xedialects.parse(ATOMIC, "atomic.mlir"), "main", [np.zeros(4, np.float32), np.full(16, -1, np.float32)],
                     runtime=RT, target="portable").result.buffers
    assert np.array_equal(got[0], np.full(4, 3, np.float32))
    olds = got[1]
    assert np.array_equal(olds[12:], np.zeros(4, np.float32))
    assert sorted(olds[:12].tolist()) == sorted([0.0, 1.0, 2.0] * 4)
