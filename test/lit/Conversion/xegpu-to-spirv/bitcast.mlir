// convert-xegpu-to-spirv on vector.bitcast and on a descriptor over a buffer's raw address (as
// IMEX's flash attention reads its f16 K block as f32 pairs). A narrowing bitcast splits each lane
// register into two in the same lane (spirv.Bitcast to a 2-vector, components extracted); a
// widening one gathers each pair into one lane (the result's canonical layout: lane l holds
// column l, so the pair 2l, 2l + 1 moves from lanes 2l mod 16 and 2l + 1 mod 16) and joins it.
// memref.extract_aligned_pointer_as_index is the buffer pointer as an integer.
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s

// CHECK-LABEL: spirv.func @k(
// CHECK-SAME: %[[X:[a-z0-9]+]]: !spirv.ptr<i32, CrossWorkgroup>
// CHECK: %[[W:.*]] = spirv.Bitcast %{{.*}} : i32 to vector<2xi16>
// CHECK: spirv.CompositeExtract %[[W]][0 : i32] : vector<2xi16>
// CHECK: spirv.CompositeExtract %[[W]][1 : i32] : vector<2xi16>
// CHECK: %[[A:.*]] = spirv.ConvertPtrToU %[[X]] : !spirv.ptr<i32, CrossWorkgroup> to i64
// CHECK: spirv.ConvertUToPtr %{{.*}} : i64 to !spirv.ptr<i16, CrossWorkgroup>
// CHECK: spirv.GroupNonUniformShuffle
// CHECK: %[[P:.*]] = spirv.CompositeConstruct %{{.*}}, %{{.*}} : (i16, i16) -> vector<2xi16>
// CHECK: spirv.Bitcast %[[P]] : vector<2xi16> to i32
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%X: memref<8x16xi32>, %Y: memref<8x32xi16>, %Z: memref<8x16xi32>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>, intel_reqd_sub_group_size = 16 : i32} {
      %xd = xegpu.create_nd_tdesc %X[0, 0] {mode = vc} : memref<8x16xi32> -> !xegpu.tensor_desc<8x16xi32>
      %x = xegpu.load_nd %xd {mode = vc} : !xegpu.tensor_desc<8x16xi32> -> vector<8x16xi32>
      %h = vector.bitcast %x : vector<8x16xi32> to vector<8x32xi16>
      %yd = xegpu.create_nd_tdesc %Y[0, 0] {mode = vc} : memref<8x32xi16> -> !xegpu.tensor_desc<8x32xi16>
      xegpu.store_nd %h, %yd {mode = vc} : vector<8x32xi16>, !xegpu.tensor_desc<8x32xi16>
      // X read again as 8 x 32 i16 through its address, joined into i32, stored to Z (= X)
      %p = memref.extract_aligned_pointer_as_index %X : memref<8x16xi32> -> index
      %pi = arith.index_cast %p : index to i64
      %hd = xegpu.create_nd_tdesc %pi[0, 0], [8, 32], [32, 1] {mode = vc} : i64 -> !xegpu.tensor_desc<8x32xi16>
      %h2 = xegpu.load_nd %hd {mode = vc} : !xegpu.tensor_desc<8x32xi16> -> vector<8x32xi16>
      %z = vector.bitcast %h2 : vector<8x32xi16> to vector<8x16xi32>
      %zd = xegpu.create_nd_tdesc %Z[0, 0] {mode = vc} : memref<8x16xi32> -> !xegpu.tensor_desc<8x16xi32>
      xegpu.store_nd %z, %zd {mode = vc} : vector<8x16xi32>, !xegpu.tensor_desc<8x16xi32>
      gpu.return
    }
  }
  func.func @main(%X: memref<8x16xi32>, %Y: memref<8x32xi16>, %Z: memref<8x16xi32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%X : memref<8x16xi32>, %Y : memref<8x32xi16>, %Z : memref<8x16xi32>)
    return
  }
}
