// What the work-group fallback (distribute=xedialects, or auto after upstream's distribution failed)
// does not take: a located error at the op, naming what it takes.
// RUN: xe-opt --convert-upstream-xegpu=distribute=xedialects %s --split-input-file --verify-diagnostics
// RUN: not xe-opt --convert-upstream-xegpu=distribute=ours %s 2>&1 | FileCheck %s --check-prefix=USAGE
// USAGE: xe-opt: error: '--convert-upstream-xegpu=distribute=ours' must be the first pass (it parses upstream xegpu input) and takes one option, distribute=auto|upstream|xedialects

#l = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16]>
gpu.module @k {
  gpu.func @convert_layout(%a: memref<32x32xf32>) kernel {
    %c0 = arith.constant 0 : index
    %t = xegpu.create_nd_tdesc %a : memref<32x32xf32> -> !xegpu.tensor_desc<32x32xf32, #l>
    %v = xegpu.load_nd %t[%c0, %c0] {layout = #l} : !xegpu.tensor_desc<32x32xf32, #l> -> vector<32x32xf32>
    // expected-error @+1 {{work-group fallback: 'xegpu.convert_layout' is not taken by the work-group fallback (it takes create_nd_tdesc, load_nd, store_nd, prefetch_nd and dpas)}}
    %w = xegpu.convert_layout %v <{input_layout = #l, target_layout = #xegpu.layout<sg_layout = [4, 1], sg_data = [8, 32]>}> : vector<32x32xf32>
    xegpu.store_nd %w, %t[%c0, %c0] {layout = #l} : vector<32x32xf32>, !xegpu.tensor_desc<32x32xf32, #l>
    gpu.return
  }
}

// -----

#l = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16]>
gpu.module @k {
  gpu.func @pointer(%p: ui64) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %t = xegpu.create_nd_tdesc %p, shape : [%c32, %c32], strides : [%c32, %c1] : ui64 -> !xegpu.tensor_desc<32x32xf32, #l>
    // expected-error @+1 {{'xegpu.load_nd': a descriptor on a pointer or with explicit shape/strides}}
    %v = xegpu.load_nd %t[%c0, %c0] {layout = #l} : !xegpu.tensor_desc<32x32xf32, #l> -> vector<32x32xf32>
    gpu.return
  }
}
