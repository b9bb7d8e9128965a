// A scattered load whose lanes all read the same address under the same mask (a bias element at a
// subgroup-uniform row: `kernel_block_io.lane_invariant`) is read by every lane under that mask alone,
// with no lane test: IGC makes it a scalar load behind a uniform branch instead of a divergent one
// (docs/igc.md "Small kernels").
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s
// CHECK-LABEL: spirv.func @bias
// CHECK: %[[IN:.*]] = spirv.ULessThan %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: spirv.Variable
// CHECK-NEXT: spirv.mlir.selection {
// CHECK-NEXT: spirv.BranchConditional %[[IN]], ^bb1, ^bb2
// CHECK: spirv.Load "CrossWorkgroup" %{{.*}} ["Aligned", 4] : f32

module attributes {gpu.container_module} {
  func.func @host(%B: memref<64xf32>, %C: memref<64x16xf32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @k::@bias blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%B : memref<64xf32>, %C : memref<64x16xf32>)
    return
  }
  gpu.module @k {
    gpu.func @bias(%B: memref<64xf32>, %C: memref<64x16xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c64 = arith.constant 64 : index
      %c8 = arith.constant 8 : index
      %g = gpu.block_id x
      %row = arith.muli %g, %c8 : index
      %off = vector.broadcast %row : index to vector<1xindex>
      %in = arith.cmpi ult, %row, %c64 : index
      %m = vector.broadcast %in : i1 to vector<1xi1>
      %t = xegpu.create_tdesc %B, %off {mode = vc} : memref<64xf32>, vector<1xindex> -> !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>
      %v = xegpu.load_gather %t, %m {mode = vc} : !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>, vector<1xi1> -> vector<1xf32>
      %b = vector.broadcast %v : vector<1xf32> to vector<8x16xf32>
      %c0 = arith.constant 0 : index
      %d = xegpu.create_nd_tdesc %C[%row, %c0] {mode = vc} : memref<64x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %b, %d {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      gpu.return
    }
  }
}
