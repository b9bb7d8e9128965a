// The wg_map an element-wise op carries must agree with the map of the values it is joined with.
// RUN: xe-opt %s --xetile-wg-to-sg --verify-diagnostics

#c = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 16]>
#r = #xetile.wg_map<sg_layout = [4, 1], sg_data = [8, 32]>
gpu.module @m {
  gpu.func @conflict(%C: memref<32x32xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %ct = xetile.init_tile %C[0, 0] : memref<32x32xf32> -> !xetile.tile<32x32xf32, #xetile.tile_attr<wg_map = #c>>
    %v = xetile.load_tile %ct : !xetile.tile<32x32xf32, #xetile.tile_attr<wg_map = #c>> -> vector<32x32xf32>
    // expected-error @+1 {{'arith.negf' result map 32x32 with #xetile.wg_map<sg_layout = [4, 1], sg_data = [8, 32]> conflicts with 32x32 with #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 16]> (from 'xetile.load_tile') of a value it is joined with}}
    %n = arith.negf %v {wg_map = #r} : vector<32x32xf32>
    xetile.store_tile %n, %ct : vector<32x32xf32>, !xetile.tile<32x32xf32, #xetile.tile_attr<wg_map = #c>>
    gpu.return
  }
}
