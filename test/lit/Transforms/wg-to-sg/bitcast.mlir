// vector.bitcast of a work-group vector (the i4 unpack of fused W4A16 GEMMs, docs/quantized-gemm.md): each
// subgroup bitcasts its own piece; the source's map is the result's with the innermost sg_data scaled by
// the element-count ratio. A source distributed otherwise is an error.
// RUN: xe-opt %s --split-input-file --xetile-wg-to-sg --verify-diagnostics | FileCheck %s

#w = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 8]>
#b = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 16]>
// CHECK-LABEL: gpu.func @bitcast(
// CHECK:       %[[V:.*]] = xetile.load_tile %{{.*}} : !xetile.tile<16x8xi16> -> vector<16x8xi16>
// CHECK:       %[[B:.*]] = vector.bitcast %[[V]] : vector<16x8xi16> to vector<16x16xi8>
// CHECK:       xetile.store_tile %[[B]], %{{.*}} : vector<16x16xi8>, !xetile.tile<16x16xi8>
gpu.module @m {
  gpu.func @bitcast(%W: memref<32x16xi16>, %O: memref<32x32xi8>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %wt = xetile.init_tile %W[0, 0] : memref<32x16xi16> -> !xetile.tile<32x16xi16, #xetile.tile_attr<wg_map = #w>>
    %v = xetile.load_tile %wt : !xetile.tile<32x16xi16, #xetile.tile_attr<wg_map = #w>> -> vector<32x16xi16>
    %b = vector.bitcast %v {wg_map = #b} : vector<32x16xi16> to vector<32x32xi8>
    %ot = xetile.init_tile %O[0, 0] : memref<32x32xi8> -> !xetile.tile<32x32xi8, #xetile.tile_attr<wg_map = #b>>
    xetile.store_tile %b, %ot : vector<32x32xi8>, !xetile.tile<32x32xi8, #xetile.tile_attr<wg_map = #b>>
    gpu.return
  }
}

// -----
#w = #xetile.wg_map<sg_layout = [4, 1], sg_data = [8, 16]>
#b = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 16]>
gpu.module @m {
  gpu.func @mismatch(%W: memref<32x16xi16>, %O: memref<32x32xi8>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %wt = xetile.init_tile %W[0, 0] : memref<32x16xi16> -> !xetile.tile<32x16xi16, #xetile.tile_attr<wg_map = #w>>
    %v = xetile.load_tile %wt : !xetile.tile<32x16xi16, #xetile.tile_attr<wg_map = #w>> -> vector<32x16xi16>
    // expected-error @+1 {{vector.bitcast from sg_layout = [4, 1], sg_data = [8, 16] to sg_layout = [2, 2], sg_data = [16, 16]: each subgroup bitcasts its own piece}}
    %b = vector.bitcast %v {wg_map = #b} : vector<32x16xi16> to vector<32x32xi8>
    %ot = xetile.init_tile %O[0, 0] : memref<32x32xi8> -> !xetile.tile<32x32xi8, #xetile.tile_attr<wg_map = #b>>
    xetile.store_tile %b, %ot : vector<32x32xi8>, !xetile.tile<32x32xi8, #xetile.tile_attr<wg_map = #b>>
    gpu.return
  }
}
