// A size 0 that disagrees with the other sizes of its loop: upstream's linalg verifier lets it through
// (B 48x96 into C 64x0), but the loops would run past C (xe-run --check corrupted the heap: found by
// test_fuzz_cli). A located error naming the loop and both operands, in the pass and before xe-run's
// CPU reference; a consistent zero-sized op is still removed with a remark (zero-sized.mlir).
// RUN: not xe-opt %s --convert-linalg-to-xetile -o %t 2>&1 | FileCheck %s
// RUN: not xe-run %s --pipeline=xe-gemm-to-xegpu --check 2>&1 | FileCheck %s
// CHECK: zero-size-mismatch.mlir:[[# @LINE + 3]]:3: error: 'linalg.matmul': loop d1 has size 96 in operand 1 (memref<48x96xbf16>) but 0 in operand 2 (memref<64x0xf32>); the loops would run past the smaller operand
// CHECK-NOT: PASS
func.func @ta(%A: memref<48x64xbf16>, %B: memref<48x96xbf16>, %C: memref<64x0xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%A, %B : memref<48x64xbf16>, memref<48x96xbf16>) outs(%C : memref<64x0xf32>)
  return
}
