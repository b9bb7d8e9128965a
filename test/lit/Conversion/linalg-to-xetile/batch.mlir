// linalg.batch_matmul: grid z walks the batch; each work-group takes 2D subviews of its batch.
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: func.func @batch(
// CHECK-DAG:   %[[B:.*]] = arith.constant 3 : index
// CHECK:       gpu.launch_func @batch_kernels::@batch_0 blocks in (%{{.*}}, %{{.*}}, %[[B]])
// CHECK:       gpu.func @batch_0(%[[A:[^:]*]]: memref<3x64x48xbf16>
// CHECK:       %[[BZ:.*]] = gpu.block_id z
// CHECK:       %[[I:.*]] = arith.addi %[[BZ]], %{{.*}} : index
// CHECK:       %[[AV:.*]] = memref.subview %[[A]][%[[I]], 0, 0] [1, 64, 48] [1, 1, 1] : memref<3x64x48xbf16> to memref<64x48xbf16, strided<[48, 1], offset: ?>>
// CHECK:       xetile.init_tile %[[AV]]
// CHECK:       xetile.tile_mma
func.func @batch(%A: memref<3x64x48xbf16>, %B: memref<3x48x32xbf16>, %C: memref<3x64x32xf32>) {
  linalg.batch_matmul ins(%A, %B : memref<3x64x48xbf16>, memref<3x48x32xbf16>) outs(%C : memref<3x64x32xf32>)
  return
}
