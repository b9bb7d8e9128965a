// A softmax on tensors (batch x rows x columns): xe-linalg-to-xetile bufferizes it and lowers it
// through a (B*M) x N view of the buffer (memref.collapse_shape in the kernel).
// RUN: xe-opt %s --xe-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: func.func @batch_tensor
// CHECK-NOT:   linalg.softmax
// CHECK:       gpu.launch_func @batch_tensor_kernels::@batch_tensor_0
// CHECK:       gpu.func @batch_tensor_0(
// CHECK:         memref.collapse_shape {{.*}} into memref<15x40xf32>
// CHECK:         xetile.tile_reduce <maximumf>
// CHECK:         xetile.tile_broadcast
// CHECK:         xetile.tile_reduce <add>
func.func @batch_tensor(%A: tensor<3x5x40xf32>, %O: tensor<3x5x40xf32>) -> tensor<3x5x40xf32> {
  %r = linalg.softmax dimension(2) ins(%A : tensor<3x5x40xf32>) outs(%O : tensor<3x5x40xf32>) -> tensor<3x5x40xf32>
  return %r : tensor<3x5x40xf32>
}
