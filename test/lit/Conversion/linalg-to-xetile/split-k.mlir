// Tall K with few output tiles: split-K over grid z (8 k-slices of 512), partial C tiles added
// atomically; a fused epilogue needs the complete sum, so with one the plan keeps K whole.
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: func.func @splitk(
// CHECK-DAG:   %[[Z:.*]] = arith.constant 8 : index
// CHECK:       gpu.launch_func @splitk_kernels::@splitk_0 blocks in (%{{.*}}, %{{.*}}, %[[Z]])
// CHECK:       gpu.func @splitk_0(
// CHECK:       %[[BZ:.*]] = gpu.block_id z
// CHECK:       %[[SLICE:.*]] = arith.remui %[[BZ]], %{{.*}} : index
// CHECK:       %[[ZERO:.*]] = arith.constant {wg_map = {{.*}}} dense<0.000000e+00> : vector<128x128xf32>
// CHECK:       %[[R:.*]]:5 = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]],
// CHECK:       xetile.atomic_rmw_tile <addf> %[[R]]#0, %{{.*}} : vector<128x128xf32>, !xetile.tile<128x128xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [32, 64]>>> -> vector<128x128xf32>
// CHECK-NOT:   xetile.store_tile
func.func @splitk(%A: memref<128x4096xbf16>, %B: memref<4096x128xbf16>, %C: memref<128x128xf32>) {
  linalg.matmul ins(%A, %B : memref<128x4096xbf16>, memref<4096x128xbf16>) outs(%C : memref<128x128xf32>)
  return
}

// -----
// CHECK-LABEL: func.func @splitk_relu(
// CHECK-DAG:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK:       gpu.launch_func @splitk_relu_kernels::@splitk_relu_0 blocks in (%{{.*}}, %{{.*}}, %[[ONE]])
// CHECK:       gpu.func @splitk_relu_0(
// CHECK-NOT:   xetile.atomic_rmw_tile
// CHECK:       arith.maximumf
// CHECK:       xetile.store_tile
func.func @splitk_relu(%A: memref<128x4096xbf16>, %B: memref<4096x128xbf16>, %C: memref<128x128xf32>) {
  linalg.matmul ins(%A, %B : memref<128x4096xbf16>, memref<4096x128xbf16>) outs(%C : memref<128x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%C : memref<128x128xf32>) {
  ^bb0(%x: f32):
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %x, %z : f32
    linalg.yield %y : f32
  }
  return
}
