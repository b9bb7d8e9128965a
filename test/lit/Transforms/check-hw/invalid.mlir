// xetile-check-hw reports every block the architecture (pvc) cannot load, store, prefetch or
// multiply, with the rule from the architecture table.
// RUN: xe-opt %s --split-input-file --xetile-check-hw --verify-diagnostics

gpu.module @k {
  gpu.func @store_too_tall(%C: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %cst = arith.constant dense<0.0> : vector<1x1x16x16xf32>
    %ct = xetile.init_tile %C[%c0, %c0] : memref<64x64xf32> -> !xetile.tile<16x16xf32, #xetile.tile_attr<inner_blocks = [16, 16]>>
    // expected-error @+1 {{xetile-check-hw: inner block 16x16 of the 16x16xf32 tile is not a legal 2D block store on pvc: store of 32-bit data: block height 16 is outside [1, 8]}}
    xetile.store_tile %cst, %ct : vector<1x1x16x16xf32>, !xetile.tile<16x16xf32, #xetile.tile_attr<inner_blocks = [16, 16]>>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @vnni_too_wide(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %a = xetile.init_tile %A[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<8x16xbf16, #xetile.tile_attr<inner_blocks = [8, 16]>>
    %b = xetile.init_tile %B[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<16x32xbf16, #xetile.tile_attr<inner_blocks = [16, 32]>>
    %va = xetile.load_tile %a : !xetile.tile<8x16xbf16, #xetile.tile_attr<inner_blocks = [8, 16]>> -> vector<1x1x8x16xbf16>
    // expected-error @+1 {{not a legal 2D block VNNI load on pvc}}
    %vb = xetile.load_tile %b : !xetile.tile<16x32xbf16, #xetile.tile_attr<inner_blocks = [16, 32]>> -> vector<1x1x16x32xbf16>
    %ub = xetile.tile_unpack %vb {inner_blocks = [16, 32]} : vector<1x1x16x32xbf16> -> vector<16x32xbf16>
    %pb = xetile.tile_pack %ub {inner_blocks = [16, 16]} : vector<16x32xbf16> -> vector<1x2x16x16xbf16>
    %d = xetile.tile_mma %va, %pb : vector<1x1x8x16xbf16>, vector<1x2x16x16xbf16> -> vector<1x2x8x16xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @mma_blocks(%x: vector<1x1x16x16xbf16>, %y: vector<1x1x16x16xbf16>) kernel {
    // expected-error @+1 {{xetile-check-hw: tile_mma is not DPAS-sized on pvc: the A block 16x16 has 16 rows; DPAS repeats 1..8 rows}}
    %d = xetile.tile_mma %x, %y : vector<1x1x16x16xbf16>, vector<1x1x16x16xbf16> -> vector<1x1x16x16xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @mma_k(%x: vector<1x1x8x32xbf16>, %y: vector<1x1x32x16xbf16>) kernel {
    // expected-error @+2 {{the A block 8x32 must be 16 wide (the DPAS K for bf16)}}
    // expected-error @+1 {{the B block 32x16 must be 16x16 (DPAS K x N for bf16)}}
    %d = xetile.tile_mma %x, %y : vector<1x1x8x32xbf16>, vector<1x1x32x16xbf16> -> vector<1x1x8x16xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @dpas_types(%x: vector<1x1x8x16xbf16>, %y: vector<1x1x16x16xbf16>) kernel {
    // expected-error @+1 {{DPAS does not support bf16 x bf16 -> f16}}
    %d = xetile.tile_mma %x, %y : vector<1x1x8x16xbf16>, vector<1x1x16x16xbf16> -> vector<1x1x8x16xf16>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @unblocked(%A: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %a = xetile.init_tile %A[%c0, %c0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
    // expected-remark @+1 {{xetile-check-hw: load of the 8x16xf32 tile is not blocked (no inner_blocks)}}
    %v = xetile.load_tile %a : !xetile.tile<8x16xf32> -> vector<8x16xf32>
    gpu.return
  }
}
