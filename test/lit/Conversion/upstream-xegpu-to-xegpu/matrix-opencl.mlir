// The work-group-level shared-local-memory matrix program (imported into VC mode: an SLM view and
// scattered accesses) as portable SPIR-V on an OpenCL device, and through our own SIMT distribution
// on the simulator and on the device (lane-level SPIR-V).
// REQUIRES: opencl
// RUN: xe-run %S/matrix-wg.mlir -e main --entry-point-result=void --backend=opencl | FileCheck %S/matrix-wg.mlir
// RUN: xe-run %S/matrix-wg.mlir -e main --entry-point-result=void --pipeline=xegpu-simt-distribute | FileCheck %S/matrix-wg.mlir
// RUN: xe-run %S/matrix-wg.mlir -e main --entry-point-result=void --pipeline=xegpu-simt-distribute --backend=opencl | FileCheck %S/matrix-wg.mlir
