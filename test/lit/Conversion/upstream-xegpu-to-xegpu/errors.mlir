// Upstream xegpu ops and attributes with no equivalent in our xegpu: a located error naming them.
// RUN: xe-opt --convert-upstream-xegpu %s --split-input-file --verify-diagnostics

gpu.module @k {
  gpu.func @mem_desc_of_other_elements(%s: memref<1024xf32, 3>) kernel {
    // expected-error @+1 {{'xegpu.create_mem_desc' of memref<1024xf32, 3> as f16 elements: only a 1D i8 buffer (identity layout) or a buffer of f16 is imported}}
    %m = xegpu.create_mem_desc %s : memref<1024xf32, 3> -> !xegpu.mem_desc<32x64xf16>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @matrix_access_of_undecided_level(%s: memref<2048xi8, 3>) kernel {
    %m = xegpu.create_mem_desc %s : memref<2048xi8, 3> -> !xegpu.mem_desc<32x32xf16>
    // expected-error @+1 {{'xegpu.load_matrix' of vector<2x16xf16>: its level cannot be told (a 2D vector without a layout is a subgroup block or one lane's share) and no other xegpu op of its kernel decides it}}
    %x = xegpu.load_matrix %m[0, 0] : !xegpu.mem_desc<32x32xf16> -> vector<2x16xf16>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @matrix_offsets(%s: memref<2048xi8, 3>, %v: vector<8x16xf16>) kernel {
    %m = xegpu.create_mem_desc %s : memref<2048xi8, 3> -> !xegpu.mem_desc<32x32xf16>
    // expected-error @+1 {{'xegpu.store_matrix' with 1 offsets on a 2D mem_desc (one per dimension is imported)}}
    xegpu.store_matrix %v, %m[8] <{layout = #xegpu.layout<lane_layout = [1, 16], lane_data = [1, 1]>}> : vector<8x16xf16>, !xegpu.mem_desc<32x32xf16>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @rmw(%b: memref<64xf32>, %o: vector<16xindex>, %m: vector<16xi1>, %v: vector<16xf32>) kernel {
    %t = xegpu.create_tdesc %b, %o : memref<64xf32>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.scatter_tdesc_attr<>>
    // expected-error @+1 {{'xegpu.atomic_rmw' kind maxnumf has no equivalent in our xegpu}}
    %r = xegpu.atomic_rmw maxnumf %t, %m, %v : !xegpu.tensor_desc<16xf32, #xegpu.scatter_tdesc_attr<>>, vector<16xi1>, vector<16xf32> -> vector<16xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @lane(%c: memref<8x16xf32>) kernel {
    %t = xegpu.create_nd_tdesc %c : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %t[0, 0] : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    // expected-error @+1 {{'gpu.lane_id' in a subgroup-level kernel: a VC-mode kernel has one value per subgroup}}
    %l = gpu.lane_id
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @upstream_verifier(%b: memref<16x16xf16>) kernel {
    %t = xegpu.create_nd_tdesc %b : memref<16x16xf16> -> !xegpu.tensor_desc<16x16xf16>
    // Upstream's own verifier runs first (its message, located in the input).
    // expected-error @+1 {{Result shape [16, 16] is not consistent}}
    %v = xegpu.load_nd %t[0, 0] <{packed}> : !xegpu.tensor_desc<16x16xf16> -> vector<16x16xf16>
    gpu.return
  }
}
