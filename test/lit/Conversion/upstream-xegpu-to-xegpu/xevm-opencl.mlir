// XeVM-level kernels on OpenCL: imported as lane-level (SIMT-mode) XeGPU, lowered by
// convert-xegpu-to-spirv (a work-item is a lane), raw pointer arguments bound to the buffers they
// point into. Portable SPIR-V (per-lane loads, the DPAS k loop) and pvc binaries (Intel's 2D block
// and DPAS builtins, emulated on the CPU) pass each program's own checks.
// REQUIRES: opencl
// RUN: xe-run %S/xevm-gemm-run.mlir -e main --entry-point-result=void --pipeline=convert-xegpu-to-spirv --backend=opencl | FileCheck %S/xevm-gemm-run.mlir
// RUN: xe-run %S/xevm-blockload2d-run.mlir -e main --entry-point-result=void --pipeline=convert-xegpu-to-spirv --backend=opencl | FileCheck %S/xevm-blockload2d-run.mlir
// RUN: xe-run %S/xevm-blockload.mlir -e main --entry-point-result=void --backend=opencl | FileCheck %S/xevm-blockload.mlir
