// Element-wise arith/math ops, splat constants and scalar broadcasts may carry the wg_map of their
// result (as convert-linalg-to-xetile writes fused epilogues); xetile-wg-to-sg distributes them
// with it, per subtile, and drops the attribute.
// RUN: xe-opt %s --split-input-file --xetile-wg-to-sg | FileCheck %s

#c = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 16]>
// CHECK-LABEL: gpu.func @epilogue(
// CHECK-NOT:   wg_map
// CHECK:       %[[V:.*]] = xetile.load_tile %{{.*}} : !xetile.tile<16x16xf32> -> vector<16x16xf32>
// CHECK:       %[[K:.*]] = arith.constant dense<5.000000e-01> : vector<16x16xf32>
// CHECK:       %[[M:.*]] = arith.mulf %[[V]], %[[K]] : vector<16x16xf32>
// CHECK:       %[[S:.*]] = vector.broadcast %{{.*}} : f32 to vector<16x16xf32>
// CHECK:       %[[A:.*]] = arith.addf %[[M]], %[[S]] : vector<16x16xf32>
// CHECK:       %[[T:.*]] = math.tanh %[[A]] : vector<16x16xf32>
// CHECK:       %[[H:.*]] = arith.truncf %[[T]] : vector<16x16xf32> to vector<16x16xf16>
// CHECK:       xetile.store_tile %[[H]], %{{.*}} : vector<16x16xf16>, !xetile.tile<16x16xf16>
gpu.module @m {
  gpu.func @epilogue(%C: memref<32x32xf32>, %D: memref<32x32xf16>, %s: f32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %ct = xetile.init_tile %C[0, 0] : memref<32x32xf32> -> !xetile.tile<32x32xf32, #xetile.tile_attr<wg_map = #c>>
    %dt = xetile.init_tile %D[0, 0] : memref<32x32xf16> -> !xetile.tile<32x32xf16, #xetile.tile_attr<wg_map = #c>>
    %v = xetile.load_tile %ct : !xetile.tile<32x32xf32, #xetile.tile_attr<wg_map = #c>> -> vector<32x32xf32>
    %k = arith.constant {wg_map = #c} dense<0.5> : vector<32x32xf32>
    %m = arith.mulf %v, %k {wg_map = #c} : vector<32x32xf32>
    %sb = vector.broadcast %s {wg_map = #c} : f32 to vector<32x32xf32>
    %a = arith.addf %m, %sb {wg_map = #c} : vector<32x32xf32>
    %t = math.tanh %a {wg_map = #c} : vector<32x32xf32>
    %h = arith.truncf %t {wg_map = #c} : vector<32x32xf32> to vector<32x32xf16>
    xetile.store_tile %h, %dt : vector<32x32xf16>, !xetile.tile<32x32xf16, #xetile.tile_attr<wg_map = #c>>
    gpu.return
  }
}

// -----
// round-robin: a 64x64 value on [2, 2] x [16, 16] is four subtiles per subgroup, so every
// element-wise op is repeated four times
#c = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 16]>
// CHECK-LABEL: gpu.func @round_robin(
// CHECK-COUNT-4: arith.negf %{{.*}} : vector<16x16xf32>
// CHECK-NOT:   arith.negf
// CHECK-COUNT-4: xetile.store_tile
gpu.module @m {
  gpu.func @round_robin(%C: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %ct = xetile.init_tile %C[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = #c>>
    %v = xetile.load_tile %ct : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = #c>> -> vector<64x64xf32>
    %n = arith.negf %v {wg_map = #c} : vector<64x64xf32>
    xetile.store_tile %n, %ct : vector<64x64xf32>, !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = #c>>
    gpu.return
  }
}
