// Transposed B (here as a linalg.generic) is read through a memref.transpose view with
// column-major (order = [0, 1]) tiles.
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: gpu.func @tb_0(
// CHECK-SAME:  %[[B:[^:]*]]: memref<64x48xbf16>
// CHECK:       %[[BT:.*]] = memref.transpose %[[B]] (d0, d1) -> (d1, d0) : memref<64x48xbf16> to memref<48x64xbf16, strided<[1, 48]>>
// CHECK:       xetile.init_tile %[[BT]][{{.*}}] : memref<48x64xbf16, strided<[1, 48]>> -> !xetile.tile<32x64xbf16, #xetile.tile_attr<order = [0, 1], wg_map = <sg_layout = [4, 2], sg_data = [32, 32]>>>
func.func @tb(%A: memref<96x48xbf16>, %B: memref<64x48xbf16>, %C: memref<96x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<96x48xbf16>, memref<64x48xbf16>) outs(%C : memref<96x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
