// A whole program moving data through upstream's shared-local-memory matrices, run by xe-run:
// kernel @sg (subgroup level, two subgroups) stores its 8x16 block of A into a column-major view
// blocked [8, 16] and loads the same coordinates through a row-major view blocked [16, 8]: B = A^T.
// Kernel @lane (lane level) stores lane l's column of B as row l of a row-major matrix and reads it
// back by a subgroup block read (element k of lane l at 16 k + l), stored as lane l's column: C = B^T.
// The host checks B against A^T and C against A.
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// CHECK: [ALLCLOSE: TRUE]
// CHECK: [ALLCLOSE: TRUE]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @sg(%a: memref<16x16xf32>, %b: memref<16x16xf32>) kernel {
      %c8 = arith.constant 8 : index
      %s = gpu.subgroup_id : index
      %m = arith.muli %s, %c8 : index
      %ta = xegpu.create_nd_tdesc %a : memref<16x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      %v = xegpu.load_nd %ta[%m, 0] : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      %slm = memref.alloc() : memref<1024xi8, 3>
      %cm = xegpu.create_mem_desc %slm : memref<1024xi8, 3> -> !xegpu.mem_desc<16x16xf32, #xegpu.mem_layout<stride = [1, 16], block = [8, 16]>>
      xegpu.store_matrix %v, %cm[%m, 0] : vector<8x16xf32>, !xegpu.mem_desc<16x16xf32, #xegpu.mem_layout<stride = [1, 16], block = [8, 16]>>, index
      gpu.barrier
      %rm = xegpu.create_mem_desc %slm : memref<1024xi8, 3> -> !xegpu.mem_desc<16x16xf32, #xegpu.mem_layout<block = [16, 8]>>
      %w = xegpu.load_matrix %rm[%m, 0] : !xegpu.mem_desc<16x16xf32, #xegpu.mem_layout<block = [16, 8]>>, index -> vector<8x16xf32>
      %tb = xegpu.create_nd_tdesc %b : memref<16x16xf32> -> !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %w, %tb[%m, 0] : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      gpu.return
    }
    gpu.func @lane(%b: memref<16x16xf32>, %c: memref<16x16xf32>) kernel {
      %l = gpu.lane_id
      %tb = xegpu.create_nd_tdesc %b : memref<16x16xf32> -> !xegpu.tensor_desc<16x16xf32>
      %v = xegpu.load_nd %tb[0, 0] : !xegpu.tensor_desc<16x16xf32> -> vector<16xf32>
      %slm = memref.alloc() : memref<256xf32, 3>
      %rm = xegpu.create_mem_desc %slm : memref<256xf32, 3> -> !xegpu.mem_desc<16x16xf32>
      xegpu.store_matrix %v, %rm[%l, 0] : vector<16xf32>, !xegpu.mem_desc<16x16xf32>, index
      gpu.barrier
      %bl = xegpu.create_mem_desc %slm : memref<256xf32, 3> -> !xegpu.mem_desc<16x16xf32, #xegpu.mem_layout<block = [8, 16]>>
      %w = xegpu.load_matrix %bl[0, 0] <{subgroup_block_io}> : !xegpu.mem_desc<16x16xf32, #xegpu.mem_layout<block = [8, 16]>> -> vector<16xf32>
      %tc = xegpu.create_nd_tdesc %c : memref<16x16xf32> -> !xegpu.tensor_desc<16x16xf32>
      xegpu.store_nd %w, %tc[0, 0] : vector<16xf32>, !xegpu.tensor_desc<16x16xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %A = memref.alloc() : memref<16x16xf32>
    %T = memref.alloc() : memref<16x16xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %r = arith.muli %i, %c16 : index
        %k = arith.addi %r, %j : index
        %n = arith.index_cast %k : index to i32
        %f = arith.sitofp %n : i32 to f32
        memref.store %f, %A[%i, %j] : memref<16x16xf32>
        memref.store %f, %T[%j, %i] : memref<16x16xf32>
      }
    }
    %gA = gpu.alloc () : memref<16x16xf32>
    %gB = gpu.alloc () : memref<16x16xf32>
    %gC = gpu.alloc () : memref<16x16xf32>
    gpu.memcpy %gA, %A : memref<16x16xf32>, memref<16x16xf32>
    gpu.launch_func @kernels::@sg blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%gA : memref<16x16xf32>, %gB : memref<16x16xf32>)
    gpu.launch_func @kernels::@lane blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%gB : memref<16x16xf32>, %gC : memref<16x16xf32>)
    %B = memref.alloc() : memref<16x16xf32>
    %C = memref.alloc() : memref<16x16xf32>
    gpu.memcpy %B, %gB : memref<16x16xf32>, memref<16x16xf32>
    gpu.memcpy %C, %gC : memref<16x16xf32>, memref<16x16xf32>
    %uB = memref.cast %B : memref<16x16xf32> to memref<*xf32>
    %uT = memref.cast %T : memref<16x16xf32> to memref<*xf32>
    %uC = memref.cast %C : memref<16x16xf32> to memref<*xf32>
    %uA = memref.cast %A : memref<16x16xf32> to memref<*xf32>
    call @printAllcloseF32(%uB, %uT) : (memref<*xf32>, memref<*xf32>) -> ()
    call @printAllcloseF32(%uC, %uA) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}
}
