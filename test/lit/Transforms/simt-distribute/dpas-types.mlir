// SIMT layouts per DPAS element type: tf32 A 8x8 uses wi_layout [2, 8] (a SIMD16 work-item holds
// every other row of one column: vector<4x1xf32>); 8-bit B packs 4 rows per work-item (wi_data
// [4, 1]: vector<8x1x4xi8>); an 8x32 i8 A gives each work-item two columns.
// RUN: xe-opt %s --xegpu-simt-distribute | FileCheck %s

// CHECK-LABEL: gpu.func @tf32
// CHECK:      %[[A:.*]] = xegpu.create_nd_tdesc %arg0[0, 0] : memref<64x64xf32> -> !xegpu.tensor_desc<8x8xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [2, 8], wi_data = [1, 1]>>>
// CHECK:      %[[B:.*]] = xegpu.create_nd_tdesc %arg1[0, 0] : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:      %[[LA:.*]] = xegpu.load_nd %[[A]] : {{.*}} -> vector<4x1xf32>
// CHECK:      %[[LB:.*]] = xegpu.load_nd %[[B]] : {{.*}} -> vector<8x1xf32>
// CHECK:      %[[D:.*]] = xegpu.dpas %[[LA]], %[[LB]] : vector<4x1xf32>, vector<8x1xf32> -> vector<8x1xf32>
// CHECK:      xegpu.store_nd %[[D]], %{{.*}} : vector<8x1xf32>, !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>

// CHECK-LABEL: gpu.func @i8
// CHECK:      xegpu.create_nd_tdesc %arg1[0, 0] : memref<64x64xi8> -> !xegpu.tensor_desc<32x16xi8, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [4, 1]>>>
// CHECK:      %[[LA:.*]] = xegpu.load_nd %{{.*}} : !xegpu.tensor_desc<8x32xi8, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<16x1xi8>
// CHECK:      %[[LB:.*]] = xegpu.load_nd %{{.*}} {vnni_axis = 0} : {{.*}} -> vector<8x1x4xi8>
// CHECK:      xegpu.dpas %[[LA]], %[[LB]] : vector<16x1xi8>, vector<8x1x4xi8> -> vector<8x1xi32>
gpu.module @k {
  gpu.func @tf32(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) kernel {
    %a = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x8xf32>
    %b = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %c = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %la = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<8x8xf32> -> vector<8x8xf32>
    %lb = xegpu.load_nd %b {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %d = xegpu.dpas %la, %lb {mode = vc} : vector<8x8xf32>, vector<8x16xf32> -> vector<8x16xf32>
    xegpu.store_nd %d, %c {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
  gpu.func @i8(%A: memref<64x64xi8>, %B: memref<64x64xi8>, %C: memref<64x64xi32>) kernel {
    %a = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xi8> -> !xegpu.tensor_desc<8x32xi8>
    %b = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<64x64xi8> -> !xegpu.tensor_desc<32x16xi8>
    %c = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xi32> -> !xegpu.tensor_desc<8x16xi32>
    %la = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<8x32xi8> -> vector<8x32xi8>
    %lb = xegpu.load_nd %b {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<32x16xi8> -> vector<8x16x4xi8>
    %d = xegpu.dpas %la, %lb {mode = vc} : vector<8x32xi8>, vector<8x16x4xi8> -> vector<8x16xi32>
    xegpu.store_nd %d, %c {mode = vc} : vector<8x16xi32>, !xegpu.tensor_desc<8x16xi32>
    gpu.return
  }
}
