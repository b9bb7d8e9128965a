// The stage-4 GEMM of docs/pipeline.md (convert-linalg-to-xetile, xetile-wg-to-sg,
// convert-xetile-to-xegpu on a 256x256x256 bf16 matmul): the K loop becomes a spirv.mlir.loop
// carrying the accumulators as per-lane registers (the descriptors move with its i32 induction
// variable; the B tile's two VNNI loads, side by side, are one 2-block transform read); the host
// keeps its gpu.launch_func. --emit=spirv-binary writes the binary and its JSON sidecar.
// RUN: xe-opt %s --convert-xegpu-to-spirv | FileCheck %s --check-prefix=PVC
// RUN: xe-opt %s --convert-xegpu-to-spirv --xe-target=portable | FileCheck %s --check-prefix=PORT
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable --emit=spirv-binary -o %t.spv && FileCheck %s --input-file=%t.spv.json --check-prefix=JSON

// PVC: gpu.launch_func  @gemm_kernels::@gemm_0 blocks in (%c4, %c8, %c1) threads in (%c128, %c1, %c1)
// PVC: spirv.module @__spv__gemm_kernels
// PVC: spirv.func @gemm_0(
// PVC-COUNT-2: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_32b_8r16x1c
// PVC: spirv.mlir.loop
// PVC: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_16b_8r16x2c
// PVC: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_transform_16b_32r16x2c
// PVC-NOT: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_transform
// PVC-COUNT-4: spirv.FunctionCall @__builtin_intel_sub_group_bf16_bf16_matrix_mad_k16
// PVC: spirv.mlir.merge
// PVC-COUNT-2: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_write_32b_8r16x1c
// PVC: spirv.ExecutionMode @gemm_0 "LocalSize", 128, 1, 1
// PVC: spirv.ExecutionMode @gemm_0 "SubgroupSize", 16
// PVC: gpu.func @gemm_0

// PORT: spirv.func @gemm_0(
// PORT-NOT: spirv.FunctionCall
// PORT: spirv.mlir.loop
// PORT: spirv.GroupNonUniformShuffle <Subgroup>
// PORT: spirv.mlir.merge
// PORT: spirv.ExecutionMode @gemm_0 "SubgroupSize", 16

