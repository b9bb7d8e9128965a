// Dynamic shapes: the host computes the grid from memref.dim (ceil-divided by the tile), the
// kernel passes base shapes and strides to init_tile; planned as 4096^3 (256x256 tiles).
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: func.func @dyn(
// CHECK-SAME:  %[[A:[^:]*]]: memref<?x?xbf16>, %[[B:[^:]*]]: memref<?x?xbf16>
// CHECK:       %[[M:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xbf16>
// CHECK:       %[[N:.*]] = memref.dim %[[B]], %{{.*}} : memref<?x?xbf16>
// CHECK:       %[[GY:.*]] = arith.ceildivui %[[M]], %{{.*}} : index
// CHECK:       %[[GX:.*]] = arith.ceildivui %[[N]], %{{.*}} : index
// CHECK:       gpu.launch_func @dyn_kernels::@dyn_0 blocks in (%[[GX]], %[[GY]], %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%[[A]] : memref<?x?xbf16>, %[[B]] : memref<?x?xbf16>, %{{.*}} : memref<?x?xf32>)
// CHECK:       gpu.func @dyn_0(%[[KA:[^:]*]]: memref<?x?xbf16>, %[[KB:[^:]*]]: memref<?x?xbf16>, %[[KC:[^:]*]]: memref<?x?xf32>) kernel attributes {known_block_size = array<i32: 512, 1, 1>
// CHECK-DAG:   %[[KM:.*]] = memref.dim %[[KA]], %c0 : memref<?x?xbf16>
// CHECK-DAG:   %[[KN:.*]] = memref.dim %[[KB]], %c1 : memref<?x?xbf16>
// CHECK-DAG:   %[[KK:.*]] = memref.dim %[[KA]], %c1 : memref<?x?xbf16>
// CHECK:       xetile.init_tile %[[KA]][%{{.*}}, %{{.*}}], [%[[KM]], %[[KK]]], [%[[KK]], %c1] : memref<?x?xbf16> -> !xetile.tile<256x32xbf16
// CHECK:       xetile.init_tile %[[KB]][%{{.*}}, %{{.*}}], [%[[KK]], %[[KN]]], [%[[KN]], %c1] : memref<?x?xbf16> -> !xetile.tile<32x256xbf16
// CHECK:       xetile.init_tile %[[KC]][%{{.*}}, %{{.*}}], [%[[KM]], %[[KN]]], [%[[KN]], %c1] : memref<?x?xf32> -> !xetile.tile<256x256xf32
func.func @dyn(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) {
  linalg.matmul ins(%A, %B : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  return
}

// -----
// Mixed static and dynamic operands: only the dynamic ones get shape operands.
// CHECK-LABEL: gpu.func @mixed_0(
// CHECK:       xetile.init_tile %{{[^,]*}}[%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}, %c1] : memref<?x64xbf16>
// CHECK:       xetile.init_tile %{{[^,]*}}[%{{.*}}, %{{.*}}] : memref<64x32xbf16>
// CHECK:       xetile.init_tile %{{[^,]*}}[%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}, %c1] : memref<?x32xf32>
func.func @mixed(%A: memref<?x64xbf16>, %B: memref<64x32xbf16>, %C: memref<?x32xf32>) {
  linalg.matmul ins(%A, %B : memref<?x64xbf16>, memref<64x32xbf16>) outs(%C : memref<?x32xf32>)
  return
}
