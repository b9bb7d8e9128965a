// Matmuls the lowering does not support are left untouched with a remark saying why (never a
// crash); element-wise ops after a matmul that cannot be fused stay on the host with a remark.
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile --verify-diagnostics
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: func.func @mixed_types(
// CHECK:       linalg.matmul
func.func @mixed_types(%A: memref<64x64xf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
  // expected-remark @+1 {{not lowered to XeTile: unsupported element types f16 x bf16 -> f32; supported: bf16xbf16->bf16, bf16xbf16->f32, f16xf16->f16, f16xf16->f32, f32xf32->f32, i8xi8->i32}}
  linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  return
}

// -----
// CHECK-LABEL: func.func @f64(
// CHECK:       linalg.matmul
func.func @f64(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>) {
  // expected-remark @+1 {{unsupported element types f64 x f64 -> f64}}
  linalg.matmul ins(%A, %B : memref<64x64xf64>, memref<64x64xf64>) outs(%C : memref<64x64xf64>)
  return
}

// -----
func.func @unsigned(%A: memref<64x64xi8>, %B: memref<64x64xi8>, %C: memref<64x64xi32>) {
  // expected-remark @+1 {{unsigned extension (arith.extui) in the body: only signed i8 x i8 -> i32 (and float) matmuls are supported}}
  linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%A, %B : memref<64x64xi8>, memref<64x64xi8>) outs(%C : memref<64x64xi32>)
  return
}

// -----
// rank-4 operands (two batch dimensions)
func.func @rank4(%A: memref<2x3x64x64xbf16>, %B: memref<2x3x64x64xbf16>, %C: memref<2x3x64x64xf32>) {
  // expected-remark @+1 {{not lowered to XeTile: 5 loops: only 2D (M, N, K) matmuls on rank-2 memrefs and batched ones on rank-3 memrefs are supported}}
  linalg.generic {indexing_maps = [affine_map<(b0, b1, m, n, k) -> (b0, b1, m, k)>, affine_map<(b0, b1, m, n, k) -> (b0, b1, k, n)>,
                                   affine_map<(b0, b1, m, n, k) -> (b0, b1, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<2x3x64x64xbf16>, memref<2x3x64x64xbf16>) outs(%C : memref<2x3x64x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----
func.func @dot(%x: memref<64xf32>, %y: memref<64xf32>, %d: memref<f32>) {
  // expected-remark @+1 {{'linalg.dot' is not a supported matmul form (supported: linalg.matmul, linalg.batch_matmul, matmul-shaped linalg.generic)}}
  linalg.dot ins(%x, %y : memref<64xf32>, memref<64xf32>) outs(%d : memref<f32>)
  return
}

// -----
func.func @not_mac(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  // expected-remark @+1 {{linalg.generic body is not multiply-accumulate (it yields arith.maximumf, not arith.addf/addi)}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>) outs(%C : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.addf %x, %y : f32
    %s = arith.maximumf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----
func.func @tensors(%A: tensor<64x64xbf16>, %B: tensor<64x64xbf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{operands must be memrefs (bufferize tensors first, e.g. with the xe-bufferize or xe-linalg-to-xetile pipeline)}}
  %r = linalg.matmul ins(%A, %B : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----
func.func @strided_dynamic(%A: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) {
  // expected-remark @+1 {{operand A (memref<?x?xbf16, strided<[?, 1], offset: ?>>): dynamic-shape operands need the identity layout and static ones a strided layout}}
  linalg.matmul ins(%A, %B : memref<?x?xbf16, strided<[?, 1], offset: ?>>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  return
}

// -----
// the matmul is lowered; the transposing element-wise op is not fused and stays on the host
// CHECK-LABEL: func.func @transposed_epilogue(
// CHECK:       gpu.launch_func
// CHECK-NEXT:  linalg.generic
func.func @transposed_epilogue(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>, %D: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  // expected-remark @+1 {{element-wise op not fused into the GEMM kernel: input 0 of 'linalg.generic' has the map (d1, d0) (fusible: identity, (d1) row, (d0) column, () scalar)}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%C : memref<64x64xf32>) outs(%D : memref<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// -----
func.func @index_epilogue(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  // expected-remark @+1 {{'linalg.index' in the body of 'linalg.generic' (only arith/math ops are fused)}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%C : memref<64x64xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %f = arith.index_cast %i : index to i32
    %g = arith.sitofp %f : i32 to f32
    %r = arith.addf %o, %g : f32
    linalg.yield %r : f32
  }
  return
}

// -----
func.func @writes_input(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>) outs(%C : memref<64x64xf32>)
  // expected-remark @+1 {{element-wise op not fused into the GEMM kernel: 'linalg.add' writes an input of the matmul}}
  linalg.add ins(%C, %C : memref<64x64xf32>, memref<64x64xf32>) outs(%A : memref<64x64xf32>)
  return
}
