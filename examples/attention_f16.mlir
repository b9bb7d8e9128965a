// Scaled dot-product attention as a framework lowers it to upstream linalg (3D: batch x heads = 4,
// sequence 128, head dim 64, f16): S = Q.K^T (batch_matmul reading K transposed), S * 1/sqrt(64),
// softmax over the keys, P rounded to f16, O = P.V. convert-linalg-to-xetile fuses the chain into one
// flash-attention kernel (docs/attention.md).
// Main job:  xe-run examples/attention_f16.mlir --pipeline=xe-gemm-to-xegpu --check
#q = affine_map<(b, m, n, k) -> (b, m, k)>
#k = affine_map<(b, m, n, k) -> (b, n, k)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @attention(%Q: tensor<4x128x64xf16>, %K: tensor<4x128x64xf16>, %V: tensor<4x128x64xf16>)
    -> tensor<4x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %se = tensor.empty() : tensor<4x128x128xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %s = linalg.batch_matmul indexing_maps = [#q, #k, #s]
      ins(%Q, %K : tensor<4x128x64xf16>, tensor<4x128x64xf16>) outs(%s0 : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %ss = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x128x128xf32>) outs(%se : tensor<4x128x128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %scale : f32
    linalg.yield %y : f32
  } -> tensor<4x128x128xf32>
  %pe = tensor.empty() : tensor<4x128x128xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x128x128xf32>) outs(%pe : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %he = tensor.empty() : tensor<4x128x128xf16>
  %ph = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<4x128x128xf32>) outs(%he : tensor<4x128x128xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x128x128xf16>
  %oe = tensor.empty() : tensor<4x128x64xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%oe : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %o = linalg.batch_matmul ins(%ph, %V : tensor<4x128x128xf16>, tensor<4x128x64xf16>)
      outs(%o0 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  return %o : tensor<4x128x64xf32>
}
