// A whole program (mlir-runner style) with a softmax on the host: xe-gemm-to-xegpu outlines it
// into an XeTile kernel, xe-run runs main on the CPU and the kernel on the simulator / OpenCL.
// Row i holds -(i + j): every row's softmax starts 1 / sum(e^-k) = 0.632, 0.233, 0.0855.
// RUN: xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-xegpu | FileCheck %s
// RUN: xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-spirv-portable --backend opencl | FileCheck %s

// CHECK:      sizes = [3, 3]
// CHECK-NEXT: {{\[}}[0.632121,   0.232544,   0.0855482],
// CHECK-NEXT: [0.632121,   0.232544,   0.0855482],
// CHECK-NEXT: [0.632121,   0.232544,   0.0855482]]

module {
  func.func private @printMemrefF32(memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c21 = arith.constant 21 : index
    %a = memref.alloc() : memref<3x21xf32>
    %o = memref.alloc() : memref<3x21xf32>
    scf.for %i = %c0 to %c3 step %c1 {
      scf.for %j = %c0 to %c21 step %c1 {
        %ii = arith.index_cast %i : index to i32
        %jj = arith.index_cast %j : index to i32
        %s = arith.addi %ii, %jj : i32
        %f = arith.sitofp %s : i32 to f32
        %g = arith.negf %f : f32
        memref.store %g, %a[%i, %j] : memref<3x21xf32>
      }
    }
    linalg.softmax dimension(1) ins(%a : memref<3x21xf32>) outs(%o : memref<3x21xf32>)
    %s = memref.subview %o[0, 0] [3, 3] [1, 1] : memref<3x21xf32> to memref<3x3xf32, strided<[21, 1]>>
    %u = memref.cast %s : memref<3x3xf32, strided<[21, 1]>> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
