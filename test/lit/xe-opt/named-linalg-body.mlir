// Upstream's parser builds the body of a named linalg op and verifies it without a location: bf16
// inputs into an f16 output get no extf/truncf (one width), so 'arith.addf' sees f16 and bf16. The
// error is placed at the op of the source (was `<unknown>: error:`; found by test_fuzz_cli).
// RUN: xe-opt %s --verify-diagnostics
// RUN: not xe-run %s --pipeline=xe-gemm-to-xegpu --check 2>&1 | FileCheck %s
// CHECK: named-linalg-body.mlir:[[# @LINE + 4]]:3: error: 'arith.addf' op requires the same type for all operands and results (in the body upstream's parser builds for this 'linalg.matmul')
// CHECK-NOT: <unknown>
func.func @gemm(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf16>) {
  // expected-error @+1 {{'arith.addf' op requires the same type for all operands and results (in the body upstream's parser builds for this 'linalg.matmul')}}
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf16>)
  return
}
