// The blocked GEMM of docs/pipeline.md through stage 4 and stage 5: the 32x16 A loads are split
// into 8x16 DPAS A loads (each work-item holds one column: vector<8x1xbf16>), the 32x16 B VNNI loads
// give vector<16x1x2xbf16> per work-item, sliced per DPAS into vector<8x1x2xbf16>, the accumulators
// and C blocks are vector<8x1xf32>.
// RUN: xe-opt %s --convert-xetile-to-xegpu --xegpu-simt-distribute --canonicalize --cse | FileCheck %s

// CHECK-LABEL: gpu.func @gemm
// CHECK-NOT:  mode = vc
// CHECK-COUNT-8: xegpu.create_nd_tdesc %arg0{{.*}} -> !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK-COUNT-4: xegpu.create_nd_tdesc %arg1{{.*}} -> !xegpu.tensor_desc<32x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [2, 1]>>>
// CHECK-COUNT-16: xegpu.create_nd_tdesc %arg2{{.*}} -> !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:      xegpu.create_nd_tdesc %arg0{{.*}} -> !xegpu.tensor_desc<8x32xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK-COUNT-16: xegpu.load_nd %{{.*}} -> vector<8x1xf32>
// CHECK:      scf.for
// CHECK-COUNT-8: xegpu.load_nd %{{.*}} : !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<8x1xbf16>
// CHECK-COUNT-4: xegpu.load_nd %{{.*}} {vnni_axis = 0} : !xegpu.tensor_desc<32x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [2, 1]>>> -> vector<16x1x2xbf16>
// CHECK:      vector.extract_strided_slice %{{.*}} {offsets = [0, 0, 0], sizes = [8, 1, 2], strides = [1, 1, 1]} : vector<16x1x2xbf16> to vector<8x1x2xbf16>
// CHECK:      xegpu.prefetch_nd %{{.*}} {l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<8x32xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK-COUNT-32: xegpu.dpas %{{.*}} : vector<8x1xbf16>, vector<8x1x2xbf16>, vector<8x1xf32> -> vector<8x1xf32>
// CHECK:      scf.yield
// CHECK-COUNT-16: xegpu.store_nd %{{.*}} : vector<8x1xf32>, !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>

!ta = !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>
!tb = !xetile.tile<32x64xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>
!tc = !xetile.tile<32x64xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
!tp = !xetile.tile<8x32xbf16, #xetile.tile_attr<inner_blocks = [8, 32]>>
gpu.module @k {
  gpu.func @gemm(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>, %m: index, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %a = xetile.init_tile %A[%m, %c0] : memref<256x256xbf16> -> !ta
    %b = xetile.init_tile %B[%c0, %n] : memref<256x256xbf16> -> !tb
    %ct = xetile.init_tile %C[%m, %n] : memref<256x256xf32> -> !tc
    %p = xetile.init_tile %A[%m, %c32] : memref<256x256xbf16> -> !tp
    %c = xetile.load_tile %ct : !tc -> vector<4x4x8x16xf32>
    %r:4 = scf.for %k = %c0 to %c256 step %c32 iter_args(%acc = %c, %at = %a, %bt = %b, %pt = %p) -> (vector<4x4x8x16xf32>, !ta, !tb, !tp) {
      %va = xetile.load_tile %at : !ta -> vector<1x2x32x16xbf16>
      %va2 = xetile.tile_unpack %va {inner_blocks = [32, 16]} : vector<1x2x32x16xbf16> -> vector<32x32xbf16>
      %va3 = xetile.tile_pack %va2 {inner_blocks = [8, 16]} : vector<32x32xbf16> -> vector<4x2x8x16xbf16>
      %vb = xetile.load_tile %bt : !tb -> vector<1x4x32x16xbf16>
      %vb2 = xetile.tile_unpack %vb {inner_blocks = [32, 16]} : vector<1x4x32x16xbf16> -> vector<32x64xbf16>
      %vb3 = xetile.tile_pack %vb2 {inner_blocks = [16, 16]} : vector<32x64xbf16> -> vector<2x4x16x16xbf16>
      xetile.prefetch_tile %pt : !tp
      %acc2 = xetile.tile_mma %va3, %vb3, %acc : vector<4x2x8x16xbf16>, vector<2x4x16x16xbf16>, vector<4x4x8x16xf32> -> vector<4x4x8x16xf32>
      %at2 = xetile.update_tile_offset %at, [%c0, %c32] : !ta
      %bt2 = xetile.update_tile_offset %bt, [%c32, %c0] : !tb
      %pt2 = xetile.update_tile_offset %pt, [%c0, %c32] : !tp
      scf.yield %acc2, %at2, %bt2, %pt2 : vector<4x4x8x16xf32>, !ta, !tb, !tp
    }
    xetile.store_tile %r#0, %ct : vector<4x4x8x16xf32>, !tc
    gpu.return
  }
}
