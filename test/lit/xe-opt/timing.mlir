// --mlir-timing reports per-pass wall time (MLIR's report) and parse/print time on stderr.
// RUN: xe-opt %s --canonicalize --cse --mlir-timing -o %t 2> %t.err
// RUN: FileCheck %s < %t.err

// CHECK: Execution time report
// CHECK: Canonicalizer
// CHECK: CSE
// CHECK: xe-opt execution time report
// CHECK: Parser
// CHECK: Output
// CHECK: Total
func.func @f() {
  return
}
