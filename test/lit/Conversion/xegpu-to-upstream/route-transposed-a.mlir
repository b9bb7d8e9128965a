// REQUIRES: mlir-opt
// A bf16 GEMM with a transposed A: upstream's distribution turns the exported plain load +
// vector.transpose of A^T into a 16-bit transposed block load, which upstream's XeVM lowering (LLVM 22)
// rejects; the route rewrites it (text step after distribution, docs/upstream-xegpu.md step 4) as
// 32-bit transposed loads of packed pairs + vector.bitcast, and reaches SPIR-V (spirv-val inside).
// RUN: xe-opt %s --xe-gemm-to-spirv-upstream 2>/dev/null | FileCheck %s

func.func @f(%A: memref<48x64xbf16>, %B: memref<48x96xbf16>, %C: memref<64x96xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%A, %B : memref<48x64xbf16>, memref<48x96xbf16>) outs(%C : memref<64x96xf32>)
  return
}

// CHECK: OpEntryPoint Kernel
// CHECK-DAG: intel_sub_group_2d_block_read_transpose_32b_16r4x1c
// CHECK-DAG: intel_sub_group_bf16_bf16_matrix_mad_k16
// CHECK-NOT: block_read_transpose_16b
