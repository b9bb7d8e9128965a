// order = [0, 1] tiles become row-major tiles of the transposed shape on the untransposed base:
// offsets, update_tile_offset offsets and explicit base shape/strides are swapped, loop-carried
// tiles are retyped, every load_tile is followed by a tile_transpose (a transposed load loses its
// transpose instead), store_tile / atomic_rmw_tile get one before. The memref.transpose view goes.
// RUN: xe-opt %s --split-input-file --xetile-canonicalize | FileCheck %s
// RUN: xe-opt %s --split-input-file --xetile-canonicalize=normalize-order=false | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: gpu.func @gemm_bt
// CHECK-NOT:   memref.transpose
// CHECK:       %[[B:.*]] = xetile.init_tile %arg0[%[[N:.*]], 0] : memref<64x128xbf16> -> !xetile.tile<16x32xbf16>
// CHECK:       xetile.prefetch_tile %[[B]] : !xetile.tile<16x32xbf16>
// CHECK:       scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[AT:.*]] = %{{.*}}, %[[BT:.*]] = %[[B]]) -> (vector<32x16xf32>, !xetile.tile<32x32xbf16>, !xetile.tile<16x32xbf16>)
// CHECK:         %[[VA:.*]] = xetile.load_tile %[[AT]]
// CHECK:         %[[VB:.*]] = xetile.load_tile %[[BT]] : !xetile.tile<16x32xbf16> -> vector<16x32xbf16>
// CHECK:         %[[VBT:.*]] = xetile.tile_transpose %[[VB]] [1, 0] : vector<16x32xbf16> -> vector<32x16xbf16>
// CHECK:         xetile.tile_mma %[[VA]], %[[VBT]], %[[ACC]]
// CHECK:         xetile.update_tile_offset %[[BT]], [%c0, 32] : !xetile.tile<16x32xbf16>
// CHECK:         scf.yield {{.*}} : vector<32x16xf32>, !xetile.tile<32x32xbf16>, !xetile.tile<16x32xbf16>
// OFF-LABEL:   gpu.func @gemm_bt
// OFF:         memref.transpose
// OFF:         xetile.init_tile {{.*}} -> !xetile.tile<32x16xbf16, #xetile.tile_attr<order = [0, 1]>>
// OFF-NOT:     xetile.tile_transpose
gpu.module @m {
  gpu.func @gemm_bt(%B: memref<64x128xbf16>, %A: memref<32x128xbf16>, %C: memref<32x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %n = gpu.subgroup_id : index
    %bt = memref.transpose %B (d0, d1) -> (d1, d0) : memref<64x128xbf16> to memref<128x64xbf16, strided<[1, 128]>>
    %b = xetile.init_tile %bt[0, %n] : memref<128x64xbf16, strided<[1, 128]>> -> !xetile.tile<32x16xbf16, #xetile.tile_attr<order = [0, 1]>>
    %a = xetile.init_tile %A[0, 0] : memref<32x128xbf16> -> !xetile.tile<32x32xbf16>
    %ct = xetile.init_tile %C[0, %n] : memref<32x64xf32> -> !xetile.tile<32x16xf32>
    %zero = arith.constant dense<0.0> : vector<32x16xf32>
    xetile.prefetch_tile %b : !xetile.tile<32x16xbf16, #xetile.tile_attr<order = [0, 1]>>
    %r:3 = scf.for %k = %c0 to %c128 step %c32 iter_args(%acc = %zero, %at = %a, %btl = %b) -> (vector<32x16xf32>, !xetile.tile<32x32xbf16>, !xetile.tile<32x16xbf16, #xetile.tile_attr<order = [0, 1]>>) {
      %va = xetile.load_tile %at : !xetile.tile<32x32xbf16> -> vector<32x32xbf16>
      %vb = xetile.load_tile %btl : !xetile.tile<32x16xbf16, #xetile.tile_attr<order = [0, 1]>> -> vector<32x16xbf16>
      %acc2 = xetile.tile_mma %va, %vb, %acc : vector<32x32xbf16>, vector<32x16xbf16>, vector<32x16xf32> -> vector<32x16xf32>
      %at2 = xetile.update_tile_offset %at, [0, 32] : !xetile.tile<32x32xbf16>
      %bt2 = xetile.update_tile_offset %btl, [32, %c0] : !xetile.tile<32x16xbf16, #xetile.tile_attr<order = [0, 1]>>
      scf.yield %acc2, %at2, %bt2 : vector<32x16xf32>, !xetile.tile<32x32xbf16>, !xetile.tile<32x16xbf16, #xetile.tile_attr<order = [0, 1]>>
    }
    xetile.store_tile %r#0, %ct : vector<32x16xf32>, !xetile.tile<32x16xf32>
    gpu.return
  }
}

