// The imported subgroup- and work-group-level programs (VC mode) as portable SPIR-V on an OpenCL
// device (xe-run lowers them with convert-xegpu-to-spirv{target=portable}).
// REQUIRES: opencl
// RUN: xe-run %S/run-sg.mlir -e main --entry-point-result=void --backend=opencl | FileCheck %S/run-sg.mlir
// RUN: xe-run %S/run-wg.mlir -e main --entry-point-result=void --backend=opencl | FileCheck %S/run-wg.mlir
// SIMT-mode kernels do not lower to SPIR-V (convert-xegpu-to-spirv takes VC mode): the error is located
// at the upstream op in the user's file (the import keeps each op's location on its translation).
// RUN: not xe-run %S/run-sg.mlir -e main --entry-point-result=void --pipeline=xegpu-simt-distribute --backend=opencl 2>&1 | FileCheck %s --check-prefix=SIMT
// SIMT: run-sg.mlir:14:13: error: 'xegpu.create_nd_tdesc' is SIMT-mode XeGPU; convert-xegpu-to-spirv lowers VC-mode XeGPU
