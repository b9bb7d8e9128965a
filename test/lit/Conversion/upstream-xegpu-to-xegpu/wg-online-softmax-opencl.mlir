// The work-group online-softmax row statistics (wg-online-softmax.mlir), imported with the unit-dim
// row values kept 1D, also runs as portable SPIR-V on OpenCL.
// REQUIRES: opencl
// RUN: xe-run %S/wg-online-softmax.mlir -e main --entry-point-result=void --backend=opencl | FileCheck %S/wg-online-softmax.mlir
