// --verify-diagnostics fails (exit 1) on unmet expectations, unexpected diagnostics and kind
// mismatches, reported like mlir-opt.
// RUN: not xe-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s
// RUN: not xe-opt %s --split-input-file --verify-diagnostics=only-expected 2>&1 | FileCheck %s --check-prefix=ONLY

func.func @wrong_message() {
  // CHECK-DAG: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:6: error: expected error "this message is never emitted" was not produced
  // CHECK-DAG: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:17: error: unexpected error: operation being parsed with an unregistered dialect
  // expected-error @+1 {{this message is never emitted}}
  %0 = "foo.bar"() : () -> i32
  return
}

// -----
func.func @wrong_kind() {
  // CHECK-DAG: verify-diagnostics-mismatch.mlir:[[# @LINE + 1]]:6: error: 'error' diagnostic emitted when expecting a 'warning'
  // expected-warning @+1 {{unregistered dialect}}
  %0 = "foo.bar"() : () -> i32
  return
}

// -----
func.func @nothing_emitted() {
  // CHECK-DAG: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:6: error: expected remark "never" was not produced
  // ONLY: verify-diagnostics-mismatch.mlir:[[# @LINE + 1]]:6: error: expected remark "never" was not produced
  // expected-remark @below {{never}}
  return
}
// ONLY-NOT: unexpected error
