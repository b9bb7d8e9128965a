// xetile-wg-to-sg reports what it cannot distribute at the op, with the rule (never a crash).
// RUN: xe-opt %s --xetile-wg-to-sg --verify-diagnostics --split-input-file

// tile_mma: A's producer is distributed on [4, 8], wg_map_a / wg_map_c say [8, 4]
#a  = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 32]>
#at = #xetile.wg_map<sg_layout = [4, 8], sg_data = [64, 32]>
#b  = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>
gpu.module @m {
  gpu.func @mma_producer_mismatch(%A: memref<256x32xf16>, %B: memref<32x256xf16>) kernel {
    %ta = xetile.init_tile %A[0, 0] : memref<256x32xf16> -> !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #at>>
    %tb = xetile.init_tile %B[0, 0] : memref<32x256xf16> -> !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #b>>
    %va = xetile.load_tile %ta : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #at>> -> vector<256x32xf16>
    %vb = xetile.load_tile %tb : !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #b>> -> vector<32x256xf16>
    // expected-error @+1 {{wg_map_a (sg_layout = [8, 4], sg_data = [32, 32]) does not match the map of the operand's producer (sg_layout = [4, 8], sg_data = [64, 32])}}
    %c = xetile.tile_mma %va, %vb {wg_map_a = #a, wg_map_b = #b, wg_map_c = #b} : vector<256x32xf16>, vector<32x256xf16> -> vector<256x256xf32>
    gpu.return
  }
}

// -----
// tile_mma without maps on A/B: the producers' maps must be the ones derived from wg_map_c
#b  = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>
#a2 = #xetile.wg_map<sg_layout = [8, 4], sg_data = [16, 32]>
gpu.module @m {
  gpu.func @mma_derived_mismatch(%A: memref<256x32xf16>, %B: memref<32x256xf16>) kernel {
    %ta = xetile.init_tile %A[0, 0] : memref<256x32xf16> -> !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #a2>>
    %tb = xetile.init_tile %B[0, 0] : memref<32x256xf16> -> !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #b>>
    %va = xetile.load_tile %ta : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #a2>> -> vector<256x32xf16>
    %vb = xetile.load_tile %tb : !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #b>> -> vector<32x256xf16>
    // expected-error @+1 {{the map of A (sg_layout = [8, 4], sg_data = [16, 32]) does not match the one derived from wg_map_c (sg_layout = [8, 4], sg_data = [32, 64]): expected sg_layout = [8, 4], sg_data = [32, 32] (RFC: the A, B and C maps of tile_mma must have the same sg_layout}}
    %c = xetile.tile_mma %va, %vb {wg_map_c = #b} : vector<256x32xf16>, vector<32x256xf16> -> vector<256x256xf32>
    gpu.return
  }
}

// -----
// the accumulator's map differs from wg_map_c
#a = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 32]>
#b = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>
#c2 = #xetile.wg_map<sg_layout = [32, 1], sg_data = [8, 256]>
gpu.module @m {
  gpu.func @mma_acc_mismatch(%A: memref<256x32xf16>, %B: memref<32x256xf16>, %C: memref<256x256xf32>) kernel {
    %ta = xetile.init_tile %A[0, 0] : memref<256x32xf16> -> !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #a>>
    %tb = xetile.init_tile %B[0, 0] : memref<32x256xf16> -> !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #b>>
    %tc = xetile.init_tile %C[0, 0] : memref<256x256xf32> -> !xetile.tile<256x256xf32, #xetile.tile_attr<wg_map = #c2>>
    %va = xetile.load_tile %ta : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #a>> -> vector<256x32xf16>
    %vb = xetile.load_tile %tb : !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #b>> -> vector<32x256xf16>
    %vc = xetile.load_tile %tc : !xetile.tile<256x256xf32, #xetile.tile_attr<wg_map = #c2>> -> vector<256x256xf32>
    // expected-error @+1 {{the accumulator C has the map sg_layout = [32, 1], sg_data = [8, 256] but wg_map_c is sg_layout = [8, 4], sg_data = [32, 64]}}
    %c = xetile.tile_mma %va, %vb, %vc {wg_map_a = #a, wg_map_b = #b, wg_map_c = #b} : vector<256x32xf16>, vector<32x256xf16>, vector<256x256xf32> -> vector<256x256xf32>
    gpu.return
  }
}

// -----
// K split over subgroups: every subgroup needs the whole K extent of its A rows and B columns
#a = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 16]>
#b = #xetile.wg_map<sg_layout = [2, 2], sg_data = [16, 32]>
#c = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 32]>
gpu.module @m {
  gpu.func @mma_split_k(%A: memref<64x64xf16>, %B: memref<64x64xf16>) kernel {
    %ta = xetile.init_tile %A[0, 0] : memref<64x64xf16> -> !xetile.tile<64x64xf16, #xetile.tile_attr<wg_map = #a>>
    %tb = xetile.init_tile %B[0, 0] : memref<64x64xf16> -> !xetile.tile<64x64xf16, #xetile.tile_attr<wg_map = #b>>
    %va = xetile.load_tile %ta : !xetile.tile<64x64xf16, #xetile.tile_attr<wg_map = #a>> -> vector<64x64xf16>
    %vb = xetile.load_tile %tb : !xetile.tile<64x64xf16, #xetile.tile_attr<wg_map = #b>> -> vector<64x64xf16>
    // expected-error @+1 {{each subgroup needs the whole K extent (sg_data for K must equal K)}}
    %c = xetile.tile_mma %va, %vb {wg_map_a = #a, wg_map_b = #b, wg_map_c = #c} : vector<64x64xf16>, vector<64x64xf16> -> vector<64x64xf32>
    gpu.return
  }
}

// -----
// an element-wise op joining two differently distributed vectors
gpu.module @m {
  gpu.func @join_mismatch(%A: memref<64x64xf32>) kernel {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    %u = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 1], sg_data = [16, 64]>>>
    %v = xetile.load_tile %t : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>> -> vector<64x64xf32>
    %w = xetile.load_tile %u : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 1], sg_data = [16, 64]>>> -> vector<64x64xf32>
    // expected-error @+1 {{'arith.addf' joins work-group vectors with different maps}}
    %s = arith.addf %v, %w : vector<64x64xf32>
    gpu.return
  }
}

// -----
// storing a vector to a tile distributed differently
gpu.module @m {
  gpu.func @store_mismatch(%A: memref<64x64xf32>) kernel {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    %u = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 1], sg_data = [16, 64]>>>
    %v = xetile.load_tile %t : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>> -> vector<64x64xf32>
    // expected-error @+1 {{the stored vector is distributed as sg_layout = [2, 2], sg_data = [32, 32] but sg_layout = [4, 1], sg_data = [16, 64] is required; insert xetile.tile_conv_layout}}
    xetile.store_tile %v, %u : vector<64x64xf32>, !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 1], sg_data = [16, 64]>>>
    gpu.return
  }
}

