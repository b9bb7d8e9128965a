// -o writes the output file only on success.
// RUN: rm -f %t.out %t.bad.out
// RUN: xe-opt %s -o %t.out > %t.stdout
// RUN: %python -c "import os, sys; sys.exit(os.path.getsize(r'%t.stdout'))"
// RUN: FileCheck %s < %t.out
// RUN: echo 'func.func @broken(' > %t.bad.mlir
// RUN: not xe-opt %t.bad.mlir -o %t.bad.out
// RUN: not ls %t.bad.out
// RUN: xe-opt %s -o - | FileCheck %s

// CHECK-LABEL: func.func @written
func.func @written() {
  return
}
