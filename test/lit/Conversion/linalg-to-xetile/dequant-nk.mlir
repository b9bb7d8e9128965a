// W8A16 with the weights stored N x K (a framework's linear layer, [out, in]): the matmul reads B through a
// transposing indexing map, the dequantizing generic is over (n, k) with per-output (d0) and per-group
// (d0, d1 floordiv G) parameters. Fused into the GEMM kernel (docs/quantized-gemm.md "N x K weights"): the
// weights through a transposed view with `order = [0, 1]` tiles, the N x K/G parameters through transposed
// views read by rows at k / G. i4 weights (packed along K) are read as their N x K/2 bytes with the map
// [r * c, 1] (subgroup s: rows (s mod c) of N), unpacked along K and transposed to B's map in each subgroup.
// Forms still not fused keep their remark and two kernels.
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @per_group_zero_point(
// CHECK-NOT:   memref.alloc
// CHECK-NOT:   linalg.
// CHECK:       gpu.launch_func @per_group_zero_point_kernels::@per_group_zero_point_0 {{.*}} args(%arg0 : memref<24x64xf16>, %arg1 : memref<48x64xi8>, %arg4 : memref<24x48xf32>, %arg2 : memref<48x4xf16>, %arg3 : memref<48x4xi8>)
// CHECK-NOT:   gpu.launch_func
// CHECK:       gpu.func @per_group_zero_point_0(%{{.*}}: memref<24x64xf16>, %[[W:.*]]: memref<48x64xi8>, %{{.*}}: memref<24x48xf32>, %[[S:.*]]: memref<48x4xf16>, %[[Z:.*]]: memref<48x4xi8>)
// CHECK:       %[[WT:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0) : memref<48x64xi8> to memref<64x48xi8, strided<[1, 64]>>
// CHECK:       xetile.init_tile %[[WT]]{{.*}} -> !xetile.tile<16x64xi8, #xetile.tile_attr<order = [0, 1], wg_map = <sg_layout = [4, 2], sg_data = [16, 32]>>>
// CHECK:       %[[ST:.*]] = memref.transpose %[[S]] (d0, d1) -> (d1, d0) : memref<48x4xf16> to memref<4x48xf16, strided<[1, 4]>>
// CHECK:       %[[ZT:.*]] = memref.transpose %[[Z]] (d0, d1) -> (d1, d0) : memref<48x4xi8> to memref<4x48xi8, strided<[1, 4]>>
// CHECK:       scf.for %[[K:[a-z0-9]+]] =
// CHECK:       %[[VW:.*]] = xetile.load_tile %{{.*}} -> vector<16x64xi8>
// CHECK:       %[[ROW:.*]] = arith.divui %[[K]], %{{.*}} : index
// CHECK:       xetile.init_tile %[[ST]][%[[ROW]], %{{.*}}] : memref<4x48xf16, strided<[1, 4]>> -> !xetile.tile<1x64xf16, #xetile.tile_attr<order = [0, 1],
// CHECK:       %[[SB:.*]] = xetile.tile_broadcast %{{.*}} [0] {{.*}} : vector<1x64xf16> -> vector<16x64xf16>
// CHECK:       xetile.init_tile %[[ZT]][%[[ROW]], %{{.*}}] : memref<4x48xi8, strided<[1, 4]>> -> !xetile.tile<1x64xi8, #xetile.tile_attr<order = [0, 1],
// CHECK:       %[[F:.*]] = arith.sitofp %[[VW]] {{.*}} : vector<16x64xi8> to vector<16x64xf16>
// CHECK:       %[[D:.*]] = arith.subf %[[F]], %{{.*}} : vector<16x64xf16>
// CHECK:       %[[B:.*]] = arith.mulf %[[D]], %[[SB]] {{.*}} : vector<16x64xf16>
// CHECK:       xetile.tile_mma %{{.*}}, %[[B]], %{{.*}} : vector<32x16xf16>, vector<16x64xf16>, vector<32x64xf32>

#id = affine_map<(d0, d1) -> (d0, d1)>
#grp = affine_map<(d0, d1) -> (d0, d1 floordiv 16)>
#ma = affine_map<(d0, d1, d2) -> (d0, d2)>
#mb = affine_map<(d0, d1, d2) -> (d1, d2)>
#mc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @per_group_zero_point(%A: memref<24x64xf16>, %W: memref<48x64xi8>, %S: memref<48x4xf16>,
                                %Z: memref<48x4xi8>, %C: memref<24x48xf32>) {
  %Bd = memref.alloc() : memref<48x64xf16>
  linalg.generic {indexing_maps = [#id, #grp, #grp, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S, %Z : memref<48x64xi8>, memref<48x4xf16>, memref<48x4xi8>) outs(%Bd : memref<48x64xf16>) {
  ^bb0(%w: i8, %s: f16, %z: i8, %o: f16):
    %wf = arith.sitofp %w : i8 to f16
    %zf = arith.sitofp %z : i8 to f16
    %d = arith.subf %wf, %zf : f16
    %r = arith.mulf %d, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul indexing_maps = [#ma, #mb, #mc] ins(%A, %Bd : memref<24x64xf16>, memref<48x64xf16>)
      outs(%C : memref<24x48xf32>)
  memref.dealloc %Bd : memref<48x64xf16>
  return
}

// -----
// i4 weights stored N x K (packed two per byte along K): the kernel takes their bytes (one host cast).
// CHECK-LABEL: func.func @i4_nk(
// CHECK:       %[[BYTES:.*]] = builtin.unrealized_conversion_cast %arg1 : memref<64x64xi4> to memref<64x32xi8>
// CHECK-NOT:   linalg.
// CHECK:       gpu.launch_func @i4_nk_kernels::@i4_nk_0 {{.*}} args(%arg0 : memref<32x64xf16>, %[[BYTES]] : memref<64x32xi8>, %arg3 : memref<32x64xf32>, %arg2 : memref<64xf16>)
// CHECK-NOT:   gpu.launch_func
// CHECK:       gpu.func @i4_nk_0(%{{.*}}: memref<32x64xf16>, %[[W:.*]]: memref<64x32xi8>,
// CHECK:       %[[KQ:.*]] = arith.divui %{{.*}}, %c2 : index
// CHECK:       xetile.init_tile %[[W]][%{{.*}}, %[[KQ]]] : memref<64x32xi8> -> !xetile.tile<64x16xi8, #xetile.tile_attr<wg_map = <sg_layout = [8, 1], sg_data = [32, 16]>>>
// CHECK:       scf.for
// CHECK:       %[[VW:.*]] = xetile.load_tile %{{.*}} -> vector<64x16xi8>
// CHECK:       arith.extsi %[[VW]] {wg_map = #xetile.wg_map<sg_layout = [8, 1], sg_data = [32, 16]>} : vector<64x16xi8> to vector<64x16xi16>
// CHECK:       %[[U:.*]] = vector.bitcast %{{.*}} {wg_map = #xetile.wg_map<sg_layout = [8, 1], sg_data = [32, 32]>} : vector<64x16xi16> to vector<64x32xi8>
// CHECK:       %[[T:.*]] = xetile.tile_transpose %[[U]] [1, 0] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [32, 32]>} : vector<64x32xi8> -> vector<32x64xi8>
// CHECK:       arith.sitofp %[[T]] {{.*}} : vector<32x64xi8> to vector<32x64xf16>
// CHECK:       xetile.update_tile_offset %{{.*}}, [%c0, %{{.*}}] : !xetile.tile<64x16xi8
#id = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
#ma = affine_map<(d0, d1, d2) -> (d0, d2)>
#mb = affine_map<(d0, d1, d2) -> (d1, d2)>
#mc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @i4_nk(%A: memref<32x64xf16>, %W: memref<64x64xi4>, %S: memref<64xf16>, %C: memref<32x64xf32>) {
  %Bd = memref.alloc() : memref<64x64xf16>
  linalg.generic {indexing_maps = [#id, #out, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<64x64xi4>, memref<64xf16>) outs(%Bd : memref<64x64xf16>) {
  ^bb0(%w: i4, %s: f16, %o: f16):
    %f = arith.sitofp %w : i4 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul indexing_maps = [#ma, #mb, #mc] ins(%A, %Bd : memref<32x64xf16>, memref<64x64xf16>)
      outs(%C : memref<32x64xf32>)
  return
}

// -----
// N x K weights whose parameters are per column of the weights (d1, a K index): not a per-output scale; the
// generic becomes an element-wise kernel writing B.
// CHECK-LABEL: func.func @scale_per_k(
// CHECK:       gpu.launch_func @scale_per_k_kernels::@scale_per_k_0
// CHECK:       gpu.launch_func @scale_per_k_kernels::@scale_per_k_1
#id = affine_map<(d0, d1) -> (d0, d1)>
#k = affine_map<(d0, d1) -> (d1)>
#ma = affine_map<(d0, d1, d2) -> (d0, d2)>
#mb = affine_map<(d0, d1, d2) -> (d1, d2)>
#mc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @scale_per_k(%A: memref<32x64xf16>, %W: memref<64x64xi8>, %S: memref<64xf16>, %C: memref<32x64xf32>) {
  %Bd = memref.alloc() : memref<64x64xf16>
  // expected-remark @+1 {{dequantization not fused into the GEMM: input 1 (memref<64xf16>) has the map (d1) (fused: the weights (d0, d1), per-row (d0), per-group (d0, d1 floordiv G))}}
  linalg.generic {indexing_maps = [#id, #k, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<64x64xi8>, memref<64xf16>) outs(%Bd : memref<64x64xf16>) {
  ^bb0(%w: i8, %s: f16, %o: f16):
    %f = arith.sitofp %w : i8 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul indexing_maps = [#ma, #mb, #mc] ins(%A, %Bd : memref<32x64xf16>, memref<64x64xf16>)
      outs(%C : memref<32x64xf32>)
  return
}

// -----
// The dequantized weights transposed by a linalg.transpose before a plain matmul: not the fused form (the
// generic does not write the matmul's B); an element-wise kernel, the transpose on the host, the GEMM.
// CHECK-LABEL: func.func @linalg_transpose(
// CHECK:       gpu.launch_func @linalg_transpose_kernels::@linalg_transpose_0
// CHECK:       linalg.transpose
// CHECK:       gpu.launch_func @linalg_transpose_kernels::@linalg_transpose_1
#id = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @linalg_transpose(%A: memref<32x64xf16>, %W: memref<64x64xi8>, %S: memref<64xf16>, %C: memref<32x64xf32>) {
  %Bd = memref.alloc() : memref<64x64xf16>
  %Bt = memref.alloc() : memref<64x64xf16>
  linalg.generic {indexing_maps = [#id, #out, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<64x64xi8>, memref<64xf16>) outs(%Bd : memref<64x64xf16>) {
  ^bb0(%w: i8, %s: f16, %o: f16):
    %f = arith.sitofp %w : i8 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.transpose ins(%Bd : memref<64x64xf16>) outs(%Bt : memref<64x64xf16>) permutation = [1, 0]
  linalg.matmul ins(%A, %Bt : memref<32x64xf16>, memref<64x64xf16>) outs(%C : memref<32x64xf32>)
  return
}
