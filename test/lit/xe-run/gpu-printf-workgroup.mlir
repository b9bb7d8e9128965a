// gpu.printf in a work-group-level XeTile kernel (wg_map: 2x2 subgroups) of a whole program. The simulator
// prints once per subgroup, by work-group then subgroup, between the host's own lines: at work-group level
// (no pipeline) each of the 4 subgroups prints the work-group's line, as the distributed kernel does
// (xe-gemm-to-xegpu), and as OpenCL does (lane 0 of each subgroup prints; there the order is the runtime's).
// (The SPIR-V's printf, pvc target: test_gpu_printf.py.)
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// RUN: xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-xegpu | FileCheck %s
// RUN: %if opencl %{ xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-spirv-portable --backend=opencl | FileCheck %s --check-prefix=CL %}

// CHECK:      before the device
// CHECK-NEXT: work-group 0: rows from 0, scale 0.5, f16 -1.25e+00 bf16 3.000 hex 0xff
// CHECK-NEXT: work-group 0: rows from 0, scale 0.5, f16 -1.25e+00 bf16 3.000 hex 0xff
// CHECK-NEXT: work-group 0: rows from 0, scale 0.5, f16 -1.25e+00 bf16 3.000 hex 0xff
// CHECK-NEXT: work-group 0: rows from 0, scale 0.5, f16 -1.25e+00 bf16 3.000 hex 0xff
// CHECK-NEXT: work-group 1: rows from 32, scale 0.5, f16 -1.25e+00 bf16 3.000 hex 0xff
// CHECK-NEXT: work-group 1: rows from 32, scale 0.5, f16 -1.25e+00 bf16 3.000 hex 0xff
// CHECK-NEXT: work-group 1: rows from 32, scale 0.5, f16 -1.25e+00 bf16 3.000 hex 0xff
// CHECK-NEXT: work-group 1: rows from 32, scale 0.5, f16 -1.25e+00 bf16 3.000 hex 0xff
// CHECK-NEXT: after the device

// CL:          before the device
// CL-COUNT-4:  work-group {{[01]}}: rows from {{0|32}}, scale 0.5, f16 -1.25e+00 bf16 3.000 hex 0xff
// CL-COUNT-4:  work-group {{[01]}}: rows from {{0|32}}, scale 0.5, f16 -1.25e+00 bf16 3.000 hex 0xff
// CL-NEXT:     after the device

#wg = #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [16, 32]>>
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @copy(%a: memref<64x64xf32>, %c: memref<64x64xf32>, %s: f32) kernel {
      %bx = gpu.block_id x
      %c32 = arith.constant 32 : index
      %row = arith.muli %bx, %c32 : index
      %c0 = arith.constant 0 : index
      %h = arith.constant -1.25 : f16
      %b = arith.constant 3.0 : bf16
      %m = arith.constant -1 : i8
      %ta = xetile.init_tile %a[%row, %c0] : memref<64x64xf32> -> !xetile.tile<32x64xf32, #wg>
      %va = xetile.load_tile %ta : !xetile.tile<32x64xf32, #wg> -> vector<32x64xf32>
      gpu.printf "work-group %lld: rows from %lld, scale %g, f16 %.2e bf16 %.3f hex %#hhx\n", %bx, %row, %s, %h, %b, %m : index, index, f32, f16, bf16, i8
      %tc = xetile.init_tile %c[%row, %c0] : memref<64x64xf32> -> !xetile.tile<32x64xf32, #wg>
      xetile.store_tile %va, %tc : vector<32x64xf32>, !xetile.tile<32x64xf32, #wg>
      gpu.return
    }
  }
  func.func private @printString(!llvm.ptr)
  llvm.mlir.global internal constant @before("before the device\0A\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @after("after the device\0A\00") {addr_space = 0 : i32}
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %f = arith.constant 0.5 : f32
    %a = gpu.alloc () : memref<64x64xf32>
    %c = gpu.alloc () : memref<64x64xf32>
    %p = llvm.mlir.addressof @before : !llvm.ptr
    call @printString(%p) : (!llvm.ptr) -> ()
    gpu.launch_func @k::@copy blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<64x64xf32>, %c : memref<64x64xf32>, %f : f32)
    %q = llvm.mlir.addressof @after : !llvm.ptr
    call @printString(%q) : (!llvm.ptr) -> ()
    gpu.dealloc %a : memref<64x64xf32>
    gpu.dealloc %c : memref<64x64xf32>
    return
  }
}
