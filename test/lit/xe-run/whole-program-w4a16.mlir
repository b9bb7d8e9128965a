// A whole program (xe-run -e main, the host lowered to LLVM) with a fused W4A16 GEMM: the host holds i4
// memrefs one value per byte, and the host view of the weights the kernel takes (an i4 memref cast to its
// bytes) becomes a loop packing them two per byte, the even element in the low nibble
// (runtime/host/host_lowering.py, docs/quantized-gemm.md "i4 weights"). The lowered program prints what
// the CPU computes from the linalg program.
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// RUN: xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-spirv 2>/dev/null | FileCheck %s

// CHECK:      rank = 2 offset = 0 sizes = [2, 4] strides = [128, 1] data =
// CHECK-NEXT: {{\[}}[-960,   -576,   -192,   192],
// CHECK-NEXT: [-960,   -576,   -192,   192]]

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @main() {
  %A = memref.alloc() : memref<16x128xf16>
  %W = memref.alloc() : memref<128x128xi4>
  %S = memref.alloc() : memref<128xf16>
  %C = memref.alloc() : memref<16x128xf32>
  %one = arith.constant 1.0 : f16
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%one : f16) outs(%A : memref<16x128xf16>)
  linalg.fill ins(%one : f16) outs(%S : memref<128xf16>)
  linalg.fill ins(%z : f32) outs(%C : memref<16x128xf32>)
  // W[k][n] = (k floordiv 64 + 3 n) mod 16 - 8: every nibble value, each column its own
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%W : memref<128x128xi4>) {
  ^bb0(%o: i4):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %c8 = arith.constant 8 : index
    %n3 = arith.muli %n, %c3 : index
    %c64 = arith.constant 64 : index
    %kq = arith.divui %k, %c64 : index
    %s = arith.addi %kq, %n3 : index
    %m = arith.remui %s, %c16 : index
    %v = arith.subi %m, %c8 : index
    %w = arith.index_cast %v : index to i4
    linalg.yield %w : i4
  }
  %Bd = memref.alloc() : memref<128x128xf16>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<128x128xi4>, memref<128xf16>) outs(%Bd : memref<128x128xf16>) {
  ^bb0(%w: i4, %s: f16, %o: f16):
    %f = arith.sitofp %w : i4 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul ins(%A, %Bd : memref<16x128xf16>, memref<128x128xf16>) outs(%C : memref<16x128xf32>)
  %u = memref.subview %C[0, 0] [2, 4] [1, 1] : memref<16x128xf32> to memref<2x4xf32, strided<[128, 1]>>
  %c = memref.cast %u : memref<2x4xf32, strided<[128, 1]>> to memref<*xf32>
  call @printMemrefF32(%c) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
