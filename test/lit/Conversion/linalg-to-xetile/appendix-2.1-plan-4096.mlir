// The 4096^3 bf16 GEMM gets the plan of rfc-xetile.md appendix 2.1: 256x256 work-group tiles of
// 8x4 subgroups owning 32x64 each, K step 32, cooperative prefetch on [32, 1] x [8, 32] (A) and
// [4, 8] x [8, 32] (B) running 3 K steps ahead; 16x16 work-groups of 512 work-items; the kernel
// carries the plan's large register file (xe.grf_mode).
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --xe-print-plan --convert-linalg-to-xetile -o %t 2>&1 | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @gemm
// CHECK-DAG:   %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:   %[[C512:.*]] = arith.constant 512 : index
// CHECK:       gpu.launch_func @gemm_kernels::@gemm_0 blocks in (%[[C16]], %{{.*}}, %{{.*}}) threads in (%[[C512]], %{{.*}}, %{{.*}}) args(%{{.*}} : memref<4096x4096xbf16>, %{{.*}} : memref<4096x4096xbf16>, %{{.*}} : memref<4096x4096xf32>)
// CHECK-NOT:   linalg.matmul
// CHECK:       gpu.func @gemm_0({{.*}}) kernel attributes {known_block_size = array<i32: 512, 1, 1>, xe.grf_mode = "large", xe.model = {{.*}}, xe.subgroup_size = 16 : i32}
// CHECK-DAG:   %[[KS:.*]] = arith.constant 32 : index
// CHECK-DAG:   %[[WT:.*]] = arith.constant 256 : index
// CHECK:       xetile.init_tile {{.*}} -> !xetile.tile<256x32xbf16, #xetile.tile_attr<wg_map = <sg_layout = [8, 4], sg_data = [32, 32]>>>
// CHECK:       xetile.init_tile {{.*}} -> !xetile.tile<32x256xbf16, #xetile.tile_attr<wg_map = <sg_layout = [8, 4], sg_data = [32, 64]>>>
// CHECK:       %[[CT:.*]] = xetile.init_tile {{.*}} -> !xetile.tile<256x256xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 4], sg_data = [32, 64]>>>
// CHECK:       xetile.init_tile {{.*}} -> !xetile.tile<256x32xbf16, #xetile.tile_attr<wg_map = <sg_layout = [32, 1], sg_data = [8, 32]>>>
// CHECK:       xetile.init_tile {{.*}} -> !xetile.tile<32x256xbf16, #xetile.tile_attr<wg_map = <sg_layout = [4, 8], sg_data = [8, 32]>>>
// CHECK:       %[[CV:.*]] = xetile.load_tile %[[CT]]
// prefetch distance 3: three prefetch pairs (A and B) before the loop
// CHECK-COUNT-6: xetile.prefetch_tile %{{[0-9]+}} :
// CHECK-NOT:   xetile.prefetch_tile
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[KS]] iter_args(%{{.*}} = %[[CV]],
// CHECK:         xetile.tile_mma {{.*}} {wg_map_a = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 32]>, wg_map_b = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>, wg_map_c = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>} : vector<256x32xbf16>, vector<32x256xbf16>, vector<256x256xf32> -> vector<256x256xf32>
// CHECK:         xetile.update_tile_offset {{.*}}, [%{{.*}}, %[[KS]]]
// CHECK:       xetile.store_tile %{{.*}}#0, %[[CT]] : vector<256x256xf32>

// PLAN:      GEMM plan [pvc]: C[4096x4096 f32] += A[4096x4096 bf16] * B[4096x4096 bf16]
// PLAN:      work-group tile  : 256x256  (32 subgroups as 8x4, 512 work-items
// PLAN-NEXT: subgroup C tile  : 32x64
// PLAN-NEXT: k_step           : 32
// PLAN:      prefetch         : distance 3 K steps
// PLAN-NEXT: prefetch map A   : #xetile.wg_map<sg_layout = [32, 1], sg_data = [8, 32]>
// PLAN-NEXT: prefetch map B   : #xetile.wg_map<sg_layout = [4, 8], sg_data = [8, 32]>
// PLAN:      grid             : x=16 (N tiles) y=16 (M tiles) z=1 (batch) = 256 work-groups

func.func @gemm(%A: memref<4096x4096xbf16>, %B: memref<4096x4096xbf16>, %C: memref<4096x4096xf32>) {
  linalg.matmul ins(%A, %B : memref<4096x4096xbf16>, memref<4096x4096xbf16>) outs(%C : memref<4096x4096xf32>)
  return
}
