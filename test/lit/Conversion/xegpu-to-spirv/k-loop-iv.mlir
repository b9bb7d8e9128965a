// The K loop of a GEMM counts with one i32 induction variable: the descriptors of its loads and
// prefetches move by the same multiple of the K step every iteration, so they are not carried --
// their offsets are `init + iv` in the body -- and the loop carries only the IV and the
// accumulators (before: one i64 per descriptor; IGC kept three 64-bit adds and a two-part 64-bit
// compare). A coordinate that is the IV itself reaches the builtin without a conversion (the
// others, e.g. iv + 96 of a prefetch, are i64 sums IGC narrows). A loop with dynamic bounds keeps
// its index (i64) induction variable.
// RUN: xe-opt %s --xe-gemm-to-spirv | FileCheck %s

// CHECK-LABEL: spirv.func @big_0(
// CHECK:       spirv.mlir.loop {
// CHECK:       ^bb1(%[[IV:[0-9]+]]: i32{{(, %[0-9]+: f32)+}}):
// CHECK-NEXT:    %{{[0-9]+}} = spirv.SLessThan %[[IV]], %cst4096_i32 : i32
// CHECK:         %[[C:[0-9]+]] = spirv.CompositeConstruct %[[IV]], %{{[0-9]+}} : (i32, i32) -> vector<2xi32>
// CHECK:         spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_16b_32r16x2c({{.*}}, %[[C]],
// CHECK:         spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_transform_16b_32r16x2c(
// CHECK:         spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_transform_16b_32r16x2c(
// CHECK:         spirv.FunctionCall @__builtin_intel_sub_group_2d_block_prefetch_16b_8r16x2c(
// CHECK:         spirv.IAdd %[[IV]], %cst32_i32 : i32
// CHECK:       spirv.mlir.merge

// The B tile of a K step is loaded 32x16 block by block; load_nd ops of one surface row side by side
// become one transform read with a block count (bf16: 2 blocks, i8: 4), each load_nd keeping its value.
// CHECK-LABEL: spirv.func @i8_0(
// CHECK:       spirv.mlir.loop {
// CHECK:       ^bb1(%{{[0-9]+}}: i32,
// CHECK-COUNT-2: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_transform_8b_32r16x4c(
// CHECK-NOT:   spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_transform
// CHECK:       spirv.mlir.merge

// CHECK-LABEL: spirv.func @dyn_0(
// CHECK:       spirv.mlir.loop {
// CHECK:       ^bb1(%{{[0-9]+}}: i64,

func.func @big(%A: memref<4096x4096xbf16>, %B: memref<4096x4096xbf16>, %C: memref<4096x4096xf32>) {
  linalg.matmul ins(%A, %B : memref<4096x4096xbf16>, memref<4096x4096xbf16>) outs(%C : memref<4096x4096xf32>)
  return
}

func.func @i8(%A: memref<4096x4096xi8>, %B: memref<4096x4096xi8>, %C: memref<4096x4096xi32>) {
  linalg.matmul ins(%A, %B : memref<4096x4096xi8>, memref<4096x4096xi8>) outs(%C : memref<4096x4096xi32>)
  return
}

func.func @dyn(%A: memref<256x?xbf16>, %B: memref<?x256xbf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x?xbf16>, memref<?x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}
