// --backend=opencl runs SPIR-V: a whole program (or a host function, kernel mode) whose kernels are
// still XeTile and no --pipeline that lowers them is a located error at the kernel's first XeTile op
// naming the pipelines (was "expected a scalar operand, got MemArg" from the SPIR-V conversion).
// REQUIRES: opencl
// RUN: not xe-run %S/whole-program.mlir -e main --entry-point-result=void --backend=opencl 2>&1 | FileCheck %s
// RUN: not xe-run %S/whole-program.mlir --entry main --backend=opencl 2>&1 | FileCheck %s
// RUN: not xe-run %S/whole-program.mlir -e main --entry-point-result=void --backend=opencl --pipeline=xe-linalg-to-xetile 2>&1 | FileCheck %s
// CHECK: whole-program.mlir:20:13: error: --backend=opencl runs SPIR-V, but kernel @k::@add is still XeTile ('xetile.init_tile' here): lower the kernels with a pipeline to SPIR-V, e.g. --pipeline=xe-gemm-to-spirv-portable
// CHECK-SAME: with or without xegpu-simt-distribute: xe-run converts XeGPU, VC or SIMT mode, to portable SPIR-V itself
// CHECK-NOT: MemArg
// CHECK-NOT: internal error
