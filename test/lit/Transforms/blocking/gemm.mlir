// xetile-blocking on a subgroup GEMM (pipeline stage 2 -> 3): tiles get the largest legal 2D block
// that is a multiple of the DPAS block of the operand they feed; the accumulator and the store
// use the DPAS C block; the K loop carries the tiles and the 4D accumulator.
// RUN: xe-opt %s --xetile-blocking | FileCheck %s
// RUN: xe-opt %s --xetile-blocking=load-blocks=mma | FileCheck %s --check-prefix=MMA
// RUN: xe-opt %s --xetile-blocking --xetile-check-hw=require-blocked=true -o /dev/null

gpu.module @k {
  // CHECK-LABEL: gpu.func @gemm
  // MMA-LABEL: gpu.func @gemm
  gpu.func @gemm(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>, %m: index, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    // CHECK: %[[A:.*]] = xetile.init_tile %{{.*}} -> !xetile.tile<8x32xbf16, #xetile.tile_attr<inner_blocks = [8, 32]>>
    // CHECK: %[[B:.*]] = xetile.init_tile %{{.*}} -> !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>
    // CHECK: %[[C:.*]] = xetile.init_tile %{{.*}} -> !xetile.tile<8x32xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
    // MMA: xetile.init_tile %{{.*}} -> !xetile.tile<8x32xbf16, #xetile.tile_attr<inner_blocks = [8, 16]>>
    // MMA: xetile.init_tile %{{.*}} -> !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [16, 16]>>
    %a = xetile.init_tile %A[%m, %c0] : memref<256x256xbf16> -> !xetile.tile<8x32xbf16>
    %b = xetile.init_tile %B[%c0, %n] : memref<256x256xbf16> -> !xetile.tile<32x32xbf16>
    %ct = xetile.init_tile %C[%m, %n] : memref<256x256xf32> -> !xetile.tile<8x32xf32>
    // CHECK: %[[C0:.*]] = xetile.load_tile %[[C]] : {{.*}} -> vector<1x2x8x16xf32>
    %c = xetile.load_tile %ct : !xetile.tile<8x32xf32> -> vector<8x32xf32>
    // CHECK: %[[R:.*]]:3 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[C0]], %[[TA:.*]] = %[[A]], %[[TB:.*]] = %[[B]]) -> (vector<1x2x8x16xf32>, !xetile.tile<8x32xbf16, #xetile.tile_attr<inner_blocks = [8, 32]>>, !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>)
    %r:3 = scf.for %k = %c0 to %c256 step %c32 iter_args(%acc = %c, %ta = %a, %tb = %b)
        -> (vector<8x32xf32>, !xetile.tile<8x32xbf16>, !xetile.tile<32x32xbf16>) {
      // CHECK: %[[VA:.*]] = xetile.load_tile %[[TA]] : {{.*}} -> vector<1x1x8x32xbf16>
      // CHECK: %[[VB:.*]] = xetile.load_tile %[[TB]] : {{.*}} -> vector<1x2x32x16xbf16>
      // CHECK: %[[UA:.*]] = xetile.tile_unpack %[[VA]] {inner_blocks = [8, 32]} : vector<1x1x8x32xbf16> -> vector<8x32xbf16>
      // CHECK: %[[PA:.*]] = xetile.tile_pack %[[UA]] {inner_blocks = [8, 16]} : vector<8x32xbf16> -> vector<1x2x8x16xbf16>
      // CHECK: %[[UB:.*]] = xetile.tile_unpack %[[VB]] {inner_blocks = [32, 16]} : vector<1x2x32x16xbf16> -> vector<32x32xbf16>
      // CHECK: %[[PB:.*]] = xetile.tile_pack %[[UB]] {inner_blocks = [16, 16]} : vector<32x32xbf16> -> vector<2x2x16x16xbf16>
      // CHECK: %[[D:.*]] = xetile.tile_mma %[[PA]], %[[PB]], %[[ACC]] : vector<1x2x8x16xbf16>, vector<2x2x16x16xbf16>, vector<1x2x8x16xf32> -> vector<1x2x8x16xf32>
      // MMA-NOT: xetile.tile_pack
      // MMA: xetile.tile_mma %{{.*}}, %{{.*}}, %{{.*}} : vector<1x2x8x16xbf16>, vector<2x2x16x16xbf16>, vector<1x2x8x16xf32> -> vector<1x2x8x16xf32>
      %va = xetile.load_tile %ta : !xetile.tile<8x32xbf16> -> vector<8x32xbf16>
      %vb = xetile.load_tile %tb : !xetile.tile<32x32xbf16> -> vector<32x32xbf16>
      %d = xetile.tile_mma %va, %vb, %acc : vector<8x32xbf16>, vector<32x32xbf16>, vector<8x32xf32> -> vector<8x32xf32>
      %na = xetile.update_tile_offset %ta, [%c0, %c32] : !xetile.tile<8x32xbf16>
      %nb = xetile.update_tile_offset %tb, [%c32, %c0] : !xetile.tile<32x32xbf16>
      // CHECK: scf.yield %[[D]], %{{.*}}, %{{.*}} : vector<1x2x8x16xf32>,
      scf.yield %d, %na, %nb : vector<8x32xf32>, !xetile.tile<8x32xbf16>, !xetile.tile<32x32xbf16>
    }
    // CHECK: xetile.store_tile %[[R]]#0, %[[C]] : vector<1x2x8x16xf32>, !xetile.tile<8x32xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
    xetile.store_tile %r#0, %ct : vector<8x32xf32>, !xetile.tile<8x32xf32>
    gpu.return
  }
}
