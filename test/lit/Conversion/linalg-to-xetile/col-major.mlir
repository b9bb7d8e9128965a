// linalg.matmul on column-major memrefs (static strided<[1, ld]>: the first dimension contiguous): each
// such operand is read through a host `memref.transpose` view (row-major, the matmul's map transposed);
// a column-major C is computed as C^T = B^T A^T (the M and N loops renamed, A and B trading places).
// Was "internal error: generated kernel does not verify" (issue 30 defect 14). A padded leading
// dimension keeps its stride in the kernel's transposed view. xe-run lays such arguments out as their
// type says, in the simulator and the CPU reference alike.
// RUN: xe-opt %s --convert-linalg-to-xetile 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s
// RUN: xe-run %s --entry all_f32 --pipeline=xe-gemm-to-xegpu --check | FileCheck %s --check-prefix=SIM
// RUN: xe-run %s --entry padded_i8 --pipeline=xe-gemm-to-xegpu --check | FileCheck %s --check-prefix=SIM
// RUN: xe-run %s --entry c_only_bf16 --pipeline=xe-gemm-to-xegpu --check | FileCheck %s --check-prefix=SIM
// SIM-NOT: MISMATCH
// SIM: PASS
// REMARK: col-major.mlir:52:3: remark: not lowered to XeTile: operand A (memref<64x64xf32, strided<[128, 2]>>): its innermost dimension is not contiguous (stride 2)

// The reproducer of the issue: every operand column-major (C^T = B^T A^T then reads row-major views
// only).
// CHECK-LABEL: func.func @all_f32(
// CHECK-SAME:  %[[A:[^:]*]]: memref<64x64xf32, strided<[1, 64]>>, %[[B:[^:]*]]: memref<64x64xf32, strided<[1, 64]>>, %[[C:[^:]*]]: memref<64x64xf32, strided<[1, 64]>>
// CHECK-DAG:   %[[AT:.*]] = memref.transpose %[[A]] (d0, d1) -> (d1, d0) : memref<64x64xf32, strided<[1, 64]>> to memref<64x64xf32, strided<[64, 1]>>
// CHECK-DAG:   %[[BT:.*]] = memref.transpose %[[B]] (d0, d1) -> (d1, d0) : memref<64x64xf32, strided<[1, 64]>> to memref<64x64xf32, strided<[64, 1]>>
// CHECK-DAG:   %[[CT:.*]] = memref.transpose %[[C]] (d0, d1) -> (d1, d0) : memref<64x64xf32, strided<[1, 64]>> to memref<64x64xf32, strided<[64, 1]>>
// CHECK:       gpu.launch_func @all_f32_kernels::@all_f32_0 {{.*}} args(%[[BT]] : memref<64x64xf32, strided<[64, 1]>>, %[[AT]] : memref<64x64xf32, strided<[64, 1]>>, %[[CT]] : memref<64x64xf32, strided<[64, 1]>>)
// CHECK-NOT:   linalg.matmul
func.func @all_f32(%A: memref<64x64xf32, strided<[1, 64]>>, %B: memref<64x64xf32, strided<[1, 64]>>, %C: memref<64x64xf32, strided<[1, 64]>>) {
  linalg.matmul ins(%A, %B : memref<64x64xf32, strided<[1, 64]>>, memref<64x64xf32, strided<[1, 64]>>) outs(%C : memref<64x64xf32, strided<[1, 64]>>)
  return
}

// i8 A column-major with its leading dimension padded to 48: the kernel reads the transposed A as a
// column-major view again (order = [0, 1] tiles), keeping the stride 48 (was a wrong type).
// CHECK-LABEL: func.func @padded_i8(
// CHECK:       memref.transpose %{{.*}} (d0, d1) -> (d1, d0) : memref<32x64xi8, strided<[1, 48]>> to memref<64x32xi8, strided<[48, 1]>>
// CHECK:       gpu.launch_func
func.func @padded_i8(%A: memref<32x64xi8, strided<[1, 48]>>, %B: memref<64x64xi8>, %C: memref<32x64xi32>) {
  linalg.matmul ins(%A, %B : memref<32x64xi8, strided<[1, 48]>>, memref<64x64xi8>) outs(%C : memref<32x64xi32>)
  return
}

// CHECK-LABEL: func.func @c_only_bf16(
// CHECK:       memref.transpose %{{.*}} (d0, d1) -> (d1, d0) : memref<32x96xf32, strided<[1, 32]>> to memref<96x32xf32, strided<[32, 1]>>
// CHECK:       gpu.launch_func
func.func @c_only_bf16(%A: memref<32x64xbf16>, %B: memref<64x96xbf16>, %C: memref<32x96xf32, strided<[1, 32]>>) {
  linalg.matmul ins(%A, %B : memref<32x64xbf16>, memref<64x96xbf16>) outs(%C : memref<32x96xf32, strided<[1, 32]>>)
  return
}

// Rows that are neither contiguous nor column-major: the usual "not lowered" remark.
// CHECK-LABEL: func.func @strided_rows(
// CHECK:       linalg.matmul
func.func @strided_rows(%A: memref<64x64xf32, strided<[128, 2]>>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xf32, strided<[128, 2]>>, memref<64x64xf32>) outs(%C : memref<64x64xf32>)
  return
}

// CHECK-LABEL: gpu.func @padded_i8_0(
// CHECK:       memref.transpose %{{.*}} (d0, d1) -> (d1, d0) : memref<64x32xi8, strided<[48, 1]>> to memref<32x64xi8, strided<[1, 48]>>
