// RUN: xe-opt %s --split-input-file --verify-diagnostics --convert-xegpu-to-spirv

gpu.module @k {
  gpu.func @slm(%A: memref<64x64xf32, 3>) kernel {
    gpu.return
  }
}
// expected-error@-4 {{kernel argument 0: memref in memory space 3 : i64 is not supported (global buffers only)}}

// -----

gpu.module @k {
  gpu.func @reduce(%A: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %t = xegpu.create_nd_tdesc %A[%c0, %c0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    // expected-error@+2 {{'vector.multi_reduction' on vectors is not supported by convert-xegpu-to-spirv}}
    %z = arith.constant dense<0.0> : vector<8xf32>
    %r = vector.multi_reduction <add>, %v, %z [1] : vector<8x16xf32> to vector<8xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @mul(%A: memref<64x64xf32>, %m: vector<16xi1>, %o: vector<16xindex>, %v: vector<16xf32>) kernel {
    gpu.return
  }
}
// expected-error@-4 {{kernel argument 1 of type vector<16xi1> is not supported (buffers, integer and float scalars only)}}
