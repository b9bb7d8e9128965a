// An error of xe-run --check's CPU reference (here: upstream cannot compile linalg.softmax on i16) is
// located at the host function it compiles (was `<unknown>: error:`; found by test_fuzz_cli).
// RUN: not xe-run %s --check 2>&1 | FileCheck %s
// CHECK: reference-error-located.mlir:[[# @LINE + 2]]:1: error: reference: upstream MLIR cannot compile @rows for the CPU
// CHECK-NOT: <unknown>
func.func @rows(%x: memref<20x100xi16>, %y: memref<20x100xi16>) {
  linalg.softmax dimension(1) ins(%x : memref<20x100xi16>) outs(%y : memref<20x100xi16>)
  return
}
