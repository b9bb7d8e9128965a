// Causal scaled dot-product attention with separate batch and head dimensions (4D: 2 x 4 heads,
// sequence 128, head dim 128, bf16), written with linalg.generic contractions; the mask is
// linalg.index + arith.cmpi + arith.select to -inf, fused with the 1/sqrt(128) scale. One fused
// flash-attention kernel skips the key blocks above the diagonal (docs/attention.md).
// Main job:  xe-run examples/attention_causal_bf16.mlir --pipeline=xe-gemm-to-xegpu --check
func.func @attention(%Q: tensor<2x4x128x128xbf16>, %K: tensor<2x4x128x128xbf16>, %V: tensor<2x4x128x128xbf16>) -> tensor<2x4x128x128xbf16> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %se = tensor.empty() : tensor<2x4x128x128xf32>
  %sf = linalg.fill ins(%z : f32) outs(%se : tensor<2x4x128x128xf32>) -> tensor<2x4x128x128xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%Q, %K : tensor<2x4x128x128xbf16>, tensor<2x4x128x128xbf16>) outs(%sf : tensor<2x4x128x128xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %sxe = arith.extf %x : bf16 to f32
    %sye = arith.extf %y : bf16 to f32
    %smul = arith.mulf %sxe, %sye : f32
    %sadd = arith.addf %acc, %smul : f32
    linalg.yield %sadd : f32
  } -> tensor<2x4x128x128xf32>
  %sme = tensor.empty() : tensor<2x4x128x128xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<2x4x128x128xf32>) outs(%sme : tensor<2x4x128x128xf32>) {
  ^bb0(%x: f32, %out_: f32):
    %c = arith.constant 0.08838834764831845 : f32
    %sy = arith.mulf %x, %c : f32
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %gt = arith.cmpi ugt, %j, %i : index
    %msk = arith.select %gt, %ninf, %sy : f32
    linalg.yield %msk : f32
  } -> tensor<2x4x128x128xf32>
  %pe = tensor.empty() : tensor<2x4x128x128xf32>
  %p = linalg.softmax dimension(3) ins(%sm : tensor<2x4x128x128xf32>) outs(%pe : tensor<2x4x128x128xf32>) -> tensor<2x4x128x128xf32>
  %phe = tensor.empty() : tensor<2x4x128x128xbf16>
  %ph = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<2x4x128x128xf32>) outs(%phe : tensor<2x4x128x128xbf16>) {
  ^bb0(%x: f32, %out_: bf16):
    %pr = arith.truncf %x : f32 to bf16
    linalg.yield %pr : bf16
  } -> tensor<2x4x128x128xbf16>
  %oe = tensor.empty() : tensor<2x4x128x128xf32>
  %of = linalg.fill ins(%z : f32) outs(%oe : tensor<2x4x128x128xf32>) -> tensor<2x4x128x128xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%ph, %V : tensor<2x4x128x128xbf16>, tensor<2x4x128x128xbf16>) outs(%of : tensor<2x4x128x128xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %oxe = arith.extf %x : bf16 to f32
    %oye = arith.extf %y : bf16 to f32
    %omul = arith.mulf %oxe, %oye : f32
    %oadd = arith.addf %acc, %omul : f32
    linalg.yield %oadd : f32
  } -> tensor<2x4x128x128xf32>
  %ohe = tensor.empty() : tensor<2x4x128x128xbf16>
  %oh = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o : tensor<2x4x128x128xf32>) outs(%ohe : tensor<2x4x128x128xbf16>) {
  ^bb0(%x: f32, %out_: bf16):
    %or = arith.truncf %x : f32 to bf16
    linalg.yield %or : bf16
  } -> tensor<2x4x128x128xbf16>
  return %oh : tensor<2x4x128x128xbf16>
}

