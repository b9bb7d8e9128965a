// An element type xe-run's simulator and CPU reference cannot hold (i2; i4 memrefs they hold since the
// W4A16 GEMM, issue 33): a located error at the argument naming the types they take (was "internal
// error: ValueError"), with or without --check. Issue 30 defect 9.
// RUN: not xe-run %s --check 2>&1 | FileCheck %s
// RUN: not xe-run %s --pipeline=xe-gemm-to-xegpu --check 2>&1 | FileCheck %s
// CHECK: unsupported-element-type.mlir:[[# @LINE + 2]]:15: error: argument 0 of @mm has type memref<32x32xi2>: unsupported element type 'i2'; xe-run's simulator and CPU reference hold i1, i8
// CHECK-NOT: internal error
func.func @mm(%A: memref<32x32xi2>, %B: memref<32x32xi2>, %C: memref<32x32xi32>) {
  linalg.matmul ins(%A, %B : memref<32x32xi2>, memref<32x32xi2>) outs(%C : memref<32x32xi32>)
  return
}
