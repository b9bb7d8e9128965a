// memref.atomic_rmw in a subgroup-level kernel (no lane id, no SIMT op) runs once per subgroup, on the
// simulator and on OpenCL (convert-xegpu-to-spirv: lane 0 performs it, every lane takes the old value);
// in a lane-level kernel once per work-item (memref-atomic-kinds.mlir). 2 subgroups of 16 work-items
// each add 2.5 to x[0] and 1 to n[0], and store the old n at n[1 + subgroup].
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// RUN: xe-run %s -e main --entry-point-result=void --backend=opencl | FileCheck %s

// CHECK: [5,  0]
// CHECK: [2,  {{[01]}},  {{[01]}}]
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @groups(%x: memref<2xf32>, %n: memref<3xi32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %sg = gpu.subgroup_id : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %v = arith.constant 2.5 : f32
      %one = arith.constant 1 : i32
      %a = memref.atomic_rmw addf %v, %x[%c0] : (f32, memref<2xf32>) -> f32
      %old = memref.atomic_rmw addi %one, %n[%c0] : (i32, memref<3xi32>) -> i32
      %slot = arith.addi %sg, %c1 : index
      memref.store %old, %n[%slot] : memref<3xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %x = memref.alloc() : memref<2xf32>
    %n = memref.alloc() : memref<3xi32>
    %z = arith.constant 0.0 : f32
    %zi = arith.constant 0 : i32
    linalg.fill ins(%z : f32) outs(%x : memref<2xf32>)
    linalg.fill ins(%zi : i32) outs(%n : memref<3xi32>)
    %gx = gpu.alloc () : memref<2xf32>
    %gn = gpu.alloc () : memref<3xi32>
    gpu.memcpy %gx, %x : memref<2xf32>, memref<2xf32>
    gpu.memcpy %gn, %n : memref<3xi32>, memref<3xi32>
    gpu.launch_func @k::@groups blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%gx : memref<2xf32>, %gn : memref<3xi32>)
    gpu.memcpy %x, %gx : memref<2xf32>, memref<2xf32>
    gpu.memcpy %n, %gn : memref<3xi32>, memref<3xi32>
    %u = memref.cast %x : memref<2xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    %w = memref.cast %n : memref<3xi32> to memref<*xi32>
    call @printMemrefI32(%w) : (memref<*xi32>) -> ()
    return
  }
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}
}
