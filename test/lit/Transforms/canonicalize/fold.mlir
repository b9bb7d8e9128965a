// Folds: tile_pack(tile_unpack(x)) and tile_unpack(tile_pack(x)) with the same inner_blocks, and
// tile_transpose(tile_transpose(x)), are x; different inner_blocks, a transpose with a wg_map and
// intermediate values with other users stay. Folding also cleans up after normalization: a
// column-major load that was transposed in registers becomes one plain row-major load.
// RUN: xe-opt %s --split-input-file --xetile-canonicalize | FileCheck %s
// RUN: xe-opt %s --split-input-file --xetile-canonicalize=fold=false | FileCheck %s --check-prefix=NOFOLD

// CHECK-LABEL: gpu.func @pack_unpack
// CHECK-SAME:  (%[[X:.*]]: vector<2x2x16x16xf16>, %[[Y:.*]]: vector<32x32xf16>
// CHECK-NOT:   xetile.tile_pack
// CHECK-NOT:   xetile.tile_unpack
// CHECK:       arith.addf %[[X]], %[[X]] : vector<2x2x16x16xf16>
// CHECK:       arith.mulf %[[Y]], %[[Y]] : vector<32x32xf16>
// NOFOLD-LABEL: gpu.func @pack_unpack
// NOFOLD:      xetile.tile_unpack
// NOFOLD:      xetile.tile_pack
gpu.module @m {
  gpu.func @pack_unpack(%x: vector<2x2x16x16xf16>, %y: vector<32x32xf16>, %o: memref<32x32xf16>) kernel {
    %u = xetile.tile_unpack %x {inner_blocks = [16, 16]} : vector<2x2x16x16xf16> -> vector<32x32xf16>
    %p = xetile.tile_pack %u {inner_blocks = [16, 16]} : vector<32x32xf16> -> vector<2x2x16x16xf16>
    %s = arith.addf %p, %p : vector<2x2x16x16xf16>
    %q = xetile.tile_pack %y {inner_blocks = [8, 32]} : vector<32x32xf16> -> vector<4x1x8x32xf16>
    %v = xetile.tile_unpack %q {inner_blocks = [8, 32]} : vector<4x1x8x32xf16> -> vector<32x32xf16>
    %m = arith.mulf %v, %v : vector<32x32xf16>
    gpu.return
  }
}

// -----
// CHECK-LABEL: gpu.func @reblock_kept
// CHECK:       %[[U:.*]] = xetile.tile_unpack %arg0 {inner_blocks = [32, 16]}
// CHECK:       %[[P:.*]] = xetile.tile_pack %[[U]] {inner_blocks = [8, 16]}
// CHECK:       arith.addf %[[P]], %[[P]]
// CHECK:       arith.addf %[[U]], %[[U]]
gpu.module @m {
  gpu.func @reblock_kept(%x: vector<1x2x32x16xf16>) kernel {
    %u = xetile.tile_unpack %x {inner_blocks = [32, 16]} : vector<1x2x32x16xf16> -> vector<32x32xf16>
    %p = xetile.tile_pack %u {inner_blocks = [8, 16]} : vector<32x32xf16> -> vector<4x2x8x16xf16>
    %s = arith.addf %p, %p : vector<4x2x8x16xf16>
    %t = arith.addf %u, %u : vector<32x32xf16>
    gpu.return
  }
}

// -----
// CHECK-LABEL: gpu.func @transposes
// CHECK-SAME:  (%[[X:.*]]: vector<8x16xf32>
// CHECK:       %[[T:.*]] = xetile.tile_transpose %[[X]] [1, 0] : vector<8x16xf32> -> vector<16x8xf32>
// CHECK-NEXT:  arith.addf %[[X]], %[[X]] : vector<8x16xf32>
// CHECK-NEXT:  arith.addf %[[T]], %[[T]] : vector<16x8xf32>
// CHECK-NEXT:  arith.addf %[[X]], %[[X]] : vector<8x16xf32>
// CHECK-NEXT:  %[[T2:.*]] = xetile.tile_transpose %[[X]] [1, 0] : vector<8x16xf32> -> vector<16x8xf32>
// CHECK-NEXT:  %[[W:.*]] = xetile.tile_transpose %[[T2]] [1, 0] {wg_map = #xetile.wg_map<sg_layout = [1, 1], sg_data = [8, 16]>}
// CHECK-NEXT:  arith.addf %[[W]], %[[W]]
gpu.module @m {
  gpu.func @transposes(%x: vector<8x16xf32>) kernel {
    %t = xetile.tile_transpose %x [1, 0] : vector<8x16xf32> -> vector<16x8xf32>
    %tt = xetile.tile_transpose %t [1, 0] : vector<16x8xf32> -> vector<8x16xf32>
    %a = arith.addf %tt, %tt : vector<8x16xf32>
    %b = arith.addf %t, %t : vector<16x8xf32>
    %id = xetile.tile_transpose %x [0, 1] : vector<8x16xf32> -> vector<8x16xf32>
    %c = arith.addf %id, %id : vector<8x16xf32>
    %t2 = xetile.tile_transpose %x [1, 0] : vector<8x16xf32> -> vector<16x8xf32>
    %w = xetile.tile_transpose %t2 [1, 0] {wg_map = #xetile.wg_map<sg_layout = [1, 1], sg_data = [8, 16]>} : vector<16x8xf32> -> vector<8x16xf32>
    %d = arith.addf %w, %w : vector<8x16xf32>
    gpu.return
  }
}

// -----
// A column-major load transposed in registers: after normalization the two transposes cancel.
// CHECK-LABEL: gpu.func @normalized_then_folded
// CHECK:       %[[T:.*]] = xetile.init_tile %arg0[%arg1, 0] : memref<64x32xf16> -> !xetile.tile<16x32xf16>
// CHECK-NEXT:  %[[V:.*]] = xetile.load_tile %[[T]] : !xetile.tile<16x32xf16> -> vector<16x32xf16>
// CHECK-NEXT:  math.exp %[[V]] : vector<16x32xf16>
// CHECK-NOT:   xetile.tile_transpose
gpu.module @m {
  gpu.func @normalized_then_folded(%A: memref<64x32xf16>, %i: index) kernel {
    %at = memref.transpose %A (d0, d1) -> (d1, d0) : memref<64x32xf16> to memref<32x64xf16, strided<[1, 32]>>
    %t = xetile.init_tile %at[0, %i] : memref<32x64xf16, strided<[1, 32]>> -> !xetile.tile<32x16xf16, #xetile.tile_attr<order = [0, 1]>>
    %v = xetile.load_tile %t : !xetile.tile<32x16xf16, #xetile.tile_attr<order = [0, 1]>> -> vector<32x16xf16>
    %vt = xetile.tile_transpose %v [1, 0] : vector<32x16xf16> -> vector<16x32xf16>
    %e = math.exp %vt : vector<16x32xf16>
    gpu.return
  }
}
