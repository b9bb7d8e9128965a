// The imported subgroup- and work-group-level programs (VC mode) as portable SPIR-V on an OpenCL
// device (xe-run lowers them with convert-xegpu-to-spirv{target=portable}).
// REQUIRES: opencl
// RUN: xe-run %S/run-sg.mlir -e main --entry-point-result=void --backend=opencl | FileCheck %S/run-sg.mlir
// RUN: xe-run %S/run-wg.mlir -e main --entry-point-result=void --backend=opencl | FileCheck %S/run-wg.mlir
// Lane-level kernels run too (convert-xegpu-to-spirv lowers SIMT mode: a work-item is a lane): the
// subgroup program through our xegpu-simt-distribute, and the imported lane-level program, on the
// portable target and as pvc binaries (Intel's 2D block and DPAS builtins, emulated on the CPU).
// RUN: xe-run %S/run-sg.mlir -e main --entry-point-result=void --pipeline=xegpu-simt-distribute --backend=opencl | FileCheck %S/run-sg.mlir
// RUN: xe-run %S/run-simt.mlir -e main --entry-point-result=void --pipeline=convert-xegpu-to-spirv --backend=opencl | FileCheck %S/run-simt.mlir
