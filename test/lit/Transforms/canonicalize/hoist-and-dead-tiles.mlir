// Loop-invariant init_tile ops move in front of the loop (out of every loop they do not depend
// on); tiles that are never loaded, stored, prefetched or atomically updated are erased with their
// update_tile_offset chains and loop-carried values. Prefetch-only tiles are live.
// RUN: xe-opt %s --split-input-file --xetile-canonicalize | FileCheck %s
// RUN: xe-opt %s --split-input-file --xetile-canonicalize="hoist-init-tile=false remove-dead-tiles=false" | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: gpu.func @hoist
// CHECK:       %[[INV:.*]] = xetile.init_tile %arg0[%arg1, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
// CHECK-NEXT:  %[[INV2:.*]] = xetile.init_tile %arg0[0, %arg1] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
// CHECK-NEXT:  scf.for %[[I:.*]] = 
// CHECK-NEXT:    %[[DEP:.*]] = xetile.init_tile %arg0[%[[I]], 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
// CHECK-NEXT:    scf.for %[[J:.*]] =
// CHECK-NEXT:      %[[DEP2:.*]] = xetile.init_tile %arg0[%[[I]], %[[J]]] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
// CHECK-NEXT:      xetile.load_tile %[[INV]]
// CHECK-NEXT:      xetile.load_tile %[[DEP]]
// CHECK-NEXT:      xetile.load_tile %[[INV2]]
// CHECK-NEXT:      xetile.load_tile %[[DEP2]]
// OFF-LABEL:   gpu.func @hoist
// OFF:         scf.for
// OFF:           scf.for
// OFF-NEXT:        xetile.init_tile %arg0[%arg1, 0]
gpu.module @m {
  gpu.func @hoist(%A: memref<64x64xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c8 {
      scf.for %j = %c0 to %c64 step %c8 {
        %inv = xetile.init_tile %A[%n, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
        %dep = xetile.init_tile %A[%i, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
        %inv2 = xetile.init_tile %A[0, %n] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
        %dep2 = xetile.init_tile %A[%i, %j] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
        %a = xetile.load_tile %inv : !xetile.tile<8x16xf32> -> vector<8x16xf32>
        %b = xetile.load_tile %dep : !xetile.tile<8x16xf32> -> vector<8x16xf32>
        %c = xetile.load_tile %inv2 : !xetile.tile<8x16xf32> -> vector<8x16xf32>
        %d = xetile.load_tile %dep2 : !xetile.tile<8x16xf32> -> vector<8x16xf32>
        %s = arith.addf %a, %b : vector<8x16xf32>
        %t = arith.addf %c, %d : vector<8x16xf32>
        %u = arith.addf %s, %t : vector<8x16xf32>
        xetile.store_tile %u, %dep2 : vector<8x16xf32>, !xetile.tile<8x16xf32>
      }
    }
    gpu.return
  }
}

// -----
// A dead tile carried by two nested loops and advanced in both; a dead column-major tile (its
// memref.transpose goes too); a live prefetch-only tile and a live loaded tile stay.
// CHECK-LABEL: gpu.func @dead
// CHECK-NOT:   memref.transpose
// CHECK:       %[[P:.*]] = xetile.init_tile %arg0[0, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
// CHECK-NEXT:  %[[L:.*]] = xetile.init_tile %arg0[8, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
// CHECK-NEXT:  %[[R:.*]]:3 = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[PA:.*]] = %[[P]], %[[LA:.*]] = %[[L]]) -> (vector<8x16xf32>, !xetile.tile<8x16xf32>, !xetile.tile<8x16xf32>) {
// CHECK-NEXT:    %[[IN:.*]]:2 = scf.for %{{.*}} iter_args(%[[A2:.*]] = %[[ACC]], %[[LI:.*]] = %[[LA]]) -> (vector<8x16xf32>, !xetile.tile<8x16xf32>) {
// CHECK-NEXT:      %[[V:.*]] = xetile.load_tile %[[LI]]
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A2]], %[[V]]
// CHECK-NEXT:      %[[LN:.*]] = xetile.update_tile_offset %[[LI]], [0, 16]
// CHECK-NEXT:      scf.yield %[[S]], %[[LN]] : vector<8x16xf32>, !xetile.tile<8x16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    xetile.prefetch_tile %[[PA]]
// CHECK-NEXT:    %[[PN:.*]] = xetile.update_tile_offset %[[PA]], [8, 0]
// CHECK-NEXT:    scf.yield %[[IN]]#0, %[[PN]], %[[IN]]#1 : vector<8x16xf32>, !xetile.tile<8x16xf32>, !xetile.tile<8x16xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  arith.addf %[[R]]#0, %[[R]]#0
// CHECK-NEXT:  gpu.return
// OFF-LABEL:   gpu.func @dead
// OFF-COUNT-4: xetile.init_tile
// OFF:         scf.for {{.*}} -> (vector<8x16xf32>, !xetile.tile<8x16xf32>, !xetile.tile<8x16xf32>, !xetile.tile<8x16xf32>)
// OFF:         xetile.update_tile_offset %{{.*}}#1, [8, 0]
gpu.module @m {
  gpu.func @dead(%A: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant dense<0.0> : vector<8x16xf32>
    %at = memref.transpose %A (d0, d1) -> (d1, d0) : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
    %d = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
    %dt = xetile.init_tile %at[0, 0] : memref<64x64xf32, strided<[1, 64]>> -> !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>>
    %dt2 = xetile.update_tile_offset %dt, [8, 0] : !xetile.tile<16x8xf32, #xetile.tile_attr<order = [0, 1]>>
    %p = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
    %l = xetile.init_tile %A[8, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
    %r:4 = scf.for %i = %c0 to %c64 step %c8 iter_args(%acc = %zero, %da = %d, %pa = %p, %la = %l) -> (vector<8x16xf32>, !xetile.tile<8x16xf32>, !xetile.tile<8x16xf32>, !xetile.tile<8x16xf32>) {
      %in:3 = scf.for %j = %c0 to %c64 step %c8 iter_args(%a2 = %acc, %di = %da, %li = %la) -> (vector<8x16xf32>, !xetile.tile<8x16xf32>, !xetile.tile<8x16xf32>) {
        %v = xetile.load_tile %li : !xetile.tile<8x16xf32> -> vector<8x16xf32>
        %s = arith.addf %a2, %v : vector<8x16xf32>
        %dn = xetile.update_tile_offset %di, [0, 16] : !xetile.tile<8x16xf32>
        %ln = xetile.update_tile_offset %li, [0, 16] : !xetile.tile<8x16xf32>
        scf.yield %s, %dn, %ln : vector<8x16xf32>, !xetile.tile<8x16xf32>, !xetile.tile<8x16xf32>
      }
      xetile.prefetch_tile %pa : !xetile.tile<8x16xf32>
      %dn2 = xetile.update_tile_offset %in#1, [8, 0] : !xetile.tile<8x16xf32>
      %pn = xetile.update_tile_offset %pa, [8, 0] : !xetile.tile<8x16xf32>
      scf.yield %in#0, %dn2, %pn, %in#2 : vector<8x16xf32>, !xetile.tile<8x16xf32>, !xetile.tile<8x16xf32>, !xetile.tile<8x16xf32>
    }
    %dead_after = xetile.update_tile_offset %r#1, [8, 0] : !xetile.tile<8x16xf32>
    %out = arith.addf %r#0, %r#0 : vector<8x16xf32>
    gpu.return
  }
}
