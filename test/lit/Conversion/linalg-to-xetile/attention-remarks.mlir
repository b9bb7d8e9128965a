// Attention-like chains that are not fused get a remark naming why and keep the op-by-op lowering
// (GEMM kernels, softmax kernel, ...), never an error.
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile --verify-diagnostics=only-expected
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile 2>/dev/null | FileCheck %s

#q = affine_map<(b, m, n, k) -> (b, m, k)>
#k = affine_map<(b, m, n, k) -> (b, n, k)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>

// S is also copied out: it must stay in memory, so the chain is not fused.
// CHECK-LABEL: func.func @s_escapes(
// CHECK-NOT:   attention
// CHECK:       gpu.launch_func
func.func @s_escapes(%Q: memref<2x64x64xf16>, %K: memref<2x64x64xf16>, %V: memref<2x64x64xf16>,
                     %O: memref<2x64x64xf32>, %Sout: memref<2x64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %S = memref.alloc() : memref<2x64x64xf32>
  %P = memref.alloc() : memref<2x64x64xf32>
  %Ph = memref.alloc() : memref<2x64x64xf16>
  linalg.fill ins(%z : f32) outs(%S : memref<2x64x64xf32>)
  // expected-remark @+1 {{not fused as attention: an intermediate buffer (memref<2x64x64xf32>) has several readers}}
  linalg.batch_matmul indexing_maps = [#q, #k, #s] ins(%Q, %K : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%S : memref<2x64x64xf32>)
  linalg.softmax dimension(2) ins(%S : memref<2x64x64xf32>) outs(%P : memref<2x64x64xf32>)
  memref.copy %S, %Sout : memref<2x64x64xf32> to memref<2x64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%P : memref<2x64x64xf32>) outs(%Ph : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%z : f32) outs(%O : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%Ph, %V : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%O : memref<2x64x64xf32>)
  return
}

// -----

// The mask writes -inf below the diagonal (an anti-causal mask): not the causal mask the kernel fuses.
// CHECK-LABEL: func.func @anti_causal(
// CHECK-NOT:   attention
#q = affine_map<(b, m, n, k) -> (b, m, k)>
#k = affine_map<(b, m, n, k) -> (b, n, k)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @anti_causal(%Q: memref<2x64x64xf16>, %K: memref<2x64x64xf16>, %V: memref<2x64x64xf16>, %O: memref<2x64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %S = memref.alloc() : memref<2x64x64xf32>
  %P = memref.alloc() : memref<2x64x64xf32>
  %Ph = memref.alloc() : memref<2x64x64xf16>
  linalg.fill ins(%z : f32) outs(%S : memref<2x64x64xf32>)
  // expected-remark @+1 {{not fused as attention: an element-wise step on S writes -inf, but not exactly where column > row}}
  linalg.batch_matmul indexing_maps = [#q, #k, #s] ins(%Q, %K : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%S : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%S : memref<2x64x64xf32>) outs(%S : memref<2x64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %lt = arith.cmpi ult, %j, %i : index
    %r = arith.select %lt, %ninf, %x : f32
    linalg.yield %r : f32
  }
  linalg.softmax dimension(2) ins(%S : memref<2x64x64xf32>) outs(%P : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%P : memref<2x64x64xf32>) outs(%Ph : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%z : f32) outs(%O : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%Ph, %V : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%O : memref<2x64x64xf32>)
  return
}

// -----

// Softmax over the queries (dimension 1), f32 inputs: each a remark.
// CHECK-LABEL: func.func @softmax_dim1(
// CHECK-NOT:   attention
#q = affine_map<(b, m, n, k) -> (b, m, k)>
#k = affine_map<(b, m, n, k) -> (b, n, k)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @softmax_dim1(%Q: memref<2x64x64xf16>, %K: memref<2x64x64xf16>, %V: memref<2x64x64xf16>, %O: memref<2x64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %S = memref.alloc() : memref<2x64x64xf32>
  %P = memref.alloc() : memref<2x64x64xf32>
  %Ph = memref.alloc() : memref<2x64x64xf16>
  linalg.fill ins(%z : f32) outs(%S : memref<2x64x64xf32>)
  // expected-remark @+1 {{not fused as attention: linalg.softmax is not over the last dimension}}
  linalg.batch_matmul indexing_maps = [#q, #k, #s] ins(%Q, %K : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%S : memref<2x64x64xf32>)
  linalg.softmax dimension(1) ins(%S : memref<2x64x64xf32>) outs(%P : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%P : memref<2x64x64xf32>) outs(%Ph : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%z : f32) outs(%O : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%Ph, %V : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%O : memref<2x64x64xf32>)
  return
}

