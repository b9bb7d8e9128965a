// The RFC distribution rule case by case: wrap-around (subgroups share data), round-robin
// (one work-group value becomes several subgroup values), 1-row tiles, unaligned matrices
// (tiles reach past the edge: out-of-bounds semantics), dynamic shapes and i64 addresses
// (shape/stride operands kept), order/inner_blocks kept, element-wise ops and constants.
// RUN: xe-opt %s --split-input-file --xetile-wg-to-sg | FileCheck %s

// tile 64x32 with sg_layout [4, 4] x sg_data [32, 16]: rows wrap ((r*32) mod 64), columns wrap
// ((q*16) mod 32): 16 subgroups, each 32x16 block owned by 4 of them.
// CHECK-LABEL: gpu.func @wrap_around
// CHECK:       %[[SG:.*]] = gpu.subgroup_id : index
// CHECK-DAG:   %[[R:.*]] = arith.divui %[[SG]], %c4{{.*}} : index
// CHECK-DAG:   %[[RM:.*]] = arith.muli %[[R]], %c32{{.*}} : index
// CHECK-DAG:   %[[ROW:.*]] = arith.remui %[[RM]], %c64{{.*}} : index
// CHECK-DAG:   %[[Q:.*]] = arith.remui %[[SG]], %c4{{.*}} : index
// CHECK-DAG:   %[[QM:.*]] = arith.muli %[[Q]], %c16{{.*}} : index
// CHECK-DAG:   %[[COL:.*]] = arith.remui %[[QM]], %c32{{.*}} : index
// CHECK:       %[[T:.*]] = xetile.init_tile %{{.*}}[%[[ROW]], %[[COL]]] : memref<64x32xf32> -> !xetile.tile<32x16xf32>
// CHECK:       %[[V:.*]] = xetile.load_tile %[[T]] : !xetile.tile<32x16xf32> -> vector<32x16xf32>
// CHECK:       %[[E:.*]] = math.exp %[[V]] : vector<32x16xf32>
// CHECK:       xetile.store_tile %[[E]], %[[T]] : vector<32x16xf32>, !xetile.tile<32x16xf32>
gpu.module @m {
  gpu.func @wrap_around(%A: memref<64x32xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %t = xetile.init_tile %A[0, 0] : memref<64x32xf32> -> !xetile.tile<64x32xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 4], sg_data = [32, 16]>>>
    %v = xetile.load_tile %t : !xetile.tile<64x32xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 4], sg_data = [32, 16]>>> -> vector<64x32xf32>
    %e = math.exp %v : vector<64x32xf32>
    xetile.store_tile %e, %t : vector<64x32xf32>, !xetile.tile<64x32xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 4], sg_data = [32, 16]>>>
    gpu.return
  }
}

// -----
// tile 128x128 with sg_layout [2, 2] x sg_data [32, 32]: 2x2 rounds, four subtiles per subgroup
// at (r*32 + {0, 64}, q*32 + {0, 64}); element-wise ops and the splat constant follow (1:4).
// CHECK-LABEL: gpu.func @round_robin
// CHECK:       %[[SG:.*]] = gpu.subgroup_id : index
// CHECK-DAG:   %[[R:.*]] = arith.divui %[[SG]], %c2{{.*}} : index
// CHECK-DAG:   %[[Q:.*]] = arith.remui %[[SG]], %c2{{.*}} : index
// CHECK-DAG:   %[[R0:.*]] = arith.muli %[[R]], %c32{{.*}} : index
// CHECK-DAG:   %[[Q0:.*]] = arith.muli %[[Q]], %c32{{.*}} : index
// CHECK-DAG:   %[[Q1:.*]] = arith.addi %[[Q0]], %c64{{.*}} : index
// CHECK-DAG:   %[[R1:.*]] = arith.addi %[[R0]], %c64{{.*}} : index
// CHECK:       %[[O0:.*]] = arith.addi %arg1, %[[R0]] : index
// CHECK:       %[[T0:.*]] = xetile.init_tile %arg0[%[[O0]], %[[Q0]]] : memref<512x128xf32> -> !xetile.tile<32x32xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
// CHECK:       %[[T1:.*]] = xetile.init_tile %arg0[%[[O0]], %[[Q1]]]
// CHECK:       %[[O1:.*]] = arith.addi %arg1, %[[R1]] : index
// CHECK:       %[[T2:.*]] = xetile.init_tile %arg0[%[[O1]], %[[Q0]]]
// CHECK:       %[[T3:.*]] = xetile.init_tile %arg0[%[[O1]], %[[Q1]]]
// CHECK:       %[[V0:.*]] = xetile.load_tile %[[T0]] {padding = 1.000000e+00 : f32} : !xetile.tile<32x32xf32, #xetile.tile_attr<inner_blocks = [8, 16]>> -> vector<4x2x8x16xf32>
// CHECK-COUNT-3: xetile.load_tile {{.*}} {padding = 1.000000e+00 : f32}
// CHECK-NOT:   xetile.load_tile
// CHECK:       %[[TWO:.*]] = arith.constant dense<2.000000e+00> : vector<4x2x8x16xf32>
// CHECK:       arith.mulf %[[V0]], %[[TWO]] : vector<4x2x8x16xf32>
// CHECK-COUNT-3: arith.mulf %{{.*}}, %[[TWO]] : vector<4x2x8x16xf32>
// CHECK-COUNT-4: xetile.prefetch_tile %{{.*}} {locality = 3 : i32} : !xetile.tile<32x32xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
// CHECK:       xetile.store_tile %{{.*}}, %[[T0]]
// CHECK:       xetile.store_tile %{{.*}}, %[[T1]]
// CHECK:       xetile.store_tile %{{.*}}, %[[T2]]
// CHECK:       xetile.store_tile %{{.*}}, %[[T3]]
!t_rr = !xetile.tile<128x128xf32, #xetile.tile_attr<inner_blocks = [8, 16], wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
gpu.module @m {
  gpu.func @round_robin(%A: memref<512x128xf32>, %m: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %t = xetile.init_tile %A[%m, 0] : memref<512x128xf32> -> !t_rr
    %v = xetile.load_tile %t {padding = 1.0 : f32} : !t_rr -> vector<16x8x8x16xf32>
    %two = arith.constant dense<2.0> : vector<16x8x8x16xf32>
    %w = arith.mulf %v, %two : vector<16x8x8x16xf32>
    xetile.prefetch_tile %t {locality = 3 : i32} : !t_rr
    xetile.store_tile %w, %t : vector<16x8x8x16xf32>, !t_rr
    gpu.return
  }
}

