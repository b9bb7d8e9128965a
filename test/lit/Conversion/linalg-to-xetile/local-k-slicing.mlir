// Local k-slicing (docs/planner.md): local-k-slices=2 runs two groups of 8 subgroups per
// work-group, each over half of K (offsets from gpu.subgroup_id / 8; the groups are the row
// replicas of every wg_map: sg_layout [8, 2] over a 32-row tile of 4x8-row blocks); the partial C
// tiles meet in SLM behind a gpu.barrier, every subgroup adds its 4-row share of the two bands,
// and the fill value, bias and relu apply once, after the reduction, with the reduce map.
// One RUN per stage: work-group XeTile, subgroup XeTile, blocked XeTile, VC XeGPU, SIMT XeGPU,
// pvc and portable SPIR-V, and the kernel report's SLM/barrier line and model terms.
// RUN: xe-opt %s --convert-linalg-to-xetile=local-k-slices=2,k-slices=1 | FileCheck %s --check-prefix=WG
// RUN: xe-opt %s --pass-pipeline='builtin.module(convert-linalg-to-xetile{local-k-slices=2 k-slices=1}, xetile-wg-to-sg)' | FileCheck %s --check-prefix=SG
// RUN: xe-opt %s --pass-pipeline='builtin.module(convert-linalg-to-xetile{local-k-slices=2 k-slices=1}, xetile-wg-to-sg, xetile-canonicalize, xetile-blocking)' 2>/dev/null | FileCheck %s --check-prefix=BLK
// RUN: xe-opt %s --pass-pipeline='builtin.module(convert-linalg-to-xetile{local-k-slices=2 k-slices=1}, xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse)' 2>/dev/null | FileCheck %s --check-prefix=VC
// RUN: xe-opt %s --pass-pipeline='builtin.module(convert-linalg-to-xetile{local-k-slices=2 k-slices=1}, xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse, xegpu-simt-distribute)' 2>/dev/null | FileCheck %s --check-prefix=SIMT
// RUN: xe-opt %s --pass-pipeline='builtin.module(convert-linalg-to-xetile{local-k-slices=2 k-slices=1}, xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse, convert-xegpu-to-spirv{target=pvc})' 2>/dev/null | FileCheck %s --check-prefixes=SPV,PVC
// RUN: xe-opt %s --pass-pipeline='builtin.module(convert-linalg-to-xetile{local-k-slices=2 k-slices=1}, xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse, convert-xegpu-to-spirv{target=portable})' 2>/dev/null | FileCheck %s --check-prefix=SPV
// RUN: xe-opt %s --pass-pipeline='builtin.module(convert-linalg-to-xetile{local-k-slices=2 k-slices=1}, xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse, xe-kernel-report)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REP
// RUN: not xe-opt %s --convert-linalg-to-xetile=local-k-slices=3 2>&1 | FileCheck %s --check-prefix=ERR

// WG:       gpu.launch_func @lk_kernels::@lk_0 blocks in ({{.*}}) threads in (%c256,
// WG:       gpu.func @lk_0(
// WG-SAME:  known_block_size = array<i32: 256, 1, 1>
// WG:       %[[SGID:.*]] = gpu.subgroup_id : index
// WG:       %[[S:.*]] = arith.divui %[[SGID]], %c8 : index
// WG:       %[[K0:.*]] = arith.muli %[[S]], %c512 : index
// WG:       xetile.init_tile %arg0[%{{.*}}, %[[K0]]] : memref<64x1024xbf16> -> !xetile.tile<32x32xbf16, #xetile.tile_attr<wg_map = <sg_layout = [8, 2], sg_data = [8, 32]>>>
// WG:       %[[ZERO:.*]] = arith.constant {wg_map = #xetile.wg_map<sg_layout = [8, 2], sg_data = [8, 32]>} dense<0.000000e+00> : vector<32x64xf32>
// WG:       %[[R:.*]]:5 = scf.for %{{.*}} = %c0 to %c512 step %c32 iter_args(%{{.*}} = %[[ZERO]],
// WG:       xetile.tile_mma {{.*}}wg_map_c = #xetile.wg_map<sg_layout = [8, 2], sg_data = [8, 32]>
// WG-NOT:   arith.maximumf
// WG:       %[[SLM:.*]] = memref.alloc() : memref<64x64xf32, 3>
// WG:       %[[BAND:.*]] = arith.muli %[[S]], %c32{{.*}} : index
// WG:       %[[ST:.*]] = xetile.init_tile %[[SLM]][%[[BAND]], 0] : memref<64x64xf32, 3> -> !xetile.tile<32x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 2], sg_data = [8, 32]>, memory_space = 3 : i32>>
// WG:       xetile.store_tile %[[R]]#0, %[[ST]]
// WG:       gpu.barrier
// WG:       xetile.init_tile %[[SLM]][0, 0] : {{.*}}sg_layout = [8, 2], sg_data = [4, 32]>, memory_space = 3
// WG:       xetile.init_tile %[[SLM]][32, 0] : {{.*}}sg_layout = [8, 2], sg_data = [4, 32]>, memory_space = 3
// WG:       %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} {wg_map = #xetile.wg_map<sg_layout = [8, 2], sg_data = [4, 32]>} : vector<32x64xf32>
// WG:       %[[CT:.*]] = xetile.init_tile %arg2[%{{.*}}, %{{.*}}] : memref<64x128xf32> -> !xetile.tile<32x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 2], sg_data = [4, 32]>>>
// WG:       arith.addf %[[SUM]], %{{.*}} {wg_map = #xetile.wg_map<sg_layout = [8, 2], sg_data = [4, 32]>}
// WG:       xetile.tile_broadcast
// WG:       arith.maximumf {{.*}}sg_data = [4, 32]
// WG:       xetile.store_tile %{{.*}}, %[[CT]]
// WG-NOT:   arith.maximumf

