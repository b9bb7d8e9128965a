// XeVM-level kernels on OpenCL: not yet. They are imported as SIMT-mode XeGPU, which
// convert-xegpu-to-spirv does not lower (it takes VC mode); xe-run stops with a located error at the
// kernel (docs/upstream-xegpu-reference.md, "XeVM-level kernels").
// REQUIRES: opencl
// RUN: not xe-run %S/xevm-gemm-run.mlir -e main --entry-point-result=void --backend=opencl 2>&1 | FileCheck %s
// CHECK: xevm-gemm-run.mlir:{{[0-9]+}}:5: error: kernel argument 0 of type !llvm.ptr<1> is not supported
