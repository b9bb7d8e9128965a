// W4A16 GEMM with the weights as a framework stores a linear layer's weight: [out, in] = N x K (PyTorch's
// nn.Linear, y = x W^T), int4 packed two per byte along K (the last dimension, even elements in the low
// nibble, as upstream MLIR packs i4), dequantized to f16 with per-group scales (groups of 128 K values: N x
// K/128 scales) and read by linalg.matmul through a transposing B map. convert-linalg-to-xetile fuses the
// dequantization into the GEMM's B path; on pvc each subgroup reads its rows of bytes with the 32-bit
// transposed 2D block read (a column of B per lane, eight consecutive K values per 32-bit value), unpacks
// them in the lane and feeds DPAS (docs/quantized-gemm.md "N x K weights").
//   xe-opt examples/w4a16_gemm_nk.mlir --xe-linalg-to-xetile --xe-print-plan
//   xe-run examples/w4a16_gemm_nk.mlir --pipeline=xe-gemm-to-spirv --check
#id = affine_map<(d0, d1) -> (d0, d1)>
#grp = affine_map<(d0, d1) -> (d0, d1 floordiv 128)>
func.func @w4a16_nk(%A: tensor<32x512xf16>, %W: tensor<256x512xi4>, %S: tensor<256x4xf16>) -> tensor<32x256xf32> {
  %e = tensor.empty() : tensor<256x512xf16>
  %B = linalg.generic {indexing_maps = [#id, #grp, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : tensor<256x512xi4>, tensor<256x4xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%w: i4, %s: f16, %o: f16):
    %wf = arith.sitofp %w : i4 to f16
    %r = arith.mulf %wf, %s : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %zero = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<32x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%c0 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %C = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%A, %B : tensor<32x512xf16>, tensor<256x512xf16>) outs(%acc : tensor<32x256xf32>) -> tensor<32x256xf32>
  return %C : tensor<32x256xf32>
}
