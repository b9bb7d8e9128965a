// gpu.printf in a lane-level (SIMT) kernel run on its own (no -e: the host function's arguments are filled):
// every work-item prints, the simulator by work-group, subgroup, lane, each work-item's lines in program
// order; a printf under a divergent scf.if prints for the lanes that take it. OpenCL prints the same lines
// in the runtime's order (sorted here before checking).
// RUN: xe-run %s | FileCheck %s
// The simulator's own command line (python -m xedialects.sim) prints the same lines.
// RUN: %python -m xedialects.sim %s --entry main | FileCheck %s
// RUN: %if opencl %{ xe-run %s --pipeline=xe-gemm-to-spirv-portable --backend=opencl | sort | FileCheck %s --check-prefix=CL %}

// CHECK:      wg 0 sg 0 lane 0: x = 0 y = 0.000
// CHECK-NEXT: end 0
// CHECK-NEXT: wg 0 sg 0 lane 1: x = 10 y = 0.500
// CHECK-NEXT: end 1
// CHECK-NEXT: end 2
// CHECK:      end 15
// CHECK-NEXT: wg 0 sg 1 lane 0: x = 160 y = 8.000
// CHECK-NEXT: end 16
// CHECK:      wg 1 sg 1 lane 1: x = 490 y = 24.500
// CHECK-NEXT: end 49
// CHECK:      end 63
// CHECK-NEXT: simulated @main

// CL:      end 0
// CL:      end 63
// CL:      wg 0 sg 0 lane 0: x = 0 y = 0.000
// CL-NEXT: wg 0 sg 0 lane 1: x = 10 y = 0.500
// CL-NEXT: wg 0 sg 1 lane 0: x = 160 y = 8.000
// CL-NEXT: wg 0 sg 1 lane 1: x = 170 y = 8.500
// CL-NEXT: wg 1 sg 0 lane 0: x = 320 y = 16.000
// CL-NEXT: wg 1 sg 0 lane 1: x = 330 y = 16.500
// CL-NEXT: wg 1 sg 1 lane 0: x = 480 y = 24.000
// CL-NEXT: wg 1 sg 1 lane 1: x = 490 y = 24.500

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @lanes(%a: memref<64xi32>) kernel {
      %c2 = arith.constant 2 : index
      %c10 = arith.constant 10 : i32
      %half = arith.constant 0.5 : f32
      %bid = gpu.block_id x
      %sg = gpu.subgroup_id : index
      %lane = gpu.lane_id
      %tid = gpu.thread_id x
      %bd = gpu.block_dim x
      %base = arith.muli %bid, %bd : index
      %g = arith.addi %base, %tid : index
      %gi = arith.index_cast %g : index to i32
      %x = arith.muli %gi, %c10 : i32
      %gf = arith.sitofp %gi : i32 to f32
      %y = arith.mulf %gf, %half : f32
      %first = arith.cmpi ult, %lane, %c2 : index
      scf.if %first {
        gpu.printf "wg %lld sg %lld lane %lld: x = %d y = %.3f\n", %bid, %sg, %lane, %x, %y : index, index, index, i32, f32
      }
      gpu.printf "end %d\n", %gi : i32
      memref.store %x, %a[%g] : memref<64xi32>
      gpu.return
    }
  }
  func.func @main(%a: memref<64xi32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @k::@lanes blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<64xi32>)
    return
  }
}
