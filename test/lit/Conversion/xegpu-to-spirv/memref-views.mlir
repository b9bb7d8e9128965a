// convert-xegpu-to-spirv on memref views and scalar accesses of kernel buffers inside a kernel:
// memref.expand_shape / collapse_shape (as the fused bias epilogues use: a 1D bias viewed as 1xN or
// Mx1) and memref.subview give the descriptors a new shape and strides on the same base pointer
// (a subview at an offset: a new base); memref.load / memref.store of a scalar (a rank-0 scale)
// are one load / store at the same address in every lane; a non-splat i1 constant vector
// (a lane mask) is a lane-set test.
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s --check-prefix=PVC

module attributes {gpu.container_module} {
  gpu.module @k {
    // CHECK-LABEL: spirv.func @bias(
    // CHECK-SAME: %[[BIAS:[a-z0-9]+]]: !spirv.ptr<f32, CrossWorkgroup>, %[[CB:[a-z0-9]+]]: !spirv.ptr<f32, CrossWorkgroup>, %[[S:[a-z0-9]+]]: !spirv.ptr<f16, CrossWorkgroup>, %[[C:[a-z0-9]+]]: !spirv.ptr<f32, CrossWorkgroup>, %[[N:[a-z0-9]+]]: i64)
    // the rank-0 scale: one scalar load at the buffer's base
    // CHECK: %[[SP:.*]] = spirv.PtrAccessChain %[[S]][%{{.*}}] : !spirv.ptr<f16, CrossWorkgroup>, i64
    // CHECK: %[[SC:.*]] = spirv.Load "CrossWorkgroup" %[[SP]] ["Aligned", 2] : f16
    // the 1xN view of the bias: element (0, 8 + lane) is bias[8 + lane], bounded by the dynamic N
    // CHECK: %[[COL:.*]] = spirv.IAdd %{{.*}}, %cst8_i64 : i64
    // CHECK: spirv.ULessThan %[[COL]], %[[N]] : i64
    // CHECK: spirv.mlir.selection
    // CHECK: spirv.PtrAccessChain %[[BIAS]][%[[COL]]]
    // CHECK: spirv.Load "CrossWorkgroup" %{{.*}} ["Aligned", 4] : f32
    // the 64x1 view of the static bias (strides [1, 1]): element (8 + i, 0) is cb[8 + i]
    // CHECK: spirv.PtrAccessChain %[[CB]][%cst8_i64]
    // CHECK: spirv.PtrAccessChain %[[CB]][%cst9_i64]
    // the subview C[2:4, :] is a new base 128 elements on, collapsed to 128 elements; the store
    // of the sum runs in lanes 0-7 (the i1 constant mask is a lane-id test)
    // CHECK: %[[SUB:.*]] = spirv.PtrAccessChain %[[C]][%cst128_i64]
    // CHECK: %[[LO:.*]] = spirv.ULessThan %{{.*}}, %cst8_i32 : i32
    // CHECK: spirv.mlir.selection
    // CHECK: spirv.BranchConditional %[[LO]]
    // CHECK: spirv.PtrAccessChain %[[SUB]][%{{.*}}]
    // CHECK: spirv.Store "CrossWorkgroup" %{{.*}} ["Aligned", 4] : f32
    // the scalar store of the scale at sub[1, 0] (every lane, same address and value)
    // CHECK: %[[F:.*]] = spirv.FConvert %[[SC]] : f16 to f32
    // CHECK: %[[P:.*]] = spirv.PtrAccessChain %[[SUB]][%cst64_i64]
    // CHECK: spirv.Store "CrossWorkgroup" %[[P]], %[[F]] ["Aligned", 4] : f32
    // CHECK: spirv.Return
    // pvc: the 1xN view is read by a 2D block builtin on the base pointer (surface width 4 * N bytes)
    // PVC-LABEL: spirv.func @bias(
    // PVC: %[[W:.*]] = spirv.IMul %{{.*}}, %cst4_i64 : i64
    // PVC: %[[W32:.*]] = spirv.SConvert %[[W]] : i64 to i32
    // PVC: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_32b_1r16x1c(%{{.*}}, %[[W32]], %cst1_i32, %[[W32]],
    // PVC: spirv.Return
    gpu.func @bias(%bias: memref<?xf32>, %cb: memref<64xf32>, %s: memref<f16>, %C: memref<4x64xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %n = memref.dim %bias, %c0 : memref<?xf32>
      %sc = memref.load %s[] : memref<f16>
      %row = memref.expand_shape %bias [[0, 1]] output_shape [1, %n] : memref<?xf32> into memref<1x?xf32>
      %t1 = xegpu.create_nd_tdesc %row[%c0, %c8], [%c1, %n], [%n, %c1] {mode = vc} : memref<1x?xf32> -> !xegpu.tensor_desc<1x16xf32>
      %v1 = xegpu.load_nd %t1 {mode = vc} : !xegpu.tensor_desc<1x16xf32> -> vector<1x16xf32>
      %col = memref.expand_shape %cb [[0, 1]] output_shape [64, 1] : memref<64xf32> into memref<64x1xf32>
      %t2 = xegpu.create_nd_tdesc %col[%c8, %c0] {mode = vc} : memref<64x1xf32> -> !xegpu.tensor_desc<16x1xf32>
      %v2 = xegpu.load_nd %t2 {mode = vc} : !xegpu.tensor_desc<16x1xf32> -> vector<16x1xf32>
      %v2t = vector.shape_cast %v2 : vector<16x1xf32> to vector<1x16xf32>
      %sum = arith.addf %v1, %v2t : vector<1x16xf32>
      %flat = vector.shape_cast %sum : vector<1x16xf32> to vector<16xf32>
      %sub = memref.subview %C[2, 0] [2, 64] [1, 1] : memref<4x64xf32> to memref<2x64xf32, strided<[64, 1], offset: 128>>
      %lin = memref.collapse_shape %sub [[0, 1]] : memref<2x64xf32, strided<[64, 1], offset: 128>> into memref<128xf32, strided<[1], offset: 128>>
      %offs = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>
      %mask = arith.constant dense<[true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false]> : vector<16xi1>
      %td = xegpu.create_tdesc %lin, %offs {mode = vc} : memref<128xf32, strided<[1], offset: 128>>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
      xegpu.store_scatter %flat, %td, %mask {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1>
      %scf = arith.extf %sc : f16 to f32
      memref.store %scf, %sub[%c1, %c0] : memref<2x64xf32, strided<[64, 1], offset: 128>>
      gpu.return
    }
  }
}
