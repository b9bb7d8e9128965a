// --mlir-print-ir-before-all / --mlir-print-ir-after-all print mlir-opt style dumps on stderr.
// RUN: xe-opt %s --canonicalize --cse --mlir-print-ir-after-all -o %t 2> %t.after
// RUN: FileCheck %s --check-prefix=AFTER < %t.after
// RUN: xe-opt %s --canonicalize --mlir-print-ir-before-all -o %t 2> %t.before
// RUN: FileCheck %s --check-prefix=BEFORE < %t.before

// AFTER:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// AFTER-NEXT: module {
// AFTER-NEXT:   func.func @f(%arg0: i32) -> i32 {
// AFTER-NEXT:     %0 = arith.addi %arg0, %arg0 : i32
// AFTER:      // -----// IR Dump After CSE (cse) //----- //
// BEFORE:      // -----// IR Dump Before Canonicalizer (canonicalize) //----- //
// BEFORE:      arith.constant 7 : i32
// BEFORE-NOT:  IR Dump After
func.func @f(%x: i32) -> i32 {
  %unused = arith.constant 7 : i32
  %a = arith.addi %x, %x : i32
  return %a : i32
}
