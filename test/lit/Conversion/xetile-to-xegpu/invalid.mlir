// Conversions convert-xetile-to-xegpu must refuse, each with a located error.
// RUN: xe-opt %s --split-input-file --convert-xetile-to-xegpu --verify-diagnostics

gpu.module @k {
  gpu.func @bf16_atomic_add(%C: memref<64x64xbf16>, %i: index) kernel {
    // expected-remark @+1 {{accessed with scattered loads/stores}}
    %t = xetile.init_tile %C[%i, %i] : memref<64x64xbf16> -> !xetile.tile<2x16xbf16, #xetile.tile_attr<inner_blocks = [2, 16]>>
    %v = arith.constant dense<1.0> : vector<1x1x2x16xbf16>
    // expected-error @+1 {{PVC has no bf16 atomic addf}}
    %old = xetile.atomic_rmw_tile <addf> %v, %t : vector<1x1x2x16xbf16>, !xetile.tile<2x16xbf16, #xetile.tile_attr<inner_blocks = [2, 16]>> -> vector<1x1x2x16xbf16>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @unblocked_k(%a: vector<8x8xbf16>, %b: vector<8x16xbf16>) kernel {
    // expected-error @+1 {{tile_mma 8x8 x 8x16: K must be a multiple of the DPAS K = 16 and N of the DPAS N = 16 for bf16}}
    %c = xetile.tile_mma %a, %b : vector<8x8xbf16>, vector<8x16xbf16> -> vector<8x16xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @k_block(%a: vector<1x1x8x8xbf16>, %b: vector<1x1x8x16xbf16>) kernel {
    // expected-error @+1 {{the K block 8 is not a multiple of the DPAS K = 16 for bf16}}
    %c = xetile.tile_mma %a, %b : vector<1x1x8x8xbf16>, vector<1x1x8x16xbf16> -> vector<1x1x8x16xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @dpas_types(%a: vector<1x1x8x16xf16>, %b: vector<1x1x16x16xf16>, %c: vector<1x1x8x16xbf16>) kernel {
    // expected-error @+1 {{DPAS does not support f16 x f16 -> bf16}}
    %r = xetile.tile_mma %a, %b, %c : vector<1x1x8x16xf16>, vector<1x1x16x16xf16>, vector<1x1x8x16xbf16> -> vector<1x1x8x16xbf16>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @work_group(%A: memref<256x256xf32>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'xetile.init_tile' is work-group level XeTile (wg_map); distribute it to subgroups with xetile-wg-to-sg before convert-xetile-to-xegpu}}
    %a = xetile.init_tile %A[%c0, %c0] : memref<256x256xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    %v = xetile.load_tile %a : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>> -> vector<64x64xf32>
    gpu.return
  }
}
