// Input from stdin (no file argument, or '-'); diagnostics then name <stdin>.
// RUN: xe-opt < %s | FileCheck %s
// RUN: xe-opt - < %s | FileCheck %s
// RUN: echo 'func.func @broken(' | not xe-opt 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @from_stdin
// ERR: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error:
func.func @from_stdin() {
  return
}
