// Element-wise epilogues keep the blocking of the accumulator; splat constants and tile_broadcast
// are created directly in the 4D form their user needs (rfc-xetile.md: "tile_broadcast broadcast 4D
// vector", dims [0, 2] / [1, 3]); tile_reduce reduces in its source's blocking (dims d and d + 2);
// ops that work on 2D vectors only (tile_transpose) get a 2D operand, re-blocked for 4D users.
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
    // CHECK-NOT: xetile.tile_unpack
    // CHECK: %[[BP:.*]] = xetile.tile_broadcast %[[BV]] [0, 2] : vector<1x2x1x16xf32> -> vector<1x2x8x16xf32>
    // CHECK-NOT: xetile.tile_pack
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

  // Row sums of the accumulator and their broadcast back (a softmax-style normalisation): the
  // reduction stays in the DPAS C blocks, its 8x1 result is blocked [8, 1], the broadcast
  // consumes it as is, and the store tile of the sums takes the same blocks: no re-blocking.
  // CHECK-LABEL: gpu.func @row_sums
  gpu.func @row_sums(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>, %S: memref<64x1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %a = xetile.init_tile %A[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<8x32xbf16>
    %b = xetile.init_tile %B[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<32x32xbf16>
    %va = xetile.load_tile %a : !xetile.tile<8x32xbf16> -> vector<8x32xbf16>
    %vb = xetile.load_tile %b : !xetile.tile<32x32xbf16> -> vector<32x32xbf16>
    // CHECK: %[[D:.*]] = xetile.tile_mma {{.*}} -> vector<1x2x8x16xf32>
    %d = xetile.tile_mma %va, %vb : vector<8x32xbf16>, vector<32x32xbf16> -> vector<8x32xf32>
    // CHECK-NOT: xetile.tile_unpack
    // CHECK: %[[R:.*]] = xetile.tile_reduce <add> %[[D]] [1, 3] : vector<1x2x8x16xf32> -> vector<1x1x8x1xf32>
    %r = xetile.tile_reduce <add> %d [1] : vector<8x32xf32> -> vector<8x1xf32>
    // CHECK: %[[RB:.*]] = xetile.tile_broadcast %[[R]] [1, 3] : vector<1x1x8x1xf32> -> vector<1x2x8x16xf32>
    // CHECK: arith.divf %[[D]], %[[RB]] : vector<1x2x8x16xf32>
    %rb = xetile.tile_broadcast %r [1] : vector<8x1xf32> -> vector<8x32xf32>
    %n = arith.divf %d, %rb : vector<8x32xf32>
    %ct = xetile.init_tile %C[%c0, %c0] : memref<64x64xf32> -> !xetile.tile<8x32xf32>
    xetile.store_tile %n, %ct : vector<8x32xf32>, !xetile.tile<8x32xf32>
    // CHECK: xetile.init_tile %{{.*}} -> !xetile.tile<8x1xf32, #xetile.tile_attr<inner_blocks = [8, 1]>>
    // CHECK-NOT: xetile.tile_pack
    // CHECK: xetile.store_tile %[[R]], %{{.*}} : vector<1x1x8x1xf32>
    %st = xetile.init_tile %S[%c0, %c0] : memref<64x1xf32> -> !xetile.tile<8x1xf32>
    xetile.store_tile %r, %st : vector<8x1xf32>, !xetile.tile<8x1xf32>
    gpu.return
  }
}
