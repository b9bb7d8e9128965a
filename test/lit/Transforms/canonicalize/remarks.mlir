// What xetile-canonicalize cannot normalize is left as it is and reported with a remark at the tile.
// RUN: xe-opt %s --split-input-file --xetile-canonicalize --verify-diagnostics | FileCheck %s

// A column-major function argument: no row-major memref to address.
// CHECK-LABEL: gpu.func @column_major_argument
// CHECK:       xetile.load_tile {{.*}} : !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>> -> vector<16x8xf32>
// CHECK-NOT:   xetile.tile_transpose
gpu.module @m {
  gpu.func @column_major_argument(%A: memref<64x64xf32, strided<[1, 64]>>) kernel {
    // expected-remark @+1 {{order = [0, 1] tile 16x8xf32 not normalized to a row-major tile: its base is neither a memref.transpose view of a row-major memref nor described by explicit shape and strides}}
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32, strided<[1, 64]>> -> !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>>
    %v = xetile.load_tile %t : !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>> -> vector<16x8xf32>
    %e = math.exp %v : vector<16x8xf32>
    xetile.store_tile %e, %t : vector<16x8xf32>, !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>>
    gpu.return
  }
}

// -----
// A blocked (4D) column-major tile: the blocking stage has run already.
// CHECK-LABEL: gpu.func @blocked
// CHECK:       memref.transpose
gpu.module @m {
  gpu.func @blocked(%A: memref<64x64xf32>) kernel {
    %at = memref.transpose %A (d0, d1) -> (d1, d0) : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
    // expected-remark @+1 {{not normalized to a row-major tile: it is already blocked (inner_blocks); run xetile-canonicalize before xetile-blocking}}
    %t = xetile.init_tile %at[0, 0] : memref<64x64xf32, strided<[1, 64]>> -> !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1], inner_blocks = [8, 8]>>
    %v = xetile.load_tile %t : !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1], inner_blocks = [8, 8]>> -> vector<2x1x8x8xf32>
    gpu.return
  }
}

// -----
// A work-group tile (wg_map): xetile-wg-to-sg has not run.
gpu.module @m {
  gpu.func @work_group(%A: memref<64x64xf32>) kernel {
    %at = memref.transpose %A (d0, d1) -> (d1, d0) : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
    // expected-remark @+1 {{not normalized to a row-major tile: it is a work-group tile (wg_map); run xetile-wg-to-sg first}}
    %t = xetile.init_tile %at[0, 0] : memref<64x64xf32, strided<[1, 64]>> -> !xetile.tile<32x32xf32, #xetile.tile_attr<order = [0, 1], wg_map = <sg_layout = [2, 2], sg_data = [16, 16]>>>
    %v = xetile.load_tile %t : !xetile.tile<32x32xf32, #xetile.tile_attr<order = [0, 1], wg_map = <sg_layout = [2, 2], sg_data = [16, 16]>>> -> vector<32x32xf32>
    gpu.return
  }
}

// -----
// A tile chosen by scf.if: only update_tile_offset and scf.for may carry a normalized tile.
// CHECK-LABEL: gpu.func @through_if
// CHECK-NOT:   xetile.tile_transpose
gpu.module @m {
  gpu.func @through_if(%A: memref<64x64xf32>, %c: i1) kernel {
    %at = memref.transpose %A (d0, d1) -> (d1, d0) : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
    // expected-remark @+1 {{not normalized to a row-major tile: it is used by 'scf.yield'}}
    %t = xetile.init_tile %at[0, 0] : memref<64x64xf32, strided<[1, 64]>> -> !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>>
    %u = xetile.update_tile_offset %t, [8, 0] : !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>>
    // expected-remark @+1 {{not normalized to a row-major tile: it is produced by 'scf.if'}}
    %s = scf.if %c -> (!xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>>) {
      scf.yield %t : !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>>
    } else {
      scf.yield %u : !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>>
    }
    %v = xetile.load_tile %s : !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>> -> vector<16x8xf32>
    gpu.return
  }
}
