// Data exchange between subgroups through shared local memory: tile_conv_layout between two
// maps that place the data on different subgroups. With the default budget the whole
// 128x64xf32 value (32 KiB) goes through one buffer; with slm-budget=8192 it moves in four bands
// of 32 rows, each subgroup storing / loading its pieces of the current band under an scf.if.
// RUN: xe-opt %s --xetile-wg-to-sg | FileCheck %s
// RUN: xe-opt %s --xetile-wg-to-sg=slm-budget=8192 | FileCheck %s --check-prefix=BANDS

// CHECK-LABEL: gpu.func @conv
// CHECK:       %[[SG:.*]] = gpu.subgroup_id : index
// CHECK-DAG:   %[[SLM:.*]] = memref.alloc() : memref<128x64xf32, 3>
// CHECK-DAG:   %[[DROW:.*]] = arith.muli %[[SG]], %c8{{.*}} : index
// CHECK-DAG:   %[[DROW2:.*]] = arith.addi %[[DROW]], %c64{{.*}} : index
// CHECK:       %[[V:.*]] = xetile.load_tile %{{.*}} : !xetile.tile<32x32xf32> -> vector<32x32xf32>
// CHECK:       %[[ST:.*]] = xetile.init_tile %[[SLM]][%{{.*}}, %{{.*}}] : memref<128x64xf32, 3> -> !xetile.tile<32x32xf32, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:       xetile.store_tile %[[V]], %[[ST]]
// CHECK:       gpu.barrier
// CHECK:       %[[L0:.*]] = xetile.init_tile %[[SLM]][%[[DROW]], 0] : memref<128x64xf32, 3> -> !xetile.tile<8x64xf32, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:       %[[W0:.*]] = xetile.load_tile %[[L0]] : {{.*}} -> vector<8x64xf32>
// CHECK:       %[[L1:.*]] = xetile.init_tile %[[SLM]][%[[DROW2]], 0] : memref<128x64xf32, 3> -> !xetile.tile<8x64xf32, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:       %[[W1:.*]] = xetile.load_tile %[[L1]] : {{.*}} -> vector<8x64xf32>
// CHECK:       xetile.store_tile %[[W0]]
// CHECK:       xetile.store_tile %[[W1]]

// BANDS-LABEL: gpu.func @conv
// BANDS:       memref.alloc() : memref<32x64xf32, 3>
// BANDS-NOT:   memref<128x64xf32, 3>
// BANDS-COUNT-4: gpu.barrier
// BANDS:       scf.if %{{.*}} -> (vector<8x64xf32>) {
// BANDS:         xetile.load_tile
// BANDS:       } else {
gpu.module @m {
  gpu.func @conv(%A: memref<128x64xf32>, %B: memref<128x64xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %t = xetile.init_tile %A[0, 0] : memref<128x64xf32> -> !xetile.tile<128x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [32, 32]>>>
    %v = xetile.load_tile %t : !xetile.tile<128x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [32, 32]>>> -> vector<128x64xf32>
    %w = xetile.tile_conv_layout %v {wg_map = #xetile.wg_map<sg_layout = [8, 1], sg_data = [8, 64]>} : vector<128x64xf32> -> vector<128x64xf32>
    %o = xetile.init_tile %B[0, 0] : memref<128x64xf32> -> !xetile.tile<128x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 1], sg_data = [8, 64]>>>
    xetile.store_tile %w, %o : vector<128x64xf32>, !xetile.tile<128x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 1], sg_data = [8, 64]>>>
    gpu.return
  }
}
