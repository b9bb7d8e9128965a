// RUN: xe-opt %s --split-input-file --verify-diagnostics --convert-xegpu-to-spirv

gpu.module @k {
  gpu.func @slm(%A: memref<64x64xf32, 3>) kernel {
    gpu.return
  }
}
// expected-error@-4 {{kernel argument 0: memref in memory space 3 : i64 is not supported (global buffers only)}}

// -----

gpu.module @k {
  gpu.func @scan(%A: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %t = xegpu.create_nd_tdesc %A[%c0, %c0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %z = arith.constant dense<0.0> : vector<8xf32>
    %r = vector.multi_reduction <add>, %v, %z [1] : vector<8x16xf32> to vector<8xf32>
    // expected-error@+1 {{'vector.scan' on vectors is not supported by convert-xegpu-to-spirv}}
    %s:2 = vector.scan <add>, %v, %z {inclusive = true, reduction_dim = 1 : i64} : vector<8x16xf32>, vector<8xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @mul(%A: memref<64x64xf32>, %m: vector<16xi1>, %o: vector<16xindex>, %v: vector<16xf32>) kernel {
    gpu.return
  }
}
// expected-error@-4 {{kernel argument 1 of type vector<16xi1> is not supported (buffers, !llvm.ptr<1>, integer and float scalars only)}}

// -----

gpu.module @k {
  gpu.func @global_alloc(%A: memref<64xf32>) kernel {
    // expected-error@+1 {{'memref<64xf32>': only shared local memory (memory space 3 / #gpu.address_space<workgroup>) can be allocated inside a kernel}}
    %t = memref.alloc() : memref<64xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @scope(%A: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error@+1 {{descriptor with memory_scope = slm on a buffer in global memory}}
    %t = xegpu.create_nd_tdesc %A[%c0, %c0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<memory_scope = slm>>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @private(%A: memref<64xf32>) private(%p : memref<4xf32, 5>) kernel {
    gpu.return
  }
}
// expected-error@-4 {{gpu.func private attributions are not supported by convert-xegpu-to-spirv (workgroup attributions are: shared local memory)}}

// -----

gpu.module @k {
  gpu.func @if_desc(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %c: i1) kernel {
    %c0 = arith.constant 0 : index
    // expected-error@+1 {{the branches of scf.if yield descriptors on different buffers or with different shapes}}
    %t = scf.if %c -> (!xegpu.tensor_desc<8x16xf32>) {
      %a = xegpu.create_nd_tdesc %A[%c0, %c0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
      scf.yield %a : !xegpu.tensor_desc<8x16xf32>
    } else {
      %b = xegpu.create_nd_tdesc %B[%c0, %c0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
      scf.yield %b : !xegpu.tensor_desc<8x16xf32>
    }
    gpu.return
  }
}

// -----
// A kernel is lowered at one level: SIMT-mode XeGPU beside VC-mode XeGPU is an error.
gpu.module @k {
  gpu.func @mixed(%A: memref<64x64xf32>) kernel attributes {xe.subgroup_size = 16 : i32} {
    %v = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    // expected-error @+1 {{'xegpu.create_nd_tdesc' is SIMT-mode XeGPU in a kernel whose other XeGPU ops are VC mode}}
    %d = xegpu.create_nd_tdesc %A[0, 0] : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
    gpu.return
  }
}