// -----
// Explicit base shape and strides (a dynamic memref, an i64 address): swapped; a load with
// transpose = [1, 0] becomes a plain load; stores and atomics transpose the value first.
// CHECK-LABEL: gpu.func @explicit_shape
// CHECK-SAME:  (%[[M:.*]]: memref<?x?xf32>, %[[P:.*]]: i64, %[[R:.*]]: index, %[[C:.*]]: index, %[[I:.*]]: index)
// CHECK:       %[[T:.*]] = xetile.init_tile %[[M]][4, %[[I]]], [%[[C]], %[[R]]], [%[[R]], 1] : memref<?x?xf32> -> !xetile.tile<16x8xf32>
// CHECK:       %[[V:.*]] = xetile.load_tile %[[T]] {padding = 0.000000e+00 : f32} : !xetile.tile<16x8xf32> -> vector<16x8xf32>
// CHECK:       %[[VT:.*]] = xetile.tile_transpose %[[V]] [1, 0] : vector<16x8xf32> -> vector<8x16xf32>
// CHECK:       %[[W:.*]] = xetile.load_tile %[[T]] : !xetile.tile<16x8xf32> -> vector<16x8xf32>
// CHECK:       %[[S:.*]] = math.exp %[[VT]] : vector<8x16xf32>
// CHECK:       %[[U:.*]] = xetile.init_tile %[[P]][%[[I]], 0], [%[[C]], %[[R]]], [%[[R]], 1] : i64 -> !xetile.tile<16x8xf32>
// CHECK:       %[[ST:.*]] = xetile.tile_transpose %[[S]] [1, 0] : vector<8x16xf32> -> vector<16x8xf32>
// CHECK:       xetile.store_tile %[[ST]], %[[U]] : vector<16x8xf32>, !xetile.tile<16x8xf32>
// CHECK:       %[[AT:.*]] = xetile.tile_transpose %[[S]] [1, 0] : vector<8x16xf32> -> vector<16x8xf32>
// CHECK:       %[[OLD:.*]] = xetile.atomic_rmw_tile <addf> %[[AT]], %[[U]] : vector<16x8xf32>, !xetile.tile<16x8xf32> -> vector<16x8xf32>
// CHECK:       %[[OLDT:.*]] = xetile.tile_transpose %[[OLD]] [1, 0] : vector<16x8xf32> -> vector<8x16xf32>
// CHECK:       %[[WT:.*]] = vector.transpose %[[W]], [1, 0] : vector<16x8xf32> to vector<8x16xf32>
// CHECK:       arith.addf %[[OLDT]], %[[WT]] : vector<8x16xf32>
gpu.module @m {
  gpu.func @explicit_shape(%M: memref<?x?xf32>, %P: i64, %R: index, %C: index, %i: index) kernel {
    %t = xetile.init_tile %M[%i, 4], [%R, %C], [1, %R] : memref<?x?xf32> -> !xetile.tile<8x16xf32, #xetile.tile_attr<order = [0, 1]>>
    %v = xetile.load_tile %t {padding = 0.0 : f32} : !xetile.tile<8x16xf32, #xetile.tile_attr<order = [0, 1]>> -> vector<8x16xf32>
    %w = xetile.load_tile %t {transpose = array<i64: 1, 0>} : !xetile.tile<8x16xf32, #xetile.tile_attr<order = [0, 1]>> -> vector<16x8xf32>
    %s = math.exp %v : vector<8x16xf32>
    %u = xetile.init_tile %P[0, %i], [%R, %C], [1, %R] : i64 -> !xetile.tile<8x16xf32, #xetile.tile_attr<order = [0, 1]>>
    xetile.store_tile %s, %u : vector<8x16xf32>, !xetile.tile<8x16xf32, #xetile.tile_attr<order = [0, 1]>>
    %old = xetile.atomic_rmw_tile <addf> %s, %u : vector<8x16xf32>, !xetile.tile<8x16xf32, #xetile.tile_attr<order = [0, 1]>> -> vector<8x16xf32>
    %wt = vector.transpose %w, [1, 0] : vector<16x8xf32> to vector<8x16xf32>
    %sum = arith.addf %old, %wt : vector<8x16xf32>
    gpu.return
  }
}
