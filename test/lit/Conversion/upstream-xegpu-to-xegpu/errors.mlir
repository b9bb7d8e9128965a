// Upstream xegpu ops and attributes with no equivalent in our xegpu: a located error naming them.
// RUN: xe-opt --convert-upstream-xegpu %s --split-input-file --verify-diagnostics

gpu.module @k {
  gpu.func @mem_desc(%s: memref<2048xi8, 3>) kernel {
    // expected-error @+1 {{'xegpu.create_mem_desc' is not imported: shared-local-memory matrices (mem_desc) have no equivalent in our xegpu}}
    %m = xegpu.create_mem_desc %s : memref<2048xi8, 3> -> !xegpu.mem_desc<16x64xf16>
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
