// Every XeTile verifier rule, each with its message at the op.
// RUN: xe-opt %s --split-input-file --verify-diagnostics

func.func @memref_rank(%A: memref<4x128x128xbf16>) {
  // expected-error @+1 {{the base memref must be 2D}}
  %t = xetile.init_tile %A[0, 0] : memref<4x128x128xbf16> -> !xetile.tile<8x16xbf16>
  return
}

// -----
func.func @element_type(%A: memref<128x128xf16>) {
  // expected-error @+1 {{tile element type bf16 does not match the memref element type f16}}
  %t = xetile.init_tile %A[0, 0] : memref<128x128xf16> -> !xetile.tile<8x16xbf16>
  return
}

// -----
func.func @offsets(%A: memref<128x128xbf16>) {
  // expected-error @+1 {{init_tile needs 2 offsets for a 2D tile, got 3}}
  %t = xetile.init_tile %A[0, 0, 0] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16>
  return
}

// -----
func.func @dynamic_needs_shape(%A: memref<?x?xbf16>) {
  // expected-error @+1 {{a memref with dynamic shape needs the base shape and strides}}
  %t = xetile.init_tile %A[0, 0] : memref<?x?xbf16> -> !xetile.tile<8x16xbf16>
  return
}

// -----
func.func @static_no_shape(%A: memref<128x128xbf16>) {
  // expected-error @+1 {{a memref with static shape gives the base shape and strides itself}}
  %t = xetile.init_tile %A[0, 0], [128, 128], [128, 1] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16>
  return
}

// -----
func.func @address_needs_shape(%a: i64) {
  // expected-error @+1 {{init_tile on an i64 address needs the base shape and strides}}
  %t = xetile.init_tile %a[0, 0] : i64 -> !xetile.tile<8x16xbf16>
  return
}

// -----
func.func @inner_stride(%a: i64) {
  // expected-error @+1 {{the stride of the contiguous dimension 1 must be 1}}
  %t = xetile.init_tile %a[0, 0], [64, 64], [64, 2] : i64 -> !xetile.tile<8x16xbf16>
  return
}

// -----
func.func @order_value(%A: memref<128x128xbf16>) {
  // expected-error @+1 {{tile order must be [1, 0] (row-major) or [0, 1] (column-major), got [1, 1]}}
  %t = xetile.init_tile %A[0, 0] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16, #xetile.tile_attr<order = [1, 1]>>
  return
}

// -----
func.func @order_vs_layout(%A: memref<128x128xbf16>) {
  // expected-error @+1 {{order = [0, 1] (column-major) tile needs a column-major base memref}}
  %t = xetile.init_tile %A[0, 0] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16, #xetile.tile_attr<order = [0, 1]>>
  return
}

// -----
func.func @row_major_vs_layout(%A: memref<128x128xbf16, strided<[1, 128]>>) {
  // expected-error @+1 {{order = [1, 0] (row-major) tile on a base memref with strides [1, 128]}}
  %t = xetile.init_tile %A[0, 0] : memref<128x128xbf16, strided<[1, 128]>> -> !xetile.tile<8x16xbf16>
  return
}

// -----
func.func @inner_blocks(%A: memref<128x128xbf16>) {
  // expected-error @+1 {{inner_blocks [16, 12] must divide the tile shape [64, 32]}}
  %t = xetile.init_tile %A[0, 0] : memref<128x128xbf16> -> !xetile.tile<64x32xbf16, #xetile.tile_attr<inner_blocks = [16, 12]>>
  return
}

// -----
func.func @wg_map_rule(%A: memref<128x128xbf16>) {
  // expected-error @+1 {{wg_map: in dimension 0, sg_layout*sg_data = 3*32 = 96 must divide the tile size 128 or be divisible by it}}
  %t = xetile.init_tile %A[0, 0] : memref<128x128xbf16> -> !xetile.tile<128x128xbf16, #xetile.tile_attr<wg_map = <sg_layout = [3, 2], sg_data = [32, 64]>>>
  return
}

// -----
func.func @sg_map_rule(%A: memref<128x128xbf16>) {
  // expected-error @+1 {{sg_map: in dimension 1, wi_layout*wi_data = 16*2 = 32 must divide the subgroup data size 16}}
  %t = xetile.init_tile %A[0, 0] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16, #xetile.tile_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 2]>>>
  return
}

// -----
func.func @memory_space(%A: memref<128x128xbf16>) {
  // expected-error @+1 {{tile memory_space must be 0 (global) or 3 (shared local memory), got 1}}
  %t = xetile.init_tile %A[0, 0] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16, #xetile.tile_attr<memory_space = 1 : i32>>
  return
}

