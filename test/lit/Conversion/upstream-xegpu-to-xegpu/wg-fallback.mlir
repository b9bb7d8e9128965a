// A work-group GEMM (256x256 C tile, 8x4 subgroups of 32x64, K in steps of 32) whose dpas carries its
// layout as `layout_result_0` only: LLVM 22's xegpu-wg-to-sg-distribute cannot distribute it ("failed to
// legalize unresolved materialization"). The import (distribute=auto) then translates the kernel to
// work-group XeTile (wg_map from sg_layout / sg_data), distributes it with our xetile-wg-to-sg, remarks
// on upstream's error, and xe-run simulates it; the host checks C = A x B + C against its own loops.
// RUN: not %python -m xedialects.mlir_tools mlir-opt --xegpu-wg-to-sg-distribute %s 2>&1 | FileCheck %s --check-prefix=UP
// RUN: xe-opt --convert-upstream-xegpu %s 2>&1 | FileCheck %s --check-prefix=SG
// RUN: xe-run %s -e main --entry-point-result=void 2>&1 | FileCheck %s
// UP: error: {{.*}}failed to legalize unresolved materialization from ('vector<{{.*}}>') to ('vector<{{.*}}>')
// SG:       remark: convert-upstream-xegpu: upstream's xegpu-wg-to-sg-distribute failed (failed to legalize unresolved materialization {{.*}}); the work-group kernel was imported as work-group XeTile (wg_map from sg_layout / sg_data) and distributed by xetile-wg-to-sg
// SG:       gpu.subgroup_id
// SG:       scf.for
// SG:       xegpu.load_nd %{{.*}} {mode = vc} : !xegpu.tensor_desc<32x32xf16> -> vector<32x32xf16>
// SG-COUNT-4: xegpu.load_nd %{{.*}} {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<32x16xf16> -> vector<16x16x2xf16>
// SG-COUNT-32: xegpu.dpas
// SG-COUNT-16: xegpu.store_nd
// SG-NOT:   xetile.
// CHECK: remark: convert-upstream-xegpu: upstream's xegpu-wg-to-sg-distribute failed
// CHECK: [ALLCLOSE: TRUE]

#a = #xegpu.layout<sg_layout = [8, 4], sg_data = [32, 32], inst_data = [8, 16]>
#b = #xegpu.layout<sg_layout = [8, 4], sg_data = [32, 64], inst_data = [16, 16]>
#c = #xegpu.layout<sg_layout = [8, 4], sg_data = [32, 64], inst_data = [8, 16]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mm(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %tc = xegpu.create_nd_tdesc %c : memref<256x256xf32> -> !xegpu.tensor_desc<256x256xf32, #c>
      %vc = xegpu.load_nd %tc[%c0, %c0] {layout = #c} : !xegpu.tensor_desc<256x256xf32, #c> -> vector<256x256xf32>
      %ta = xegpu.create_nd_tdesc %a : memref<256x256xf16> -> !xegpu.tensor_desc<256x32xf16, #a>
      %tb = xegpu.create_nd_tdesc %b : memref<256x256xf16> -> !xegpu.tensor_desc<32x256xf16, #b>
      %out = scf.for %k = %c0 to %c64 step %c32 iter_args(%acc = %vc) -> (vector<256x256xf32>) {
        %va = xegpu.load_nd %ta[%c0, %k] {layout = #a} : !xegpu.tensor_desc<256x32xf16, #a> -> vector<256x32xf16>
        %vb = xegpu.load_nd %tb[%k, %c0] {layout = #b} : !xegpu.tensor_desc<32x256xf16, #b> -> vector<32x256xf16>
        %d = xegpu.dpas %va, %vb, %acc {layout_result_0 = #c} : vector<256x32xf16>, vector<32x256xf16>, vector<256x256xf32> -> vector<256x256xf32>
        scf.yield %d : vector<256x256xf32>
      }
      xegpu.store_nd %out, %tc[%c0, %c0] {layout = #c} : vector<256x256xf32>, !xegpu.tensor_desc<256x256xf32, #c>
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
    %c512 = arith.constant 512 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %A = memref.alloc() : memref<256x256xf16>
    %B = memref.alloc() : memref<256x256xf16>
    %C = memref.alloc() : memref<256x256xf32>
    %R = memref.alloc() : memref<256x256xf32>
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %k = %c0 to %c256 step %c1 {
        %s = arith.addi %i, %k : index
        %m = arith.remui %s, %c7 : index
        %n = arith.index_cast %m : index to i32
        %f = arith.sitofp %n : i32 to f16
        memref.store %f, %A[%i, %k] : memref<256x256xf16>
      }
    }
    scf.for %k = %c0 to %c256 step %c1 {
      scf.for %j = %c0 to %c256 step %c1 {
        %s = arith.muli %k, %j : index
        %m = arith.remui %s, %c7 : index
        %n = arith.index_cast %m : index to i32
        %f = arith.sitofp %n : i32 to f16
        memref.store %f, %B[%k, %j] : memref<256x256xf16>
      }
    }
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %j = %c0 to %c256 step %c1 {
        %n = arith.index_cast %j : index to i32
        %f = arith.sitofp %n : i32 to f32
        memref.store %f, %C[%i, %j] : memref<256x256xf32>
        %acc = scf.for %k = %c0 to %c64 step %c1 iter_args(%x = %f) -> (f32) {
          %av = memref.load %A[%i, %k] : memref<256x256xf16>
          %bv = memref.load %B[%k, %j] : memref<256x256xf16>
          %ae = arith.extf %av : f16 to f32
          %be = arith.extf %bv : f16 to f32
          %p = arith.mulf %ae, %be : f32
          %y = arith.addf %x, %p : f32
          scf.yield %y : f32
        }
        memref.store %acc, %R[%i, %j] : memref<256x256xf32>
      }
    }
    %gA = gpu.alloc () : memref<256x256xf16>
    %gB = gpu.alloc () : memref<256x256xf16>
    %gC = gpu.alloc () : memref<256x256xf32>
    gpu.memcpy %gA, %A : memref<256x256xf16>, memref<256x256xf16>
    gpu.memcpy %gB, %B : memref<256x256xf16>, memref<256x256xf16>
    gpu.memcpy %gC, %C : memref<256x256xf32>, memref<256x256xf32>
    gpu.launch_func @kernels::@mm blocks in (%c1, %c1, %c1) threads in (%c512, %c1, %c1) args(%gA : memref<256x256xf16>, %gB : memref<256x256xf16>, %gC : memref<256x256xf32>)
    gpu.memcpy %C, %gC : memref<256x256xf32>, memref<256x256xf32>
    %uC = memref.cast %C : memref<256x256xf32> to memref<*xf32>
    %uR = memref.cast %R : memref<256x256xf32> to memref<*xf32>
    call @printAllcloseF32(%uC, %uR) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}
}
