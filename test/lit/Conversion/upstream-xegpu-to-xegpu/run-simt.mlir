// A whole program whose kernel is lane-level (SIMT) upstream xegpu: each lane holds its share of
// each block as a 1D vector. The import gives our SIMT mode (sg_map fragments); A is loaded as one
// 16x16 block and sliced into the two 8x16 dpas A operands, so the import reorders them across
// lanes (gpu.shuffle) into our SIMT dpas order; B is loaded packed, C accumulated from memory.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s --check-prefix=SIMT
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// CHECK: [ALLCLOSE: TRUE]
// SIMT:     xegpu.load_nd %{{.*}} : !xegpu.tensor_desc<16x16xf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<16x1xf16>
// SIMT:     gpu.shuffle idx
// SIMT:     xegpu.dpas %{{.*}} : vector<4x2xf16>, vector<8x1x2xf16>, vector<8x1xf32> -> vector<8x1xf32>
// SIMT:     xegpu.store_nd %{{.*}} : vector<8x1xf32>, !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// SIMT-NOT: mode = vc

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mm(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %ta = xegpu.create_nd_tdesc %a : memref<16x16xf16> -> !xegpu.tensor_desc<16x16xf16>
      %tb = xegpu.create_nd_tdesc %b : memref<16x16xf16> -> !xegpu.tensor_desc<16x16xf16>
      %tc = xegpu.create_nd_tdesc %c : memref<16x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      %va = xegpu.load_nd %ta[%c0, %c0] : !xegpu.tensor_desc<16x16xf16> -> vector<16xf16>
      %vb = xegpu.load_nd %tb[%c0, %c0] <{packed}> : !xegpu.tensor_desc<16x16xf16> -> vector<16xf16>
      %a0 = vector.extract_strided_slice %va {offsets = [0], sizes = [8], strides = [1]} : vector<16xf16> to vector<8xf16>
      %a1 = vector.extract_strided_slice %va {offsets = [8], sizes = [8], strides = [1]} : vector<16xf16> to vector<8xf16>
      %c0v = xegpu.load_nd %tc[%c0, %c0] : !xegpu.tensor_desc<8x16xf32> -> vector<8xf32>
      %c1v = xegpu.load_nd %tc[%c8, %c0] : !xegpu.tensor_desc<8x16xf32> -> vector<8xf32>
      %d0 = xegpu.dpas %a0, %vb, %c0v : vector<8xf16>, vector<16xf16>, vector<8xf32> -> vector<8xf32>
      %d1 = xegpu.dpas %a1, %vb, %c1v : vector<8xf16>, vector<16xf16>, vector<8xf32> -> vector<8xf32>
      xegpu.store_nd %d0, %tc[%c0, %c0] : vector<8xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %d1, %tc[%c8, %c0] : vector<8xf32>, !xegpu.tensor_desc<8x16xf32>
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
    %A = memref.alloc() : memref<16x16xf16>
    %B = memref.alloc() : memref<16x16xf16>
    %C = memref.alloc() : memref<16x16xf32>
    %R = memref.alloc() : memref<16x16xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %k = %c0 to %c16 step %c1 {
        %s = arith.addi %i, %k : index
        %m = arith.remui %s, %c7 : index
        %n = arith.index_cast %m : index to i32
        %f = arith.sitofp %n : i32 to f16
        memref.store %f, %A[%i, %k] : memref<16x16xf16>
      }
    }
    scf.for %k = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %s = arith.muli %k, %j : index
        %m = arith.remui %s, %c7 : index
        %n = arith.index_cast %m : index to i32
        %f = arith.sitofp %n : i32 to f16
        memref.store %f, %B[%k, %j] : memref<16x16xf16>
      }
    }
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %n = arith.index_cast %j : index to i32
        %f = arith.sitofp %n : i32 to f32
        memref.store %f, %C[%i, %j] : memref<16x16xf32>
        %acc = scf.for %k = %c0 to %c16 step %c1 iter_args(%x = %f) -> (f32) {
          %av = memref.load %A[%i, %k] : memref<16x16xf16>
          %bv = memref.load %B[%k, %j] : memref<16x16xf16>
          %ae = arith.extf %av : f16 to f32
          %be = arith.extf %bv : f16 to f32
          %p = arith.mulf %ae, %be : f32
          %y = arith.addf %x, %p : f32
          scf.yield %y : f32
        }
        memref.store %acc, %R[%i, %j] : memref<16x16xf32>
      }
    }
    %gA = gpu.alloc () : memref<16x16xf16>
    %gB = gpu.alloc () : memref<16x16xf16>
    %gC = gpu.alloc () : memref<16x16xf32>
    gpu.memcpy %gA, %A : memref<16x16xf16>, memref<16x16xf16>
    gpu.memcpy %gB, %B : memref<16x16xf16>, memref<16x16xf16>
    gpu.memcpy %gC, %C : memref<16x16xf32>, memref<16x16xf32>
    gpu.launch_func @kernels::@mm blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%gA : memref<16x16xf16>, %gB : memref<16x16xf16>, %gC : memref<16x16xf32>)
    gpu.memcpy %C, %gC : memref<16x16xf32>, memref<16x16xf32>
    %uC = memref.cast %C : memref<16x16xf32> to memref<*xf32>
    %uR = memref.cast %R : memref<16x16xf32> to memref<*xf32>
    call @printAllcloseF32(%uC, %uR) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}
}
