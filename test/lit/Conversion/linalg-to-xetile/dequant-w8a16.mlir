// W8A16: the dequantizing linalg.generic (i8 -> f16 times a per-column scale) feeding linalg.matmul's B is
// fused into the GEMM kernel's B path (docs/quantized-gemm.md): one launch taking the i8 weights and the
// scales, no f16 B buffer on the host; in the K loop the i8 tile is loaded, converted and scaled with B's
// wg_map and feeds tile_mma. Per-group parameters are loaded at row k / G each K step.
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: func.func @per_column(
// CHECK-NOT:   memref.alloc
// CHECK-NOT:   linalg.
// CHECK:       gpu.launch_func @per_column_kernels::@per_column_0 {{.*}} args(%arg0 : memref<64x128xf16>, %arg1 : memref<128x256xi8>, %arg3 : memref<64x256xf32>, %arg2 : memref<256xf16>)
// CHECK-NOT:   gpu.launch_func
// CHECK-NOT:   memref.dealloc
// CHECK:       return
// CHECK:       gpu.func @per_column_0(%[[A:.*]]: memref<64x128xf16>, %[[W:.*]]: memref<128x256xi8>, %[[C:.*]]: memref<64x256xf32>, %[[S:.*]]: memref<256xf16>)
// CHECK:       %[[WT:.*]] = xetile.init_tile %[[W]]{{.*}} -> !xetile.tile<32x64xi8, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [32, 32]>>>
// CHECK:       %[[S2:.*]] = memref.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [1, 256]
// CHECK:       %[[ST:.*]] = xetile.init_tile %[[S2]]{{.*}} -> !xetile.tile<1x64xf16, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [1, 32]>>>
// CHECK:       %[[SV:.*]] = xetile.load_tile %[[ST]]
// CHECK:       scf.for
// CHECK:       %[[VW:.*]] = xetile.load_tile %{{.*}} -> vector<32x64xi8>
// CHECK:       %[[SB:.*]] = xetile.tile_broadcast %[[SV]] [0] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [32, 32]>} : vector<1x64xf16> -> vector<32x64xf16>
// CHECK:       %[[F:.*]] = arith.sitofp %[[VW]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [32, 32]>} : vector<32x64xi8> to vector<32x64xf16>
// CHECK:       %[[B:.*]] = arith.mulf %[[F]], %[[SB]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [32, 32]>} : vector<32x64xf16>
// CHECK:       xetile.tile_mma %{{.*}}, %[[B]], %{{.*}} : vector<32x32xf16>, vector<32x64xf16>, vector<32x64xf32>

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @per_column(%A: memref<64x128xf16>, %W: memref<128x256xi8>, %S: memref<256xf16>, %C: memref<64x256xf32>) {
  %Bd = memref.alloc() : memref<128x256xf16>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<128x256xi8>, memref<256xf16>) outs(%Bd : memref<128x256xf16>) {
  ^bb0(%w: i8, %s: f16, %o: f16):
    %f = arith.sitofp %w : i8 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul ins(%A, %Bd : memref<64x128xf16>, memref<128x256xf16>) outs(%C : memref<64x256xf32>)
  memref.dealloc %Bd : memref<128x256xf16>
  return
}

// -----
// Groups of 16 K rows: the planner's K step 32 does not divide the group, so the kernel steps K by 16; the
// scale row k / 16 and the zero-point row are loaded in the loop.
// CHECK-LABEL: func.func @per_group_zero_point(
// CHECK:       gpu.launch_func @per_group_zero_point_kernels::@per_group_zero_point_0
// CHECK-NOT:   linalg.
// CHECK:       gpu.func @per_group_zero_point_0(
// CHECK-SAME:  %[[S:[a-z0-9]*]]: memref<8x64xbf16>, %[[Z:[a-z0-9]*]]: memref<8x64xbf16>)
// CHECK:       %[[KS:.*]] = arith.constant 16 : index
// CHECK:       scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %[[KS]]
// CHECK:       %[[G:.*]] = arith.constant 16 : index
// CHECK:       %[[ROW:.*]] = arith.divui %[[K]], %[[G]] : index
// CHECK:       xetile.init_tile %[[S]][%[[ROW]], %{{.*}}] : memref<8x64xbf16> -> !xetile.tile<1x64xbf16
// CHECK:       xetile.init_tile %[[Z]][%[[ROW]], %{{.*}}] : memref<8x64xbf16> -> !xetile.tile<1x64xbf16
// CHECK:       arith.sitofp %{{.*}} : vector<16x64xi8> to vector<16x64xbf16>
// CHECK:       arith.subf
// CHECK:       arith.mulf
// CHECK:       xetile.tile_mma {{.*}} : vector<32x16xbf16>, vector<16x64xbf16>

#id = affine_map<(d0, d1) -> (d0, d1)>
#grp = affine_map<(d0, d1) -> (d0 floordiv 16, d1)>
func.func @per_group_zero_point(%A: memref<32x128xbf16>, %W: memref<128x64xi8>, %C: memref<32x64xf32>,
                                %S: memref<8x64xbf16>, %Z: memref<8x64xbf16>) {
  %Bd = memref.alloc() : memref<128x64xbf16>
  linalg.generic {indexing_maps = [#id, #grp, #grp, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S, %Z : memref<128x64xi8>, memref<8x64xbf16>, memref<8x64xbf16>) outs(%Bd : memref<128x64xbf16>) {
  ^bb0(%w: i8, %s: bf16, %z: bf16, %o: bf16):
    %f = arith.sitofp %w : i8 to bf16
    %d = arith.subf %f, %z : bf16
    %r = arith.mulf %d, %s : bf16
    linalg.yield %r : bf16
  }
  linalg.matmul ins(%A, %Bd : memref<32x128xbf16>, memref<128x64xbf16>) outs(%C : memref<32x64xf32>)
  return
}
