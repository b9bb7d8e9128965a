// tf32 DPAS A operands are loaded in the builtin's A layout: a 32-bit block read only as A of
// intel_sub_group_tf32_tf32_matrix_mad_k8 (through slices) is read as 8-wide blocks side by side
// (32b_<h>r8x2c: lane (m % 2) * 8 + k, value m / 2, as the DPAS takes it), so no lane moves before
// the DPAS. The same block with another use keeps the 16-wide read (a column per lane).
// Numbers (IGC, tf32 4096^3 K loop): test/python/test_tf32_dpas_layout.py; docs/spirv.md.
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s

// CHECK-LABEL: spirv.func @a_only(
// CHECK:       spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_32b_16r8x2c(
// CHECK-NOT:   spirv.GroupNonUniformShuffle
// CHECK:       spirv.FunctionCall @__builtin_intel_sub_group_tf32_tf32_matrix_mad_k8(
// CHECK-NOT:   spirv.GroupNonUniformShuffle
// CHECK:       spirv.FunctionCall @__builtin_intel_sub_group_tf32_tf32_matrix_mad_k8(
// CHECK-NOT:   spirv.GroupNonUniformShuffle
// CHECK:       spirv.FunctionCall @__builtin_intel_sub_group_tf32_tf32_matrix_mad_k8(
// CHECK-NOT:   spirv.GroupNonUniformShuffle
// CHECK:       spirv.FunctionCall @__builtin_intel_sub_group_tf32_tf32_matrix_mad_k8(
// CHECK-NOT:   spirv.GroupNonUniformShuffle
// CHECK:       spirv.Return

// A also stored: the 16-wide read, moved to the DPAS layout by shuffles
// CHECK-LABEL: spirv.func @a_also_stored(
// CHECK:       spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_32b_16r16x1c(
// CHECK:       spirv.GroupNonUniformShuffle
// CHECK:       spirv.FunctionCall @__builtin_intel_sub_group_tf32_tf32_matrix_mad_k8(

// M = 2: no k8 builtin (the portable multiply-add, which wants a column per lane): the 16-wide read
// CHECK-LABEL: spirv.func @small_m(
// CHECK:       spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_32b_2r16x1c(
// CHECK-NOT:   matrix_mad
// CHECK:       spirv.Return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @a_only(%A: memref<16x16xtf32>, %B: memref<16x16xtf32>, %C: memref<16x16xf32>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
      %a = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<16x16xtf32> -> !xegpu.tensor_desc<16x16xtf32>
      %b = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<16x16xtf32> -> !xegpu.tensor_desc<16x16xtf32>
      %c0 = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      %c1 = xegpu.create_nd_tdesc %C[8, 0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      %va = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<16x16xtf32> -> vector<16x16xtf32>
      %vb = xegpu.load_nd %b {mode = vc} : !xegpu.tensor_desc<16x16xtf32> -> vector<16x16xtf32>
      %a00 = vector.extract_strided_slice %va {offsets = [0, 0], sizes = [8, 8], strides = [1, 1]} : vector<16x16xtf32> to vector<8x8xtf32>
      %a01 = vector.extract_strided_slice %va {offsets = [0, 8], sizes = [8, 8], strides = [1, 1]} : vector<16x16xtf32> to vector<8x8xtf32>
      %a10 = vector.extract_strided_slice %va {offsets = [8, 0], sizes = [8, 8], strides = [1, 1]} : vector<16x16xtf32> to vector<8x8xtf32>
      %a11 = vector.extract_strided_slice %va {offsets = [8, 8], sizes = [8, 8], strides = [1, 1]} : vector<16x16xtf32> to vector<8x8xtf32>
      %b0 = vector.extract_strided_slice %vb {offsets = [0, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x16xtf32> to vector<8x16xtf32>
      %b1 = vector.extract_strided_slice %vb {offsets = [8, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x16xtf32> to vector<8x16xtf32>
      %r0 = xegpu.dpas %a00, %b0 {mode = vc} : vector<8x8xtf32>, vector<8x16xtf32> -> vector<8x16xf32>
      %s0 = xegpu.dpas %a01, %b1, %r0 {mode = vc} : vector<8x8xtf32>, vector<8x16xtf32>, vector<8x16xf32> -> vector<8x16xf32>
      %r1 = xegpu.dpas %a10, %b0 {mode = vc} : vector<8x8xtf32>, vector<8x16xtf32> -> vector<8x16xf32>
      %s1 = xegpu.dpas %a11, %b1, %r1 {mode = vc} : vector<8x8xtf32>, vector<8x16xtf32>, vector<8x16xf32> -> vector<8x16xf32>
      xegpu.store_nd %s0, %c0 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %s1, %c1 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      gpu.return
    }
    gpu.func @a_also_stored(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
      %a = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<16x16xf32>
      %b = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      %c0 = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      %c1 = xegpu.create_nd_tdesc %C[8, 0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      %va = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<16x16xf32> -> vector<16x16xf32>
      %vb = xegpu.load_nd %b {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      %a00 = vector.extract_strided_slice %va {offsets = [0, 0], sizes = [8, 8], strides = [1, 1]} : vector<16x16xf32> to vector<8x8xf32>
      %top = vector.extract_strided_slice %va {offsets = [8, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x16xf32> to vector<8x16xf32>
      %r0 = xegpu.dpas %a00, %vb {mode = vc} : vector<8x8xf32>, vector<8x16xf32> -> vector<8x16xf32>
      xegpu.store_nd %r0, %c0 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %top, %c1 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      gpu.return
    }
    gpu.func @small_m(%A: memref<16x16xtf32>, %B: memref<16x16xtf32>, %C: memref<16x16xf32>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
      %a = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<16x16xtf32> -> !xegpu.tensor_desc<2x16xtf32>
      %b = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<16x16xtf32> -> !xegpu.tensor_desc<8x16xtf32>
      %c = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<2x16xf32>
      %va = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<2x16xtf32> -> vector<2x16xtf32>
      %vb = xegpu.load_nd %b {mode = vc} : !xegpu.tensor_desc<8x16xtf32> -> vector<8x16xtf32>
      %a0 = vector.extract_strided_slice %va {offsets = [0, 0], sizes = [2, 8], strides = [1, 1]} : vector<2x16xtf32> to vector<2x8xtf32>
      %r = xegpu.dpas %a0, %vb {mode = vc} : vector<2x8xtf32>, vector<8x16xtf32> -> vector<2x16xf32>
      xegpu.store_nd %r, %c {mode = vc} : vector<2x16xf32>, !xegpu.tensor_desc<2x16xf32>
      gpu.return
    }
  }
}