// -----
// ops without a subgroup form
gpu.module @m {
  gpu.func @unsupported(%A: memref<64x64xf32>) kernel {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    %v = xetile.load_tile %t : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>> -> vector<64x64xf32>
    // expected-error @+1 {{cannot distribute 'vector.transpose' on a work-group vector}}
    %w = vector.transpose %v, [1, 0] : vector<64x64xf32> to vector<64x64xf32>
    // expected-error @+1 {{cannot distribute a non-splat constant work-group vector}}
    %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : vector<2x2xf32>
    %u = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<2x2xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [1, 1]>>>
    xetile.store_tile %k, %u : vector<2x2xf32>, !xetile.tile<2x2xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [1, 1]>>>
    gpu.return
  }
}

// -----
// an atomic update on a tile whose subgroups share data would be applied several times
gpu.module @m {
  gpu.func @atomic_shared(%A: memref<64x64xf32>) kernel {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 1], sg_data = [32, 64]>>>
    %v = xetile.load_tile %t : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 1], sg_data = [32, 64]>>> -> vector<64x64xf32>
    // expected-error @+1 {{atomic_rmw_tile on a tile whose wg_map shares data between subgroups (sg_layout = [4, 1], sg_data = [32, 64] on [64, 64]: each element is owned by 2 subgroups) would apply the update several times}}
    %o = xetile.atomic_rmw_tile <addf> %v, %t : vector<64x64xf32>, !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 1], sg_data = [32, 64]>>> -> vector<64x64xf32>
    gpu.return
  }
}

// -----
// sg_data must divide the tile so that every subgroup tile is a contiguous piece of it
gpu.module @m {
  gpu.func @not_contiguous(%A: memref<64x64xf32>) kernel {
    // expected-error @+1 {{cannot distribute the tile [48, 64] with sg_layout = [3, 1], sg_data = [32, 64]: in dimension 0, sg_data 32 does not divide the tile size 48}}
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<48x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [3, 1], sg_data = [32, 64]>>>
    gpu.return
  }
}

// -----
// the maps of one kernel must agree on the number of subgroups, and with known_block_size
gpu.module @m {
  gpu.func @subgroup_count(%A: memref<64x64xf32>) kernel {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    // expected-error @+1 {{wg_maps of one kernel must use the same number of subgroups: sg_layout [8, 1] has 8 subgroups but sg_layout [2, 2] has 4}}
    %u = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 1], sg_data = [8, 64]>>>
    gpu.return
  }
}

// -----
gpu.module @m {
  // expected-error @+1 {{the wg_maps distribute over 4 subgroups but the kernel's known_block_size gives 8 subgroups}}
  gpu.func @block_size(%A: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    gpu.return
  }
}

// -----
// a transposed load keeps the row-major subgroup order only for an [n, 1] / [1, n] layout
gpu.module @m {
  gpu.func @load_transpose(%A: memref<64x64xf32>) kernel {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    // expected-error @+1 {{load_tile with transpose = [1, 0] of a work-group tile needs an sg_layout with a 1}}
    %v = xetile.load_tile %t {transpose = [1, 0]} : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>> -> vector<64x64xf32>
    gpu.return
  }
}

// -----
// work-group XeTile must live in a gpu.func
// expected-error @+1 {{work-group level XeTile (wg_map) is distributed inside gpu.func kernels only}}
func.func @host(%A: memref<64x64xf32>) {
  %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
  return
}

// -----
// ops returning a work-group value from the kernel region
gpu.module @m {
  gpu.func @scf_while(%A: memref<64x64xf32>, %c: i1) kernel {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    // expected-error @+1 {{cannot distribute 'scf.while' on a work-group tile}}
    %r = scf.while (%x = %t) : (!xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>) -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>> {
      scf.condition(%c) %x : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    } do {
    ^bb0(%y: !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>):
      scf.yield %y : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    }
    gpu.return
  }
}

// -----
// a map that cannot distribute its tile is reported once, at the tile's creation
gpu.module @m {
  gpu.func @reported_once(%A: memref<64x64xf32>) kernel {
    // expected-error @+1 {{cannot distribute the tile [48, 64] with sg_layout = [3, 1], sg_data = [32, 64]}}
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<48x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [3, 1], sg_data = [32, 64]>>>
    %v = xetile.load_tile %t : !xetile.tile<48x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [3, 1], sg_data = [32, 64]>>> -> vector<48x64xf32>
    xetile.store_tile %v, %t : vector<48x64xf32>, !xetile.tile<48x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [3, 1], sg_data = [32, 64]>>>
    gpu.return
  }
}
