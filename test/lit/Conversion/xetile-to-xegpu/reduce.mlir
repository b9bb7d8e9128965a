// tile_reduce per block row (column): the blocks combined element-wise (one register op each), then
// one vector.multi_reduction starting from the combined block's first column (row). A 16-bit sum
// keeps a chain of reductions, each accumulating onto the previous one (f32 partial sums, rounded once).
// RUN: xe-opt %s --split-input-file --convert-xetile-to-xegpu | FileCheck %s

gpu.module @k {
  // CHECK-LABEL: gpu.func @rows
  gpu.func @rows(%A: memref<64x64xf32>, %O: memref<64x1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %t = xetile.init_tile %A[%c0, %c0] : memref<64x64xf32> -> !xetile.tile<8x32xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
    %v = xetile.load_tile %t : !xetile.tile<8x32xf32, #xetile.tile_attr<inner_blocks = [8, 16]>> -> vector<1x2x8x16xf32>
    %u = xetile.tile_unpack %v {inner_blocks = [8, 16]} : vector<1x2x8x16xf32> -> vector<8x32xf32>
    // CHECK: %[[B0:.*]] = xegpu.load_nd {{.*}} -> vector<8x16xf32>
    // CHECK: %[[B1:.*]] = xegpu.load_nd {{.*}} -> vector<8x16xf32>
    // CHECK: %[[S:.*]] = arith.addf %[[B0]], %[[B1]] : vector<8x16xf32>
    // CHECK: %[[C0:.*]] = vector.extract_strided_slice %[[S]] {offsets = [0, 0], sizes = [8, 1], strides = [1, 1]}
    // CHECK: %[[A0:.*]] = vector.shape_cast %[[C0]] : vector<8x1xf32> to vector<8xf32>
    // CHECK: %[[R0:.*]] = vector.extract_strided_slice %[[S]] {offsets = [0, 1], sizes = [8, 15], strides = [1, 1]}
    // CHECK: %[[A1:.*]] = vector.multi_reduction <add>, %[[R0]], %[[A0]] [1] : vector<8x15xf32> to vector<8xf32>
    // CHECK-NOT: vector.multi_reduction
    // CHECK: vector.shape_cast %[[A1]] : vector<8xf32> to vector<8x1xf32>
    %r = xetile.tile_reduce <add> %u [1] : vector<8x32xf32> -> vector<8x1xf32>
    %o = xetile.init_tile %O[%c0, %c0] : memref<64x1xf32> -> !xetile.tile<8x1xf32>
    xetile.store_tile %r, %o : vector<8x1xf32>, !xetile.tile<8x1xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  // CHECK-LABEL: gpu.func @columns_max
  gpu.func @columns_max(%A: memref<64x64xf32>, %O: memref<1x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %t = xetile.init_tile %A[%c0, %c0] : memref<64x64xf32> -> !xetile.tile<16x16xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
    %v = xetile.load_tile %t : !xetile.tile<16x16xf32, #xetile.tile_attr<inner_blocks = [8, 16]>> -> vector<2x1x8x16xf32>
    %u = xetile.tile_unpack %v {inner_blocks = [8, 16]} : vector<2x1x8x16xf32> -> vector<16x16xf32>
    // CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<8x16xf32>
    // CHECK: vector.multi_reduction <maximumf>, %{{.*}}, %{{.*}} [0] : vector<7x16xf32> to vector<16xf32>
    // CHECK-NOT: vector.multi_reduction
    // CHECK: vector.shape_cast %{{.*}} : vector<16xf32> to vector<1x16xf32>
    %r = xetile.tile_reduce <maximumf> %u [0] : vector<16x16xf32> -> vector<1x16xf32>
    %o = xetile.init_tile %O[%c0, %c0] : memref<1x64xf32> -> !xetile.tile<1x16xf32>
    xetile.store_tile %r, %o : vector<1x16xf32>, !xetile.tile<1x16xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  // CHECK-LABEL: gpu.func @rows_f16
  gpu.func @rows_f16(%A: memref<64x64xf16>, %O: memref<64x1xf16>) kernel {
    %c0 = arith.constant 0 : index
    %t = xetile.init_tile %A[%c0, %c0] : memref<64x64xf16> -> !xetile.tile<8x32xf16, #xetile.tile_attr<inner_blocks = [8, 16]>>
    %v = xetile.load_tile %t : !xetile.tile<8x32xf16, #xetile.tile_attr<inner_blocks = [8, 16]>> -> vector<1x2x8x16xf16>
    %u = xetile.tile_unpack %v {inner_blocks = [8, 16]} : vector<1x2x8x16xf16> -> vector<8x32xf16>
    // CHECK-NOT: arith.addf
    // CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<8x15xf16> to vector<8xf16>
    // CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<8x16xf16> to vector<8xf16>
    %r = xetile.tile_reduce <add> %u [1] : vector<8x32xf16> -> vector<8x1xf16>
    %o = xetile.init_tile %O[%c0, %c0] : memref<64x1xf16> -> !xetile.tile<8x1xf16>
    xetile.store_tile %r, %o : vector<8x1xf16>, !xetile.tile<8x1xf16>
    gpu.return
  }
}
