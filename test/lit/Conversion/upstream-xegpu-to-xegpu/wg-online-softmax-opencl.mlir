// The work-group online-softmax row statistics (wg-online-softmax.mlir), imported with the unit-dim
// row values kept 1D, also runs as portable SPIR-V on OpenCL.
// REQUIRES: opencl
// RUN: xe-run %S/wg-online-softmax.mlir -e main --entry-point-result=void --backend=opencl | FileCheck %S/wg-online-softmax.mlir
// Through our SIMT distribution, lane-level SPIR-V (per-lane dynamic extracts of the row values).
// RUN: xe-run %S/wg-online-softmax.mlir -e main --entry-point-result=void --pipeline=xegpu-simt-distribute --backend=opencl | FileCheck %S/wg-online-softmax.mlir