// JSON: "kernels": [
// JSON: "element_type": "bf16",
// JSON-NEXT: "kind": "buffer",
// JSON-NEXT: "name": "arg0",
// JSON: "name": "gemm_0",
// JSON: "subgroup_size": 16,
// JSON: "workgroup_size": [
// JSON-NEXT: 128,
// JSON: "target": "portable"
module attributes {gpu.container_module} {
  func.func @gemm(%arg0: memref<256x256xbf16>, %arg1: memref<256x256xbf16>, %arg2: memref<256x256xf32>) {
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func  @gemm_kernels::@gemm_0 blocks in (%c4, %c8, %c1) threads in (%c128, %c1, %c1)  args(%arg0 : memref<256x256xbf16>, %arg1 : memref<256x256xbf16>, %arg2 : memref<256x256xf32>)
    return
  }
  gpu.module @gemm_kernels {
    gpu.func @gemm_0(%arg0: memref<256x256xbf16>, %arg1: memref<256x256xbf16>, %arg2: memref<256x256xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c256 = arith.constant 256 : index
      %c64 = arith.constant 64 : index
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %c8 = arith.constant 8 : index
      %c2 = arith.constant 2 : index
      %c16 = arith.constant 16 : index
      %0 = gpu.subgroup_id : index
      %1 = arith.divui %0, %c2 : index
      %2 = arith.muli %1, %c8 : index
      %3 = arith.remui %0, %c2 : index
      %4 = arith.muli %3, %c32 : index
      %5 = arith.muli %0, %c4 : index
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %6 = arith.muli %block_id_y, %c32 : index
      %7 = arith.muli %block_id_x, %c64 : index
      %8 = arith.addi %6, %2 : index
      %9 = xegpu.create_nd_tdesc %arg0[%8, %c0] {mode = vc} : memref<256x256xbf16> -> !xegpu.tensor_desc<8x32xbf16>
      %10 = arith.addi %7, %4 : index
      %11 = xegpu.create_nd_tdesc %arg1[%c0, %10] {mode = vc} : memref<256x256xbf16> -> !xegpu.tensor_desc<32x16xbf16>
      %12 = arith.addi %10, %c16 : index
      %13 = xegpu.create_nd_tdesc %arg1[%c0, %12] {mode = vc} : memref<256x256xbf16> -> !xegpu.tensor_desc<32x16xbf16>
      %14 = xegpu.create_nd_tdesc %arg2[%8, %10] {mode = vc} : memref<256x256xf32> -> !xegpu.tensor_desc<8x16xf32>
      %15 = xegpu.create_nd_tdesc %arg2[%8, %12] {mode = vc} : memref<256x256xf32> -> !xegpu.tensor_desc<8x16xf32>
      %16 = arith.addi %6, %5 : index
      %17 = xegpu.create_nd_tdesc %arg0[%16, %c0] {mode = vc} : memref<256x256xbf16> -> !xegpu.tensor_desc<4x32xbf16>
      %18 = xegpu.create_nd_tdesc %arg1[%2, %10] {mode = vc} : memref<256x256xbf16> -> !xegpu.tensor_desc<8x32xbf16>
      %19 = xegpu.load_nd %14 {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      %20 = xegpu.load_nd %15 {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      xegpu.prefetch_nd %17 {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<4x32xbf16>
      xegpu.prefetch_nd %18 {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<8x32xbf16>
      %21 = xegpu.update_nd_offset %17, [0, 32] {mode = vc} : !xegpu.tensor_desc<4x32xbf16>
      %22 = xegpu.update_nd_offset %18, [32, 0] {mode = vc} : !xegpu.tensor_desc<8x32xbf16>
      xegpu.prefetch_nd %21 {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<4x32xbf16>
      xegpu.prefetch_nd %22 {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<8x32xbf16>
      %23 = xegpu.update_nd_offset %21, [0, 32] {mode = vc} : !xegpu.tensor_desc<4x32xbf16>
      %24 = xegpu.update_nd_offset %22, [32, 0] {mode = vc} : !xegpu.tensor_desc<8x32xbf16>
      xegpu.prefetch_nd %23 {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<4x32xbf16>
      xegpu.prefetch_nd %24 {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<8x32xbf16>
      %25 = xegpu.update_nd_offset %23, [0, 32] {mode = vc} : !xegpu.tensor_desc<4x32xbf16>
      %26 = xegpu.update_nd_offset %24, [32, 0] {mode = vc} : !xegpu.tensor_desc<8x32xbf16>
      %27:7 = scf.for %arg3 = %c0 to %c256 step %c32 iter_args(%arg4 = %19, %arg5 = %20, %arg6 = %9, %arg7 = %11, %arg8 = %13, %arg9 = %25, %arg10 = %26) -> (vector<8x16xf32>, vector<8x16xf32>, !xegpu.tensor_desc<8x32xbf16>, !xegpu.tensor_desc<32x16xbf16>, !xegpu.tensor_desc<32x16xbf16>, !xegpu.tensor_desc<4x32xbf16>, !xegpu.tensor_desc<8x32xbf16>) {
        %28 = xegpu.load_nd %arg6 {mode = vc} : !xegpu.tensor_desc<8x32xbf16> -> vector<8x32xbf16>
        %29 = xegpu.load_nd %arg7 {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<32x16xbf16> -> vector<16x16x2xbf16>
        %30 = xegpu.load_nd %arg8 {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<32x16xbf16> -> vector<16x16x2xbf16>
        xegpu.prefetch_nd %arg9 {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<4x32xbf16>
        xegpu.prefetch_nd %arg10 {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<8x32xbf16>
        %31 = vector.extract_strided_slice %28 {offsets = [0, 0], sizes = [8, 16], strides = [1, 1]} : vector<8x32xbf16> to vector<8x16xbf16>
        %32 = vector.extract_strided_slice %28 {offsets = [0, 16], sizes = [8, 16], strides = [1, 1]} : vector<8x32xbf16> to vector<8x16xbf16>
        %33 = vector.extract_strided_slice %29 {offsets = [0, 0, 0], sizes = [8, 16, 2], strides = [1, 1, 1]} : vector<16x16x2xbf16> to vector<8x16x2xbf16>
        %34 = vector.extract_strided_slice %30 {offsets = [0, 0, 0], sizes = [8, 16, 2], strides = [1, 1, 1]} : vector<16x16x2xbf16> to vector<8x16x2xbf16>
        %35 = vector.extract_strided_slice %29 {offsets = [8, 0, 0], sizes = [8, 16, 2], strides = [1, 1, 1]} : vector<16x16x2xbf16> to vector<8x16x2xbf16>
        %36 = vector.extract_strided_slice %30 {offsets = [8, 0, 0], sizes = [8, 16, 2], strides = [1, 1, 1]} : vector<16x16x2xbf16> to vector<8x16x2xbf16>
        %37 = xegpu.dpas %31, %33, %arg4 {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16>, vector<8x16xf32> -> vector<8x16xf32>
        %38 = xegpu.dpas %32, %35, %37 {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16>, vector<8x16xf32> -> vector<8x16xf32>
        %39 = xegpu.dpas %31, %34, %arg5 {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16>, vector<8x16xf32> -> vector<8x16xf32>
        %40 = xegpu.dpas %32, %36, %39 {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16>, vector<8x16xf32> -> vector<8x16xf32>
        %41 = xegpu.update_nd_offset %arg6, [0, 32] {mode = vc} : !xegpu.tensor_desc<8x32xbf16>
        %42 = xegpu.update_nd_offset %arg7, [32, 0] {mode = vc} : !xegpu.tensor_desc<32x16xbf16>
        %43 = xegpu.update_nd_offset %arg8, [32, 0] {mode = vc} : !xegpu.tensor_desc<32x16xbf16>
        %44 = xegpu.update_nd_offset %arg9, [0, 32] {mode = vc} : !xegpu.tensor_desc<4x32xbf16>
        %45 = xegpu.update_nd_offset %arg10, [32, 0] {mode = vc} : !xegpu.tensor_desc<8x32xbf16>
        scf.yield %38, %40, %41, %42, %43, %44, %45 : vector<8x16xf32>, vector<8x16xf32>, !xegpu.tensor_desc<8x32xbf16>, !xegpu.tensor_desc<32x16xbf16>, !xegpu.tensor_desc<32x16xbf16>, !xegpu.tensor_desc<4x32xbf16>, !xegpu.tensor_desc<8x32xbf16>
      }
      xegpu.store_nd %27#0, %14 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %27#1, %15 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      gpu.return
    }
  }
}

