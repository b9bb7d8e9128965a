// Decode attention (flash-decoding): one query row per head (1 x 8 heads), 2048 cached keys and values,
// head dim 128, bf16. With so few query blocks the plan splits K/V into slices over work-groups and a
// combine kernel folds their partial results (docs/attention.md "Decode").
// Main job:  xe-run examples/attention_decode_bf16.mlir --pipeline=xe-gemm-to-xegpu --check
func.func @attention(%Q: tensor<1x8x1x128xbf16>, %K: tensor<1x8x2048x128xbf16>, %V: tensor<1x8x2048x128xbf16>) -> tensor<1x8x1x128xbf16> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %se = tensor.empty() : tensor<1x8x1x2048xf32>
  %sf = linalg.fill ins(%z : f32) outs(%se : tensor<1x8x1x2048xf32>) -> tensor<1x8x1x2048xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%Q, %K : tensor<1x8x1x128xbf16>, tensor<1x8x2048x128xbf16>) outs(%sf : tensor<1x8x1x2048xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %sxe = arith.extf %x : bf16 to f32
    %sye = arith.extf %y : bf16 to f32
    %smul = arith.mulf %sxe, %sye : f32
    %sadd = arith.addf %acc, %smul : f32
    linalg.yield %sadd : f32
  } -> tensor<1x8x1x2048xf32>
  %sme = tensor.empty() : tensor<1x8x1x2048xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x8x1x2048xf32>) outs(%sme : tensor<1x8x1x2048xf32>) {
  ^bb0(%x: f32, %out_: f32):
    %c = arith.constant 0.08838834764831845 : f32
    %sy = arith.mulf %x, %c : f32
    linalg.yield %sy : f32
  } -> tensor<1x8x1x2048xf32>
  %pe = tensor.empty() : tensor<1x8x1x2048xf32>
  %p = linalg.softmax dimension(3) ins(%sm : tensor<1x8x1x2048xf32>) outs(%pe : tensor<1x8x1x2048xf32>) -> tensor<1x8x1x2048xf32>
  %phe = tensor.empty() : tensor<1x8x1x2048xbf16>
  %ph = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x8x1x2048xf32>) outs(%phe : tensor<1x8x1x2048xbf16>) {
  ^bb0(%x: f32, %out_: bf16):
    %pr = arith.truncf %x : f32 to bf16
    linalg.yield %pr : bf16
  } -> tensor<1x8x1x2048xbf16>
  %oe = tensor.empty() : tensor<1x8x1x128xf32>
  %of = linalg.fill ins(%z : f32) outs(%oe : tensor<1x8x1x128xf32>) -> tensor<1x8x1x128xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%ph, %V : tensor<1x8x1x2048xbf16>, tensor<1x8x2048x128xbf16>) outs(%of : tensor<1x8x1x128xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %oxe = arith.extf %x : bf16 to f32
    %oye = arith.extf %y : bf16 to f32
    %omul = arith.mulf %oxe, %oye : f32
    %oadd = arith.addf %acc, %omul : f32
    linalg.yield %oadd : f32
  } -> tensor<1x8x1x128xf32>
  %ohe = tensor.empty() : tensor<1x8x1x128xbf16>
  %oh = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o : tensor<1x8x1x128xf32>) outs(%ohe : tensor<1x8x1x128xbf16>) {
  ^bb0(%x: f32, %out_: bf16):
    %or = arith.truncf %x : f32 to bf16
    linalg.yield %or : bf16
  } -> tensor<1x8x1x128xbf16>
  return %oh : tensor<1x8x1x128xbf16>
}

