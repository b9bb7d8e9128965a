// Work-group layouts with the default `order` (row-major subgroup ids, [1, 0] in 2D) and `inst_data`:
// LLVM 22's work-group passes abort on a layout with `order` and no lane fields (they keep `order`
// when they drop sg_layout), so the import leaves such an `order`, which changes nothing, out
// (layout_check.py). The kernel is run-wg.mlir's with `order = [1, 0]` on its three layouts (first
// and last field) and imports to the same subgroup code; the host checks C = A x B + C.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s --check-prefix=SG
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// CHECK: [ALLCLOSE: TRUE]
// SG:       gpu.subgroup_id
// SG-COUNT-4: xegpu.dpas %{{.*}} {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16>, vector<8x16xf32> -> vector<8x16xf32>
// SG-NOT:   order

#a = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 32], inst_data = [8, 16], order = [1, 0]>
#b = #xegpu.layout<sg_layout = [2, 2], sg_data = [32, 16], inst_data = [16, 16], order = [1, 0]>
#c = #xegpu.layout<order = [1, 0], sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mm(%a: memref<32x32xf16>, %b: memref<32x32xf16>, %c: memref<32x32xf32>) kernel {
      %c0 = arith.constant 0 : index
      %ta = xegpu.create_nd_tdesc %a : memref<32x32xf16> -> !xegpu.tensor_desc<32x32xf16, #a>
      %tb = xegpu.create_nd_tdesc %b : memref<32x32xf16> -> !xegpu.tensor_desc<32x32xf16, #b>
      %tc = xegpu.create_nd_tdesc %c : memref<32x32xf32> -> !xegpu.tensor_desc<32x32xf32, #c>
      %va = xegpu.load_nd %ta[%c0, %c0] {layout = #a} : !xegpu.tensor_desc<32x32xf16, #a> -> vector<32x32xf16>
      %vb = xegpu.load_nd %tb[%c0, %c0] {layout = #b} : !xegpu.tensor_desc<32x32xf16, #b> -> vector<32x32xf16>
      %vc = xegpu.load_nd %tc[%c0, %c0] {layout = #c} : !xegpu.tensor_desc<32x32xf32, #c> -> vector<32x32xf32>
      %d = xegpu.dpas %va, %vb, %vc {layout_a = #a, layout_b = #b, layout_cd = #c} : vector<32x32xf16>, vector<32x32xf16>, vector<32x32xf32> -> vector<32x32xf32>
      xegpu.store_nd %d, %tc[%c0, %c0] {layout = #c} : vector<32x32xf32>, !xegpu.tensor_desc<32x32xf32, #c>
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
    %c64 = arith.constant 64 : index
    %A = memref.alloc() : memref<32x32xf16>
    %B = memref.alloc() : memref<32x32xf16>
    %C = memref.alloc() : memref<32x32xf32>
    %R = memref.alloc() : memref<32x32xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %k = %c0 to %c32 step %c1 {
        %s = arith.addi %i, %k : index
        %m = arith.remui %s, %c7 : index
        %n = arith.index_cast %m : index to i32
        %f = arith.sitofp %n : i32 to f16
        memref.store %f, %A[%i, %k] : memref<32x32xf16>
      }
    }
    scf.for %k = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %s = arith.muli %k, %j : index
        %m = arith.remui %s, %c7 : index
        %n = arith.index_cast %m : index to i32
        %f = arith.sitofp %n : i32 to f16
        memref.store %f, %B[%k, %j] : memref<32x32xf16>
      }
    }
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %n = arith.index_cast %j : index to i32
        %f = arith.sitofp %n : i32 to f32
        memref.store %f, %C[%i, %j] : memref<32x32xf32>
        %acc = scf.for %k = %c0 to %c32 step %c1 iter_args(%x = %f) -> (f32) {
          %av = memref.load %A[%i, %k] : memref<32x32xf16>
          %bv = memref.load %B[%k, %j] : memref<32x32xf16>
          %ae = arith.extf %av : f16 to f32
          %be = arith.extf %bv : f16 to f32
          %p = arith.mulf %ae, %be : f32
          %y = arith.addf %x, %p : f32
          scf.yield %y : f32
        }
        memref.store %acc, %R[%i, %j] : memref<32x32xf32>
      }
    }
    %gA = gpu.alloc () : memref<32x32xf16>
    %gB = gpu.alloc () : memref<32x32xf16>
    %gC = gpu.alloc () : memref<32x32xf32>
    gpu.memcpy %gA, %A : memref<32x32xf16>, memref<32x32xf16>
    gpu.memcpy %gB, %B : memref<32x32xf16>, memref<32x32xf16>
    gpu.memcpy %gC, %C : memref<32x32xf32>, memref<32x32xf32>
    gpu.launch_func @kernels::@mm blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%gA : memref<32x32xf16>, %gB : memref<32x32xf16>, %gC : memref<32x32xf32>)
    gpu.memcpy %C, %gC : memref<32x32xf32>, memref<32x32xf32>
    %uC = memref.cast %C : memref<32x32xf32> to memref<*xf32>
    %uR = memref.cast %R : memref<32x32xf32> to memref<*xf32>
    call @printAllcloseF32(%uC, %uR) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}
}
