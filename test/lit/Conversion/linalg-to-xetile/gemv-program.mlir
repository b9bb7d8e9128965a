// A whole program (mlir-runner style) with gemv on the host: xe-gemm-to-xegpu outlines the
// linalg.matvec and linalg.vecmat (each with the linalg.fill of its output folded in) and the
// outer-product generic into XeTile kernels; xe-run runs main on the CPU and the kernels on the
// simulator / OpenCL. A[i, j] = i + 1 (5x37), ones for x: A x = 37 (i + 1), 1 A = 15 in every
// column; ger: C[i, j] = (i + 1) * (j + 1).
// RUN: xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-xegpu | FileCheck %s
// RUN: xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-spirv-portable --backend opencl | FileCheck %s

// CHECK:      sizes = [5]
// CHECK-NEXT: [37,  74,  111,  148,  185]
// CHECK:      sizes = [37]
// CHECK-NEXT: [15,  15,  15,
// CHECK:      sizes = [2, 3]
// CHECK-NEXT: {{\[}}[1,   2,   3],
// CHECK-NEXT: [2,   4,   6]]

module {
  func.func private @printMemrefF32(memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c37 = arith.constant 37 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %a = memref.alloc() : memref<5x37xf32>
    %x = memref.alloc() : memref<37xf32>
    %x2 = memref.alloc() : memref<5xf32>
    %y = memref.alloc() : memref<5xf32>
    %y2 = memref.alloc() : memref<37xf32>
    %c = memref.alloc() : memref<5x37xf32>
    scf.for %i = %c0 to %c5 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %g = arith.addf %f, %one : f32
      memref.store %g, %x2[%i] : memref<5xf32>
      scf.for %j = %c0 to %c37 step %c1 {
        memref.store %g, %a[%i, %j] : memref<5x37xf32>
      }
    }
    linalg.fill ins(%one : f32) outs(%x : memref<37xf32>)
    linalg.fill ins(%zero : f32) outs(%y : memref<5xf32>)
    linalg.matvec ins(%a, %x : memref<5x37xf32>, memref<37xf32>) outs(%y : memref<5xf32>)
    %u = memref.cast %y : memref<5xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    linalg.fill ins(%zero : f32) outs(%y2 : memref<37xf32>)
    %ones = memref.alloc() : memref<5xf32>
    linalg.fill ins(%one : f32) outs(%ones : memref<5xf32>)
    linalg.vecmat ins(%ones, %a : memref<5xf32>, memref<5x37xf32>) outs(%y2 : memref<37xf32>)
    %u2 = memref.cast %y2 : memref<37xf32> to memref<*xf32>
    call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
    %xs = memref.alloc() : memref<37xf32>
    scf.for %j = %c0 to %c37 step %c1 {
      %jj = arith.index_cast %j : index to i32
      %f = arith.sitofp %jj : i32 to f32
      %g = arith.addf %f, %one : f32
      memref.store %g, %xs[%j] : memref<37xf32>
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%x2, %xs : memref<5xf32>, memref<37xf32>) outs(%c : memref<5x37xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %m = arith.mulf %p, %q : f32
      linalg.yield %m : f32
    }
    %s = memref.subview %c[0, 0] [2, 3] [1, 1] : memref<5x37xf32> to memref<2x3xf32, strided<[37, 1]>>
    %u3 = memref.cast %s : memref<2x3xf32, strided<[37, 1]>> to memref<*xf32>
    call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
    return
  }
}
