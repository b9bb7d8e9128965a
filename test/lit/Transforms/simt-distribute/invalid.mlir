// Distributions xegpu-simt-distribute refuses: each would need data from another work-item or an
// op form the xegpu dialect does not define in SIMT mode.
// RUN: xe-opt %s --split-input-file --xegpu-simt-distribute --verify-diagnostics

// (the transposed VNNI load, vnni_axis = 0, is distributed: transposed.mlir)
gpu.module @k {
  gpu.func @transposed_vnni_axis1(%B: memref<64x64xbf16>) kernel {
    %b = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    // expected-error @+1 {{the SIMT form of a transposed load with vnni_axis = 1 is not supported}}
    %v = xegpu.load_nd %b {mode = vc, vnni_axis = 1, transpose = [1, 0]} : !xegpu.tensor_desc<16x16xbf16> -> vector<16x8x2xbf16>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @two_layouts(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>) kernel {
    %bd = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    %b = xegpu.load_nd %bd {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
    %a = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16>
    %la = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
    %d0 = xegpu.dpas %la, %b {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16> -> vector<8x16xf32>
    // the same fragment cannot also be the transposed A operand: that needs another work-item's data
    %t = vector.transpose %la, [1, 0] : vector<8x16xbf16> to vector<16x8xbf16>
    %t2 = vector.shape_cast %t : vector<16x8xbf16> to vector<8x16xbf16>
    // expected-error @+1 {{the instruction needs plain [8, 16] with wi_layout [2, 8], wi_data [1, 2]}}
    %d1 = xegpu.dpas %t2, %b {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16> -> vector<8x16xf32>
    gpu.return
  }
}
