// W4A16 GEMM: int4 weights (packed two per byte along N, even elements in the low nibble, as upstream MLIR
// packs i4) dequantized to f16 with per-group scales (groups of 128 K rows) feeding a linalg.matmul.
// convert-linalg-to-xetile fuses the dequantization into the GEMM's B path: one kernel block-loads the
// packed bytes (a quarter of the f16 weights' bytes) and the scale rows, unpacks the nibbles with shifts and
// a vector.bitcast, scales in registers and feeds DPAS (docs/quantized-gemm.md).
//   xe-opt examples/w4a16_gemm.mlir --xe-linalg-to-xetile --xe-print-plan
//   xe-run examples/w4a16_gemm.mlir --pipeline=xe-gemm-to-spirv --check
#id = affine_map<(d0, d1) -> (d0, d1)>
#grp = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
func.func @w4a16(%A: tensor<32x512xf16>, %W: tensor<512x256xi4>, %S: tensor<4x256xf16>) -> tensor<32x256xf32> {
  %e = tensor.empty() : tensor<512x256xf16>
  %B = linalg.generic {indexing_maps = [#id, #grp, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : tensor<512x256xi4>, tensor<4x256xf16>) outs(%e : tensor<512x256xf16>) {
  ^bb0(%w: i4, %s: f16, %o: f16):
    %wf = arith.sitofp %w : i4 to f16
    %r = arith.mulf %wf, %s : f16
    linalg.yield %r : f16
  } -> tensor<512x256xf16>
  %zero = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<32x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%c0 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %C = linalg.matmul ins(%A, %B : tensor<32x512xf16>, tensor<512x256xf16>) outs(%acc : tensor<32x256xf32>)
      -> tensor<32x256xf32>
  return %C : tensor<32x256xf32>
}
