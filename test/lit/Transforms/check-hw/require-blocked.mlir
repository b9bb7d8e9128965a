// With require-blocked, an unblocked tile or tile_mma is an error and the pass fails.
// RUN: xe-opt %s --xetile-check-hw=require-blocked=true --verify-diagnostics

gpu.module @k {
  gpu.func @unblocked(%A: memref<64x64xf32>, %x: vector<8x16xf32>, %y: vector<16x16xf32>) kernel {
    %c0 = arith.constant 0 : index
    %a = xetile.init_tile %A[%c0, %c0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
    // expected-error @+1 {{xetile-check-hw: load of the 8x16xf32 tile is not blocked (no inner_blocks); require-blocked is set}}
    %v = xetile.load_tile %a : !xetile.tile<8x16xf32> -> vector<8x16xf32>
    // expected-error @+1 {{xetile-check-hw: tile_mma 8x16 x 16x16 is not blocked; require-blocked is set}}
    %d = xetile.tile_mma %x, %y : vector<8x16xf32>, vector<16x16xf32> -> vector<8x16xf32>
    gpu.return
  }
}
