// W4A16 gemv (LLM decode, one token): a linear layer's int4 weights stored N x K ([out, in], packed two per byte
// along K, even elements in the low nibble) dequantized to f16 with per-group scales (groups of 128 K columns)
// feeding a linalg.matvec. convert-linalg-to-xetile lowers it as the M = 1 DPAS GEMM (y as 1 x N = x as 1 x K
// times the weights read transposed) with the dequantization fused into its B path: one kernel reads the packed
// bytes (a quarter of the f16 weights' bytes) and the scales, unpacks and scales in registers and feeds DPAS.
// With convert-linalg-to-xetile{dequant-gemv=vector} it is the gemv kernel instead (vector FMAs and a reduction
// per row; slower with IGC's code: docs/quantized-gemm.md "gemv").
//   xe-opt examples/w4a16_gemv.mlir --xe-linalg-to-xetile --xe-print-plan
//   xe-run examples/w4a16_gemv.mlir --pipeline=xe-gemm-to-spirv --check
#id = affine_map<(d0, d1) -> (d0, d1)>
#grp = affine_map<(d0, d1) -> (d0, d1 floordiv 128)>
func.func @w4a16_gemv(%W: tensor<512x1024xi4>, %S: tensor<512x8xf16>, %x: tensor<1024xf16>) -> tensor<512xf16> {
  %e = tensor.empty() : tensor<512x1024xf16>
  %B = linalg.generic {indexing_maps = [#id, #grp, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : tensor<512x1024xi4>, tensor<512x8xf16>) outs(%e : tensor<512x1024xf16>) {
  ^bb0(%w: i4, %s: f16, %o: f16):
    %wf = arith.sitofp %w : i4 to f16
    %r = arith.mulf %wf, %s : f16
    linalg.yield %r : f16
  } -> tensor<512x1024xf16>
  %zero = arith.constant 0.0 : f16
  %y0 = tensor.empty() : tensor<512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%y0 : tensor<512xf16>) -> tensor<512xf16>
  %y = linalg.matvec ins(%B, %x : tensor<512x1024xf16>, tensor<1024xf16>) outs(%acc : tensor<512xf16>) -> tensor<512xf16>
  return %y : tensor<512xf16>
}
