// A whole program run like mlir-runner: `main` fills buffers on the host, copies them to the
// device, launches an XeTile kernel twice (the second launch adds b again to the first's result),
// computes the reference on the host and checks itself with runner utilities.
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// RUN: xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-xegpu -O0 | FileCheck %s
// RUN: not xe-run %s -e nothere --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK:      before the device
// CHECK-NEXT: [ALLCLOSE: TRUE]
// CHECK-NEXT: Unranked Memref base@ = {{.*}} rank = 2 offset = 0 sizes = [2, 4] strides = [32, 1] data =
// CHECK-NEXT: {{\[}}[0,   2,   4,   6],
// CHECK-NEXT: [1,   3,   5,   7]]
// CHECK-NEXT: Max absolute error 0 at idx=0 (i=inf, j=inf)
// ERR: whole-program.mlir:{{[0-9]+}}:{{[0-9]+}}: error: no function @nothere in the program (functions: @main, {{.*}}; choose one with -e NAME)

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @add(%a: memref<16x32xf32>, %b: memref<16x32xf32>, %c: memref<16x32xf32>) kernel {
      %c0 = arith.constant 0 : index
      %ta = xetile.init_tile %a[%c0, %c0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
      %tb = xetile.init_tile %b[%c0, %c0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
      %tc = xetile.init_tile %c[%c0, %c0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
      %va = xetile.load_tile %ta : !xetile.tile<16x32xf32> -> vector<16x32xf32>
      %vb = xetile.load_tile %tb : !xetile.tile<16x32xf32> -> vector<16x32xf32>
      %s = arith.addf %va, %vb : vector<16x32xf32>
      xetile.store_tile %s, %tc : vector<16x32xf32>, !xetile.tile<16x32xf32>
      gpu.return
    }
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>)
  func.func private @printMaxErrorF32(memref<*xf32>, memref<*xf32>)
  func.func private @printMemrefF32(memref<*xf32>)
  func.func private @printString(!llvm.ptr)
  llvm.mlir.global internal constant @msg("before the device\0A\00") {addr_space = 0 : i32}
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %a = memref.alloc() : memref<16x32xf32>
    %b = memref.alloc() : memref<16x32xf32>
    %ref = memref.alloc() : memref<16x32xf32>
    %out = memref.alloc() : memref<16x32xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %ii = arith.index_cast %i : index to i32
        %jj = arith.index_cast %j : index to i32
        %fi = arith.sitofp %ii : i32 to f32
        %fj = arith.sitofp %jj : i32 to f32
        memref.store %fi, %a[%i, %j] : memref<16x32xf32>
        memref.store %fj, %b[%i, %j] : memref<16x32xf32>
        %s = arith.addf %fi, %fj : f32
        %s2 = arith.addf %s, %fj : f32
        memref.store %s2, %ref[%i, %j] : memref<16x32xf32>
      }
    }
    %p = llvm.mlir.addressof @msg : !llvm.ptr
    call @printString(%p) : (!llvm.ptr) -> ()
    %da = gpu.alloc () : memref<16x32xf32>
    %db = gpu.alloc () : memref<16x32xf32>
    %dc = gpu.alloc () : memref<16x32xf32>
    gpu.memcpy %da, %a : memref<16x32xf32>, memref<16x32xf32>
    gpu.memcpy %db, %b : memref<16x32xf32>, memref<16x32xf32>
    gpu.launch_func @k::@add blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%da : memref<16x32xf32>, %db : memref<16x32xf32>, %dc : memref<16x32xf32>)
    gpu.launch_func @k::@add blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%dc : memref<16x32xf32>, %db : memref<16x32xf32>, %dc : memref<16x32xf32>)
    gpu.memcpy %out, %dc : memref<16x32xf32>, memref<16x32xf32>
    gpu.dealloc %da : memref<16x32xf32>
    gpu.dealloc %db : memref<16x32xf32>
    gpu.dealloc %dc : memref<16x32xf32>
    %u = memref.cast %out : memref<16x32xf32> to memref<*xf32>
    %r = memref.cast %ref : memref<16x32xf32> to memref<*xf32>
    call @printAllcloseF32(%u, %r) : (memref<*xf32>, memref<*xf32>) -> ()
    %sv = memref.subview %out[0, 0] [2, 4] [1, 1] : memref<16x32xf32> to memref<2x4xf32, strided<[32, 1]>>
    %su = memref.cast %sv : memref<2x4xf32, strided<[32, 1]>> to memref<*xf32>
    call @printMemrefF32(%su) : (memref<*xf32>) -> ()
    call @printMaxErrorF32(%u, %r) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
}
