// xegpu-simt-distribute on transposed operands (linalg.matmul with a transposed A or B).
// B: the 32-bit transposed load of 16-bit data (vnni_axis = 0, transpose = [1, 0], VNNI result)
// gives each work-item the memory rows that are its B columns, as the hardware's transposing load
// does: sg_map wi_layout [16, 1], wi_data [1, 2] on the memory block (wi_data holds the two
// elements of a 32-bit unit along the vnni_axis of the transposed data), per work-item 8x1x2 per
// 16 columns -- the DPAS B layout ([1, 16] x [2, 1] on the B block), no data movement.
// A: no block load delivers a transposed 16-bit A in DPAS order; the block is loaded with the
// transposed sg_map of the packed A order ([2, 8] x [1, 2] -> [8, 2] x [2, 1]) and reordered
// across work-items with one `gpu.shuffle idx` of the fragment plus an in-register permutation.
// RUN: xe-opt %s --xegpu-simt-distribute | FileCheck %s

// CHECK-LABEL: gpu.func @transposed_vnni
// CHECK-NOT:  mode = vc
// CHECK:      %[[D:.*]] = xegpu.create_nd_tdesc %arg0[0, 0] : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [16, 1], wi_data = [1, 2]>>>
// CHECK:      %[[B:.*]] = xegpu.load_nd %[[D]] {vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<16x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [16, 1], wi_data = [1, 2]>>> -> vector<8x1x2xbf16>
// CHECK:      xegpu.dpas %{{.*}}, %[[B]] : vector<8x1xbf16>, vector<8x1x2xbf16> -> vector<8x1xf32>
// CHECK-NOT:  gpu.shuffle
// CHECK:      gpu.return
gpu.module @k {
  gpu.func @transposed_vnni(%B: memref<64x64xbf16>, %A: memref<64x64xbf16>, %C: memref<64x64xf32>) kernel {
    %b = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    %ad = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16>
    %cd = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %b {mode = vc, vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
    %a = xegpu.load_nd %ad {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
    %d = xegpu.dpas %a, %v {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16> -> vector<8x16xf32>
    xegpu.store_nd %d, %cd {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}

// A 32-row block (two DPAS N blocks): each work-item reads memory rows i and i+16; the two B
// operands are per-work-item slices (elements 0, 1, 4, 5, ... and 2, 3, 6, 7, ...).
// CHECK-LABEL: gpu.func @sliced_b
// CHECK:      %[[D:.*]] = xegpu.create_nd_tdesc %arg0[0, 0] : memref<64x64xbf16> -> !xegpu.tensor_desc<32x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [16, 1], wi_data = [1, 2]>>>
// CHECK:      %[[B:.*]] = xegpu.load_nd %[[D]] {vnni_axis = 0, transpose = [1, 0]} : {{.*}} -> vector<16x1x2xbf16>
// CHECK:      %[[F0:.*]] = vector.shape_cast %[[B]] : vector<16x1x2xbf16> to vector<32xbf16>
// CHECK:      %[[S0:.*]] = vector.shuffle %[[F0]], %[[F0]] [0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29]
// CHECK:      %[[B0:.*]] = vector.shape_cast %[[S0]] : vector<16xbf16> to vector<8x1x2xbf16>
// CHECK:      %[[F1:.*]] = vector.shape_cast %[[B]] : vector<16x1x2xbf16> to vector<32xbf16>
// CHECK:      %[[S1:.*]] = vector.shuffle %[[F1]], %[[F1]] [2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31]
// CHECK:      %[[B1:.*]] = vector.shape_cast %[[S1]] : vector<16xbf16> to vector<8x1x2xbf16>
// CHECK:      xegpu.dpas %{{.*}}, %[[B0]] : vector<8x1xbf16>, vector<8x1x2xbf16> -> vector<8x1xf32>
// CHECK:      xegpu.dpas %{{.*}}, %[[B1]] : vector<8x1xbf16>, vector<8x1x2xbf16> -> vector<8x1xf32>
gpu.module @k2 {
  gpu.func @sliced_b(%BT: memref<64x64xbf16>, %A: memref<64x64xbf16>, %C: memref<64x64xf32>) kernel {
    %ad = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16>
    %bt = xegpu.create_nd_tdesc %BT[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<32x16xbf16>
    %c0 = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %c1 = xegpu.create_nd_tdesc %C[0, 16] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %a = xegpu.load_nd %ad {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
    %b = xegpu.load_nd %bt {mode = vc, vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<32x16xbf16> -> vector<8x32x2xbf16>
    %b0 = vector.extract_strided_slice %b {offsets = [0, 0, 0], sizes = [8, 16, 2], strides = [1, 1, 1]} : vector<8x32x2xbf16> to vector<8x16x2xbf16>
    %b1 = vector.extract_strided_slice %b {offsets = [0, 16, 0], sizes = [8, 16, 2], strides = [1, 1, 1]} : vector<8x32x2xbf16> to vector<8x16x2xbf16>
    %d0 = xegpu.dpas %a, %b0 {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16> -> vector<8x16xf32>
    %d1 = xegpu.dpas %a, %b1 {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16> -> vector<8x16xf32>
    xegpu.store_nd %d0, %c0 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    xegpu.store_nd %d1, %c1 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}

// Transposed 16-bit A (the VC form: block load + in-register transpose): work-item l of the
// [8, 2] x [2, 1] load holds what work-item 8 * (l % 2) + l / 2 needs in the packed A order.
// CHECK-LABEL: gpu.func @transposed_a
// CHECK:      %[[LANE:.*]] = gpu.lane_id
// CHECK:      %[[D:.*]] = xegpu.create_nd_tdesc %arg0[0, 0] : memref<64x64xbf16> -> !xegpu.tensor_desc<16x8xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [8, 2], wi_data = [2, 1]>>>
// CHECK:      %[[L:.*]] = xegpu.load_nd %[[D]] : !xegpu.tensor_desc<16x8xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [8, 2], wi_data = [2, 1]>>> -> vector<4x2xbf16>
// CHECK:      %[[F:.*]] = vector.shape_cast %[[L]] : vector<4x2xbf16> to vector<8xbf16>
// CHECK:      %[[W:.*]] = arith.constant 16 : i32
// CHECK:      %[[T:.*]] = arith.constant dense<[0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15]> : vector<16xi32>
// CHECK:      %[[SRC:.*]] = vector.extract %[[T]][%[[LANE]]] : i32 from vector<16xi32>
// CHECK:      %[[SH:.*]], %{{.*}} = gpu.shuffle  idx %[[F]], %[[SRC]], %[[W]] : vector<8xbf16>
// CHECK:      %[[P:.*]] = vector.shuffle %[[SH]], %[[SH]] [0, 4, 1, 5, 2, 6, 3, 7] : vector<8xbf16>, vector<8xbf16>
// CHECK:      %[[A:.*]] = vector.shape_cast %[[P]] : vector<8xbf16> to vector<4x2xbf16>
// CHECK:      %[[B:.*]] = xegpu.load_nd %{{.*}} {vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<16x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [16, 1], wi_data = [1, 2]>>> -> vector<8x1x2xbf16>
// CHECK:      xegpu.dpas %[[A]], %[[B]] : vector<4x2xbf16>, vector<8x1x2xbf16> -> vector<8x1xf32>
gpu.module @k3 {
  gpu.func @transposed_a(%AT: memref<64x64xbf16>, %BT: memref<64x64xbf16>, %C: memref<64x64xf32>) kernel {
    %at = xegpu.create_nd_tdesc %AT[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x8xbf16>
    %bt = xegpu.create_nd_tdesc %BT[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    %cd = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %l = xegpu.load_nd %at {mode = vc} : !xegpu.tensor_desc<16x8xbf16> -> vector<16x8xbf16>
    %a = vector.transpose %l, [1, 0] : vector<16x8xbf16> to vector<8x16xbf16>
    %b = xegpu.load_nd %bt {mode = vc, vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
    %d = xegpu.dpas %a, %b {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16> -> vector<8x16xf32>
    xegpu.store_nd %d, %cd {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}

// Transposed tf32 A (a 32-bit transposed load): the packed A order ([2, 8] x [1, 1]) is again the
// lane-transposed layout of the load's [8, 2] x [1, 1]: one shuffle after the load.
// CHECK-LABEL: gpu.func @transposed_a_tf32
// CHECK:      %[[L:.*]] = xegpu.load_nd %{{.*}} {transpose = [1, 0]} : !xegpu.tensor_desc<8x8xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [8, 2], wi_data = [1, 1]>>> -> vector<1x4xf32>
// CHECK:      %[[F:.*]] = vector.shape_cast %[[L]] : vector<1x4xf32> to vector<4xf32>
// CHECK:      %[[SH:.*]], %{{.*}} = gpu.shuffle  idx %[[F]], %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:      %[[A:.*]] = vector.shape_cast %[[SH]] : vector<4xf32> to vector<4x1xf32>
// CHECK:      xegpu.dpas %[[A]], %{{.*}} : vector<4x1xf32>, vector<8x1xf32> -> vector<8x1xf32>
gpu.module @k4 {
  gpu.func @transposed_a_tf32(%AT: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) kernel {
    %at = xegpu.create_nd_tdesc %AT[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x8xf32>
    %bd = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %cd = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %a = xegpu.load_nd %at {mode = vc, transpose = [1, 0]} : !xegpu.tensor_desc<8x8xf32> -> vector<8x8xf32>
    %b = xegpu.load_nd %bd {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %d = xegpu.dpas %a, %b {mode = vc} : vector<8x8xf32>, vector<8x16xf32> -> vector<8x16xf32>
    xegpu.store_nd %d, %cd {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}
