// Tensor programs go through the named pipeline xe-linalg-to-xetile: one-shot bufferization
// (function boundaries, identity layouts), then convert-linalg-to-xetile. The zero fill of
// tensor.empty, the matmul and the bias + relu generic become one kernel writing the returned
// buffer; the intermediate buffer disappears.
// RUN: xe-opt %s --xe-linalg-to-xetile | FileCheck %s
// The bufferization step is a no-op on memref programs (xe-gemm-to-xegpu starts with it too).
// RUN: xe-opt %s --xe-bufferize | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:  %[[A:[^:]*]]: memref<64x32xbf16>, %[[B:[^:]*]]: memref<32x48xbf16>, %[[BIAS:[^:]*]]: memref<48xf32>) -> memref<64x48xf32>
// CHECK:       %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x48xf32>
// CHECK-NOT:   memref.alloc
// CHECK-NOT:   linalg.
// CHECK:       gpu.launch_func @mlp_kernels::@mlp_0 {{.*}} args(%[[A]] : memref<64x32xbf16>, %[[B]] : memref<32x48xbf16>, %[[BIAS]] : memref<48xf32>, %[[OUT]] : memref<64x48xf32>)
// CHECK-NEXT:  return %[[OUT]] : memref<64x48xf32>

// CHECK-LABEL: func.func @inout(
// CHECK-SAME:  %{{[^:]*}}: memref<?x?xbf16>, %{{[^:]*}}: memref<?x?xbf16>, %[[C:[^:]*]]: memref<?x?xf32>) -> memref<?x?xf32>
// CHECK:       gpu.launch_func @inout_kernels::@inout_0
// CHECK-NEXT:  return %[[C]] : memref<?x?xf32>

// CHECK-LABEL: gpu.func @mlp_0(
// CHECK-SAME:  %{{.*}}: memref<64x32xbf16>, %{{.*}}: memref<32x48xbf16>, %{{.*}}: memref<48xf32>, %[[KOUT:.*]]: memref<64x48xf32>)
// CHECK:       arith.constant {wg_map = {{.*}}} dense<0.000000e+00> : vector<32x64xf32>
// CHECK:       scf.for
// CHECK:       xetile.tile_broadcast
// CHECK:       arith.addf
// CHECK:       arith.maximumf
// CHECK:       %[[OT:.*]] = xetile.init_tile %[[KOUT]]
// CHECK:       xetile.store_tile %{{.*}}, %[[OT]]

// BUF-LABEL:   func.func @memrefs(%arg0: memref<8x16xbf16>, %arg1: memref<16x8xbf16>, %arg2: memref<8x8xf32>) {
// BUF-NEXT:    linalg.matmul ins(%arg0, %arg1 : memref<8x16xbf16>, memref<16x8xbf16>) outs(%arg2 : memref<8x8xf32>)
// BUF-NEXT:    return

func.func @mlp(%A: tensor<64x32xbf16>, %B: tensor<32x48xbf16>, %bias: tensor<48xf32>) -> tensor<64x48xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %m = linalg.matmul ins(%A, %B : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%z : tensor<64x48xf32>) -> tensor<64x48xf32>
  %e2 = tensor.empty() : tensor<64x48xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<64x48xf32>, tensor<48xf32>) outs(%e2 : tensor<64x48xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    %y = arith.maximumf %s, %cst : f32
    linalg.yield %y : f32
  } -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

func.func @inout(%A: tensor<?x?xbf16>, %B: tensor<?x?xbf16>, %C: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<?x?xbf16>, tensor<?x?xbf16>) outs(%C : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @memrefs(%A: memref<8x16xbf16>, %B: memref<16x8xbf16>, %C: memref<8x8xf32>) {
  linalg.matmul ins(%A, %B : memref<8x16xbf16>, memref<16x8xbf16>) outs(%C : memref<8x8xf32>)
  return
}