// CHECK-LABEL: func.func @f32_inputs(
// CHECK-NOT:   attention
func.func @f32_inputs(%Q: memref<2x64x64xf32>, %K: memref<2x64x64xf32>, %V: memref<2x64x64xf32>, %O: memref<2x64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %S = memref.alloc() : memref<2x64x64xf32>
  %P = memref.alloc() : memref<2x64x64xf32>
  linalg.fill ins(%z : f32) outs(%S : memref<2x64x64xf32>)
  // expected-remark @+1 {{not fused as attention: the softmax's result is not the left operand}}
  linalg.batch_matmul indexing_maps = [#q, #k, #s] ins(%Q, %K : memref<2x64x64xf32>, memref<2x64x64xf32>) outs(%S : memref<2x64x64xf32>)
  linalg.softmax dimension(2) ins(%S : memref<2x64x64xf32>) outs(%P : memref<2x64x64xf32>)
  linalg.fill ins(%z : f32) outs(%O : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%V, %P : memref<2x64x64xf32>, memref<2x64x64xf32>) outs(%O : memref<2x64x64xf32>)
  return
}

// -----

// An additive mask scaled with S afterwards ((S + M) * c): the kernel adds M after scaling S.
// CHECK-LABEL: func.func @scaled_mask(
// CHECK-NOT:   attention
#q = affine_map<(b, m, n, k) -> (b, m, k)>
#k = affine_map<(b, m, n, k) -> (b, n, k)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
#mn = affine_map<(b, m, n) -> (m, n)>
func.func @scaled_mask(%Q: memref<2x64x64xf16>, %K: memref<2x64x64xf16>, %V: memref<2x64x64xf16>, %M: memref<64x64xf32>,
                       %O: memref<2x64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %S = memref.alloc() : memref<2x64x64xf32>
  %P = memref.alloc() : memref<2x64x64xf32>
  %Ph = memref.alloc() : memref<2x64x64xf16>
  linalg.fill ins(%z : f32) outs(%S : memref<2x64x64xf32>)
  // expected-remark @+1 {{not fused as attention: a scale after the additive mask}}
  linalg.batch_matmul indexing_maps = [#q, #k, #s] ins(%Q, %K : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%S : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [#id, #mn, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%S, %M : memref<2x64x64xf32>, memref<64x64xf32>) outs(%S : memref<2x64x64xf32>) {
  ^bb0(%x: f32, %m: f32, %o: f32):
    %y = arith.addf %x, %m : f32
    linalg.yield %y : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%S : memref<2x64x64xf32>) outs(%S : memref<2x64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  }
  linalg.softmax dimension(2) ins(%S : memref<2x64x64xf32>) outs(%P : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%P : memref<2x64x64xf32>) outs(%Ph : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%z : f32) outs(%O : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%Ph, %V : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%O : memref<2x64x64xf32>)
  return
}

// -----

// No query rows (Lq = 0): nothing to compute, so the chain is not fused (its kernel would not
// verify: an internal error before); every op of it has an empty iteration space and is removed.
// CHECK-LABEL: func.func @no_rows(
// CHECK-NOT:   linalg.
// CHECK-NOT:   gpu.launch_func
// CHECK:       return
#q = affine_map<(b, m, n, k) -> (b, m, k)>
#k = affine_map<(b, m, n, k) -> (b, n, k)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @no_rows(%Q: memref<2x0x64xf16>, %K: memref<2x64x64xf16>, %V: memref<2x64x64xf16>, %O: memref<2x0x64xf32>) {
  %z = arith.constant 0.0 : f32
  %S = memref.alloc() : memref<2x0x64xf32>
  %P = memref.alloc() : memref<2x0x64xf32>
  %Ph = memref.alloc() : memref<2x0x64xf16>
  linalg.fill ins(%z : f32) outs(%S : memref<2x0x64xf32>)
  // expected-remark @+1 {{not fused as attention: Q has a zero-sized dimension ([2, 0, 64]): nothing to compute}}
  linalg.batch_matmul indexing_maps = [#q, #k, #s] ins(%Q, %K : memref<2x0x64xf16>, memref<2x64x64xf16>) outs(%S : memref<2x0x64xf32>)
  linalg.softmax dimension(2) ins(%S : memref<2x0x64xf32>) outs(%P : memref<2x0x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%P : memref<2x0x64xf32>) outs(%Ph : memref<2x0x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%z : f32) outs(%O : memref<2x0x64xf32>)
  linalg.batch_matmul ins(%Ph, %V : memref<2x0x64xf16>, memref<2x64x64xf16>) outs(%O : memref<2x0x64xf32>)
  return
}

// -----

// Q.K^T reads Q transposed (Q stored [batch, D, Lq]): linalg_match's maps describe it, the kernel reads Q
// row-major, so the chain is not fused; the matmuls are lowered as GEMMs.
#qt = affine_map<(b, m, n, k) -> (b, k, m)>
#k2 = affine_map<(b, m, n, k) -> (b, n, k)>
#s2 = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @q_transposed(
// CHECK-NOT:   attention
// CHECK:       gpu.launch_func
func.func @q_transposed(%Qt: memref<2x64x64xf16>, %K: memref<2x64x64xf16>, %V: memref<2x64x64xf16>,
                        %O: memref<2x64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %S = memref.alloc() : memref<2x64x64xf32>
  %P = memref.alloc() : memref<2x64x64xf32>
  %Ph = memref.alloc() : memref<2x64x64xf16>
  linalg.fill ins(%z : f32) outs(%S : memref<2x64x64xf32>)
  // expected-remark @+1 {{not fused as attention: 'linalg.batch_matmul' reads its left operand transposed}}
  linalg.batch_matmul indexing_maps = [#qt, #k2, #s2] ins(%Qt, %K : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%S : memref<2x64x64xf32>)
  linalg.softmax dimension(2) ins(%S : memref<2x64x64xf32>) outs(%P : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%P : memref<2x64x64xf32>) outs(%Ph : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%z : f32) outs(%O : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%Ph, %V : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%O : memref<2x64x64xf32>)
  return
}

// -----

// A bottom-right causal mask (key j hidden where j > i + Lk - Lq, written i - j < 32) with more queries
// than keys: its first Lq - Lk rows see no key.
// CHECK-LABEL: func.func @bottom_right_more_queries(
// CHECK-NOT:   attention
#q = affine_map<(b, m, n, k) -> (b, m, k)>
#k = affine_map<(b, m, n, k) -> (b, n, k)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @bottom_right_more_queries(%Q: memref<2x64x64xf16>, %K: memref<2x32x64xf16>, %V: memref<2x32x64xf16>, %O: memref<2x64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c32 = arith.constant 32 : index
  %S = memref.alloc() : memref<2x64x32xf32>
  %P = memref.alloc() : memref<2x64x32xf32>
  %Ph = memref.alloc() : memref<2x64x32xf16>
  linalg.fill ins(%z : f32) outs(%S : memref<2x64x32xf32>)
  // expected-remark @+1 {{not fused as attention: a bottom-right causal mask with Lq = 64 > Lk = 32 leaves the first 32 query rows no key}}
  linalg.batch_matmul indexing_maps = [#q, #k, #s] ins(%Q, %K : memref<2x64x64xf16>, memref<2x32x64xf16>) outs(%S : memref<2x64x32xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%S : memref<2x64x32xf32>) outs(%S : memref<2x64x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %d = arith.subi %i, %j : index
    %lt = arith.cmpi slt, %d, %c32 : index
    %r = arith.select %lt, %ninf, %x : f32
    linalg.yield %r : f32
  }
  linalg.softmax dimension(2) ins(%S : memref<2x64x32xf32>) outs(%P : memref<2x64x32xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%P : memref<2x64x32xf32>) outs(%Ph : memref<2x64x32xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%z : f32) outs(%O : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%Ph, %V : memref<2x64x32xf16>, memref<2x32x64xf16>) outs(%O : memref<2x64x64xf32>)
  return
}
