// xegpu-simt-distribute on bias epilogues: a row (1 x n) or column (m x 1) vector.broadcast to a
// block in the DPAS C layout ([1, 16] x [1, 1]: work-item i holds column i, all rows).
// RUN: xe-opt %s --xegpu-simt-distribute | FileCheck %s

// A row bias (1 x 16) broadcast to the DPAS C block ([1, 16] x [1, 1]): the row takes the block's
// sg_map, each work-item loads its column's element (vector<1x1>) and repeats it in registers.
// CHECK-LABEL: gpu.func @row_bias
// CHECK-NOT:  mode = vc
// CHECK:      %[[RD:.*]] = xegpu.create_nd_tdesc %arg3[0, 0] : memref<1x64xf32> -> !xegpu.tensor_desc<1x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:      %[[D:.*]] = xegpu.dpas %{{.*}}, %{{.*}} : vector<8x1xbf16>, vector<8x1x2xbf16> -> vector<8x1xf32>
// CHECK:      %[[R:.*]] = xegpu.load_nd %[[RD]] : {{.*}} -> vector<1x1xf32>
// CHECK:      %[[RB:.*]] = vector.broadcast %[[R]] : vector<1x1xf32> to vector<8x1xf32>
// CHECK:      %[[S:.*]] = arith.addf %[[D]], %[[RB]] : vector<8x1xf32>
// CHECK:      xegpu.store_nd %[[S]], %{{.*}} : vector<8x1xf32>, !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK-NOT:  gpu.shuffle
// CHECK:      gpu.return
gpu.module @k {
  gpu.func @row_bias(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>, %bias: memref<1x64xf32>) kernel {
    %ad = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16>
    %bd = xegpu.create_nd_tdesc %B[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    %cd = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %rd = xegpu.create_nd_tdesc %bias[0, 0] {mode = vc} : memref<1x64xf32> -> !xegpu.tensor_desc<1x16xf32>
    %a = xegpu.load_nd %ad {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
    %b = xegpu.load_nd %bd {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
    %d = xegpu.dpas %a, %b {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16> -> vector<8x16xf32>
    %r = xegpu.load_nd %rd {mode = vc} : !xegpu.tensor_desc<1x16xf32> -> vector<1x16xf32>
    %rb = vector.broadcast %r : vector<1x16xf32> to vector<8x16xf32>
    %s = arith.addf %d, %rb : vector<8x16xf32>
    xegpu.store_nd %s, %cd {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}

// A 1 x 32 row (f16 epilogue) sliced for two 16-column blocks: [1, 16] x [1, 1] on the row gives
// each work-item the elements of columns i and i + 16; each slice is one of them.
// CHECK-LABEL: gpu.func @row_bias_sliced
// CHECK:      %[[R:.*]] = xegpu.load_nd %{{.*}} : !xegpu.tensor_desc<1x32xf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<2x1xf16>
// CHECK:      %[[R0:.*]] = vector.extract_strided_slice %[[R]] {offsets = [0, 0], sizes = [1, 1], strides = [1, 1]} : vector<2x1xf16> to vector<1x1xf16>
// CHECK:      %[[R1:.*]] = vector.extract_strided_slice %[[R]] {offsets = [1, 0], sizes = [1, 1], strides = [1, 1]} : vector<2x1xf16> to vector<1x1xf16>
// CHECK:      %[[B0:.*]] = vector.broadcast %[[R0]] : vector<1x1xf16> to vector<8x1xf16>
// CHECK:      %[[B1:.*]] = vector.broadcast %[[R1]] : vector<1x1xf16> to vector<8x1xf16>
// CHECK:      arith.addf %{{.*}}, %[[B0]] : vector<8x1xf16>
// CHECK:      arith.addf %{{.*}}, %[[B1]] : vector<8x1xf16>
// CHECK-NOT:  gpu.shuffle
// CHECK:      gpu.return
gpu.module @k2 {
  gpu.func @row_bias_sliced(%C: memref<64x64xf16>, %bias: memref<1x64xf16>) kernel {
    %c0 = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xf16> -> !xegpu.tensor_desc<8x16xf16>
    %c1 = xegpu.create_nd_tdesc %C[0, 16] {mode = vc} : memref<64x64xf16> -> !xegpu.tensor_desc<8x16xf16>
    %rd = xegpu.create_nd_tdesc %bias[0, 0] {mode = vc} : memref<1x64xf16> -> !xegpu.tensor_desc<1x32xf16>
    %x0 = xegpu.load_nd %c0 {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
    %x1 = xegpu.load_nd %c1 {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
    %r = xegpu.load_nd %rd {mode = vc} : !xegpu.tensor_desc<1x32xf16> -> vector<1x32xf16>
    %r0 = vector.extract_strided_slice %r {offsets = [0, 0], sizes = [1, 16], strides = [1, 1]} : vector<1x32xf16> to vector<1x16xf16>
    %r1 = vector.extract_strided_slice %r {offsets = [0, 16], sizes = [1, 16], strides = [1, 1]} : vector<1x32xf16> to vector<1x16xf16>
    %b0 = vector.broadcast %r0 : vector<1x16xf16> to vector<8x16xf16>
    %b1 = vector.broadcast %r1 : vector<1x16xf16> to vector<8x16xf16>
    %s0 = arith.addf %x0, %b0 : vector<8x16xf16>
    %s1 = arith.addf %x1, %b1 : vector<8x16xf16>
    xegpu.store_nd %s0, %c0 {mode = vc} : vector<8x16xf16>, !xegpu.tensor_desc<8x16xf16>
    xegpu.store_nd %s1, %c1 {mode = vc} : vector<8x16xf16>, !xegpu.tensor_desc<8x16xf16>
    gpu.return
  }
}

// A column bias (m x 1) broadcast to DPAS C blocks: every work-item needs every row. The 16 x 1
// block is loaded with [16, 1] x [1, 1] (one row per work-item) and reordered so that every
// work-item holds the whole column (`gpu.shuffle idx` from each work-item); the 8 x 1 slices are
// then the work-items' fragments of the broadcast blocks (no vector.broadcast is left).
// CHECK-LABEL: gpu.func @col_bias_block
// CHECK:      %[[RD:.*]] = xegpu.create_nd_tdesc %arg1[0, 0] : memref<64x1xf32> -> !xegpu.tensor_desc<16x1xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [16, 1], wi_data = [1, 1]>>>
// CHECK:      %[[R:.*]] = xegpu.load_nd %[[RD]] : {{.*}} -> vector<1x1xf32>
// CHECK:      %[[F:.*]] = vector.shape_cast %[[R]] : vector<1x1xf32> to vector<1xf32>
// CHECK-COUNT-16: gpu.shuffle  idx %[[F]], %{{.*}}, %{{.*}} : vector<1xf32>
// CHECK:      %[[W:.*]] = vector.shape_cast %{{.*}} : vector<16xf32> to vector<16x1xf32>
// CHECK:      %[[C0:.*]] = vector.extract_strided_slice %[[W]] {offsets = [0, 0], sizes = [8, 1], strides = [1, 1]} : vector<16x1xf32> to vector<8x1xf32>
// CHECK:      %[[C1:.*]] = vector.extract_strided_slice %[[W]] {offsets = [8, 0], sizes = [8, 1], strides = [1, 1]} : vector<16x1xf32> to vector<8x1xf32>
// CHECK-NOT:  vector.broadcast
// CHECK:      arith.addf %{{.*}}, %[[C0]] : vector<8x1xf32>
// CHECK:      arith.addf %{{.*}}, %[[C1]] : vector<8x1xf32>
// CHECK:      gpu.return
gpu.module @k3 {
  gpu.func @col_bias_block(%C: memref<64x64xf32>, %bias: memref<64x1xf32>) kernel {
    %c0 = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %c1 = xegpu.create_nd_tdesc %C[8, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %rd = xegpu.create_nd_tdesc %bias[0, 0] {mode = vc} : memref<64x1xf32> -> !xegpu.tensor_desc<16x1xf32>
    %x0 = xegpu.load_nd %c0 {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %x1 = xegpu.load_nd %c1 {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %r = xegpu.load_nd %rd {mode = vc} : !xegpu.tensor_desc<16x1xf32> -> vector<16x1xf32>
    %r0 = vector.extract_strided_slice %r {offsets = [0, 0], sizes = [8, 1], strides = [1, 1]} : vector<16x1xf32> to vector<8x1xf32>
    %r1 = vector.extract_strided_slice %r {offsets = [8, 0], sizes = [8, 1], strides = [1, 1]} : vector<16x1xf32> to vector<8x1xf32>
    %b0 = vector.broadcast %r0 : vector<8x1xf32> to vector<8x16xf32>
    %b1 = vector.broadcast %r1 : vector<8x1xf32> to vector<8x16xf32>
    %s0 = arith.addf %x0, %b0 : vector<8x16xf32>
    %s1 = arith.addf %x1, %b1 : vector<8x16xf32>
    xegpu.store_nd %s0, %c0 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    xegpu.store_nd %s1, %c1 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}

// A column gathered element by element (one-lane scattered loads, the unaligned fallback): every
// work-item loads each element, so the inserted column is already whole in every work-item.
// CHECK-LABEL: gpu.func @col_bias_gather
// CHECK:      %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<8x1xf32>
// CHECK:      %[[X:.*]] = xegpu.load_nd %{{.*}} -> vector<8x1xf32>
// CHECK:      %[[E0:.*]] = xegpu.load_gather %{{.*}}, %{{.*}} : {{.*}}, i1 -> f32
// CHECK:      %[[V0:.*]] = vector.broadcast %[[E0]] : f32 to vector<1xf32>
// CHECK:      %[[C0:.*]] = vector.insert_strided_slice %[[V0]], %[[Z]] {offsets = [0, 0], strides = [1]} : vector<1xf32> into vector<8x1xf32>
// CHECK:      %[[E1:.*]] = xegpu.load_gather %{{.*}}, %{{.*}} : {{.*}}, i1 -> f32
// CHECK:      %[[V1:.*]] = vector.broadcast %[[E1]] : f32 to vector<1xf32>
// CHECK:      %[[C1:.*]] = vector.insert_strided_slice %[[V1]], %[[C0]] {offsets = [1, 0], strides = [1]} : vector<1xf32> into vector<8x1xf32>
// CHECK-NOT:  gpu.shuffle
// CHECK:      arith.addf %[[X]], %[[C1]] : vector<8x1xf32>
// CHECK:      gpu.return
gpu.module @k4 {
  gpu.func @col_bias_gather(%C: memref<64x64xf32>, %bias: memref<64x1xf32>) kernel {
    %zero = arith.constant dense<0.0> : vector<8x1xf32>
    %z1 = arith.constant dense<0.0> : vector<1xf32>
    %o0 = arith.constant dense<0> : vector<1xindex>
    %o1 = arith.constant dense<1> : vector<1xindex>
    %m = arith.constant dense<true> : vector<1xi1>
    %c0 = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %x0 = xegpu.load_nd %c0 {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %t0 = xegpu.create_tdesc %bias, %o0 {mode = vc} : memref<64x1xf32>, vector<1xindex> -> !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>
    %e0 = xegpu.load_gather %t0, %m {mode = vc} : !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>, vector<1xi1> -> vector<1xf32>
    %v0 = vector.insert_strided_slice %e0, %zero {offsets = [0, 0], strides = [1]} : vector<1xf32> into vector<8x1xf32>
    %t1 = xegpu.create_tdesc %bias, %o1 {mode = vc} : memref<64x1xf32>, vector<1xindex> -> !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>
    %e1 = xegpu.load_gather %t1, %m {mode = vc} : !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>, vector<1xi1> -> vector<1xf32>
    %v1 = vector.insert_strided_slice %e1, %v0 {offsets = [1, 0], strides = [1]} : vector<1xf32> into vector<8x1xf32>
    %b = vector.broadcast %v1 : vector<8x1xf32> to vector<8x16xf32>
    %s = arith.addf %x0, %b : vector<8x16xf32>
    xegpu.store_nd %s, %c0 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}
