// xe-run on a dynamic-shape matmul with scalar arguments: random inputs sized by --dims (named
// sizes; the index argument %m takes the value of the size m), lowered to VC-mode XeGPU,
// simulated and checked against the CPU on the same arguments; without sizes, an error that
// shows a command line giving them.
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --dims m=100,N=72,K=40,A=mxK,B=KxN,C=mxN | FileCheck %s
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --dims m=100,A=100x40,B=40x72,C=mx72 | FileCheck %s
// RUN: not xe-run %s --pipeline xe-gemm-to-xegpu --check 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK:      scalar arguments: %alpha = {{.*}} : f32, %m = 100 : index
// CHECK:      simulated @f in
// CHECK:        A: max abs error 0, max rel error 0  ok
// CHECK:        C: max abs error {{.*}}  ok
// CHECK-NEXT: PASS

// ERR:      xe-run: error: arguments %A (memref<?x?xbf16>), %B (memref<?x?xbf16>), %C (memref<?x?xf32>) have a dynamic shape and no size; give their shapes with --dims, e.g.
// ERR-NEXT:   xe-run {{.*}}xe-run-dims.mlir --pipeline xe-gemm-to-xegpu --check --dims A=64x64,B=64x64,C=64x64

func.func @f(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>, %alpha: f32, %m: index) {
  linalg.matmul ins(%A, %B : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  // scale the first %m rows of C by %alpha (all of them when %m is C's row count)
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %x = memref.load %C[%i, %j] : memref<?x?xf32>
      %y = arith.mulf %x, %alpha : f32
      memref.store %y, %C[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
