// Broadcasts xegpu-simt-distribute refuses: a column of a value distributed by columns (each row's
// element is held by one work-item; replicating it would need a cross-work-item shuffle), and a
// column block no sg_map distributes.
// RUN: xe-opt %s --split-input-file --xegpu-simt-distribute --verify-diagnostics

gpu.module @k {
  gpu.func @col_of_dpas_result(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) kernel {
    %ad = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16>
    %bd = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    %cd = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %a = xegpu.load_nd %ad {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
    %b = xegpu.load_nd %bd {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
    %d = xegpu.dpas %a, %b {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16> -> vector<8x16xf32>
    // expected-error @+1 {{every work-item needs the whole [8, 1] slice (it is broadcast along the rows of a block), but the source is distributed as plain [8, 16] with wi_layout [1, 16], wi_data [1, 1]}}
    %col = vector.extract_strided_slice %d {offsets = [0, 0], sizes = [8, 1], strides = [1, 1]} : vector<8x16xf32> to vector<8x1xf32>
    %cb = vector.broadcast %col : vector<8x1xf32> to vector<8x16xf32>
    %s = arith.subf %d, %cb : vector<8x16xf32>
    xegpu.store_nd %s, %cd {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}
