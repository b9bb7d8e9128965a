// REQUIRES: mlir-opt
// A bf16 GEMM with a transposed A: upstream's XeVM lowering (LLVM 22) transposes only 32/64-bit
// elements and upstream's xegpu-optimize-block-loads packs 16-bit pairs only for B, so
// xe-gemm-to-spirv-upstream stops with an error located at the kernel, exit 1, and writes no output
// file (docs/upstream-xegpu.md).
// RUN: rm -f %t.spv
// RUN: not xe-opt %s --xe-gemm-to-spirv-upstream --emit=spirv-binary -o %t.spv 2>&1 | FileCheck %s
// RUN: not test -e %t.spv

func.func @f(%A: memref<48x64xbf16>, %B: memref<48x96xbf16>, %C: memref<64x96xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%A, %B : memref<48x64xbf16>, memref<48x96xbf16>) outs(%C : memref<64x96xf32>)
  return
}

// CHECK: :{{[0-9]+}}:{{[0-9]+}}: error: xe-gemm-to-spirv-upstream: mlir-opt (upstream's xegpu passes) failed: {{.*}}transpose is only supported for 32 and 64 bit elements
// CHECK-NOT: Traceback
