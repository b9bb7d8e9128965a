// Work-group unit-dim row values (a reduction expanded to 32x1 by vector.shape_cast, which LLVM 22's
// xegpu-wg-to-sg-distribute takes only under vector.broadcast) are kept 1D by the import through
// arith/math elementwise ops, scf.for carries and broadcasts; anything else is a located error.
// RUN: xe-opt --convert-upstream-xegpu %s --split-input-file --verify-diagnostics

#t = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 16], inst_data = [8, 16]>
#r = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 1], inst_data = [8, 1]>
#v = #xegpu.layout<sg_layout = [2], sg_data = [16], inst_data = [8]>
gpu.module @k {
  gpu.func @extract(%x: memref<32x16xf32>, %o: memref<32xf32>) kernel {
    %c0 = arith.constant 0 : index
    %tx = xegpu.create_nd_tdesc %x : memref<32x16xf32> -> !xegpu.tensor_desc<32x16xf32, #t>
    %xt = xegpu.load_nd %tx[%c0, %c0] {layout = #t} : !xegpu.tensor_desc<32x16xf32, #t> -> vector<32x16xf32>
    %ninf = arith.constant {layout_result_0 = #v} dense<0xFF800000> : vector<32xf32>
    %mx = vector.multi_reduction <maximumf>, %xt, %ninf {layout_result_0 = #xegpu.slice<#t, dims = [1]>} [1] : vector<32x16xf32> to vector<32xf32>
    %mx_r = vector.shape_cast %mx {layout_result_0 = #r} : vector<32xf32> to vector<32x1xf32>
    %half = arith.constant {layout_result_0 = #r} dense<0.5> : vector<32x1xf32>
    %s = arith.mulf %mx_r, %half {layout_result_0 = #r} : vector<32x1xf32>
    // expected-error @+1 {{but 'vector.extract' uses it}}
    %e = vector.extract %s[0, 0] : f32 from vector<32x1xf32>
    memref.store %e, %o[%c0] : memref<32xf32>
    gpu.return
  }
}

// -----

#t = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 16], inst_data = [8, 16]>
#t8 = #xegpu.layout<sg_layout = [2, 1], sg_data = [8, 16], inst_data = [8, 16]>
#r = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 1], inst_data = [8, 1]>
#v = #xegpu.layout<sg_layout = [2], sg_data = [16], inst_data = [8]>
gpu.module @k {
  gpu.func @round_robin_rows(%x: memref<32x16xf32>, %o: memref<32x16xf32>) kernel {
    %c0 = arith.constant 0 : index
    %tx = xegpu.create_nd_tdesc %x : memref<32x16xf32> -> !xegpu.tensor_desc<32x16xf32, #t8>
    %xt = xegpu.load_nd %tx[%c0, %c0] {layout = #t8} : !xegpu.tensor_desc<32x16xf32, #t8> -> vector<32x16xf32>
    %ninf = arith.constant {layout_result_0 = #v} dense<0xFF800000> : vector<32xf32>
    %mx = vector.multi_reduction <maximumf>, %xt, %ninf {layout_result_0 = #xegpu.slice<#t8, dims = [1]>} [1] : vector<32x16xf32> to vector<32xf32>
    // expected-error @+1 {{'vector.shape_cast' reads a value distributed otherwise}}
    %mx_r = vector.shape_cast %mx {layout_result_0 = #r} : vector<32xf32> to vector<32x1xf32>
    %half = arith.constant {layout_result_0 = #r} dense<0.5> : vector<32x1xf32>
    %s = arith.mulf %mx_r, %half {layout_result_0 = #r} : vector<32x1xf32>
    %b = vector.broadcast %s {layout_result_0 = #t} : vector<32x1xf32> to vector<32x16xf32>
    %to = xegpu.create_nd_tdesc %o : memref<32x16xf32> -> !xegpu.tensor_desc<32x16xf32, #t>
    xegpu.store_nd %b, %to[%c0, %c0] {layout = #t} : vector<32x16xf32>, !xegpu.tensor_desc<32x16xf32, #t>
    gpu.return
  }
}