// SG:       gpu.func @lk_0(
// SG:       scf.for {{.*}} -> (vector<8x32xf32>, !xetile.tile<8x32xbf16>, !xetile.tile<32x32xbf16>
// SG:       %[[SLM:.*]] = memref.alloc() : memref<64x64xf32, 3>
// SG:       xetile.store_tile %{{.*}}#0, %{{.*}} : vector<8x32xf32>, !xetile.tile<8x32xf32, #xetile.tile_attr<memory_space = 3 : i32>>
// SG-NEXT:  gpu.barrier
// SG:       xetile.load_tile {{.*}} -> vector<4x32xf32>
// SG:       xetile.load_tile {{.*}} -> vector<4x32xf32>
// SG:       arith.maximumf {{.*}} : vector<4x32xf32>
// SG:       xetile.store_tile %{{.*}} : vector<4x32xf32>, !xetile.tile<4x32xf32>

// BLK:      xetile.tile_mma {{.*}} : vector<1x2x8x16xbf16>, vector<2x2x16x16xbf16>, vector<1x2x8x16xf32> -> vector<1x2x8x16xf32>
// BLK:      xetile.store_tile %{{.*}} : vector<8x32xf32>, !xetile.tile<8x32xf32, #xetile.tile_attr<memory_space = 3 : i32>>
// BLK:      gpu.barrier
// BLK:      xetile.store_tile %{{.*}} : vector<1x2x4x16xf32>, !xetile.tile<4x32xf32, #xetile.tile_attr<inner_blocks = [4, 16]>>

// VC:       xegpu.dpas
// VC:       memref.alloc() : memref<64x64xf32, 3>
// VC:       xegpu.store_scatter {{.*}}memory_scope = slm, scattered = true
// VC:       gpu.barrier
// VC:       xegpu.load_gather {{.*}}memory_scope = slm, scattered = true
// VC:       arith.maximumf
// VC:       xegpu.store_nd

// SIMT:     xegpu.store_scatter {{.*}} : f32, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<memory_scope = slm, scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>, i1
// SIMT:     gpu.barrier
// SIMT:     xegpu.load_gather {{.*}}memory_scope = slm

// SPV:      spirv.GlobalVariable @__xe_slm_lk_0_0 : !spirv.ptr<!spirv.array<4096 x f32>, Workgroup>
// PVC:      @__builtin_intel_sub_group_bf16_bf16_matrix_mad_k16
// SPV:      spirv.func @lk_0(
// SPV:      spirv.ControlBarrier <Workgroup>, <Workgroup>

// REP:      SLM: 16384 B (memref<64x64xf32, 3>)   named barriers: 0   gpu.barrier: 1
// REP:      terms: compute {{.*}} + SLM {{.*}}
// REP:      assumed: local k-slicing: 2 slices per work-group, 16384 B of partial C through SLM
// REP:      inputs: the planner's model (xe.model

// ERR:      local-k-slicing.mlir:{{[0-9]+}}:3: error: GEMM plan: illegal GEMM plan: local_k_slices 3 must divide the subgroup C tile rows
func.func @lk(%A: memref<64x1024xbf16>, %B: memref<1024x128xbf16>, %C: memref<64x128xf32>, %bias: memref<128xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%C : memref<64x128xf32>)
  linalg.matmul ins(%A, %B : memref<64x1024xbf16>, memref<1024x128xbf16>) outs(%C : memref<64x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<128xf32>) outs(%C : memref<64x128xf32>) {
  ^bb0(%b: f32, %x: f32):
    %s = arith.addf %x, %b : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  }
  return
}
