// A widening vector.bitcast (f16 -> f32) is distributed only when every work-item holds whole
// pairs of consecutive f16 elements: here the block is also a DPAS A operand straight from its
// load ([1, 16] x [1, 1]: work-item l holds column l), so the halves of each f32 are in two
// work-items.
// RUN: xe-opt %s --xegpu-simt-distribute --verify-diagnostics

gpu.module @k {
  gpu.func @split_pairs(%A: memref<8x16xf16>, %B: memref<16x16xf16>) kernel {
    %ad = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<8x16xf16> -> !xegpu.tensor_desc<8x16xf16>
    %a = xegpu.load_nd %ad {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
    %bd = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<16x16xf16> -> !xegpu.tensor_desc<16x16xf16>
    %b = xegpu.load_nd %bd {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xf16> -> vector<8x16x2xf16>
    %c = xegpu.dpas %a, %b {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16> -> vector<8x16xf32>
    // expected-error @+1 {{vector.bitcast joins 2 consecutive elements of the innermost dimension into one, but the source is distributed as plain [8, 16] with wi_layout [1, 16], wi_data [1, 1]: work-item 0 holds elements 0, 16, 32, 48, ... (row-major), not whole groups of 2 consecutive elements in its fragment (a cross-work-item reorder would be needed)}}
    %w = vector.bitcast %a : vector<8x16xf16> to vector<8x8xf32>
    gpu.return
  }
}
