// Dynamic shapes, tile_mma without accumulator, element-wise epilogues with an explicit truncf
// before the store of a narrower type, hardware blocks smaller than the inner block, atomics and
// the scattered tile ops.
// RUN: xe-opt %s --convert-xetile-to-xegpu --canonicalize --cse 2>&1 | FileCheck %s

// CHECK: remark: hardware blocks 8x16 for the 32x16 inner block (store of 32-bit data: block height 32 is outside [1, 8])
// CHECK: remark: tile 2x16xf32 is accessed with scattered loads/stores: atomic read-modify-write is a scattered operation in XeGPU
gpu.module @k {
  // base shape and strides of a dynamic memref go to every create_nd_tdesc; the DPAS chains start
  // without accumulator
  // CHECK-LABEL: gpu.func @no_acc_dynamic
  // CHECK:      %[[A:.*]] = xegpu.create_nd_tdesc %arg0[0, 0], [%arg3, %arg5], [%arg5, %c1] {mode = vc} : memref<?x?xf16> -> !xegpu.tensor_desc<8x16xf16>
  // CHECK:      %[[B0:.*]] = xegpu.create_nd_tdesc %arg1[0, 0], [%arg5, %arg4], [%arg4, %c1] {mode = vc} : memref<?x?xf16> -> !xegpu.tensor_desc<16x16xf16>
  // CHECK:      %[[B1:.*]] = xegpu.create_nd_tdesc %arg1[0, 16], [%arg5, %arg4], [%arg4, %c1] {mode = vc}
  // CHECK:      %[[LA:.*]] = xegpu.load_nd %[[A]] {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
  // CHECK:      %[[LB0:.*]] = xegpu.load_nd %[[B0]] {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xf16> -> vector<8x16x2xf16>
  // CHECK:      %[[LB1:.*]] = xegpu.load_nd %[[B1]] {mode = vc, vnni_axis = 0}
  // CHECK:      %[[D0:.*]] = xegpu.dpas %[[LA]], %[[LB0]] {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16> -> vector<8x16xf32>
  // CHECK:      %[[D1:.*]] = xegpu.dpas %[[LA]], %[[LB1]] {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16> -> vector<8x16xf32>
  // CHECK:      %[[S:.*]] = vector.broadcast %arg6 : f32 to vector<8x16xf32>
  // CHECK:      %[[M0:.*]] = arith.mulf %[[D0]], %[[S]] : vector<8x16xf32>
  // CHECK:      %[[M1:.*]] = arith.mulf %[[D1]], %[[S]] : vector<8x16xf32>
  // CHECK:      %[[T0:.*]] = arith.truncf %[[M0]] : vector<8x16xf32> to vector<8x16xf16>
  // CHECK:      %[[T1:.*]] = arith.truncf %[[M1]] : vector<8x16xf32> to vector<8x16xf16>
  // CHECK:      %[[C0:.*]] = xegpu.create_nd_tdesc %arg2[0, 0], [%arg3, %arg4], [%arg4, %c1] {mode = vc} : memref<?x?xf16> -> !xegpu.tensor_desc<8x16xf16>
  // CHECK:      %[[C1:.*]] = xegpu.create_nd_tdesc %arg2[0, 16], [%arg3, %arg4], [%arg4, %c1] {mode = vc}
  // CHECK:      xegpu.store_nd %[[T0]], %[[C0]] {mode = vc} : vector<8x16xf16>, !xegpu.tensor_desc<8x16xf16>
  // CHECK:      xegpu.store_nd %[[T1]], %[[C1]] {mode = vc} : vector<8x16xf16>, !xegpu.tensor_desc<8x16xf16>
  gpu.func @no_acc_dynamic(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %M: index, %N: index, %K: index, %s: f32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = xetile.init_tile %A[%c0, %c0], [%M, %K], [%K, %c1] : memref<?x?xf16> -> !xetile.tile<8x16xf16, #xetile.tile_attr<inner_blocks = [8, 16]>>
    %b = xetile.init_tile %B[%c0, %c0], [%K, %N], [%N, %c1] : memref<?x?xf16> -> !xetile.tile<16x32xf16, #xetile.tile_attr<inner_blocks = [16, 16]>>
    %va = xetile.load_tile %a : !xetile.tile<8x16xf16, #xetile.tile_attr<inner_blocks = [8, 16]>> -> vector<1x1x8x16xf16>
    %vb = xetile.load_tile %b : !xetile.tile<16x32xf16, #xetile.tile_attr<inner_blocks = [16, 16]>> -> vector<1x2x16x16xf16>
    %r = xetile.tile_mma %va, %vb : vector<1x1x8x16xf16>, vector<1x2x16x16xf16> -> vector<1x2x8x16xf32>
    %sv = vector.broadcast %s : f32 to vector<1x2x8x16xf32>
    %r2 = arith.mulf %r, %sv : vector<1x2x8x16xf32>
    %r3 = arith.truncf %r2 : vector<1x2x8x16xf32> to vector<1x2x8x16xf16>
    %c = xetile.init_tile %C[%c0, %c0], [%M, %N], [%N, %c1] : memref<?x?xf16> -> !xetile.tile<8x32xf16, #xetile.tile_attr<inner_blocks = [8, 16]>>
    xetile.store_tile %r3, %c : vector<1x2x8x16xf16>, !xetile.tile<8x32xf16, #xetile.tile_attr<inner_blocks = [8, 16]>>
    gpu.return
  }

  // a 32x16 f32 inner block can be loaded but not stored in one message (stores: <= 8 rows): the
  // tile uses four 8x16 hardware blocks for both
  // CHECK-LABEL: gpu.func @store_split
  // CHECK-COUNT-4: xegpu.create_nd_tdesc %arg0{{.*}} -> !xegpu.tensor_desc<8x16xf32>
  // CHECK-COUNT-4: xegpu.load_nd %{{.*}} {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
  // CHECK-COUNT-4: arith.addf %{{.*}} : vector<8x16xf32>
  // CHECK-COUNT-4: xegpu.store_nd %{{.*}} {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
  gpu.func @store_split(%C: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %t = xetile.init_tile %C[%c0, %c0] : memref<64x64xf32> -> !xetile.tile<32x16xf32, #xetile.tile_attr<inner_blocks = [32, 16]>>
    %v = xetile.load_tile %t : !xetile.tile<32x16xf32, #xetile.tile_attr<inner_blocks = [32, 16]>> -> vector<1x1x32x16xf32>
    %w = arith.addf %v, %v : vector<1x1x32x16xf32>
    xetile.store_tile %w, %t : vector<1x1x32x16xf32>, !xetile.tile<32x16xf32, #xetile.tile_attr<inner_blocks = [32, 16]>>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @atomic
  // CHECK:      %[[D:.*]] = xegpu.create_tdesc %arg0, %{{.*}} {mode = vc} : memref<64x64xf32>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
  // CHECK:      xegpu.atomic_rmw addf %{{.*}}, %[[D]], %{{.*}} {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xf32>
  // CHECK:      xegpu.atomic_rmw addf
  gpu.func @atomic(%C: memref<64x64xf32>, %i: index) kernel {
    %t = xetile.init_tile %C[%i, %i] : memref<64x64xf32> -> !xetile.tile<2x16xf32, #xetile.tile_attr<inner_blocks = [2, 16]>>
    %v = arith.constant dense<1.0> : vector<1x1x2x16xf32>
    %old = xetile.atomic_rmw_tile <addf> %v, %t : vector<1x1x2x16xf32>, !xetile.tile<2x16xf32, #xetile.tile_attr<inner_blocks = [2, 16]>> -> vector<1x1x2x16xf32>
    gpu.return
  }

  // scattered tiles: one create_tdesc + load_gather / store_scatter per row, with the row's mask
  // CHECK-LABEL: gpu.func @gather
  // CHECK:      %[[O0:.*]] = vector.extract %arg1[0] : vector<16xindex> from vector<2x16xindex>
  // CHECK:      %[[M0:.*]] = vector.extract %arg2[0] : vector<16xi1> from vector<2x16xi1>
  // CHECK:      %[[T0:.*]] = xegpu.create_tdesc %arg0, %[[O0]] {mode = vc} : i64, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
  // CHECK:      xegpu.load_gather %[[T0]], %[[M0]] {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xf32>
  // CHECK:      xegpu.load_gather
  // CHECK:      arith.addf %{{.*}} : vector<2x16xf32>
  // CHECK:      xegpu.store_scatter %{{.*}}, %{{.*}}, %[[M0]] {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1>
  // CHECK:      xegpu.store_scatter
  gpu.func @gather(%addr: i64, %idx: vector<2x16xindex>, %m: vector<2x16xi1>) kernel {
    %t = xetile.init_tile %addr, %idx : i64, vector<2x16xindex> -> !xetile.tile<2x16xf32, #xetile.tile_attr<scattered = true>>
    %v = xetile.load_gather %t, %m : !xetile.tile<2x16xf32, #xetile.tile_attr<scattered = true>>, vector<2x16xi1> -> vector<2x16xf32>
    %w = arith.addf %v, %v : vector<2x16xf32>
    xetile.store_scatter %w, %t, %m : vector<2x16xf32>, !xetile.tile<2x16xf32, #xetile.tile_attr<scattered = true>>, vector<2x16xi1>
    gpu.return
  }
}
