// linalg.generic matmul forms: the body must be acc + ext(a) * ext(b) (operands in either order).
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: func.func @gen(
// CHECK-NOT:   linalg.generic
// CHECK:       gpu.launch_func @gen_kernels::@gen_0
// CHECK:       gpu.func @gen_0(
// CHECK:       xetile.tile_mma {{.*}} : vector<32x32xf16>, vector<32x64xf16>, vector<32x64xf32> -> vector<32x64xf32>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @gen(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %C: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<64x32xf16>, memref<32x64xf16>) outs(%C : memref<64x64xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %ye, %xe : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}
