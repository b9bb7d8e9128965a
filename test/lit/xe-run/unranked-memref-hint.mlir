// A whole program run as a single function (--entry main instead of -e main --entry-point-result=void):
// the simulator does not model its unranked memrefs (runner utilities' arguments) or LLVM dialect ops and says so at the
// op, with how to run the program (was "internal error: ValueError: unsupported element type '*xf32'").
// RUN: not xe-run %s --entry main 2>&1 | FileCheck %s
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s --check-prefix=OUT
// CHECK: unranked-memref-hint.mlir:[[# @LINE + 11]]:8: error: simulator: 'memref.cast' uses memref<*xf32>, which the simulator does not model
// CHECK-SAME: ; unranked memrefs are host code's, for runner utilities (printMemrefF32, printAllcloseF32, ...):
// CHECK-SAME: run such a program as mlir-runner does, its host code JIT-compiled: xe-run FILE -e main --entry-point-result=void
// The same for LLVM dialect host code (whole-program.mlir's string for printString):
// RUN: not xe-run %S/whole-program.mlir --entry main 2>&1 | FileCheck %s --check-prefix=LLVM
// LLVM: whole-program.mlir:{{[0-9]+}}:{{[0-9]+}}: error: simulator: unsupported operation 'llvm.mlir.addressof'; LLVM dialect ops are host code's (strings for printString, pointers, ...): run such a program as mlir-runner does, its host code JIT-compiled: xe-run FILE -e main --entry-point-result=void
// OUT: [1,  1]

func.func @main() {
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<2xf32>
  %u = memref.cast %a : memref<2xf32> to memref<*xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<2xf32>)
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
