// The imported subgroup- and work-group-level programs (VC mode) as portable SPIR-V on an OpenCL
// device (xe-run lowers them with convert-xegpu-to-spirv{target=portable}).
// REQUIRES: opencl
// RUN: xe-run %S/run-sg.mlir -e main --entry-point-result=void --backend=opencl | FileCheck %S/run-sg.mlir
// RUN: xe-run %S/run-wg.mlir -e main --entry-point-result=void --backend=opencl | FileCheck %S/run-wg.mlir
