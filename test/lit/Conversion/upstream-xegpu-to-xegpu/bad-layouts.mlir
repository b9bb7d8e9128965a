// Upstream layouts LLVM 22 would abort on (its verifier lets them through): a located error at the
// attribute naming the rule, before upstream's C++ sees them (layout_check.py); never "1:1" with
// assertion text.
// RUN: xe-opt --convert-upstream-xegpu %s --split-input-file --verify-diagnostics

// expected-error @+1 {{sg_layout = [0, 2] has an entry < 1 (0); every entry of sg_layout (subgroups along each dimension) must be a positive number}}
#a = #xegpu.layout<sg_layout = [0, 2], sg_data = [16, 32]>
gpu.module @k {
  gpu.func @zero_sg_layout(%a: memref<32x32xf16>) kernel {
    %t = xegpu.create_nd_tdesc %a : memref<32x32xf16> -> !xegpu.tensor_desc<32x32xf16, #a>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @negative_sg_data(%a: memref<32x32xf16>) kernel {
    // expected-error @+1 {{sg_data = [-16, 32] has an entry < 1 (-16)}}
    %t = xegpu.create_nd_tdesc %a : memref<32x32xf16> -> !xegpu.tensor_desc<32x32xf16, #xegpu.layout<sg_layout = [2, 1], sg_data = [-16, 32]>>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @zero_inst_data(%a: memref<8x16xf32>) kernel {
    // expected-error @+1 {{inst_data = [0, 16] has an entry < 1 (0); every entry of inst_data (elements of one instruction's block along each dimension) must be a positive number}}
    %t = xegpu.create_nd_tdesc %a : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32, #xegpu.layout<inst_data = [0, 16]>>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @zero_lane_data(%a: memref<8x16xf32>) kernel {
    // expected-error @+1 {{lane_data = [1, 0] has an entry < 1 (0)}}
    %t = xegpu.create_nd_tdesc %a : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32, #xegpu.layout<lane_layout = [1, 16], lane_data = [1, 0]>>
    gpu.return
  }
}

// -----

// expected-error @+1 {{inst_data has 3 entries but sg_layout has 2; every field of a layout has one entry per dimension}}
#a = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [1, 8, 16]>
gpu.module @k {
  gpu.func @ranks(%a: memref<32x32xf16>) kernel {
    %t = xegpu.create_nd_tdesc %a : memref<32x32xf16> -> !xegpu.tensor_desc<32x32xf16, #a>
    gpu.return
  }
}

// -----

// expected-error @+1 {{order = [0, 0] is not a permutation of 0..1; order lists every dimension once, the fastest-varying first}}
#a = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], order = [0, 0]>
gpu.module @k {
  gpu.func @order_not_a_permutation(%a: memref<32x32xf16>) kernel {
    %t = xegpu.create_nd_tdesc %a : memref<32x32xf16> -> !xegpu.tensor_desc<32x32xf16, #a>
    gpu.return
  }
}

// -----

// expected-error @+1 {{order = [0, 1, 2] has 3 entries but the layout has 2 dimensions}}
#a = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16], order = [0, 1, 2]>
gpu.module @k {
  gpu.func @order_rank(%a: memref<32x32xf16>) kernel {
    %t = xegpu.create_nd_tdesc %a : memref<32x32xf16> -> !xegpu.tensor_desc<32x32xf16, #a>
    gpu.return
  }
}

// -----

// A column-major order of a 2x2 subgroup grid: LLVM 22 cannot distribute it without lane fields.
// expected-error @+1 {{order = [0, 1] on a work-group layout without lane fields is not imported: LLVM 22's work-group distribution keeps order when it drops sg_layout and then aborts on the layout it made; only the default order [1, 0] (row-major subgroup ids) is taken}}
#a = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16], order = [0, 1]>
gpu.module @k {
  gpu.func @order_column_major(%a: memref<32x32xf16>) kernel {
    %t = xegpu.create_nd_tdesc %a : memref<32x32xf16> -> !xegpu.tensor_desc<32x32xf16, #a>
    gpu.return
  }
}

