// REQUIRES: mlir-opt
// A tf32 GEMM: upstream's XeVM lowering (LLVM 22) has no tf32 2D block prefetch / load, so with
// upstream's own distribution (distribute=upstream) the route stops with an error located at the
// kernel, exit 1, and writes no output file (docs/upstream-xegpu.md). The default (distribute=auto)
// falls back to our distribution and the lane-level export: tf32 DPAS as xevm.mma, the tf32 builtin.
// RUN: rm -f %t.spv
// RUN: not xe-opt %s --pass-pipeline="builtin.module(xe-gemm-to-xegpu, convert-xegpu-to-upstream{route=spirv distribute=upstream})" --emit=spirv-binary -o %t.spv 2>&1 | FileCheck %s
// RUN: not test -e %t.spv
// RUN: xe-opt %s --xe-gemm-to-spirv-upstream 2>/dev/null | FileCheck %s --check-prefix=AUTO

func.func @f(%A: memref<40x24xtf32>, %B: memref<24x48xtf32>, %C: memref<40x48xf32>) {
  linalg.matmul ins(%A, %B : memref<40x24xtf32>, memref<24x48xtf32>) outs(%C : memref<40x48xf32>)
  return
}

// CHECK: :{{[0-9]+}}:{{[0-9]+}}: error: xe-gemm-to-spirv-upstream: mlir-opt (upstream's xegpu passes) failed: {{.*}}failed to legalize operation 'xegpu.prefetch_nd'
// CHECK-NOT: Traceback

// AUTO: _Z39intel_sub_group_tf32_tf32_matrix_mad_k8Dv4_fDv8_fS0_
