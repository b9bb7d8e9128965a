// XeVM ops and forms the import does not take: a located error naming the op.
// RUN: xe-opt --convert-upstream-xegpu %s --split-input-file --verify-diagnostics

gpu.module @k {
  gpu.func @transposed_8_rows(%p: !llvm.ptr<1>, %i: i32) kernel {
    // expected-error @+1 {{'xevm.blockload2d' with transpose = true of 32-bit elements, tile_height 8, v_blocks 1 is not imported (32-bit, 16 rows: one row per lane, v_blocks = 1)}}
    %t = xevm.blockload2d %p, %i, %i, %i, %i, %i <{elem_size_in_bits=32 : i32, tile_width=8 : i32, tile_height=8 : i32, v_blocks=1 : i32, transpose=true, pack_register=false}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<4xi32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @narrow(%p: !llvm.ptr<1>, %i: i32) kernel {
    // expected-error @+1 {{'xevm.blockload2d' of 8-bit elements 16 wide is not imported}}
    %v = xevm.blockload2d %p, %i, %i, %i, %i, %i <{elem_size_in_bits=8 : i32, tile_width=16 : i32, tile_height=8 : i32, v_blocks=1 : i32, transpose=false, pack_register=false}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<8xi8>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @private_fence() kernel {
    // expected-error @+1 {{'xevm.memfence' of scope workgroup, addrspace private has no equivalent in our xegpu}}
    xevm.memfence <{scope = #xevm.mem_scope<workgroup>, addrspace = #xevm.addr_space<private>}>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @lane_prefetch_in_a_subgroup_kernel(%p: !llvm.ptr<1>, %m: memref<8x16xf32>) kernel {
    // expected-error @+1 {{'xevm.prefetch' is not imported: no translation to our xegpu}}
    xevm.prefetch %p <{cache_control = #xevm.load_cache_control<L1c_L2c_L3c>}> : (!llvm.ptr<1>)
    %t = xegpu.create_nd_tdesc %m : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %t[0, 0] : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @id_in_a_subgroup_kernel(%m: memref<8x16xf32>) kernel {
    // expected-error @+1 {{'xevm.lane_id' is not imported: no translation to our xegpu}}
    %l = xevm.lane_id : i32
    %t = xegpu.create_nd_tdesc %m : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %t[0, 0] : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    gpu.return
  }
}
