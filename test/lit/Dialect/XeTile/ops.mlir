// Every XeTile op and type parses, verifies and prints back in the readable syntax of syntax.md;
// printing, re-parsing and printing again is stable, and the generic form round-trips too.
// RUN: xe-opt %s | FileCheck %s
// RUN: xe-opt %s | xe-opt | FileCheck %s
// RUN: xe-opt %s --mlir-print-op-generic | xe-opt | FileCheck %s

#mp = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 16]>
// CHECK-LABEL: func.func @tiles
func.func @tiles(%A: memref<128x128xbf16>, %D: memref<?x?xbf16>, %addr: i64, %i: index, %M: index, %N: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  // CHECK: xetile.init_tile %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16>
  %t = xetile.init_tile %A[%i, %c0] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16>
  // CHECK: xetile.init_tile %{{.*}}[8, 16] : memref<128x128xbf16> -> !xetile.tile<64x32xbf16, #xetile.tile_attr<inner_blocks = [16, 16], wg_map = <sg_layout = [2, 2], sg_data = [32, 16]>>>
  %t1 = xetile.init_tile %A[8, 16] : memref<128x128xbf16> -> !xetile.tile<64x32xbf16, #xetile.tile_attr<inner_blocks = [16, 16], wg_map = <sg_layout = [2, 2], sg_data = [32, 16]>>>
  // CHECK: xetile.init_tile %{{.*}}[%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] : memref<?x?xbf16> -> !xetile.tile<8x16xbf16>
  %t2 = xetile.init_tile %D[%i, %c0], [%M, %N], [%N, %c1] : memref<?x?xbf16> -> !xetile.tile<8x16xbf16>
  // CHECK: xetile.init_tile %{{.*}}[%{{.*}}, 0], [%{{.*}}, 128], [128, 1] : i64 -> !xetile.tile<8x16xbf16>
  %t3 = xetile.init_tile %addr[%i, 0], [%M, 128], [128, 1] : i64 -> !xetile.tile<8x16xbf16>
  // CHECK: xetile.load_tile %{{.*}} {padding = 0.000000e+00 : bf16} : !xetile.tile<8x16xbf16> -> vector<8x16xbf16>
  %v = xetile.load_tile %t {padding = 0.0 : bf16} : !xetile.tile<8x16xbf16> -> vector<8x16xbf16>
  // CHECK: xetile.load_tile %{{.*}} {transpose = [1, 0]} : !xetile.tile<8x16xbf16> -> vector<16x8xbf16>
  %vt = xetile.load_tile %t {transpose = [1, 0]} : !xetile.tile<8x16xbf16> -> vector<16x8xbf16>
  // CHECK: xetile.load_tile %{{.*}} : !xetile.tile<64x32xbf16, {{.*}}> -> vector<4x2x16x16xbf16>
  %vb = xetile.load_tile %t1 : !xetile.tile<64x32xbf16, #xetile.tile_attr<inner_blocks = [16, 16], wg_map = <sg_layout = [2, 2], sg_data = [32, 16]>>> -> vector<4x2x16x16xbf16>
  // CHECK: xetile.store_tile %{{.*}}, %{{.*}} : vector<8x16xbf16>, !xetile.tile<8x16xbf16>
  xetile.store_tile %v, %t : vector<8x16xbf16>, !xetile.tile<8x16xbf16>
  // CHECK: xetile.prefetch_tile %{{.*}} {locality = 3 : i32} : !xetile.tile<8x16xbf16>
  xetile.prefetch_tile %t {locality = 3 : i32} : !xetile.tile<8x16xbf16>
  // CHECK: xetile.update_tile_offset %{{.*}}, [%{{.*}}, %{{.*}}] : !xetile.tile<8x16xbf16>
  %tu = xetile.update_tile_offset %t, [%c0, %c32] : !xetile.tile<8x16xbf16>
  // CHECK: xetile.update_tile_offset %{{.*}}, [0, 32] : !xetile.tile<8x16xbf16>
  %tu2 = xetile.update_tile_offset %t, [0, 32] : !xetile.tile<8x16xbf16>
  return
}

