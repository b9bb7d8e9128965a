// W8A16 GEMM: int8 weights dequantized to f16 (per-group scales and zero points, groups of 128 K rows)
// feeding a linalg.matmul. convert-linalg-to-xetile fuses the dequantization into the GEMM's B path: one
// kernel loads the i8 weights and their scale / zero-point rows with block loads, dequantizes in registers
// and feeds DPAS; the f16 weights are never written (docs/quantized-gemm.md).
//   xe-opt examples/w8a16_gemm.mlir --xe-linalg-to-xetile --xe-print-plan
//   xe-run examples/w8a16_gemm.mlir --pipeline=xe-gemm-to-spirv --check
#id = affine_map<(d0, d1) -> (d0, d1)>
#grp = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
func.func @w8a16(%A: tensor<32x512xf16>, %W: tensor<512x256xi8>, %S: tensor<4x256xf16>, %Z: tensor<4x256xi8>)
    -> tensor<32x256xf32> {
  %e = tensor.empty() : tensor<512x256xf16>
  %B = linalg.generic {indexing_maps = [#id, #grp, #grp, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S, %Z : tensor<512x256xi8>, tensor<4x256xf16>, tensor<4x256xi8>) outs(%e : tensor<512x256xf16>) {
  ^bb0(%w: i8, %s: f16, %z: i8, %o: f16):
    %wf = arith.sitofp %w : i8 to f16
    %zf = arith.sitofp %z : i8 to f16
    %d = arith.subf %wf, %zf : f16
    %r = arith.mulf %d, %s : f16
    linalg.yield %r : f16
  } -> tensor<512x256xf16>
  %zero = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<32x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%c0 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %C = linalg.matmul ins(%A, %B : tensor<32x512xf16>, tensor<512x256xf16>) outs(%acc : tensor<32x256xf32>)
      -> tensor<32x256xf32>
  return %C : tensor<32x256xf32>
}
