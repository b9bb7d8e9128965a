// DPAS whose B block reaches past a surface of static shape (memref<1x16xbf16>: rows 1..15 are
// outside, the hardware reads zeros): the portable target folds those rows to constant zeros at
// lowering time (no loads, no bounds tests) and unrolls the k chunk instead of storing constants
// into the private B array, which Intel's OpenCL CPU compiler mis-compiles (the loop read garbage).
// Numeric check: test_linalg_lowering FORMS["k_1"] on OpenCL.
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s

// CHECK: spirv.func @t(
// 8 rows of A, 1 row of B
// CHECK-COUNT-9: spirv.Load "CrossWorkgroup" %{{.*}} : i16
// CHECK-NOT: spirv.Load "CrossWorkgroup"
// CHECK-NOT: spirv.mlir.loop
// CHECK: spirv.GroupNonUniformShuffle
// CHECK-NOT: spirv.Load "CrossWorkgroup"
// CHECK: spirv.Store "CrossWorkgroup"
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @t(%A: memref<8x16xbf16>, %B: memref<1x16xbf16>, %C: memref<8x16xf32>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
      %a = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<8x16xbf16> -> !xegpu.tensor_desc<8x16xbf16>
      %b = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<1x16xbf16> -> !xegpu.tensor_desc<16x16xbf16>
      %c = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      %va = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
      %vb = xegpu.load_nd %b {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
      %r = xegpu.dpas %va, %vb {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16> -> vector<8x16xf32>
      xegpu.store_nd %r, %c {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      gpu.return
    }
  }
  func.func @main(%A: memref<8x16xbf16>, %B: memref<1x16xbf16>, %C: memref<8x16xf32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @k::@t blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%A : memref<8x16xbf16>, %B : memref<1x16xbf16>, %C : memref<8x16xf32>)
    return
  }
}