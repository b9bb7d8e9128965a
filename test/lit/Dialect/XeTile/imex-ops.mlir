// IMEX's XeTile spellings (docs/imex-xetile.md) parse into our ops and print in the RFC form; the
// printed form, re-parsed, prints the same, and so does the generic form.
// RUN: xe-opt %s | FileCheck %s
// RUN: xe-opt %s | xe-opt | FileCheck %s
// RUN: xe-opt %s --mlir-print-op-generic | xe-opt | FileCheck %s

!st = !xetile.tile<2x16xf32, #xetile.tile_attr<scattered = true>>

// CHECK-LABEL: func.func @vector_ops
func.func @vector_ops(%v: vector<32x64xf32>, %r: vector<1x64xf32>) {
  // CHECK: xetile.tile_reduce <maximumf> %{{.*}} [0] : vector<32x64xf32> -> vector<1x64xf32>
  %a = xetile.reduction <maximumf>, %v [0] : vector<32x64xf32> -> vector<1x64xf32>
  // CHECK: xetile.tile_reduce <add> %{{.*}} [1] {reduction_size = 16} : vector<32x64xf32> -> vector<32x4xf32>
  %b = xetile.reduction <add>, %v [1] {reduction_size = 16 : i64} : vector<32x64xf32> -> vector<32x4xf32>
  // CHECK: xetile.tile_broadcast %{{.*}} [0] : vector<1x64xf32> -> vector<32x64xf32>
  %c = xetile.broadcast %r [0] : vector<1x64xf32> -> vector<32x64xf32>
  // CHECK: xetile.tile_transpose %{{.*}} [1, 0] {wg_map = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 16]>} : vector<32x64xf32> -> vector<64x32xf32>
  %d = xetile.transpose %v, [1, 0] {map = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 16]>} : vector<32x64xf32> -> vector<64x32xf32>
  // CHECK: xetile.tile_conv_layout %{{.*}} {wg_map = #xetile.wg_map<sg_layout = [4, 1], sg_data = [8, 64]>, wg_map_source = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 32]>} : vector<32x64xf32> -> vector<32x64xf32>
  %e = xetile.convert_layout %v {wg_map_result = #xetile.wg_map<sg_layout = [4, 1], sg_data = [8, 64]>, wg_map_source = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 32]>} : vector<32x64xf32>
  return
}

