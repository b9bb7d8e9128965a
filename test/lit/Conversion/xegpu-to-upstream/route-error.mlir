// REQUIRES: mlir-opt
// A tf32 GEMM: upstream's XeVM lowering (LLVM 22) has no tf32 2D block prefetch / load, so
// xe-gemm-to-spirv-upstream stops with an error located at the kernel, exit 1, and writes no output
// file (docs/upstream-xegpu.md).
// RUN: rm -f %t.spv
// RUN: not xe-opt %s --xe-gemm-to-spirv-upstream --emit=spirv-binary -o %t.spv 2>&1 | FileCheck %s
// RUN: not test -e %t.spv

func.func @f(%A: memref<40x24xtf32>, %B: memref<24x48xtf32>, %C: memref<40x48xf32>) {
  linalg.matmul ins(%A, %B : memref<40x24xtf32>, memref<24x48xtf32>) outs(%C : memref<40x48xf32>)
  return
}

// CHECK: :{{[0-9]+}}:{{[0-9]+}}: error: xe-gemm-to-spirv-upstream: mlir-opt (upstream's xegpu passes) failed: {{.*}}failed to legalize operation 'xegpu.prefetch_nd'
// CHECK-NOT: Traceback
