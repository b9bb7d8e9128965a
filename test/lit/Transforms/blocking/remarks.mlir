// What xetile-blocking leaves unblocked is reported as a remark and stays 2D (convert-xetile-to-xegpu
// handles unblocked tiles itself).
// RUN: xe-opt %s --split-input-file --xetile-blocking --verify-diagnostics

gpu.module @k {
  gpu.func @column_major(%B: memref<64x64xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %t = memref.transpose %B (i, j) -> (j, i) : memref<64x64xbf16> to memref<64x64xbf16, strided<[1, 64]>>
    // expected-remark @+1 {{xetile-blocking: tile 16x16xbf16 left unblocked: column-major tile (order = [0, 1]); run xetile-canonicalize first to make it row-major}}
    %a = xetile.init_tile %t[%c0, %c0] : memref<64x64xbf16, strided<[1, 64]>> -> !xetile.tile<16x16xbf16, #xetile.tile_attr<order = [0, 1]>>
    %v = xetile.load_tile %a : !xetile.tile<16x16xbf16, #xetile.tile_attr<order = [0, 1]>> -> vector<16x16xbf16>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @padding(%A: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    // expected-remark @+1 {{left unblocked: 2D block loads pad out-of-bounds elements with 0 only; a non-zero padding needs scattered loads}}
    %a = xetile.init_tile %A[%c0, %c0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
    %v = xetile.load_tile %a {padding = 1.0 : f32} : !xetile.tile<8x16xf32> -> vector<8x16xf32>
    xetile.store_tile %v, %a : vector<8x16xf32>, !xetile.tile<8x16xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @slm(%S: memref<64x64xf32, 3>) kernel {
    %c0 = arith.constant 0 : index
    // expected-remark @+1 {{left unblocked: shared local memory tiles are accessed with scattered messages, not 2D blocks}}
    %a = xetile.init_tile %S[%c0, %c0] : memref<64x64xf32, 3> -> !xetile.tile<8x16xf32, #xetile.tile_attr<memory_space = 3>>
    %v = xetile.load_tile %a : !xetile.tile<8x16xf32, #xetile.tile_attr<memory_space = 3>> -> vector<8x16xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @mma_not_dpas_sized(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>) kernel {
    %c0 = arith.constant 0 : index
    // expected-remark @+1 {{left unblocked: it feeds a tile_mma that stays unblocked}}
    %a = xetile.init_tile %A[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<8x8xbf16>
    // expected-remark @+1 {{left unblocked: it feeds a tile_mma that stays unblocked}}
    %b = xetile.init_tile %B[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<8x16xbf16>
    %va = xetile.load_tile %a : !xetile.tile<8x8xbf16> -> vector<8x8xbf16>
    %vb = xetile.load_tile %b : !xetile.tile<8x16xbf16> -> vector<8x16xbf16>
    // expected-remark @+1 {{xetile-blocking: tile_mma left unblocked: tile_mma 8x8 x 8x16 (bf16): K must be a multiple of the DPAS K = 16 and N of the DPAS N = 16}}
    %d = xetile.tile_mma %va, %vb : vector<8x8xbf16>, vector<8x16xbf16> -> vector<8x16xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @no_legal_block(%A: memref<64x64xbf16>) kernel {
    %c0 = arith.constant 0 : index
    // expected-remark @+1 {{left unblocked: no block of the 3x3 tile is a legal 2D block message for all its accesses (load of 16-bit data: block width 3 x 2 B = 6 B is not a multiple of 4 bytes)}}
    %a = xetile.init_tile %A[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<3x3xbf16>
    %v = xetile.load_tile %a : !xetile.tile<3x3xbf16> -> vector<3x3xbf16>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @work_group(%A: memref<256x256xf32>) kernel {
    %c0 = arith.constant 0 : index
    // expected-remark @+1 {{left unblocked: work-group tile (wg_map); run xetile-wg-to-sg first (blocking works on subgroup tiles)}}
    %a = xetile.init_tile %A[%c0, %c0] : memref<256x256xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    %v = xetile.load_tile %a : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>> -> vector<64x64xf32>
    gpu.return
  }
}