// -----

// sg_layout on one descriptor makes the program work-group level: upstream's passes then run over the
// subgroup-level array_length = 2 descriptor too, and LLVM 22's blocking aborts on it.
gpu.module @k {
  gpu.func @sg_layout_beside_subgroup_descriptor(%a: memref<8x32xf16>, %c: memref<8x16xf32>) kernel {
    // expected-error @+1 {{'xegpu.create_nd_tdesc' makes a subgroup-level descriptor with array_length > 1}}
    %ta = xegpu.create_nd_tdesc %a : memref<8x32xf16> -> !xegpu.tensor_desc<8x16xf16, #xegpu.block_tdesc_attr<array_length = 2>>
    // expected-note @+1 {{the program is work-group level because of this sg_layout}}
    %tc = xegpu.create_nd_tdesc %c : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32, #xegpu.layout<sg_layout = [1, 1], sg_data = [8, 16], inst_data = [8, 16]>>
    %va = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<8x16xf16, #xegpu.block_tdesc_attr<array_length = 2>> -> vector<2x8x16xf16>
    gpu.return
  }
}

// -----

// A descriptor with a dimension 0 (found by test_fuzz_cli: computeShapeRatio aborted on it).
gpu.module @k {
  gpu.func @zero_sized_descriptor(%a: memref<32x32xf16>) kernel {
    // expected-error @+1 {{!xegpu.tensor_desc of shape 32x0: every dimension of a tensor_desc must be positive}}
    %t = xegpu.create_nd_tdesc %a : memref<32x32xf16> -> !xegpu.tensor_desc<32x0xf16, #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16]>>
    gpu.return
  }
}

// -----

// layout_cd with inst_data, layout_a without: LLVM 22's layout propagation asserted (found while
// checking order = [1, 0] blanked out of a layout without inst_data).
#a = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 32]>
#b = #xegpu.layout<sg_layout = [2, 2], sg_data = [32, 16], inst_data = [16, 16]>
#c = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16]>
gpu.module @k {
  gpu.func @dpas_inst_data(%a: memref<32x32xf16>, %b: memref<32x32xf16>, %c: memref<32x32xf32>) kernel {
    %ta = xegpu.create_nd_tdesc %a : memref<32x32xf16> -> !xegpu.tensor_desc<32x32xf16, #a>
    %tb = xegpu.create_nd_tdesc %b : memref<32x32xf16> -> !xegpu.tensor_desc<32x32xf16, #b>
    %tc = xegpu.create_nd_tdesc %c : memref<32x32xf32> -> !xegpu.tensor_desc<32x32xf32, #c>
    %va = xegpu.load_nd %ta[0, 0] {layout = #a} : !xegpu.tensor_desc<32x32xf16, #a> -> vector<32x32xf16>
    %vb = xegpu.load_nd %tb[0, 0] {layout = #b} : !xegpu.tensor_desc<32x32xf16, #b> -> vector<32x32xf16>
    %vc = xegpu.load_nd %tc[0, 0] {layout = #c} : !xegpu.tensor_desc<32x32xf32, #c> -> vector<32x32xf32>
    // expected-error @+1 {{'xegpu.dpas' has inst_data in layout_cd but not in layout_a: LLVM 22's layout propagation (xegpu-propagate-layout{layout-kind=inst}) aborts on it}}
    %d = xegpu.dpas %va, %vb, %vc {layout_a = #a, layout_b = #b, layout_cd = #c} : vector<32x32xf16>, vector<32x32xf16>, vector<32x32xf32> -> vector<32x32xf32>
    xegpu.store_nd %d, %tc[0, 0] {layout = #c} : vector<32x32xf32>, !xegpu.tensor_desc<32x32xf32, #c>
    gpu.return
  }
}
