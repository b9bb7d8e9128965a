// A fused W4A16 GEMM with per-group scales, K split over the subgroups of a work-group (local
// k-slicing): each slice group reads the scale rows of its own K range. The K loop of a slice runs
// over [0, steps x k_step) there, and the scale row was taken from that loop's index alone (every
// slice read group 0's scales: a --check MISMATCH, max abs error ~120, before).
// RUN: xe-opt %s "--xe-linalg-to-xetile=local-k-slices=4" --xe-print-plan 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAN
// RUN: xe-run %s "--pipeline=xe-gemm-to-xegpu{local-k-slices=4}" --check | FileCheck %s

// PLAN: local k-slicing  : 4 slices
// PLAN: B prologue       : i4 weights dequantized to f16 in registers (per group of 64 K rows
// CHECK: result0: max abs error {{.*}} ok
// CHECK: PASS
#id = affine_map<(d0, d1) -> (d0, d1)>
#grp = affine_map<(d0, d1) -> (d0 floordiv 64, d1)>
func.func @w4a16(%A: tensor<8x256xf16>, %W: tensor<256x32xi4>, %S: tensor<4x32xf16>) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<256x32xf16>
  %B = linalg.generic {indexing_maps = [#id, #grp, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : tensor<256x32xi4>, tensor<4x32xf16>) outs(%e : tensor<256x32xf16>) {
  ^bb0(%w: i4, %s: f16, %o: f16):
    %wf = arith.sitofp %w : i4 to f16
    %r = arith.mulf %wf, %s : f16
    linalg.yield %r : f16
  } -> tensor<256x32xf16>
  %zero = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%c0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %C = linalg.matmul ins(%A, %B : tensor<8x256xf16>, tensor<256x32xf16>) outs(%acc : tensor<8x32xf32>)
      -> tensor<8x32xf32>
  return %C : tensor<8x32xf32>
}
