// rfc-xetile.md appendix 2.3: with B^T loaded as sg_layout [32, 1], sg_data [64, 32], every
// subgroup already holds the block of B^T whose transpose it needs for sg_layout [8, 4],
// sg_data [32, 64]; the transpose stays in registers (no SLM, no barrier). The first mapping
// (appendix 2.2, [4, 8] x [64, 32]) needs the SLM round trip.
// RUN: xe-opt %s --split-input-file --xetile-wg-to-sg | FileCheck %s

#mp_b  = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>
#mp_bt = #xetile.wg_map<sg_layout = [32, 1], sg_data = [64, 32]>

// CHECK-LABEL: gpu.func @optimized
// CHECK-NOT:   memref.alloc
// CHECK-NOT:   gpu.barrier
// CHECK:       %[[SG:.*]] = gpu.subgroup_id : index
// B^T rows: (sg*64) mod 256 (wrap-around: 8 subgroups share each 64x32 block)
// CHECK-DAG:   %[[M:.*]] = arith.muli %[[SG]], %c64{{.*}} : index
// CHECK-DAG:   %[[ROW:.*]] = arith.remui %[[M]], %c256{{.*}} : index
// CHECK:       %[[T:.*]] = xetile.init_tile %{{.*}}[%[[ROW]], 0] : memref<256x32xf16> -> !xetile.tile<64x32xf16>
// CHECK:       %[[V:.*]] = xetile.load_tile %[[T]] : !xetile.tile<64x32xf16> -> vector<64x32xf16>
// CHECK:       %[[W:.*]] = xetile.tile_transpose %[[V]] [1, 0] : vector<64x32xf16> -> vector<32x64xf16>
// CHECK:       xetile.store_tile %[[W]], %{{.*}} : vector<32x64xf16>, !xetile.tile<32x64xf16>
// CHECK-NOT:   gpu.barrier
// CHECK:       gpu.return
gpu.module @kernels {
  gpu.func @optimized(%bt: memref<256x32xf16>, %b: memref<32x256xf16>) kernel attributes {known_block_size = array<i32: 512, 1, 1>} {
    %c0 = arith.constant 0 : index
    %2 = xetile.init_tile %bt[%c0, %c0] : memref<256x32xf16> -> !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>
    %10 = xetile.load_tile %2 : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt>> -> vector<256x32xf16>
    %5 = xetile.tile_transpose %10 [1, 0] {wg_map = #mp_b} : vector<256x32xf16> -> vector<32x256xf16>
    %o = xetile.init_tile %b[%c0, %c0] : memref<32x256xf16> -> !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b>>
    xetile.store_tile %5, %o : vector<32x256xf16>, !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b>>
    gpu.return
  }
}

// -----
#mp_b  = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>
#mp_bt = #xetile.wg_map<sg_layout = [4, 8], sg_data = [64, 32]>

// CHECK-LABEL: gpu.func @first_mapping
// CHECK:       %[[SLM:.*]] = memref.alloc() : memref<256x32xf16, 3>
// CHECK:       %[[V:.*]] = xetile.load_tile %{{.*}} : !xetile.tile<64x32xf16> -> vector<64x32xf16>
// CHECK:       %[[S:.*]] = xetile.init_tile %[[SLM]]
// CHECK:       xetile.store_tile %[[V]], %[[S]] : vector<64x32xf16>, !xetile.tile<64x32xf16, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:       gpu.barrier
// CHECK:       %[[L:.*]] = xetile.init_tile %[[SLM]]
// CHECK:       xetile.load_tile %[[L]] {transpose = [1, 0]} : !xetile.tile<64x32xf16, #xetile.tile_attr<memory_space = 3 : i32>> -> vector<32x64xf16>
gpu.module @kernels {
  gpu.func @first_mapping(%bt: memref<256x32xf16>, %b: memref<32x256xf16>) kernel attributes {known_block_size = array<i32: 512, 1, 1>} {
    %c0 = arith.constant 0 : index
    %2 = xetile.init_tile %bt[%c0, %c0] : memref<256x32xf16> -> !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>
    %10 = xetile.load_tile %2 : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt>> -> vector<256x32xf16>
    %5 = xetile.tile_transpose %10 [1, 0] {wg_map = #mp_b} : vector<256x32xf16> -> vector<32x256xf16>
    %o = xetile.init_tile %b[%c0, %c0] : memref<32x256xf16> -> !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b>>
    xetile.store_tile %5, %o : vector<32x256xf16>, !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b>>
    gpu.return
  }
}
