// A row-major load_tile whose only user is tile_transpose [1, 0] (what xetile-canonicalize makes of
// column-major tiles) is one transposed 2D block load where the hardware has one: 32/64-bit data
// (transpose = [1, 0]) and the 16-bit B operand of tile_mma (the 32-bit transpose, VNNI-packed);
// a 16-bit A operand is loaded as stored and transposed in registers. The same code as for the
// column-major tiles in transpose.mlir. A load with other users keeps its in-register transpose; a
// column-major load followed by a transpose is a plain load.
// RUN: xe-opt %s --split-input-file --convert-xetile-to-xegpu | FileCheck %s

gpu.module @k {
  // CHECK-LABEL: gpu.func @fused
  gpu.func @fused(%B: memref<64x128xbf16>, %F: memref<64x128xf32>, %A: memref<64x128xbf16>, %O: memref<64x64xf32>, %k: index, %n: index) kernel {
    // CHECK:      %[[B0:.*]] = xegpu.create_nd_tdesc %arg0[%arg5, %arg4] {mode = vc} : memref<64x128xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    // CHECK:      %[[B1:.*]] = xegpu.create_nd_tdesc %arg0[%arg5, %{{.*}}] {mode = vc} : memref<64x128xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    // CHECK:      %[[LB0:.*]] = xegpu.load_nd %[[B0]] {mode = vc, vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
    // CHECK:      %[[LB1:.*]] = xegpu.load_nd %[[B1]] {mode = vc, vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
    %bt = xetile.init_tile %B[%n, %k] : memref<64x128xbf16> -> !xetile.tile<16x32xbf16>
    %vb = xetile.load_tile %bt : !xetile.tile<16x32xbf16> -> vector<16x32xbf16>
    %vbt = xetile.tile_transpose %vb [1, 0] : vector<16x32xbf16> -> vector<32x16xbf16>
    // CHECK:      %[[LA:.*]] = xegpu.load_nd %{{.*}} {mode = vc} : !xegpu.tensor_desc<32x8xbf16> -> vector<32x8xbf16>
    // CHECK:      vector.transpose %[[LA]], [1, 0] : vector<32x8xbf16> to vector<8x32xbf16>
    %at = xetile.init_tile %A[%k, 0] : memref<64x128xbf16> -> !xetile.tile<32x8xbf16>
    %va = xetile.load_tile %at : !xetile.tile<32x8xbf16> -> vector<32x8xbf16>
    %vat = xetile.tile_transpose %va [1, 0] : vector<32x8xbf16> -> vector<8x32xbf16>
    // CHECK:      %[[D0:.*]] = xegpu.dpas %{{.*}}, %[[LB0]] {mode = vc}
    // CHECK:      %[[D1:.*]] = xegpu.dpas %{{.*}}, %[[LB1]], %[[D0]] {mode = vc}
    %c = xetile.tile_mma %vat, %vbt : vector<8x32xbf16>, vector<32x16xbf16> -> vector<8x16xf32>
    // CHECK:      %[[F:.*]] = xegpu.create_nd_tdesc %arg1[0, 0] {mode = vc} : memref<64x128xf32> -> !xegpu.tensor_desc<16x8xf32>
    // CHECK:      %[[LF:.*]] = xegpu.load_nd %[[F]] {mode = vc, transpose = [1, 0]} : !xegpu.tensor_desc<16x8xf32> -> vector<8x16xf32>
    // CHECK:      arith.addf %[[D1]], %[[LF]] : vector<8x16xf32>
    // CHECK-NOT:  vector.transpose
    %ft = xetile.init_tile %F[0, 0] : memref<64x128xf32> -> !xetile.tile<16x8xf32>
    %vf = xetile.load_tile %ft : !xetile.tile<16x8xf32> -> vector<16x8xf32>
    %vft = xetile.tile_transpose %vf [1, 0] : vector<16x8xf32> -> vector<8x16xf32>
    %s = arith.addf %c, %vft : vector<8x16xf32>
    %ot = xetile.init_tile %O[0, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
    xetile.store_tile %s, %ot : vector<8x16xf32>, !xetile.tile<8x16xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  // CHECK-LABEL: gpu.func @not_fused
  // CHECK:       %[[L:.*]] = xegpu.load_nd %{{.*}} {mode = vc} : !xegpu.tensor_desc<16x8xf32> -> vector<16x8xf32>
  // CHECK:       vector.transpose %[[L]], [1, 0] : vector<16x8xf32> to vector<8x16xf32>
  // CHECK:       arith.addf %[[L]], %[[L]] : vector<16x8xf32>
  gpu.func @not_fused(%F: memref<64x128xf32>, %O: memref<64x64xf32>) kernel {
    %ft = xetile.init_tile %F[0, 0] : memref<64x128xf32> -> !xetile.tile<16x8xf32>
    %vf = xetile.load_tile %ft : !xetile.tile<16x8xf32> -> vector<16x8xf32>
    %vft = xetile.tile_transpose %vf [1, 0] : vector<16x8xf32> -> vector<8x16xf32>
    %d = arith.addf %vf, %vf : vector<16x8xf32>
    %o1 = xetile.init_tile %O[0, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
    xetile.store_tile %vft, %o1 : vector<8x16xf32>, !xetile.tile<8x16xf32>
    %o2 = xetile.init_tile %O[16, 0] : memref<64x64xf32> -> !xetile.tile<16x8xf32>
    xetile.store_tile %d, %o2 : vector<16x8xf32>, !xetile.tile<16x8xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  // CHECK-LABEL: gpu.func @column_major_then_transposed
  // CHECK:       %[[D:.*]] = xegpu.create_nd_tdesc %arg0[0, 0] {mode = vc} : memref<64x128xbf16> -> !xegpu.tensor_desc<16x32xbf16>
  // CHECK:       %[[L:.*]] = xegpu.load_nd %[[D]] {mode = vc} : !xegpu.tensor_desc<16x32xbf16> -> vector<16x32xbf16>
  // CHECK-NOT:   transpose
  // CHECK:       math.exp %[[L]] : vector<16x32xbf16>
  gpu.func @column_major_then_transposed(%A: memref<64x128xbf16>) kernel {
    %at = memref.transpose %A (d0, d1) -> (d1, d0) : memref<64x128xbf16> to memref<128x64xbf16, strided<[1, 128]>>
    %t = xetile.init_tile %at[0, 0] : memref<128x64xbf16, strided<[1, 128]>> -> !xetile.tile<32x16xbf16, #xetile.tile_attr<order = [0, 1]>>
    %v = xetile.load_tile %t : !xetile.tile<32x16xbf16, #xetile.tile_attr<order = [0, 1]>> -> vector<32x16xbf16>
    %vt = xetile.tile_transpose %v [1, 0] : vector<32x16xbf16> -> vector<16x32xbf16>
    %e = math.exp %vt : vector<16x32xbf16>
    gpu.return
  }
}
