// IMEX's XeTile spellings are checked by our ops' rules; each error is reported at the op (or, for
// a syntax error, at the token).
// RUN: xe-opt %s --split-input-file --verify-diagnostics

func.func @reduction_keeps_dims(%v: vector<8x32xf32>) {
  // expected-error @+1 {{result must be vector<8x1xf32> (reduced dims kept as 1), got 8x2xf32}}
  %r = xetile.reduction <add>, %v [1] : vector<8x32xf32> -> vector<8x2xf32>
  return
}

// -----
func.func @reduction_size_result(%v: vector<8x32xf32>) {
  // expected-error @+1 {{result must be vector<8x4xf32> (dimension 1 reduced by reduction_size 8), got 8x2xf32}}
  %r = xetile.reduction <add>, %v [1] {reduction_size = 8 : i64} : vector<8x32xf32> -> vector<8x2xf32>
  return
}

// -----
func.func @reduction_size_divides(%v: vector<8x30xf32>) {
  // expected-error @+1 {{reduction_size 8 must divide the reduced dimension's size 30}}
  %r = xetile.reduction <add>, %v [1] {reduction_size = 8 : i64} : vector<8x30xf32> -> vector<8x3xf32>
  return
}

// -----
func.func @reduction_kind(%v: vector<8x32xi32>) {
  // expected-error @+1 {{reduction kind maxnumf is not valid for i32 elements}}
  %r = xetile.reduction <maxnumf>, %v [0] : vector<8x32xi32> -> vector<1x32xi32>
  return
}

// -----
func.func @broadcast_source_dim(%v: vector<2x16xf16>) {
  // expected-error @+1 {{broadcast dimension 0 must have size 1 in the source, got 2}}
  %b = xetile.broadcast %v [0] : vector<2x16xf16> -> vector<8x16xf16>
  return
}

// -----
func.func @transpose_result(%v: vector<8x16xf16>) {
  // expected-error @+1 {{result must be vector<16x8xf16> (the permuted source), got 8x16xf16}}
  %t = xetile.transpose %v, [1, 0] : vector<8x16xf16> -> vector<8x16xf16>
  return
}