// CHECK-LABEL: func.func @order
func.func @order(%A: memref<128x64xbf16, affine_map<(d0, d1) -> (d1, d0)>>, %B: memref<64x128xf32, strided<[1, 64]>>, %R: memref<64x128xf32>) {
  // CHECK: !xetile.tile<64x32xbf16, #xetile.tile_attr<order = [0, 1]>>
  %t = xetile.init_tile %A[0, 0] : memref<128x64xbf16, affine_map<(d0, d1) -> (d1, d0)>> -> !xetile.tile<64x32xbf16, #xetile.tile_attr<order = [0, 1]>>
  // CHECK: !xetile.tile<16x16xf32, #xetile.tile_attr<order = [0, 1]>>
  %u = xetile.init_tile %B[0, 0] : memref<64x128xf32, strided<[1, 64]>> -> !xetile.tile<16x16xf32, #xetile.tile_attr<order = [0, 1]>>
  // The default order is elided: a tile_attr holding only defaults prints as a plain tile.
  // CHECK: xetile.init_tile %{{.*}}[0, 0] : memref<64x128xf32> -> !xetile.tile<16x16xf32>
  %w = xetile.init_tile %R[0, 0] : memref<64x128xf32> -> !xetile.tile<16x16xf32, #xetile.tile_attr<order = [1, 0], memory_space = 0 : i32>>
  return
}

