// A plain linalg.matmul becomes a host launch of one work-group XeTile kernel (pipeline stage 1):
// 256x256x256 bf16 -> f32 is planned as 32x64 work-group tiles (64 work-groups on the Xe-cores)
// of 4x2 subgroups owning 8x32 each; C is loaded, accumulated over K in steps of 32 and stored.
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s

// CHECK:       module attributes {gpu.container_module}
// CHECK-LABEL: func.func @gemm(
// CHECK-DAG:   %[[GX:.*]] = arith.constant 4 : index
// CHECK-DAG:   %[[GY:.*]] = arith.constant 8 : index
// CHECK-DAG:   %[[T:.*]] = arith.constant 128 : index
// CHECK:       gpu.launch_func @gemm_kernels::@gemm_0 blocks in (%[[GX]], %[[GY]], %{{.*}}) threads in (%[[T]], %{{.*}}, %{{.*}}) args(%arg0 : memref<256x256xbf16>, %arg1 : memref<256x256xbf16>, %arg2 : memref<256x256xf32>)
// CHECK-NEXT:  return
// CHECK:       gpu.module @gemm_kernels
// CHECK:       gpu.func @gemm_0(%[[A:.*]]: memref<256x256xbf16>, %[[B:.*]]: memref<256x256xbf16>, %[[C:.*]]: memref<256x256xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, xe.grf_mode = "default", xe.model = {{.*}}, xe.subgroup_size = 16 : i32}
// CHECK-DAG:   %[[KS:.*]] = arith.constant 32 : index
// CHECK-DAG:   %[[BX:.*]] = gpu.block_id x
// CHECK-DAG:   %[[BY:.*]] = gpu.block_id y
// CHECK-DAG:   %[[M:.*]] = arith.muli %[[BY]], %{{.*}} : index
// CHECK-DAG:   %[[N:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK:       xetile.init_tile %[[A]][%[[M]], %[[K0:.*]]] : memref<256x256xbf16> -> !xetile.tile<32x32xbf16, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [8, 32]>>>
// CHECK:       xetile.init_tile %[[B]][%[[K0]], %[[N]]] : memref<256x256xbf16> -> !xetile.tile<32x64xbf16, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [32, 32]>>>
// CHECK:       %[[CT:.*]] = xetile.init_tile %[[C]][%[[M]], %[[N]]] : memref<256x256xf32> -> !xetile.tile<32x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [8, 32]>>>
// CHECK:       xetile.init_tile %[[A]][%[[M]], %[[K0]]] : memref<256x256xbf16> -> !xetile.tile<32x32xbf16, #xetile.tile_attr<wg_map = <sg_layout = [8, 1], sg_data = [4, 32]>>>
// CHECK:       xetile.init_tile %[[B]][%[[K0]], %[[N]]] : memref<256x256xbf16> -> !xetile.tile<32x64xbf16, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [8, 32]>>>
// CHECK:       %[[CV:.*]] = xetile.load_tile %[[CT]] : {{.*}} -> vector<32x64xf32>
// CHECK-COUNT-6: xetile.prefetch_tile %{{[0-9]+}} :
// CHECK:       %[[R:.*]]:5 = scf.for %{{.*}} = %[[K0]] to %{{.*}} step %[[KS]] iter_args(%[[ACC:.*]] = %[[CV]], %[[AT:.*]] = %{{.*}}, %[[BT:.*]] = %{{.*}}, %[[PAT:.*]] = %{{.*}}, %[[PBT:.*]] = %{{.*}})
// CHECK:         %[[VA:.*]] = xetile.load_tile %[[AT]] : {{.*}} -> vector<32x32xbf16>
// CHECK:         %[[VB:.*]] = xetile.load_tile %[[BT]] : {{.*}} -> vector<32x64xbf16>
// CHECK:         xetile.prefetch_tile %[[PAT]]
// CHECK:         xetile.prefetch_tile %[[PBT]]
// CHECK:         %[[MMA:.*]] = xetile.tile_mma %[[VA]], %[[VB]], %[[ACC]] {wg_map_a = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>, wg_map_b = #xetile.wg_map<sg_layout = [4, 2], sg_data = [32, 32]>, wg_map_c = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>}
// CHECK:         xetile.update_tile_offset %[[AT]], [%{{.*}}, %[[KS]]]
// CHECK:         xetile.update_tile_offset %[[BT]], [%[[KS]], %{{.*}}]
// CHECK:         scf.yield %[[MMA]],
// CHECK:       xetile.store_tile %[[R]]#0, %[[CT]] : vector<32x64xf32>
// CHECK-NEXT:  gpu.return

func.func @gemm(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}
