// A whole program whose kernel is subgroup-level upstream xegpu: xe-run imports it (VC mode) and
// simulates it; the host checks C = A x B against its own loops. A is loaded as one array_length = 2
// block pair, B as two 16x16 blocks (put in VNNI layout by the import), C read, accumulated, stored.
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// The imported VC-mode kernel also goes through our own SIMT distribution:
// RUN: xe-run %s -e main --entry-point-result=void --pipeline=xegpu-simt-distribute | FileCheck %s
// CHECK: [ALLCLOSE: TRUE]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mm(%a: memref<8x32xf16>, %b: memref<32x16xf16>, %c: memref<8x16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %ta = xegpu.create_nd_tdesc %a : memref<8x32xf16> -> !xegpu.tensor_desc<8x16xf16, #xegpu.block_tdesc_attr<array_length = 2>>
      %tb = xegpu.create_nd_tdesc %b : memref<32x16xf16> -> !xegpu.tensor_desc<16x16xf16>
      %tc = xegpu.create_nd_tdesc %c : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      %va = xegpu.load_nd %ta[%c0, %c0] : !xegpu.tensor_desc<8x16xf16, #xegpu.block_tdesc_attr<array_length = 2>> -> vector<2x8x16xf16>
      %a0 = vector.extract %va[0] : vector<8x16xf16> from vector<2x8x16xf16>
      %a1 = vector.extract %va[1] : vector<8x16xf16> from vector<2x8x16xf16>
      %b0 = xegpu.load_nd %tb[%c0, %c0] : !xegpu.tensor_desc<16x16xf16> -> vector<16x16xf16>
      %b1 = xegpu.load_nd %tb[%c16, %c0] : !xegpu.tensor_desc<16x16xf16> -> vector<16x16xf16>
      %acc = xegpu.load_nd %tc[0, 0] : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      %d0 = xegpu.dpas %a0, %b0, %acc : vector<8x16xf16>, vector<16x16xf16>, vector<8x16xf32> -> vector<8x16xf32>
      %d1 = xegpu.dpas %a1, %b1, %d0 : vector<8x16xf16>, vector<16x16xf16>, vector<8x16xf32> -> vector<8x16xf32>
      xegpu.store_nd %d1, %tc[0, 0] <{l1_hint = #xegpu.cache_hint<write_back>}> : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c7 = arith.constant 7 : index
    %A = memref.alloc() : memref<8x32xf16>
    %B = memref.alloc() : memref<32x16xf16>
    %C = memref.alloc() : memref<8x16xf32>
    %R = memref.alloc() : memref<8x16xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %k = %c0 to %c32 step %c1 {
        %s = arith.addi %i, %k : index
        %m = arith.remui %s, %c7 : index
        %n = arith.index_cast %m : index to i32
        %f = arith.sitofp %n : i32 to f16
        memref.store %f, %A[%i, %k] : memref<8x32xf16>
      }
    }
    scf.for %k = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %s = arith.muli %k, %j : index
        %m = arith.remui %s, %c7 : index
        %n = arith.index_cast %m : index to i32
        %f = arith.sitofp %n : i32 to f16
        memref.store %f, %B[%k, %j] : memref<32x16xf16>
      }
    }
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %n = arith.index_cast %j : index to i32
        %f = arith.sitofp %n : i32 to f32
        memref.store %f, %C[%i, %j] : memref<8x16xf32>
        %acc = scf.for %k = %c0 to %c32 step %c1 iter_args(%x = %f) -> (f32) {
          %av = memref.load %A[%i, %k] : memref<8x32xf16>
          %bv = memref.load %B[%k, %j] : memref<32x16xf16>
          %ae = arith.extf %av : f16 to f32
          %be = arith.extf %bv : f16 to f32
          %p = arith.mulf %ae, %be : f32
          %y = arith.addf %x, %p : f32
          scf.yield %y : f32
        }
        memref.store %acc, %R[%i, %j] : memref<8x16xf32>
      }
    }
    %gA = gpu.alloc () : memref<8x32xf16>
    %gB = gpu.alloc () : memref<32x16xf16>
    %gC = gpu.alloc () : memref<8x16xf32>
    gpu.memcpy %gA, %A : memref<8x32xf16>, memref<8x32xf16>
    gpu.memcpy %gB, %B : memref<32x16xf16>, memref<32x16xf16>
    gpu.memcpy %gC, %C : memref<8x16xf32>, memref<8x16xf32>
    gpu.launch_func @kernels::@mm blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%gA : memref<8x32xf16>, %gB : memref<32x16xf16>, %gC : memref<8x16xf32>)
    gpu.memcpy %C, %gC : memref<8x16xf32>, memref<8x16xf32>
    %uC = memref.cast %C : memref<8x16xf32> to memref<*xf32>
    %uR = memref.cast %R : memref<8x16xf32> to memref<*xf32>
    call @printAllcloseF32(%uC, %uR) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}
}
