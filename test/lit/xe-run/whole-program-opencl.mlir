// The whole program of whole-program.mlir with its kernels as portable SPIR-V on an OpenCL device.
// REQUIRES: opencl
// RUN: xe-run %S/whole-program.mlir -e main --entry-point-result=void --pipeline=xe-gemm-to-spirv-portable --backend=opencl | FileCheck %S/whole-program.mlir
