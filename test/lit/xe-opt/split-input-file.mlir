// --split-input-file: chunks are processed independently and their outputs joined by the marker,
// byte for byte like mlir-opt; a failing chunk prints nothing but does not stop the others, and
// its line numbers count from the start of the whole file.
// RUN: xe-opt %s --split-input-file | FileCheck %s
// RUN: xe-opt %s --split-input-file --output-split-marker='// ===== next' | FileCheck %s --check-prefix=MARKER
// RUN: not xe-opt %S/Inputs/split-with-error.mlir --split-input-file 2> %t.err | FileCheck %s --check-prefix=PARTIAL
// RUN: FileCheck %s --check-prefix=ERR < %t.err

// CHECK-LABEL: func.func @first
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-NEXT:  }
// CHECK-EMPTY:
// CHECK-NEXT:  // -----
// CHECK-NEXT:  module {
// CHECK-NEXT:    func.func @second(%arg0: i32) -> i32 {
// CHECK-NEXT:      %0 = arith.addi %arg0, %arg0 : i32
// MARKER: // ===== next
// MARKER-NOT: // -----
func.func @first() {
  return
}

// -----
func.func @second(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  return %0 : i32
}

// PARTIAL:      func.func @ok1
// PARTIAL:      // -----
// PARTIAL-NEXT: // -----
// PARTIAL-NEXT: module {
// PARTIAL-NEXT:   func.func @ok2
// ERR: split-with-error.mlir:8:19: error: use of undeclared SSA value name