// CHECK-LABEL: func.func @scattered
func.func @scattered(%m: memref<256xf32>, %slm: memref<128xf32, 3>, %idx: vector<2x16xindex>, %mask: vector<2x16xi1>, %x: vector<2x16xf32>) {
  // CHECK: xetile.init_tile %{{.*}}, %{{.*}} : memref<256xf32>, vector<2x16xindex> -> !xetile.tile<2x16xf32, #xetile.tile_attr<scattered = true>>
  %t = xetile.init_tile %m, %idx : memref<256xf32>, vector<2x16xindex> -> !st
  // CHECK: xetile.load_gather %{{.*}}, %{{.*}} {padding = 1.000000e+00 : f32, l1_hint = #xetile.cache_hint<cached>} : !xetile.tile<2x16xf32, #xetile.tile_attr<scattered = true>>, vector<2x16xi1> -> vector<2x16xf32>
  %l = xetile.load %t, %mask {padding = 1.0 : f32, l1_hint = #xetile.cache_hint<cached>} : !st, vector<2x16xi1> -> vector<2x16xf32>
  // CHECK: xetile.store_scatter %{{.*}}, %{{.*}}, %{{.*}} {l1_hint = #xetile.cache_hint<write_back>} : vector<2x16xf32>, !xetile.tile<2x16xf32, #xetile.tile_attr<scattered = true>>, vector<2x16xi1>
  xetile.store %l, %t, %mask {l1_hint = #xetile.cache_hint<write_back>} : vector<2x16xf32>, !st, vector<2x16xi1>
  // CHECK: xetile.atomic_rmw_tile <addf> %{{.*}}, %{{.*}} : vector<2x16xf32>, !xetile.tile<2x16xf32, #xetile.tile_attr<scattered = true>> -> vector<2x16xf32>
  %o = xetile.atomic_rmw addf %x, %t : vector<2x16xf32>, !st -> vector<2x16xf32>
  // CHECK: xetile.update_tile_offset %{{.*}}, %{{.*}} : !xetile.tile<2x16xf32, #xetile.tile_attr<scattered = true>>, vector<2x16xindex>
  %u = xetile.update_tile_offset %t, %idx : !st, vector<2x16xindex>
  // CHECK: xetile.init_tile %{{.*}}, %{{.*}} : memref<128xf32, 3>, vector<2x16xindex> -> !xetile.tile<2x16xf32, #xetile.tile_attr<memory_space = 3 : i32, scattered = true>>
  %s = xetile.init_tile %slm, %idx : memref<128xf32, 3>, vector<2x16xindex> -> !xetile.tile<2x16xf32, #xetile.tile_attr<memory_space = 3 : i64, scattered = true>>
  return
}

// IMEX's XeTileToXeGPU tests: three offsets into a 3D memref with dynamic dims and its shape and
// strides given; `padding = 0 : i32` on an f16 tile (converted to the element type)
// CHECK-LABEL: func.func @batched_with_shape_and_strides
func.func @batched_with_shape_and_strides(%c: memref<?x128x96xf32>, %a: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  // CHECK: xetile.init_tile %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}, %{{.*}}] : memref<?x128x96xf32> -> !xetile.tile<32x32xf32>
  %t = xetile.init_tile %c[%c0, %c0, %c32],[%c1024, %c1024, %c1024], [%c1024, %c1, %c1]  : memref<?x128x96xf32> -> !xetile.tile<32x32xf32>
  %h = xetile.init_tile %a[%c0, %c32] : memref<1024x1024xf16> -> !xetile.tile<32x32xf16>
  // CHECK: xetile.load_tile %{{.*}} {padding = 0 : i32} : !xetile.tile<32x32xf16> -> vector<32x32xf16>
  %v = xetile.load_tile %h {padding = 0 : i32} : !xetile.tile<32x32xf16> -> vector<32x32xf16>
  return
}

// CHECK-LABEL: func.func @block_tiles
func.func @block_tiles(%b: memref<4x3x64x32xf16>, %i: index) {
  %c0 = arith.constant 0 : index
  // CHECK: xetile.init_tile %{{.*}}[%{{.*}}, 2, %{{.*}}, 0] : memref<4x3x64x32xf16> -> !xetile.tile<16x32xf16>
  %t = xetile.init_tile %b[%i, 2, %c0, 0] : memref<4x3x64x32xf16> -> !xetile.tile<16x32xf16, #xetile.tile_attr<order = array<i32: 1, 0>>>
  // CHECK: xetile.prefetch_tile %{{.*}} {l1_hint = #xetile.cache_hint<cached>, l2_hint = #xetile.cache_hint<uncached>}
  xetile.prefetch_tile %t {l1_hint = #xetile.cache_hint<cached>, l2_hint = #xetile.cache_hint<uncached>} : !xetile.tile<16x32xf16>
  // CHECK: xetile.load_tile %{{.*}} {padding = 0.000000e+00 : f32, l3_hint = #xetile.cache_hint<streaming>}
  %v = xetile.load_tile %t {padding = 0.0 : f32, l3_hint = #xetile.cache_hint<streaming>} : !xetile.tile<16x32xf16> -> vector<16x32xf16>
  // CHECK: xetile.store_tile %{{.*}}, %{{.*}} {l2_hint = #xetile.cache_hint<write_through>}
  xetile.store_tile %v, %t {l2_hint = #xetile.cache_hint<write_through>} : vector<16x32xf16>, !xetile.tile<16x32xf16>
  return
}
