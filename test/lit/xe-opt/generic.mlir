// --mlir-print-op-generic prints MLIR's generic form, which xe-opt reads back; --mlir-print-debuginfo
// prints locations.
// RUN: xe-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: xe-opt %s --mlir-print-op-generic | xe-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: xe-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// GENERIC:   "builtin.module"() ({
// GENERIC:   "func.func"() <{function_type = (i32) -> i32, sym_name = "f"}> ({
// GENERIC:   "arith.addi"
// ROUNDTRIP: func.func @f(%arg0: i32) -> i32 {
// LOC:       loc({{.*}}generic.mlir":[[# @LINE + 2]]:8)
func.func @f(%x: i32) -> i32 {
  %a = arith.addi %x, %x : i32
  return %a : i32
}
