// A work-group-level program (sg_layout) through shared-local-memory matrices: upstream's
// xegpu-wg-to-sg-distribute and xegpu-blocking give each of the four subgroups two 8x16
// store_matrix / load_matrix at its own offsets, then the import as at subgroup level. A 32x32 tile
// goes into SLM through a column-major view blocked [16, 16] and comes back through a row-major
// one: B = A^T, checked by the host.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s --check-prefix=SG
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// CHECK: [ALLCLOSE: TRUE]
// SG:     gpu.subgroup_id
// SG:     memref.view %{{.*}} : memref<4096xi8, 3> to memref<1024xf32, 3>
// SG-COUNT-8: xegpu.store_scatter
// SG:     gpu.barrier
// SG-COUNT-8: xegpu.load_gather
// SG-NOT: xegpu.load_matrix
// SG-NOT: sg_layout

#wg = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @t(%a: memref<32x32xf32>, %b: memref<32x32xf32>) kernel {
      %ta = xegpu.create_nd_tdesc %a : memref<32x32xf32> -> !xegpu.tensor_desc<32x32xf32, #wg>
      %v = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<32x32xf32, #wg> -> vector<32x32xf32>
      %slm = memref.alloc() : memref<4096xi8, 3>
      %cm = xegpu.create_mem_desc %slm : memref<4096xi8, 3> -> !xegpu.mem_desc<32x32xf32, #xegpu.mem_layout<stride = [1, 32], block = [16, 16]>>
      xegpu.store_matrix %v, %cm[0, 0] <{layout = #wg}> : vector<32x32xf32>, !xegpu.mem_desc<32x32xf32, #xegpu.mem_layout<stride = [1, 32], block = [16, 16]>>
      gpu.barrier
      %rm = xegpu.create_mem_desc %slm : memref<4096xi8, 3> -> !xegpu.mem_desc<32x32xf32, #xegpu.mem_layout<block = [16, 16]>>
      %w = xegpu.load_matrix %rm[0, 0] <{layout = #wg}> : !xegpu.mem_desc<32x32xf32, #xegpu.mem_layout<block = [16, 16]>> -> vector<32x32xf32>
      %tb = xegpu.create_nd_tdesc %b : memref<32x32xf32> -> !xegpu.tensor_desc<32x32xf32, #wg>
      xegpu.store_nd %w, %tb[0, 0] : vector<32x32xf32>, !xegpu.tensor_desc<32x32xf32, #wg>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %A = memref.alloc() : memref<32x32xf32>
    %T = memref.alloc() : memref<32x32xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %r = arith.muli %i, %c32 : index
        %k = arith.addi %r, %j : index
        %n = arith.index_cast %k : index to i32
        %f = arith.sitofp %n : i32 to f32
        memref.store %f, %A[%i, %j] : memref<32x32xf32>
        memref.store %f, %T[%j, %i] : memref<32x32xf32>
      }
    }
    %gA = gpu.alloc () : memref<32x32xf32>
    %gB = gpu.alloc () : memref<32x32xf32>
    gpu.memcpy %gA, %A : memref<32x32xf32>, memref<32x32xf32>
    gpu.launch_func @kernels::@t blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%gA : memref<32x32xf32>, %gB : memref<32x32xf32>)
    %B = memref.alloc() : memref<32x32xf32>
    gpu.memcpy %B, %gB : memref<32x32xf32>, memref<32x32xf32>
    %uB = memref.cast %B : memref<32x32xf32> to memref<*xf32>
    %uT = memref.cast %T : memref<32x32xf32> to memref<*xf32>
    call @printAllcloseF32(%uB, %uT) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}
}
