// Unknown passes and bad options are one clear error line (exit 1), with a position in the
// pipeline text when there is one.
// RUN: not xe-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not xe-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not xe-opt %s --canonicalize='bogus=1' 2>&1 | FileCheck %s --check-prefix=UPOPT
// RUN: not xe-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=abc})' 2>&1 | FileCheck %s --check-prefix=UPVAL
// RUN: not xe-opt %s --convert-linalg-to-xetile='bogus=1' 2>&1 | FileCheck %s --check-prefix=OUROPT
// RUN: not xe-opt %s --pass-pipeline='builtin.module(convert-linalg-to-xetile{k-step=abc})' 2>&1 | FileCheck %s --check-prefix=OURVAL
// RUN: not xe-opt %s --pass-pipeline='builtin.module(func.func(convert-linalg-to-xetile))' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not xe-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not xe-opt %s --canonicalize --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=BOTH

// PIPE:   <pass-pipeline>:1:16: error: unknown pass or pass pipeline 'no-such-pass'
// FLAG:   xe-opt: error: unknown command line option or pass '--no-such-pass'
// UPOPT:  xe-opt: error: invalid options for pass 'canonicalize': no such option bogus
// UPOPT-SAME: valid options (with defaults): max-iterations=10
// UPVAL:  <pass-pipeline>:1:16: error: invalid options for pass 'canonicalize'{{.*}}'abc' value invalid
// OUROPT: xe-opt: error: pass 'convert-linalg-to-xetile' has no option 'bogus'; valid options: arch=<string> (default: pvc)
// OURVAL: <pass-pipeline>:1:16: error: invalid value 'abc' for option 'k-step' of pass 'convert-linalg-to-xetile': expected an integer
// NESTED: <pass-pipeline>:1:26: error: 'convert-linalg-to-xetile' runs on 'builtin.module' and cannot be nested in 'func.func(...)'
// SYNTAX: <pass-pipeline>:1:19: error: expected ',' or ')'
// BOTH:   xe-opt: error: '--pass-pipeline' cannot be used with individual pass options (--canonicalize)
func.func @f() {
  return
}