// -----
// 1-row tile (a bias row): 1x256 on [8, 4] x [1, 64]: the row dimension wraps (every row of
// subgroups shares row 0), columns q*64.
// CHECK-LABEL: gpu.func @one_row
// CHECK:       %[[SG:.*]] = gpu.subgroup_id : index
// CHECK:       %[[Q:.*]] = arith.remui %[[SG]], %c4{{.*}} : index
// CHECK:       %[[COL:.*]] = arith.muli %[[Q]], %c64{{.*}} : index
// CHECK-NOT:   arith.divui
// CHECK:       %[[N:.*]] = arith.addi %arg1, %[[COL]] : index
// CHECK:       %[[T:.*]] = xetile.init_tile %arg0[0, %[[N]]] : memref<1x4096xf32> -> !xetile.tile<1x64xf32>
// CHECK:       xetile.load_tile %[[T]] : !xetile.tile<1x64xf32> -> vector<1x64xf32>
gpu.module @m {
  gpu.func @one_row(%bias: memref<1x4096xf32>, %n: index) kernel attributes {known_block_size = array<i32: 512, 1, 1>} {
    %t = xetile.init_tile %bias[0, %n] : memref<1x4096xf32> -> !xetile.tile<1x256xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 4], sg_data = [1, 64]>>>
    %v = xetile.load_tile %t : !xetile.tile<1x256xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 4], sg_data = [1, 64]>>> -> vector<1x256xf32>
    %e = math.tanh %v : vector<1x256xf32>
    xetile.store_tile %e, %t : vector<1x256xf32>, !xetile.tile<1x256xf32, #xetile.tile_attr<wg_map = <sg_layout = [8, 4], sg_data = [1, 64]>>>
    gpu.return
  }
}

