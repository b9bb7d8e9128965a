// Element-wise epilogues keep the blocking of the accumulator; splat constants are created
// directly in the 4D form their user needs; ops that work on 2D vectors (tile_broadcast) get a
// 2D operand and their result is re-blocked for the 4D user.
// RUN: xe-opt %s --xetile-blocking | FileCheck %s

gpu.module @k {
  // CHECK-LABEL: gpu.func @bias_relu
  gpu.func @bias_relu(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>, %bias: memref<1x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<8x32xf32>
    %a = xetile.init_tile %A[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<8x32xbf16>
    %b = xetile.init_tile %B[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<32x32xbf16>
    %va = xetile.load_tile %a : !xetile.tile<8x32xbf16> -> vector<8x32xbf16>
    %vb = xetile.load_tile %b : !xetile.tile<32x32xbf16> -> vector<32x32xbf16>
    // CHECK: %[[D:.*]] = xetile.tile_mma %{{.*}}, %{{.*}} : vector<1x2x8x16xbf16>, vector<2x2x16x16xbf16> -> vector<1x2x8x16xf32>
    %d = xetile.tile_mma %va, %vb : vector<8x32xbf16>, vector<32x32xbf16> -> vector<8x32xf32>
    // CHECK: %[[BT:.*]] = xetile.init_tile %{{.*}} -> !xetile.tile<1x32xf32, #xetile.tile_attr<inner_blocks = [1, 16]>>
    // CHECK: %[[BV:.*]] = xetile.load_tile %[[BT]] {{.*}} -> vector<1x2x1x16xf32>
    // CHECK: %[[BU:.*]] = xetile.tile_unpack %[[BV]] {inner_blocks = [1, 16]} : vector<1x2x1x16xf32> -> vector<1x32xf32>
    // CHECK: %[[BB:.*]] = xetile.tile_broadcast %[[BU]] [0] : vector<1x32xf32> -> vector<8x32xf32>
    // CHECK: %[[BP:.*]] = xetile.tile_pack %[[BB]] {inner_blocks = [8, 16]} : vector<8x32xf32> -> vector<1x2x8x16xf32>
    %bt = xetile.init_tile %bias[%c0, %c0] : memref<1x64xf32> -> !xetile.tile<1x32xf32>
    %bv = xetile.load_tile %bt : !xetile.tile<1x32xf32> -> vector<1x32xf32>
    %bb = xetile.tile_broadcast %bv [0] : vector<1x32xf32> -> vector<8x32xf32>
    // CHECK: %[[S:.*]] = arith.addf %[[D]], %[[BP]] : vector<1x2x8x16xf32>
    // CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x2x8x16xf32>
    // CHECK: %[[R:.*]] = arith.maximumf %[[S]], %[[ZERO]] : vector<1x2x8x16xf32>
    %s = arith.addf %d, %bb : vector<8x32xf32>
    %r = arith.maximumf %s, %zero : vector<8x32xf32>
    // CHECK: %[[CT:.*]] = xetile.init_tile %{{.*}} -> !xetile.tile<8x32xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
    // CHECK: xetile.store_tile %[[R]], %[[CT]] : vector<1x2x8x16xf32>
    %ct = xetile.init_tile %C[%c0, %c0] : memref<64x64xf32> -> !xetile.tile<8x32xf32>
    xetile.store_tile %r, %ct : vector<8x32xf32>, !xetile.tile<8x32xf32>
    gpu.return
  }
}
