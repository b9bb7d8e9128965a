// convert-xetile-to-xegpu on the blocked subgroup GEMM of docs/pipeline.md (stage 3 -> stage 4):
// one create_nd_tdesc per block, B loads with vnni_axis = 0, A/B re-blocked by strided slices,
// a 4x4 grid of DPAS chains accumulating over the two K blocks, one store_nd per C block,
// update_nd_offset per descriptor, prefetch_nd with cache hints.
// RUN: xe-opt %s --convert-xetile-to-xegpu | FileCheck %s
// RUN: xe-opt %s --convert-xetile-to-xegpu --canonicalize --cse | FileCheck %s --check-prefix=CANON

!ta = !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>
!tb = !xetile.tile<32x64xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>
!tc = !xetile.tile<32x64xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
!tp = !xetile.tile<8x32xbf16, #xetile.tile_attr<inner_blocks = [8, 32]>>
gpu.module @k {
  // CHECK-LABEL: gpu.func @gemm
  gpu.func @gemm(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>, %m: index, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    // A: two 32x16 blocks, the second at column 16
    // CHECK:      %[[A0:.*]] = xegpu.create_nd_tdesc %arg0[%arg3, 0] {mode = vc} : memref<256x256xbf16> -> !xegpu.tensor_desc<32x16xbf16>
    // CHECK:      %[[A1:.*]] = xegpu.create_nd_tdesc %arg0[%arg3, 16] {mode = vc} : memref<256x256xbf16> -> !xegpu.tensor_desc<32x16xbf16>
    // B: four 32x16 blocks at columns n, n+16, n+32, n+48
    // CHECK:      %[[B0:.*]] = xegpu.create_nd_tdesc %arg1[0, %arg4] {mode = vc} : memref<256x256xbf16> -> !xegpu.tensor_desc<32x16xbf16>
    // CHECK:      %[[N16:.*]] = arith.addi %arg4, %c16{{.*}} : index
    // CHECK-NEXT: xegpu.create_nd_tdesc %arg1[0, %[[N16]]] {mode = vc}
    // CHECK-COUNT-2: xegpu.create_nd_tdesc %arg1
    // C: sixteen 8x16 f32 blocks
    // CHECK-COUNT-16: xegpu.create_nd_tdesc %arg2{{.*}} -> !xegpu.tensor_desc<8x16xf32>
    // CHECK:      xegpu.create_nd_tdesc %arg0{{.*}} -> !xegpu.tensor_desc<8x32xbf16>
    // CHECK-COUNT-16: xegpu.load_nd %{{.*}} {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %a = xetile.init_tile %A[%m, %c0] : memref<256x256xbf16> -> !ta
    %b = xetile.init_tile %B[%c0, %n] : memref<256x256xbf16> -> !tb
    %ct = xetile.init_tile %C[%m, %n] : memref<256x256xf32> -> !tc
    %p = xetile.init_tile %A[%m, %c32] : memref<256x256xbf16> -> !tp
    %c = xetile.load_tile %ct : !tc -> vector<4x4x8x16xf32>
    // the loop carries 16 accumulator blocks and 2 + 4 + 1 descriptors
    // CHECK:      scf.for {{.*}} -> (vector<8x16xf32>, {{.*}}, !xegpu.tensor_desc<32x16xbf16>, !xegpu.tensor_desc<32x16xbf16>, !xegpu.tensor_desc<32x16xbf16>, !xegpu.tensor_desc<32x16xbf16>, !xegpu.tensor_desc<32x16xbf16>, !xegpu.tensor_desc<32x16xbf16>, !xegpu.tensor_desc<8x32xbf16>) {
    %r:4 = scf.for %k = %c0 to %c256 step %c32 iter_args(%acc = %c, %at = %a, %bt = %b, %pt = %p) -> (vector<4x4x8x16xf32>, !ta, !tb, !tp) {
      // CHECK:      %[[LA0:.*]] = xegpu.load_nd %{{.*}} {mode = vc} : !xegpu.tensor_desc<32x16xbf16> -> vector<32x16xbf16>
      // CHECK:      %[[LA1:.*]] = xegpu.load_nd %{{.*}} {mode = vc} : !xegpu.tensor_desc<32x16xbf16> -> vector<32x16xbf16>
      // CHECK:      %[[A00:.*]] = vector.extract_strided_slice %[[LA0]] {offsets = [0, 0], sizes = [8, 16], strides = [1, 1]} : vector<32x16xbf16> to vector<8x16xbf16>
      // CHECK:      %[[A01:.*]] = vector.extract_strided_slice %[[LA1]] {offsets = [0, 0], sizes = [8, 16], strides = [1, 1]}
      %va = xetile.load_tile %at : !ta -> vector<1x2x32x16xbf16>
      %va2 = xetile.tile_unpack %va {inner_blocks = [32, 16]} : vector<1x2x32x16xbf16> -> vector<32x32xbf16>
      %va3 = xetile.tile_pack %va2 {inner_blocks = [8, 16]} : vector<32x32xbf16> -> vector<4x2x8x16xbf16>
      // CHECK-COUNT-4: xegpu.load_nd %{{.*}} {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<32x16xbf16> -> vector<16x16x2xbf16>
      // CHECK:      %[[B00:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [0, 0, 0], sizes = [8, 16, 2], strides = [1, 1, 1]} : vector<16x16x2xbf16> to vector<8x16x2xbf16>
      %vb = xetile.load_tile %bt : !tb -> vector<1x4x32x16xbf16>
      %vb2 = xetile.tile_unpack %vb {inner_blocks = [32, 16]} : vector<1x4x32x16xbf16> -> vector<32x64xbf16>
      %vb3 = xetile.tile_pack %vb2 {inner_blocks = [16, 16]} : vector<32x64xbf16> -> vector<2x4x16x16xbf16>
      // CHECK:      xegpu.prefetch_nd %{{.*}} {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<8x32xbf16>
      xetile.prefetch_tile %pt : !tp
      // C block (0, 0): the chain over K starts at the loop-carried accumulator
      // CHECK:      %[[D0:.*]] = xegpu.dpas %[[A00]], %[[B00]], %arg{{[0-9]+}} {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16>, vector<8x16xf32> -> vector<8x16xf32>
      // CHECK-NEXT: %[[D1:.*]] = xegpu.dpas %[[A01]], %{{.*}}, %[[D0]] {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16>, vector<8x16xf32> -> vector<8x16xf32>
      // CHECK-COUNT-30: xegpu.dpas
      // CHECK-NOT:  xegpu.dpas
      %acc2 = xetile.tile_mma %va3, %vb3, %acc : vector<4x2x8x16xbf16>, vector<2x4x16x16xbf16>, vector<4x4x8x16xf32> -> vector<4x4x8x16xf32>
      // CHECK-COUNT-2: xegpu.update_nd_offset %{{.*}}, [0, 32] {mode = vc} : !xegpu.tensor_desc<32x16xbf16>
      // CHECK-COUNT-4: xegpu.update_nd_offset %{{.*}}, [32, 0] {mode = vc} : !xegpu.tensor_desc<32x16xbf16>
      // CHECK:      xegpu.update_nd_offset %{{.*}}, [0, 32] {mode = vc} : !xegpu.tensor_desc<8x32xbf16>
      // CHECK:      scf.yield %[[D1]],
      %at2 = xetile.update_tile_offset %at, [%c0, %c32] : !ta
      %bt2 = xetile.update_tile_offset %bt, [%c32, %c0] : !tb
      %pt2 = xetile.update_tile_offset %pt, [%c0, %c32] : !tp
      scf.yield %acc2, %at2, %bt2, %pt2 : vector<4x4x8x16xf32>, !ta, !tb, !tp
    }
    // CHECK-COUNT-16: xegpu.store_nd %{{.*}}#{{[0-9]+}}, %{{.*}} {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    // CHECK-NOT:  xetile.
    xetile.store_tile %r#0, %ct : vector<4x4x8x16xf32>, !tc
    gpu.return
  }
}
// 32 DPAS per K step; after canonicalize/cse the A slices are shared by the four N blocks
// CANON-LABEL: gpu.func @gemm
// CANON-COUNT-8: vector.extract_strided_slice %{{.*}} : vector<32x16xbf16> to vector<8x16xbf16>
// CANON-COUNT-8: vector.extract_strided_slice %{{.*}} : vector<16x16x2xbf16> to vector<8x16x2xbf16>
// CANON-COUNT-32: xegpu.dpas
