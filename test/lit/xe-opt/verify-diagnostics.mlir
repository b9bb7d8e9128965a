// --verify-diagnostics: every expected-* comment is matched (all designator forms, -re, notes),
// so xe-opt exits 0 although the input has errors.
// RUN: xe-opt %s --split-input-file --verify-diagnostics

func.func @relative_plus() {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = arith.addi %x, %x : i32
  return
}

// -----
func.func @relative_minus() {
  %0 = "foo.bar"() : () -> i32
  // expected-error @-1 {{operation being parsed with an unregistered dialect}}
  return
}

// -----
func.func @above() {
  %0 = "foo.bar"() : () -> i32
  // expected-error @above {{unregistered dialect}}
  return
}

// -----
func.func @below() {
  // expected-error @below {{unregistered dialect}}
  %0 = "foo.bar"() : () -> i32
  return
}

// -----
func.func @same_line() {
  %0 = arith.bogus : i32  // expected-error {{custom op 'arith.bogus' is unknown}}
  return
}

// -----
func.func @regex() {
  // expected-error-re @+1 {{operation being {{[a-z]+}} with an unregistered}}
  %0 = "foo.bar"() : () -> i32
  return
}

// -----
func.func @with_note() {
  // expected-note @+1 {{previously defined here}}
  %0 = arith.constant 1 : i32
  // expected-error @+1 {{redefinition of SSA value '%0'}}
  %0 = arith.constant 2 : i32
  return
}

// -----
func.func @verifier(%x: i32) -> i64 {
  // expected-error @+1 {{type of return operand 0 ('i32') doesn't match function result type ('i64')}}
  return %x : i32
}

// -----
func.func @no_diagnostics() {
  return
}
