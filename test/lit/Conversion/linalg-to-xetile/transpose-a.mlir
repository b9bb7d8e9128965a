// Transposed A (linalg.matmul with indexing_maps) is read through a memref.transpose view with
// column-major (order = [0, 1]) tiles.
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: gpu.func @ta_0(
// CHECK-SAME:  %[[A:[^:]*]]: memref<48x64xbf16>
// CHECK:       %[[AT:.*]] = memref.transpose %[[A]] (d0, d1) -> (d1, d0) : memref<48x64xbf16> to memref<64x48xbf16, strided<[1, 64]>>
// CHECK:       xetile.init_tile %[[AT]][{{.*}}] : memref<64x48xbf16, strided<[1, 64]>> -> !xetile.tile<32x32xbf16, #xetile.tile_attr<order = [0, 1], wg_map = <sg_layout = [4, 2], sg_data = [8, 32]>>>
// CHECK:       xetile.tile_mma
func.func @ta(%A: memref<48x64xbf16>, %B: memref<48x96xbf16>, %C: memref<64x96xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%A, %B : memref<48x64xbf16>, memref<48x96xbf16>) outs(%C : memref<64x96xf32>)
  return
}