// -----
func.func @scattered_needs_offsets(%a: i64) {
  // expected-error @+1 {{a scattered tile needs an offsets vector operand}}
  %t = xetile.init_tile %a[0, 0], [64, 64], [64, 1] : i64 -> !xetile.tile<1x16xbf16, #xetile.tile_attr<scattered = true>>
  return
}

// -----
func.func @offsets_vector_shape(%a: i64, %o: vector<1x32xindex>) {
  // expected-error @+1 {{offsets vector shape 1x32 must equal the tile shape 1x16}}
  %t = xetile.init_tile %a, %o : i64, vector<1x32xindex> -> !xetile.tile<1x16xbf16, #xetile.tile_attr<scattered = true>>
  return
}

// -----
func.func @load_shape(%t: !xetile.tile<8x16xbf16>) {
  // expected-error @+1 {{result vector shape 16x8 does not match the tile shape 8x16}}
  %v = xetile.load_tile %t : !xetile.tile<8x16xbf16> -> vector<16x8xbf16>
  return
}

// -----
func.func @load_blocked_shape(%t: !xetile.tile<64x32xbf16, #xetile.tile_attr<inner_blocks = [16, 16]>>) {
  // expected-error @+1 {{result vector shape 64x32 does not match the tile shape 4x2x16x16 (blocked by inner_blocks)}}
  %v = xetile.load_tile %t : !xetile.tile<64x32xbf16, #xetile.tile_attr<inner_blocks = [16, 16]>> -> vector<64x32xbf16>
  return
}

// -----
func.func @load_element(%t: !xetile.tile<8x16xbf16>) {
  // expected-error @+1 {{result vector element type f16 does not match the tile element type bf16}}
  %v = xetile.load_tile %t : !xetile.tile<8x16xbf16> -> vector<8x16xf16>
  return
}

// -----
func.func @load_transpose_perm(%t: !xetile.tile<8x16xbf16>) {
  // expected-error @+1 {{transpose must be a permutation of [0, 1], got [1, 1]}}
  %v = xetile.load_tile %t {transpose = [1, 1]} : !xetile.tile<8x16xbf16> -> vector<8x16xbf16>
  return
}

// -----
func.func @load_padding_type(%t: !xetile.tile<8x16xbf16>) {
  // expected-error @+1 {{padding value type f64 does not match the tile element type bf16 (use bf16, or an f32 or i32 value as IMEX does)}}
  %v = xetile.load_tile %t {padding = 1.0 : f64} : !xetile.tile<8x16xbf16> -> vector<8x16xbf16>
  return
}

// -----
func.func @store_shape(%t: !xetile.tile<8x16xf32>, %v: vector<8x8xf32>) {
  // expected-error @+1 {{stored vector shape 8x8 does not match the tile shape 8x16}}
  xetile.store_tile %v, %t : vector<8x8xf32>, !xetile.tile<8x16xf32>
  return
}

// -----
func.func @locality(%t: !xetile.tile<8x16xf32>) {
  // expected-error @+1 {{locality must be in [0, 3] as for memref.prefetch, got 5}}
  xetile.prefetch_tile %t {locality = 5 : i32} : !xetile.tile<8x16xf32>
  return
}

// -----
func.func @update_offsets(%t: !xetile.tile<8x16xf32>) {
  // expected-error @+1 {{update_tile_offset needs 2 offsets, got 1}}
  %u = xetile.update_tile_offset %t, [16] : !xetile.tile<8x16xf32>
  return
}

// -----
func.func @mma_k(%a: vector<64x32xbf16>, %b: vector<16x128xbf16>) {
  // expected-error @+1 {{the K dimensions 32 and 16 differ}}
  %c = xetile.tile_mma %a, %b : vector<64x32xbf16>, vector<16x128xbf16> -> vector<64x128xf32>
  return
}

// -----
func.func @mma_result(%a: vector<64x32xbf16>, %b: vector<32x128xbf16>) {
  // expected-error @+1 {{result shape 64x64 must be 64x128}}
  %c = xetile.tile_mma %a, %b : vector<64x32xbf16>, vector<32x128xbf16> -> vector<64x64xf32>
  return
}

// -----
func.func @mma_types(%a: vector<64x32xbf16>, %b: vector<32x128xf16>) {
  // expected-error @+1 {{A and B element types must match, got bf16 and f16}}
  %c = xetile.tile_mma %a, %b : vector<64x32xbf16>, vector<32x128xf16> -> vector<64x128xf32>
  return
}

