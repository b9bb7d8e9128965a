// A small bf16 GEMM lowered for arch=bmg simulates and matches upstream MLIR's CPU result, through
// the XeGPU pipeline and through the pvc-style SPIR-V pipeline (simulated before the SPIR-V).
// RUN: xe-run %s '--pipeline=xe-gemm-to-xegpu{arch=bmg}' --check | FileCheck %s
// RUN: xe-run %s '--pipeline=xe-gemm-to-spirv{arch=bmg}' --check | FileCheck %s
// RUN: not xe-run %s '--pipeline=xe-gemm-to-xegpu{arch=bmg2}' --check 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: C: max abs error {{.*}} ok
// CHECK: PASS
// BAD: error: unknown architecture 'bmg2' (known: bmg, pvc)

func.func @gemm(%A: memref<128x256xbf16>, %B: memref<256x128xbf16>, %C: memref<128x128xf32>) {
  linalg.matmul ins(%A, %B : memref<128x256xbf16>, memref<256x128xbf16>) outs(%C : memref<128x128xf32>)
  return
}
