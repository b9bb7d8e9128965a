// Narrow blocks (no sg_map spreads them over 16 work-items) whose scattered form is not built.
// RUN: xe-opt %s --split-input-file --xegpu-simt-distribute --verify-diagnostics

gpu.module @k {
  gpu.func @moved(%Y: memref<64x1xf32>) kernel {
    %d = xegpu.create_nd_tdesc %Y[0, 0] {mode = vc} : memref<64x1xf32> -> !xegpu.tensor_desc<8x1xf32>
    %e = xegpu.update_nd_offset %d, [8, 0] {mode = vc} : !xegpu.tensor_desc<8x1xf32>
    // expected-error @+1 {{no sg_map distributes the 8x1 block over 16 work-items, and its scattered form needs the descriptor straight from its create_nd_tdesc}}
    %v = xegpu.load_nd %e {mode = vc} : !xegpu.tensor_desc<8x1xf32> -> vector<8x1xf32>
    xegpu.store_nd %v, %e {mode = vc} : vector<8x1xf32>, !xegpu.tensor_desc<8x1xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @atomic_old_value_used(%Y: memref<24xf32>, %v: vector<1xf32>, %O: memref<16xf32>) kernel {
    %o = arith.constant dense<5> : vector<1xindex>
    %m = arith.constant dense<true> : vector<1xi1>
    %t = xegpu.create_tdesc %Y, %o {mode = vc} : memref<24xf32>, vector<1xindex> -> !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>
    // expected-error @+1 {{the old values of an atomic on 1 elements addressed by several of the 16 work-items are used}}
    %r = xegpu.atomic_rmw addf %v, %t, %m {mode = vc} : vector<1xf32>, !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>, vector<1xi1> -> vector<1xf32>
    %t2 = xegpu.create_tdesc %O, %o {mode = vc} : memref<16xf32>, vector<1xindex> -> !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>
    xegpu.store_scatter %r, %t2, %m {mode = vc} : vector<1xf32>, !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>, vector<1xi1>
    gpu.return
  }
}
