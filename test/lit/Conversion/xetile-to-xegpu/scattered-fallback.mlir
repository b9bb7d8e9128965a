// Surfaces the 2D block messages cannot address (pitch not a multiple of 16 B, shared local
// memory) are accessed with masked scattered loads/stores, one SIMD16 message per row piece:
// never an illegal block. Out-of-bounds lanes are masked (loads read 0, stores are dropped).
// RUN: xe-opt %s --convert-xetile-to-xegpu --canonicalize --cse 2>&1 | FileCheck %s

!ta = !xetile.tile<2x16xbf16, #xetile.tile_attr<inner_blocks = [2, 16]>>
!tc = !xetile.tile<2x16xf32, #xetile.tile_attr<inner_blocks = [2, 16]>>
// CHECK: remark: tile 2x16xbf16 is accessed with scattered loads/stores: pitch 100 B must be a multiple of 16 B
// CHECK: remark: tile 2x16xf32 is accessed with scattered loads/stores: pitch 280 B must be a multiple of 16 B
// CHECK: remark: tile 8x16xf32 is accessed with scattered loads/stores: 2D block messages move tiles between global memory and registers
gpu.module @k {
  // CHECK-LABEL: gpu.func @unaligned
  gpu.func @unaligned(%A: memref<100x50xbf16>, %C: memref<100x70xf32>, %i: index, %j: index) kernel {
    // CHECK-DAG:  %[[IOTA:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>
    // CHECK-DAG:  %[[W:.*]] = arith.constant dense<50> : vector<16xindex>
    // CHECK-DAG:  %[[C50:.*]] = arith.constant 50 : index
    // CHECK-DAG:  %[[C100:.*]] = arith.constant 100 : index
    // row i, columns j .. j+15: linear offsets i*50 + j + lane, mask (i < 100) & (column < 50)
    // CHECK:      %[[COLB:.*]] = vector.broadcast %arg3 : index to vector<16xindex>
    // CHECK:      %[[COLS:.*]] = arith.addi %[[COLB]], %[[IOTA]] : vector<16xindex>
    // CHECK:      %[[ROW:.*]] = arith.muli %arg2, %[[C50]] : index
    // CHECK:      %[[ROWB:.*]] = vector.broadcast %[[ROW]] : index to vector<16xindex>
    // CHECK:      %[[LIN:.*]] = arith.addi %[[ROWB]], %[[COLS]] : vector<16xindex>
    // CHECK:      %[[ROK:.*]] = arith.cmpi ult, %arg2, %[[C100]] : index
    // CHECK:      %[[COK:.*]] = arith.cmpi ult, %[[COLS]], %[[W]] : vector<16xindex>
    // CHECK:      %[[ROKV:.*]] = vector.broadcast %[[ROK]] : i1 to vector<16xi1>
    // CHECK:      %[[M:.*]] = arith.andi %[[ROKV]], %[[COK]] : vector<16xi1>
    // CHECK:      %[[D:.*]] = xegpu.create_tdesc %arg0, %[[LIN]] {mode = vc} : memref<100x50xbf16>, vector<16xindex> -> !xegpu.tensor_desc<16xbf16, #xegpu.tdesc_attr<scattered = true>>
    // CHECK:      %[[G:.*]] = xegpu.load_gather %[[D]], %[[M]] {mode = vc} : !xegpu.tensor_desc<16xbf16, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xbf16>
    // CHECK:      %[[S:.*]] = arith.select %[[M]], %[[G]], %{{.*}} : vector<16xi1>, vector<16xbf16>
    // CHECK:      vector.insert_strided_slice %[[S]], %{{.*}} {offsets = [0, 0], strides = [1]} : vector<16xbf16> into vector<2x16xbf16>
    // CHECK:      xegpu.load_gather
    // CHECK:      vector.insert_strided_slice %{{.*}} {offsets = [1, 0], strides = [1]} : vector<16xbf16> into vector<2x16xbf16>
    %a = xetile.init_tile %A[%i, %j] : memref<100x50xbf16> -> !ta
    %v = xetile.load_tile %a : !ta -> vector<1x1x2x16xbf16>
    // CHECK:      arith.extf %{{.*}} : vector<2x16xbf16> to vector<2x16xf32>
    %e = arith.extf %v : vector<1x1x2x16xbf16> to vector<1x1x2x16xf32>
    // CHECK:      xegpu.create_tdesc %arg1, %{{.*}} {mode = vc} : memref<100x70xf32>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
    // CHECK:      xegpu.store_scatter %{{.*}}, %{{.*}}, %{{.*}} {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1>
    // CHECK:      xegpu.store_scatter
    // CHECK-NOT:  xegpu.store_nd
    %c = xetile.init_tile %C[%i, %j] : memref<100x70xf32> -> !tc
    xetile.store_tile %e, %c : vector<1x1x2x16xf32>, !tc
    gpu.return
  }

  // CHECK-LABEL: gpu.func @slm
  gpu.func @slm(%i: index) kernel {
    // CHECK: xegpu.create_tdesc %{{.*}} {mode = vc} : memref<64x64xf32, 3>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<memory_scope = slm, scattered = true>>
    // CHECK-COUNT-8: xegpu.store_scatter
    // CHECK-NOT: xegpu.create_nd_tdesc
    %s = memref.alloc() : memref<64x64xf32, 3>
    %t = xetile.init_tile %s[%i, %i] : memref<64x64xf32, 3> -> !xetile.tile<8x16xf32, #xetile.tile_attr<inner_blocks = [8, 16], memory_space = 3 : i32>>
    %z = arith.constant dense<1.0> : vector<1x1x8x16xf32>
    xetile.store_tile %z, %t : vector<1x1x8x16xf32>, !xetile.tile<8x16xf32, #xetile.tile_attr<inner_blocks = [8, 16], memory_space = 3 : i32>>
    gpu.return
  }
}
