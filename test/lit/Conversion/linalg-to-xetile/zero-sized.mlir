// A linalg op with a zero-sized operand has an empty iteration space: it writes nothing (a reduction over
// an empty dimension keeps its output), so the pass removes it with a remark instead of planning a kernel
// (was a ZeroDivisionError in the planners). The CPU reference agrees (xe-run --check).
// RUN: xe-opt %s --convert-linalg-to-xetile --verify-diagnostics | FileCheck %s
// RUN: xe-run %s --entry=matvec --pipeline=xe-gemm-to-xegpu --check | FileCheck %s --check-prefix=SIM

// CHECK-LABEL: func.func @matvec
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @reduce
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @matmul_k0
// CHECK-NEXT:    return
// CHECK-NOT:   gpu.module
// SIM: PASS
func.func @matvec(%A: memref<0x16xf32>, %x: memref<16xf32>, %y: memref<0xf32>) {
  // expected-remark @below {{'linalg.matvec' has a zero-sized operand: its iteration space is empty and it changes nothing (removed)}}
  linalg.matvec ins(%A, %x : memref<0x16xf32>, memref<16xf32>) outs(%y : memref<0xf32>)
  return
}
func.func @reduce(%A: memref<0x16xf32>, %y: memref<16xf32>) {
  // expected-remark @below {{'linalg.reduce' has a zero-sized operand}}
  linalg.reduce ins(%A : memref<0x16xf32>) outs(%y : memref<16xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return
}
func.func @matmul_k0(%A: memref<32x0xbf16>, %B: memref<0x32xbf16>, %C: memref<32x32xf32>) {
  // expected-remark @below {{'linalg.matmul' has a zero-sized operand}}
  linalg.matmul ins(%A, %B : memref<32x0xbf16>, memref<0x32xbf16>) outs(%C : memref<32x32xf32>)
  return
}
