// memref.atomic_rmw in a kernel on the simulator: its kind, an arith::AtomicRMWKind, is an integer in MLIR's
// generic form, which the simulator read as the kind's name ("unsupported atomic kind '0 : i64'" for every
// kind before). 16 work-items add 1.5 to, and take the max of their lane into, slot lane mod 4.
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// RUN: xe-run %s -e main --entry-point-result=void --backend=opencl | FileCheck %s

// CHECK: [6,  6,  6,  6,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0]
// CHECK: [12,  13,  14,  15]
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @lanes(%x: memref<16xf32>, %n: memref<4xi32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %lane = gpu.lane_id
      %c4 = arith.constant 4 : index
      %i = arith.remui %lane, %c4 : index
      %one = arith.constant 1.5 : f32
      %old = memref.atomic_rmw addf %one, %x[%i] : (f32, memref<16xf32>) -> f32
      %l = arith.index_cast %lane : index to i32
      %m = memref.atomic_rmw maxs %l, %n[%i] : (i32, memref<4xi32>) -> i32
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %x = memref.alloc() : memref<16xf32>
    %n = memref.alloc() : memref<4xi32>
    %z = arith.constant 0.0 : f32
    %zi = arith.constant 0 : i32
    linalg.fill ins(%z : f32) outs(%x : memref<16xf32>)
    linalg.fill ins(%zi : i32) outs(%n : memref<4xi32>)
    %gx = gpu.alloc () : memref<16xf32>
    %gn = gpu.alloc () : memref<4xi32>
    gpu.memcpy %gx, %x : memref<16xf32>, memref<16xf32>
    gpu.memcpy %gn, %n : memref<4xi32>, memref<4xi32>
    gpu.launch_func @k::@lanes blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%gx : memref<16xf32>, %gn : memref<4xi32>)
    gpu.memcpy %x, %gx : memref<16xf32>, memref<16xf32>
    gpu.memcpy %n, %gn : memref<4xi32>, memref<4xi32>
    %u = memref.cast %x : memref<16xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    %v = memref.cast %n : memref<4xi32> to memref<*xi32>
    call @printMemrefI32(%v) : (memref<*xi32>) -> ()
    return
  }
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}
}
