// Syntax errors in the readable forms point at the offending token.
// RUN: xe-opt %s --split-input-file --verify-diagnostics

func.func @unknown_op(%A: memref<128x128xbf16>) {
  // expected-error @+1 {{unknown operation 'xetile.init_tiles' in dialect 'xetile'}}
  %t = xetile.init_tiles %A[0, 0] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16>
  return
}

// -----
// expected-error @+1 {{unknown field 'orders' in #xetile.tile_attr}}
func.func @unknown_field(%t: !xetile.tile<8x16xbf16, #xetile.tile_attr<orders = [0, 1]>>) {
  return
}

// -----
// expected-error @+1 {{expected a static shape like 8x16xbf16 in !xetile.tile}}
func.func @bad_shape(%t: !xetile.tile<?x16xbf16>) {
  return
}

// -----
// expected-error @+1 {{field 'sg_data' is required}}
func.func @missing_field(%t: !xetile.tile<8x16xbf16, #xetile.tile_attr<wg_map = <sg_layout = [2, 2]>>>) {
  return
}

// -----
func.func @missing_arrow(%A: memref<128x128xbf16>) {
  // expected-error @+1 {{expected '->' in xetile.init_tile}}
  %t = xetile.init_tile %A[0, 0] : memref<128x128xbf16> !xetile.tile<8x16xbf16>
  return
}

// -----
func.func @attr_in_syntax(%v: vector<64x32xf32>) {
  // expected-error @+1 {{attribute 'permutation' of xetile.tile_transpose is written by the op syntax}}
  %r = xetile.tile_transpose %v [1, 0] {permutation = [1, 0]} : vector<64x32xf32> -> vector<32x64xf32>
  return
}
