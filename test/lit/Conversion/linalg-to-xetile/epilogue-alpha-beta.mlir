// C = alpha * (A x B) + beta * C computed through a zero-filled temporary: the fill, the matmul and
// the generic fuse into one kernel that reads C once after the K loop; the temporary, its
// deallocation and the host constants disappear.
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: func.func @alpha_beta(
// CHECK-NOT:   memref.alloc
// CHECK-NOT:   linalg.
// CHECK:       gpu.launch_func @alpha_beta_kernels::@alpha_beta_0 {{.*}} args(%arg0 : memref<128x64xf16>, %arg1 : memref<64x128xf16>, %arg2 : memref<128x128xf32>)
// CHECK-NOT:   memref.dealloc
// CHECK-NEXT:  return
// CHECK:       gpu.func @alpha_beta_0(%{{.*}}: memref<128x64xf16>, %{{.*}}: memref<64x128xf16>, %[[C:.*]]: memref<128x128xf32>)
// CHECK-NOT:   xetile.init_tile %[[C]]
// CHECK:       %[[R:.*]]:5 = scf.for
// CHECK:       }
// CHECK:       %[[CT:.*]] = xetile.init_tile %[[C]][%{{.*}}, %{{.*}}] : memref<128x128xf32> -> !xetile.tile<32x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [8, 32]>>>
// CHECK:       %[[OLD:.*]] = xetile.load_tile %[[CT]]
// CHECK:       %[[AL:.*]] = arith.constant {wg_map = {{.*}}} dense<1.500000e+00> : vector<32x64xf32>
// CHECK:       %[[AP:.*]] = arith.mulf %[[AL]], %[[R]]#0 {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>}
// CHECK:       %[[BE:.*]] = arith.constant {wg_map = {{.*}}} dense<-5.000000e-01> : vector<32x64xf32>
// CHECK:       %[[BC:.*]] = arith.mulf %[[BE]], %[[OLD]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>}
// CHECK:       %[[Y:.*]] = arith.addf %[[AP]], %[[BC]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>}
// CHECK:       xetile.store_tile %[[Y]], %[[CT]]
// CHECK-NOT:   xetile.store_tile

func.func @alpha_beta(%A: memref<128x64xf16>, %B: memref<64x128xf16>, %C: memref<128x128xf32>) {
  %alpha = arith.constant 1.5 : f32
  %beta = arith.constant -0.5 : f32
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<128x128xf32>)
  linalg.matmul ins(%A, %B : memref<128x64xf16>, memref<64x128xf16>) outs(%t : memref<128x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<128x128xf32>) outs(%C : memref<128x128xf32>) {
  ^bb0(%p: f32, %old: f32):
    %ap = arith.mulf %alpha, %p : f32
    %bc = arith.mulf %beta, %old : f32
    %r = arith.addf %ap, %bc : f32
    linalg.yield %r : f32
  }
  memref.dealloc %t : memref<128x128xf32>
  return
}

// -----
// alpha and beta as function arguments: scalar kernel arguments broadcast in the kernel.
// CHECK-LABEL: func.func @alpha_beta_args(
// CHECK:       gpu.launch_func @alpha_beta_args_kernels::@alpha_beta_args_0 {{.*}} args({{.*}}, %arg3 : f32, %arg4 : f32)
// CHECK:       gpu.func @alpha_beta_args_0({{.*}}, %[[AL:.*]]: f32, %[[BE:.*]]: f32)
// CHECK:       vector.broadcast %[[AL]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : f32 to vector<32x64xf32>
// CHECK:       vector.broadcast %[[BE]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : f32 to vector<32x64xf32>
func.func @alpha_beta_args(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %C: memref<64x64xf32>, %alpha: f32, %beta: f32) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<64x64xf32>)
  linalg.matmul ins(%A, %B : memref<64x32xf16>, memref<32x64xf16>) outs(%t : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<64x64xf32>) outs(%C : memref<64x64xf32>) {
  ^bb0(%p: f32, %old: f32):
    %ap = arith.mulf %alpha, %p : f32
    %bc = arith.mulf %beta, %old : f32
    %r = arith.addf %ap, %bc : f32
    linalg.yield %r : f32
  }
  memref.dealloc %t : memref<64x64xf32>
  return
}
