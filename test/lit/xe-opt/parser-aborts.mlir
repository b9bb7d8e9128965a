// Input LLVM 22's parser would abort on (found by test_fuzz_cli): a located error first. Building the
// body of linalg.batch_matmul / batch_reduce_matmul with index elements reaches llvm_unreachable.
// RUN: xe-opt %s --split-input-file --verify-diagnostics

func.func @batch(%A: memref<3x64x48xbf16>, %B: memref<3x48x32xbf16>, %C: memref<3x64x32xindex>) {
  // expected-error @+1 {{'linalg.batch_matmul' on index elements: upstream MLIR (LLVM 22) cannot build its body for index and aborts while parsing it; use an integer type such as i64}}
  linalg.batch_matmul ins(%A, %B : memref<3x64x48xbf16>, memref<3x48x32xbf16>) outs(%C : memref<3x64x32xindex>)
  return
}

// -----

func.func @batch_reduce(%A: memref<2x4x4xindex>, %B: memref<2x4x4xindex>, %C: memref<4x4xi32>) {
  // expected-error @+1 {{'linalg.batch_reduce_matmul' on index elements}}
  linalg.batch_reduce_matmul ins(%A, %B : memref<2x4x4xindex>, memref<2x4x4xindex>) outs(%C : memref<4x4xi32>)
  return
}