// -----
// Unaligned matrices: a 64x64 work-group tile at the edge of a 100x70 matrix; the subgroup tiles
// keep the same origin arithmetic and rely on out-of-bounds semantics (no clamping). Dynamic
// shapes and i64 addresses keep their shape and stride operands; column-major (order = [0, 1])
// tiles keep their order and use the same logical (row, column) offsets.
// CHECK-LABEL: gpu.func @unaligned_dynamic
// CHECK:       %[[SG:.*]] = gpu.subgroup_id : index
// CHECK-DAG:   %[[R:.*]] = arith.divui %[[SG]], %c2{{.*}} : index
// CHECK-DAG:   %[[Q:.*]] = arith.remui %[[SG]], %c2{{.*}} : index
// CHECK-DAG:   %[[RO:.*]] = arith.muli %[[R]], %c32{{.*}} : index
// CHECK-DAG:   %[[CO:.*]] = arith.muli %[[Q]], %c32{{.*}} : index
// CHECK-DAG:   %[[RO64:.*]] = arith.addi %[[RO]], %c64{{.*}} : index
// CHECK-DAG:   %[[CO64:.*]] = arith.addi %[[CO]], %c64{{.*}} : index
// CHECK:       xetile.init_tile %arg0[%[[RO64]], %[[CO64]]] : memref<100x70xf32> -> !xetile.tile<32x32xf32>
// CHECK:       %[[DR:.*]] = arith.addi %arg4, %[[RO]] : index
// CHECK:       %[[DC:.*]] = arith.addi %arg5, %[[CO]] : index
// CHECK:       xetile.init_tile %arg1[%[[DR]], %[[DC]]], [%arg2, %arg3], [%arg3, %c1] : memref<?x?xbf16> -> !xetile.tile<32x32xbf16>
// CHECK:       xetile.init_tile %arg6[%{{.*}}, %{{.*}}], [%arg2, %arg3], [%arg3, 1] : i64 -> !xetile.tile<32x32xbf16>
// CHECK:       xetile.init_tile %arg7[%{{.*}}, %{{.*}}] : memref<100x70xf32, #map> -> !xetile.tile<32x32xf32, #xetile.tile_attr<order = [0, 1]>>
// CHECK:       arith.addf %{{.*}}, %{{.*}} : vector<32x32xf32>
// CHECK:       arith.truncf %{{.*}} : vector<32x32xf32> to vector<32x32xbf16>
gpu.module @m {
  gpu.func @unaligned_dynamic(%A: memref<100x70xf32>, %D: memref<?x?xbf16>, %M: index, %N: index, %i: index, %j: index, %addr: i64,
                              %T: memref<100x70xf32, affine_map<(d0, d1) -> (d1, d0)>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c1 = arith.constant 1 : index
    %t = xetile.init_tile %A[64, 64] : memref<100x70xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    %d = xetile.init_tile %D[%i, %j], [%M, %N], [%N, %c1] : memref<?x?xbf16> -> !xetile.tile<64x64xbf16, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    %p = xetile.init_tile %addr[%i, %j], [%M, %N], [%N, 1] : i64 -> !xetile.tile<64x64xbf16, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    %o = xetile.init_tile %T[%i, %j] : memref<100x70xf32, affine_map<(d0, d1) -> (d1, d0)>> -> !xetile.tile<64x64xf32, #xetile.tile_attr<order = [0, 1], wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    %v = xetile.load_tile %t : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>> -> vector<64x64xf32>
    %w = xetile.load_tile %o : !xetile.tile<64x64xf32, #xetile.tile_attr<order = [0, 1], wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>> -> vector<64x64xf32>
    %s = arith.addf %v, %w : vector<64x64xf32>
    %h = arith.truncf %s : vector<64x64xf32> to vector<64x64xbf16>
    xetile.store_tile %h, %d : vector<64x64xbf16>, !xetile.tile<64x64xbf16, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    xetile.prefetch_tile %p : !xetile.tile<64x64xbf16, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    gpu.return
  }
}

// -----
// scf.if carrying a work-group vector: rebuilt with the subgroup types (1:2 here).
// CHECK-LABEL: gpu.func @if_else
// CHECK:       %[[IF:.*]]:2 = scf.if %{{.*}} -> (vector<16x32xf32>, vector<16x32xf32>) {
// CHECK:         %[[N0:.*]] = arith.negf %{{.*}} : vector<16x32xf32>
// CHECK:         %[[N1:.*]] = arith.negf %{{.*}} : vector<16x32xf32>
// CHECK:         scf.yield %[[N0]], %[[N1]] : vector<16x32xf32>, vector<16x32xf32>
// CHECK:       } else {
// CHECK:         %[[C:.*]] = arith.constant dense<0.000000e+00> : vector<16x32xf32>
// CHECK:         scf.yield %[[C]], %[[C]] : vector<16x32xf32>, vector<16x32xf32>
// CHECK:       }
// CHECK:       xetile.store_tile %[[IF]]#0
// CHECK:       xetile.store_tile %[[IF]]#1
gpu.module @m {
  gpu.func @if_else(%A: memref<64x64xf32>, %c: i1) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [16, 32]>>>
    %v = xetile.load_tile %t : !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [16, 32]>>> -> vector<64x64xf32>
    %r = scf.if %c -> (vector<64x64xf32>) {
      %n = arith.negf %v : vector<64x64xf32>
      scf.yield %n : vector<64x64xf32>
    } else {
      %z = arith.constant dense<0.0> : vector<64x64xf32>
      scf.yield %z : vector<64x64xf32>
    }
    xetile.store_tile %r, %t : vector<64x64xf32>, !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [16, 32]>>>
    gpu.return
  }
}
