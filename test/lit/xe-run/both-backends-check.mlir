// xe-run --backend=both --check: the simulator and OpenCL are compared with each other ("sim vs
// opencl"), then OpenCL's result with the CPU reference ("opencl vs reference"); every line says which.
// REQUIRES: opencl
// RUN: xe-run %s --pipeline=xe-gemm-to-spirv-portable --backend=both --check | FileCheck %s

// CHECK:      sim vs opencl C: max abs diff {{.*}}  agree
// CHECK:      backends agree
// CHECK:      opencl vs reference A: max abs error 0, max rel error 0  ok
// CHECK:      opencl vs reference C: max abs error {{.*}}  ok
// CHECK-NEXT: PASS

func.func @gemm(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  return
}