// -----
func.func @mma_acc_kind(%a: vector<64x32xi8>, %b: vector<32x128xi8>) {
  // expected-error @+1 {{result element type f32 does not suit i8 inputs}}
  %c = xetile.tile_mma %a, %b : vector<64x32xi8>, vector<32x128xi8> -> vector<64x128xf32>
  return
}

// -----
func.func @mma_acc_type(%a: vector<64x32xbf16>, %b: vector<32x128xbf16>, %c: vector<64x128xf16>) {
  // expected-error @+1 {{the accumulator C must have the result type}}
  %r = xetile.tile_mma %a, %b, %c : vector<64x32xbf16>, vector<32x128xbf16>, vector<64x128xf16> -> vector<64x128xf32>
  return
}

// -----
func.func @mma_blocked(%a: vector<8x4x8x8xbf16>, %b: vector<2x8x8x16xbf16>, %c: vector<8x8x8x16xf32>) {
  // expected-error @+1 {{the K blocks must agree}}
  %r = xetile.tile_mma %a, %b, %c : vector<8x4x8x8xbf16>, vector<2x8x8x16xbf16>, vector<8x8x8x16xf32> -> vector<8x8x8x16xf32>
  return
}

// -----
func.func @mma_ranks(%a: vector<8x4x8x8xbf16>, %b: vector<32x128xbf16>) {
  // expected-error @+1 {{tile_mma operands must be all 2D or all blocked 4D vectors}}
  %r = xetile.tile_mma %a, %b : vector<8x4x8x8xbf16>, vector<32x128xbf16> -> vector<64x128xf32>
  return
}

