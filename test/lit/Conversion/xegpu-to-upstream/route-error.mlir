// REQUIRES: mlir-opt
// A bf16 GEMM with a transposed B: upstream's subgroup distribution (LLVM 22) rejects the transposed
// 16-bit B tile, so xe-gemm-to-spirv-upstream stops with an error located at the kernel, exit 1,
// and writes no output file (docs/upstream-xegpu.md).
// RUN: rm -f %t.spv
// RUN: not xe-opt %s --xe-gemm-to-spirv-upstream --emit=spirv-binary -o %t.spv 2>&1 | FileCheck %s
// RUN: not test -e %t.spv

func.func @f(%A: memref<96x48xbf16>, %B: memref<64x48xbf16>, %C: memref<96x64xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%A, %B : memref<96x48xbf16>, memref<64x48xbf16>) outs(%C : memref<96x64xf32>)
  return
}

// CHECK: :{{[0-9]+}}:{{[0-9]+}}: error: xe-gemm-to-spirv-upstream: mlir-opt (upstream's xegpu passes) failed: {{.*}}incompatible distribution dimensions
// CHECK-NOT: Traceback
