// xetile-check-hw accepts what xetile-blocking produces for every GEMM of the linalg lowering; with
// require-blocked it also insists that nothing stayed unblocked.
// RUN: xe-opt %S/../../Conversion/linalg-to-xetile/plain.mlir --xe-bufferize --convert-linalg-to-xetile --xetile-wg-to-sg --xetile-blocking --xetile-check-hw=require-blocked=true | FileCheck %s
// RUN: xe-opt %S/../../Conversion/linalg-to-xetile/element-types.mlir --split-input-file --convert-linalg-to-xetile --xetile-wg-to-sg --xetile-blocking --xetile-check-hw=require-blocked=true -o /dev/null
// RUN: xe-opt %S/../../Conversion/linalg-to-xetile/epilogue-bias-relu.mlir --split-input-file --convert-linalg-to-xetile --xetile-wg-to-sg --xetile-blocking --xetile-check-hw=require-blocked=true -o /dev/null
// RUN: xe-opt %s --xetile-check-hw=require-blocked=true | FileCheck %s --check-prefix=HAND

// CHECK: xetile.tile_mma {{.*}} -> vector<{{[0-9]+}}x{{[0-9]+}}x8x16xf32>

gpu.module @k {
  // HAND-LABEL: gpu.func @blocked
  gpu.func @blocked(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %a = xetile.init_tile %A[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 32]>>
    %b = xetile.init_tile %B[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>
    %ct = xetile.init_tile %C[%c0, %c0] : memref<64x64xf32> -> !xetile.tile<32x32xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
    %va = xetile.load_tile %a : !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 32]>> -> vector<1x1x32x32xbf16>
    %vb = xetile.load_tile %b : !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>> -> vector<1x2x32x16xbf16>
    %ua = xetile.tile_unpack %va {inner_blocks = [32, 32]} : vector<1x1x32x32xbf16> -> vector<32x32xbf16>
    %pa = xetile.tile_pack %ua {inner_blocks = [8, 16]} : vector<32x32xbf16> -> vector<4x2x8x16xbf16>
    %ub = xetile.tile_unpack %vb {inner_blocks = [32, 16]} : vector<1x2x32x16xbf16> -> vector<32x32xbf16>
    %pb = xetile.tile_pack %ub {inner_blocks = [16, 16]} : vector<32x32xbf16> -> vector<2x2x16x16xbf16>
    // HAND: xetile.tile_mma
    %d = xetile.tile_mma %pa, %pb : vector<4x2x8x16xbf16>, vector<2x2x16x16xbf16> -> vector<4x2x8x16xf32>
    xetile.store_tile %d, %ct : vector<4x2x8x16xf32>, !xetile.tile<32x32xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
    gpu.return
  }
}