// -----
func.func @mma_maps_layout(%a: vector<256x32xbf16>, %b: vector<32x256xbf16>, %c: vector<256x256xf32>) {
  // expected-warning @+1 {{wg_map_a.sg_layout [4, 8] differs from wg_map_c.sg_layout [8, 4] (RFC: 'They must have the same sg_layout'); xetile-wg-to-sg needs them equal}}
  %r = xetile.tile_mma %a, %b, %c {wg_map_a = #xetile.wg_map<sg_layout = [4, 8], sg_data = [32, 32]>, wg_map_c = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>} : vector<256x32xbf16>, vector<32x256xbf16>, vector<256x256xf32> -> vector<256x256xf32>
  return
}

// -----
func.func @mma_maps_m(%a: vector<256x32xbf16>, %b: vector<32x256xbf16>, %c: vector<256x256xf32>) {
  // expected-error @+1 {{wg_map_a.sg_data[0] = 16 must equal wg_map_c.sg_data[0] = 32 (M)}}
  %r = xetile.tile_mma %a, %b, %c {wg_map_a = #xetile.wg_map<sg_layout = [8, 4], sg_data = [16, 32]>, wg_map_c = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>} : vector<256x32xbf16>, vector<32x256xbf16>, vector<256x256xf32> -> vector<256x256xf32>
  return
}

// -----
func.func @mma_maps_k(%a: vector<256x32xbf16>, %b: vector<32x256xbf16>, %c: vector<256x256xf32>) {
  // expected-error @+1 {{wg_map_a.sg_data[1] = 32 must equal wg_map_b.sg_data[0] = 16 (K)}}
  %r = xetile.tile_mma %a, %b, %c {wg_map_a = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 32]>, wg_map_b = #xetile.wg_map<sg_layout = [8, 4], sg_data = [16, 64]>} : vector<256x32xbf16>, vector<32x256xbf16>, vector<256x256xf32> -> vector<256x256xf32>
  return
}

// -----
func.func @atomic_kind(%t: !xetile.tile<8x16xi32>, %v: vector<8x16xi32>) {
  // expected-error @+1 {{atomic kind addf needs float elements, got i32}}
  %r = xetile.atomic_rmw_tile <addf> %v, %t : vector<8x16xi32>, !xetile.tile<8x16xi32> -> vector<8x16xi32>
  return
}

// -----
func.func @atomic_kind_name(%t: !xetile.tile<8x16xf32>, %v: vector<8x16xf32>) {
  // expected-error @+1 {{invalid atomic kind 'add'; expected one of: addf, addi}}
  %r = xetile.atomic_rmw_tile <add> %v, %t : vector<8x16xf32>, !xetile.tile<8x16xf32> -> vector<8x16xf32>
  return
}

// -----
func.func @transpose_shape(%v: vector<64x32xf32>) {
  // expected-error @+1 {{result must be vector<32x64xf32> (the permuted source), got 64x32xf32}}
  %r = xetile.tile_transpose %v [1, 0] : vector<64x32xf32> -> vector<64x32xf32>
  return
}

// -----
func.func @transpose_rank(%v: vector<4x2x16x16xf32>) {
  // expected-error @+1 {{tile_transpose works on 2D vectors only (RFC), got rank 4}}
  %r = xetile.tile_transpose %v [1, 0] : vector<4x2x16x16xf32> -> vector<4x2x16x16xf32>
  return
}

// -----
func.func @reduce_shape(%v: vector<64x32xf32>) {
  // expected-error @+1 {{result must be vector<64x1xf32> (reduced dims kept as 1), got 64xf32}}
  %r = xetile.tile_reduce <add> %v [1] : vector<64x32xf32> -> vector<64xf32>
  return
}

// -----
func.func @reduce_kind(%v: vector<64x32xf32>) {
  // expected-error @+1 {{reduction kind maxsi is not valid for f32 elements}}
  %r = xetile.tile_reduce <maxsi> %v [1] : vector<64x32xf32> -> vector<64x1xf32>
  return
}

// -----
func.func @reduce_dims(%v: vector<64x32xf32>) {
  // expected-error @+1 {{reduction_dims [2] must be distinct dimensions of the rank-2 source}}
  %r = xetile.tile_reduce <add> %v [2] : vector<64x32xf32> -> vector<64x32xf32>
  return
}

// -----
func.func @reduce_4d_partial(%v: vector<2x2x8x16xf32>) {
  // expected-error @+1 {{reduction_dims [3] of a blocked 4D vector must reduce whole dimensions: d together with d + 2}}
  %r = xetile.tile_reduce <add> %v [3] : vector<2x2x8x16xf32> -> vector<2x2x8x1xf32>
  return
}

// -----

func.func @broadcast_4d_partial(%v: vector<2x1x8x16xf32>) {
  // expected-error @+1 {{broadcast_dims [1] of a blocked 4D vector must broadcast whole dimensions}}
  %r = xetile.tile_broadcast %v [1] : vector<2x1x8x16xf32> -> vector<2x2x8x16xf32>
  return
}

// -----

func.func @broadcast_dim(%v: vector<2x32xf32>) {
  // expected-error @+1 {{broadcast dimension 0 must have size 1 in the source, got 2}}
  %r = xetile.tile_broadcast %v [0] : vector<2x32xf32> -> vector<64x32xf32>
  return
}

// -----
func.func @broadcast_other(%v: vector<1x32xf32>) {
  // expected-error @+1 {{dimension 1 is not broadcast, so source size 32 must equal result size 64}}
  %r = xetile.tile_broadcast %v [0] : vector<1x32xf32> -> vector<64x64xf32>
  return
}

// -----
func.func @pack_shape(%v: vector<64x32xf32>) {
  // expected-error @+1 {{result must be vector<4x2x16x16xf32> (out_dim = [in0/ib0, in1/ib1, ib0, ib1])}}
  %r = xetile.tile_pack %v {inner_blocks = [16, 16]} : vector<64x32xf32> -> vector<2x4x16x16xf32>
  return
}

// -----
func.func @pack_divide(%v: vector<64x32xf32>) {
  // expected-error @+1 {{inner_blocks [16, 12] must divide the source shape 64x32}}
  %r = xetile.tile_pack %v {inner_blocks = [16, 12]} : vector<64x32xf32> -> vector<4x2x16x16xf32>
  return
}

// -----
func.func @unpack_shape(%v: vector<4x2x16x16xf32>) {
  // expected-error @+1 {{unpacks to vector<64x32xf32>, got 32x64xf32}}
  %r = xetile.tile_unpack %v {inner_blocks = [16, 16]} : vector<4x2x16x16xf32> -> vector<32x64xf32>
  return
}

// -----
func.func @conv_layout(%v: vector<256x256xf32>) {
  // expected-error @+1 {{tile_conv_layout changes the layout only: result type must equal source type}}
  %r = xetile.tile_conv_layout %v {wg_map = #xetile.wg_map<sg_layout = [32, 1], sg_data = [8, 256]>} : vector<256x256xf32> -> vector<256x256xf16>
  return
}

// -----
func.func @gather_tile(%t: !xetile.tile<1x16xf32>, %m: vector<1x16xi1>) {
  // expected-error @+1 {{the tile must be scattered}}
  %r = xetile.load_gather %t, %m : !xetile.tile<1x16xf32>, vector<1x16xi1> -> vector<1x16xf32>
  return
}

// -----
func.func @scatter_mask(%v: vector<1x16xf32>, %t: !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, %m: vector<1x8xi1>) {
  // expected-error @+1 {{mask must be vector<1x16xi1>}}
  xetile.store_scatter %v, %t, %m : vector<1x16xf32>, !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, vector<1x8xi1>
  return
}