// CHECK-LABEL: func.func @vector_ops
func.func @vector_ops(%a: vector<64x32xbf16>, %b: vector<32x128xbf16>, %acc: vector<64x128xf32>, %a4: vector<8x4x8x8xbf16>, %b4: vector<4x8x8x16xbf16>, %c4: vector<8x8x8x16xf32>) {
  // CHECK: xetile.tile_mma %{{.*}}, %{{.*}}, %{{.*}} {wg_map_c = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 16]>} : vector<64x32xbf16>, vector<32x128xbf16>, vector<64x128xf32> -> vector<64x128xf32>
  %c = xetile.tile_mma %a, %b, %acc {wg_map_c = #mp} : vector<64x32xbf16>, vector<32x128xbf16>, vector<64x128xf32> -> vector<64x128xf32>
  // CHECK: xetile.tile_mma %{{.*}}, %{{.*}} : vector<64x32xbf16>, vector<32x128xbf16> -> vector<64x128xf32>
  %c2 = xetile.tile_mma %a, %b : vector<64x32xbf16>, vector<32x128xbf16> -> vector<64x128xf32>
  // CHECK: xetile.tile_mma {{.*}} : vector<8x4x8x8xbf16>, vector<4x8x8x16xbf16>, vector<8x8x8x16xf32> -> vector<8x8x8x16xf32>
  %c3 = xetile.tile_mma %a4, %b4, %c4 : vector<8x4x8x8xbf16>, vector<4x8x8x16xbf16>, vector<8x8x8x16xf32> -> vector<8x8x8x16xf32>
  // CHECK: xetile.tile_transpose %{{.*}} [1, 0] {wg_map = #xetile.wg_map<sg_layout = [2, 2], sg_data = [64, 32]>} : vector<64x128xf32> -> vector<128x64xf32>
  %tr = xetile.tile_transpose %c [1, 0] {wg_map = #xetile.wg_map<sg_layout = [2, 2], sg_data = [64, 32]>} : vector<64x128xf32> -> vector<128x64xf32>
  // CHECK: xetile.tile_reduce <add> %{{.*}} [1] : vector<64x128xf32> -> vector<64x1xf32>
  %rd = xetile.tile_reduce <add> %c [1] : vector<64x128xf32> -> vector<64x1xf32>
  // CHECK: xetile.tile_reduce <maximumf> %{{.*}} [1, 3] : vector<8x8x8x16xf32> -> vector<8x1x8x1xf32>
  %rd4 = xetile.tile_reduce <maximumf> %c4 [1, 3] : vector<8x8x8x16xf32> -> vector<8x1x8x1xf32>
  // CHECK: xetile.tile_broadcast %{{.*}} [1] : vector<64x1xf32> -> vector<64x128xf32>
  %bc = xetile.tile_broadcast %rd [1] : vector<64x1xf32> -> vector<64x128xf32>
  // CHECK: xetile.tile_broadcast %{{.*}} [1, 3] : vector<8x1x8x1xf32> -> vector<8x8x8x16xf32>
  %bc4 = xetile.tile_broadcast %rd4 [1, 3] : vector<8x1x8x1xf32> -> vector<8x8x8x16xf32>
  // CHECK: xetile.tile_pack %{{.*}} {inner_blocks = [16, 16]} : vector<64x128xf32> -> vector<4x8x16x16xf32>
  %pk = xetile.tile_pack %c {inner_blocks = [16, 16]} : vector<64x128xf32> -> vector<4x8x16x16xf32>
  // CHECK: xetile.tile_unpack %{{.*}} {inner_blocks = [16, 16]} : vector<4x8x16x16xf32> -> vector<64x128xf32>
  %up = xetile.tile_unpack %pk {inner_blocks = [16, 16]} : vector<4x8x16x16xf32> -> vector<64x128xf32>
  // CHECK: xetile.tile_conv_layout %{{.*}} {wg_map = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 16]>, wg_map_source = #xetile.wg_map<sg_layout = [4, 1], sg_data = [16, 128]>} : vector<64x128xf32> -> vector<64x128xf32>
  %cl = xetile.tile_conv_layout %c {wg_map = #mp, wg_map_source = #xetile.wg_map<sg_layout = [4, 1], sg_data = [16, 128]>} : vector<64x128xf32> -> vector<64x128xf32>
  return
}

// CHECK-LABEL: func.func @atomic_and_scatter
func.func @atomic_and_scatter(%A: memref<64x64xf32>, %v: vector<8x16xf32>, %addr: i64, %off: vector<1x256xindex>, %mask: vector<1x256xi1>) {
  %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
  // CHECK: xetile.atomic_rmw_tile <addf> %{{.*}}, %{{.*}} : vector<8x16xf32>, !xetile.tile<8x16xf32> -> vector<8x16xf32>
  %r = xetile.atomic_rmw_tile <addf> %v, %t : vector<8x16xf32>, !xetile.tile<8x16xf32> -> vector<8x16xf32>
  // CHECK: xetile.init_tile %{{.*}}, %{{.*}} : i64, vector<1x256xindex> -> !xetile.tile<1x256xbf16, #xetile.tile_attr<scattered = true>>
  %s = xetile.init_tile %addr, %off : i64, vector<1x256xindex> -> !xetile.tile<1x256xbf16, #xetile.tile_attr<scattered = true>>
  // CHECK: xetile.load_gather %{{.*}}, %{{.*}} {padding = 1.000000e+00 : bf16} : !xetile.tile<1x256xbf16, #xetile.tile_attr<scattered = true>>, vector<1x256xi1> -> vector<1x256xbf16>
  %g = xetile.load_gather %s, %mask {padding = 1.0 : bf16} : !xetile.tile<1x256xbf16, #xetile.tile_attr<scattered = true>>, vector<1x256xi1> -> vector<1x256xbf16>
  // CHECK: xetile.store_scatter %{{.*}}, %{{.*}}, %{{.*}} : vector<1x256xbf16>, !xetile.tile<1x256xbf16, #xetile.tile_attr<scattered = true>>, vector<1x256xi1>
  xetile.store_scatter %g, %s, %mask : vector<1x256xbf16>, !xetile.tile<1x256xbf16, #xetile.tile_attr<scattered = true>>, vector<1x256xi1>
  return
}

// CHECK-LABEL: func.func @attributes
// CHECK-SAME: sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>
// CHECK-SAME: memory_space = 3 : i32
func.func @attributes(%t: !xetile.tile<64x32xbf16, #xetile.tile_attr<order = [0, 1], inner_blocks = [16, 16], wg_map = <sg_layout = [2, 2], sg_data = [32, 16]>, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>, memory_space = 3 : i32>>) attributes {
    // CHECK-SAME: m = #xetile.sg_map<wi_layout = [2, 8], wi_data = [1, 2]>
    m = #xetile.sg_map<wi_layout = [2, 8], wi_data = [1, 2]>,
    // CHECK-SAME: x = #xetile.xe_map<wg = <sg_layout = [2, 2], sg_data = [32, 128]>, sg = <wi_layout = [2, 8], wi_data = [1, 2]>>
    x = #xetile.xe_map<wg = <sg_layout = [2, 2], sg_data = [32, 128]>, sg = <wi_layout = [2, 8], wi_data = [1, 2]>>} {
  return
}
