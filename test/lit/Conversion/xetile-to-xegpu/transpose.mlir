// Column-major tiles (order = [0, 1], read through memref.transpose) address the row-major memory
// behind the view with swapped offsets: 32/64-bit data loads with transpose = [1, 0]; a 16-bit B
// operand uses the 32-bit transpose, whose result is VNNI-packed (transpose + vnni_axis = 0, at most
// 8 32-bit columns: the 32x16 block is loaded as two 16x16 blocks); a 16-bit A operand is loaded
// as stored and transposed in registers.
// RUN: xe-opt %s --convert-xetile-to-xegpu 2>&1 | FileCheck %s

!tbt = !xetile.tile<32x16xbf16, #xetile.tile_attr<order = [0, 1], inner_blocks = [32, 16]>>
!tft = !xetile.tile<8x16xf32, #xetile.tile_attr<order = [0, 1], inner_blocks = [8, 16]>>
!tat = !xetile.tile<8x16xbf16, #xetile.tile_attr<order = [0, 1], inner_blocks = [8, 16]>>
!to = !xetile.tile<8x16xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
// CHECK: remark: hardware blocks 16x16 for the 32x16 inner block (load transpose of 32-bit data: block width 16 elements is outside [1, 8])
gpu.module @k {
  // CHECK-LABEL: gpu.func @transposed
  gpu.func @transposed(%B: memref<64x128xbf16>, %F: memref<64x128xf32>, %A: memref<64x128xbf16>, %O: memref<32x32xf32>, %k: index, %n: index) kernel {
    %c0 = arith.constant 0 : index
    // B^T: logical (k, n) is memory row n, column k; two 16x16 memory blocks along K
    // CHECK:      %[[B0:.*]] = xegpu.create_nd_tdesc %arg0[%arg5, %arg4] {mode = vc} : memref<64x128xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    // CHECK:      %[[K16:.*]] = arith.addi %arg4, %c16{{.*}} : index
    // CHECK:      %[[B1:.*]] = xegpu.create_nd_tdesc %arg0[%arg5, %[[K16]]] {mode = vc} : memref<64x128xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    // CHECK:      xegpu.load_nd %[[B0]] {mode = vc, vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
    // CHECK:      xegpu.load_nd %[[B1]] {mode = vc, vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
    %Bt = memref.transpose %B (d0, d1) -> (d1, d0) : memref<64x128xbf16> to memref<128x64xbf16, strided<[1, 128]>>
    %b = xetile.init_tile %Bt[%k, %n] : memref<128x64xbf16, strided<[1, 128]>> -> !tbt
    %vb = xetile.load_tile %b : !tbt -> vector<1x1x32x16xbf16>
    // f32: a transposing block load
    // CHECK:      %[[F:.*]] = xegpu.create_nd_tdesc %arg1[0, 0] {mode = vc} : memref<64x128xf32> -> !xegpu.tensor_desc<16x8xf32>
    // CHECK:      %[[VF:.*]] = xegpu.load_nd %[[F]] {mode = vc, transpose = [1, 0]} : !xegpu.tensor_desc<16x8xf32> -> vector<8x16xf32>
    %Ft = memref.transpose %F (d0, d1) -> (d1, d0) : memref<64x128xf32> to memref<128x64xf32, strided<[1, 128]>>
    %f = xetile.init_tile %Ft[%c0, %c0] : memref<128x64xf32, strided<[1, 128]>> -> !tft
    %vf = xetile.load_tile %f : !tft -> vector<1x1x8x16xf32>
    // bf16 A^T: plain load, then vector.transpose
    // CHECK:      %[[AD:.*]] = xegpu.create_nd_tdesc %arg2[0, 0] {mode = vc} : memref<64x128xbf16> -> !xegpu.tensor_desc<16x8xbf16>
    // CHECK:      %[[LA:.*]] = xegpu.load_nd %[[AD]] {mode = vc} : !xegpu.tensor_desc<16x8xbf16> -> vector<16x8xbf16>
    // CHECK:      %[[VA:.*]] = vector.transpose %[[LA]], [1, 0] : vector<16x8xbf16> to vector<8x16xbf16>
    %At = memref.transpose %A (d0, d1) -> (d1, d0) : memref<64x128xbf16> to memref<128x64xbf16, strided<[1, 128]>>
    %a = xetile.init_tile %At[%c0, %c0] : memref<128x64xbf16, strided<[1, 128]>> -> !tat
    %va = xetile.load_tile %a : !tat -> vector<1x1x8x16xbf16>
    %vb2 = xetile.tile_unpack %vb {inner_blocks = [32, 16]} : vector<1x1x32x16xbf16> -> vector<32x16xbf16>
    %vb3 = xetile.tile_pack %vb2 {inner_blocks = [16, 16]} : vector<32x16xbf16> -> vector<2x1x16x16xbf16>
    %va2 = xetile.tile_unpack %va {inner_blocks = [8, 16]} : vector<1x1x8x16xbf16> -> vector<8x16xbf16>
    %va3 = xetile.tile_pack %va2 {inner_blocks = [8, 16]} : vector<8x16xbf16> -> vector<1x1x8x16xbf16>
    %one = arith.constant dense<1.0> : vector<1x1x8x16xbf16>
    %wide = arith.addf %va3, %one : vector<1x1x8x16xbf16>
    // CHECK:      %[[S:.*]] = arith.addf %[[VA]], %{{.*}} : vector<8x16xbf16>
    // CHECK:      %[[D0:.*]] = xegpu.dpas %{{.*}}, %{{.*}}, %[[VF]] {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16>, vector<8x16xf32> -> vector<8x16xf32>
    // CHECK:      xegpu.dpas %{{.*}}, %{{.*}}, %[[D0]] {mode = vc}
    %cat = arith.constant dense<0.0> : vector<1x2x8x16xbf16>
    %c = xetile.tile_mma %cat, %vb3, %vf : vector<1x2x8x16xbf16>, vector<2x1x16x16xbf16>, vector<1x1x8x16xf32> -> vector<1x1x8x16xf32>
    %ot = xetile.init_tile %O[%c0, %c0] : memref<32x32xf32> -> !to
    xetile.store_tile %c, %ot : vector<1x1x8x16xf32>, !to
    %ext = arith.extf %wide : vector<1x1x8x16xbf16> to vector<1x1x8x16xf32>
    xetile.store_tile %ext, %ot : vector<1x1x8x16xf32>, !to
    gpu.return
  }
}
