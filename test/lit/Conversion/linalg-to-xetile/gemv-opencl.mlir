// gemv kernels as portable SPIR-V on the OpenCL CPU runtime, checked against upstream MLIR on the
// CPU: an unaligned f16 vecmat and a dynamic-shape f32 matvec (sizes from memref.dim, grid from
// the runtime row count).
// RUN: xe-run %s --pipeline xe-gemm-to-spirv-portable --backend opencl --check --entry vecmat | FileCheck %s
// RUN: xe-run %s --pipeline xe-gemm-to-spirv-portable --backend opencl --check --entry dynamic --dims A=77x45,x=45,y=77 | FileCheck %s
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry dynamic --dims A=77x45,x=45,y=77 | FileCheck %s

// CHECK: PASS

func.func @vecmat(%x: memref<37xf16>, %A: memref<37x129xf16>, %y: memref<129xf16>) {
  linalg.vecmat ins(%x, %A : memref<37xf16>, memref<37x129xf16>) outs(%y : memref<129xf16>)
  return
}

func.func @dynamic(%A: memref<?x?xf32>, %x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.matvec ins(%A, %x : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?xf32>)
  return
}