// -----
func.func @convert_layout_map(%v: vector<64x64xf32>) {
  // expected-error @+1 {{wg_map: in dimension 0, sg_layout*sg_data = 3*16 = 48 must divide the vector size 64 or be divisible by it}}
  %c = xetile.convert_layout %v {wg_map_result = #xetile.wg_map<sg_layout = [3, 4], sg_data = [16, 16]>} : vector<64x64xf32>
  return
}

// -----
func.func @load_needs_scattered_tile(%t: !xetile.tile<1x16xf32>, %m: vector<1x16xi1>) {
  // expected-error @+1 {{the tile must be scattered (created by init_tile %addr, %offsets)}}
  %v = xetile.load %t, %m : !xetile.tile<1x16xf32>, vector<1x16xi1> -> vector<1x16xf32>
  return
}

// -----
func.func @store_mask_shape(%t: !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, %m: vector<16xi1>, %v: vector<1x16xf32>) {
  // expected-error @+1 {{mask must be vector<1x16xi1>}}
  xetile.store %v, %t, %m : vector<1x16xf32>, !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, vector<16xi1>
  return
}

// -----
func.func @atomic_kind_type(%t: !xetile.tile<1x16xi32, #xetile.tile_attr<scattered = true>>, %v: vector<1x16xi32>) {
  // expected-error @+1 {{atomic kind addf needs float elements, got i32}}
  %r = xetile.atomic_rmw addf %v, %t : vector<1x16xi32>, !xetile.tile<1x16xi32, #xetile.tile_attr<scattered = true>> -> vector<1x16xi32>
  return
}

// -----
func.func @vector_offsets_need_scattered(%t: !xetile.tile<1x16xf32>, %d: vector<1x16xindex>) {
  // expected-error @+1 {{a vector of offsets moves a scattered tile only; give [offsets] for this tile}}
  %u = xetile.update_tile_offset %t, %d : !xetile.tile<1x16xf32>, vector<1x16xindex>
  return
}

// -----
func.func @vector_offsets_shape(%t: !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, %d: vector<16xindex>) {
  // expected-error @+1 {{the offsets vector must be vector<1x16xindex> for this tile}}
  %u = xetile.update_tile_offset %t, %d : !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, vector<16xindex>
  return
}

// -----
func.func @padding_i8_on_float(%t: !xetile.tile<8x16xf16>) {
  // expected-error @+1 {{padding value type i8 does not match the tile element type f16 (use f16, or an f32 or i32 value as IMEX does)}}
  %v = xetile.load_tile %t {padding = 0 : i8} : !xetile.tile<8x16xf16> -> vector<8x16xf16>
  return
}

// -----
func.func @slm_memref_global_tile(%a: memref<64x64xf16, 3>) {
  // expected-error @+1 {{tile memory_space = 0 does not match the memory space 3 of the base memref}}
  %t = xetile.init_tile %a[0, 0] : memref<64x64xf16, 3> -> !xetile.tile<8x16xf16>
  return
}

// -----
func.func @slm_memref_i64_global_tile(%a: memref<64x64xf16, 3 : i64>) {
  // expected-error @+1 {{tile memory_space = 0 does not match the memory space 3 of the base memref}}
  %t = xetile.init_tile %a[0, 0] : memref<64x64xf16, 3 : i64> -> !xetile.tile<8x16xf16>
  return
}

// -----
func.func @workgroup_memref_global_tile(%a: memref<64x64xf16, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{tile memory_space = 0 does not match the memory space #gpu.address_space<workgroup> of the base memref}}
  %t = xetile.init_tile %a[0, 0] : memref<64x64xf16, #gpu.address_space<workgroup>> -> !xetile.tile<8x16xf16>
  return
}

// -----
func.func @row_major_address_strides(%p: i64) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{the stride of the contiguous dimension 1 must be 1 for order = [1, 0]}}
  %t = xetile.init_tile %p[0, 0], [%c64, %c64], [%c1, %c64] : i64 -> !xetile.tile<8x16xf16>
  return
}

// -----
func.func @batched_needs_static_shape(%b: memref<?x3x64x32xf16>) {
  // expected-error @+1 {{an init_tile on an N-D memref needs a static shape}}
  %t = xetile.init_tile %b[0, 0, 0, 0] : memref<?x3x64x32xf16> -> !xetile.tile<16x32xf16>
  return
}

// -----
func.func @bad_cache_hint(%t: !xetile.tile<8x16xf16>) {
  // expected-error @+1 {{invalid #xetile.cache_hint value 'cashed'; expected one of: cached, uncached, streaming, read_invalidate, write_back, write_through}}
  xetile.prefetch_tile %t {l1_hint = #xetile.cache_hint<cashed>} : !xetile.tile<8x16xf16>
  return
}

// -----
func.func @bad_integer_type(%t: !xetile.tile<8x16xf16, #xetile.tile_attr<memory_space = 3 : f32>>) {
  return
}
// expected-error @-3 {{expected an integer type such as i32, got f32}}

// -----
func.func @batched_with_strides_not_contiguous(%c: memref<?x128x96xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c96 = arith.constant 96 : index
  // expected-error @+1 {{the stride of the innermost dimension must be 1}}
  %t = xetile.init_tile %c[%c0, %c0, %c0], [%c2, %c96, %c96], [%c96, %c96, %c2] : memref<?x128x96xf32> -> !xetile.tile<32x32xf32>
  return
}

// -----
func.func @batched_with_shape_element_type(%c: memref<?x128x96xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c96 = arith.constant 96 : index
  // expected-error @+1 {{tile element type f16 does not match the memref element type f32}}
  %t = xetile.init_tile %c[%c0, %c0, %c0], [%c1, %c96, %c96], [%c96, %c96, %c1] : memref<?x128x96xf32> -> !xetile.tile<32x32xf16>
  return
}
