// i1 memrefs in a whole program's host code (issue 30): stored as one byte per element (0/1), as
// LLVM, numpy and the simulator keep them, instead of upstream MemRefToLLVM's assertion
// (`width >= 8`): memref.load/store, a zero-filled gpu.alloc, gpu.memcpy, a memref.global with
// an initial value, vector.load and a kernel writing an i1 buffer.
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s

// CHECK:      ( 1, 0, 1 )
// CHECK-NEXT: ( 0, 1, 0, 1 )
// CHECK-NEXT: Unranked Memref base@ = {{.*}} rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CHECK-NEXT: [1,  0,  1,  0]

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @odd(%a: memref<4xi1>) kernel {
      %i = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %r = arith.remui %i, %c2 : index
      %c1 = arith.constant 1 : index
      %odd = arith.cmpi eq, %r, %c1 : index
      memref.store %odd, %a[%i] : memref<4xi1>
      gpu.return
    }
  }
  func.func private @printMemrefI32(memref<*xi32>)
  memref.global "private" constant @g : memref<3xi1> = dense<[true, false, true]>
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %t = arith.constant true
    %d = gpu.alloc () : memref<4xi1>
    %a = memref.alloc () : memref<4xi1>
    gpu.memcpy %a, %d : memref<4xi1>, memref<4xi1>
    memref.store %t, %a[%c2] : memref<4xi1>
    gpu.memcpy %d, %a : memref<4xi1>, memref<4xi1>
    %gg = memref.get_global @g : memref<3xi1>
    %vec = vector.load %gg[%c0] : memref<3xi1>, vector<3xi1>
    vector.print %vec : vector<3xi1>
    %k = gpu.alloc () : memref<4xi1>
    gpu.launch_func @k::@odd blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%k : memref<4xi1>)
    %kv = vector.load %k[%c0] : memref<4xi1>, vector<4xi1>
    vector.print %kv : vector<4xi1>
    %o = memref.alloc () : memref<4xi32>
    %x0 = memref.load %gg[%c0] : memref<3xi1>
    %x1 = memref.load %d[%c0] : memref<4xi1>
    %x2 = memref.load %d[%c2] : memref<4xi1>
    %x3 = memref.load %gg[%c1] : memref<3xi1>
    %y0 = arith.extui %x0 : i1 to i32
    %y1 = arith.extui %x1 : i1 to i32
    %y2 = arith.extui %x2 : i1 to i32
    %y3 = arith.extui %x3 : i1 to i32
    memref.store %y0, %o[%c0] : memref<4xi32>
    memref.store %y1, %o[%c1] : memref<4xi32>
    memref.store %y2, %o[%c2] : memref<4xi32>
    memref.store %y3, %o[%c3] : memref<4xi32>
    %u = memref.cast %o : memref<4xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    gpu.dealloc %d : memref<4xi1>
    gpu.dealloc %k : memref<4xi1>
    return
  }
}
