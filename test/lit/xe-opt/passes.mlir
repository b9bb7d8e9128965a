// Upstream passes as flags (in command-line order, options space- or comma-separated) and in
// textual pipelines with nesting.
// RUN: xe-opt %s --canonicalize | FileCheck %s --check-prefix=CANON
// RUN: xe-opt %s --canonicalize='max-iterations=3 region-simplify=disabled' | FileCheck %s --check-prefix=CANON
// RUN: xe-opt %s --canonicalize=max-iterations=3,region-simplify=disabled | FileCheck %s --check-prefix=CANON
// RUN: xe-opt %s -canonicalize -cse | FileCheck %s --check-prefix=BOTH
// RUN: xe-opt %s --pass-pipeline='builtin.module(canonicalize, func.func(cse))' | FileCheck %s --check-prefix=BOTH
// RUN: xe-opt %s --pass-pipeline='builtin.module(func.func(cse))' | FileCheck %s --check-prefix=CSE

// CANON-LABEL: func.func @f
// CANON-NOT:   arith.constant
// CANON:       arith.addi
// CANON:       arith.addi
// BOTH-LABEL:  func.func @f
// BOTH-NEXT:   %0 = arith.addi %arg0, %arg0 : i32
// BOTH-NEXT:   return %0, %0 : i32, i32
// CSE-LABEL:   func.func @f
// CSE-NEXT:    arith.addi
// CSE-NOT:     arith.addi
func.func @f(%x: i32) -> (i32, i32) {
  %unused = arith.constant 7 : i32
  %a = arith.addi %x, %x : i32
  %b = arith.addi %x, %x : i32
  return %a, %b : i32, i32
}
