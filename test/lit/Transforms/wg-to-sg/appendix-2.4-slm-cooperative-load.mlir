// rfc-xetile.md appendix 2.4 (GEMM with cooperative loads through shared local memory), fixed up
// to valid syntax: the SLM buffers are two work-group allocations in address space 3 holding four
// 32-wide K slices of A (256x128) and B (128x256) used as a ring; the loop reads slice k from
// its slot and stores slice k+3 (loaded from global memory this iteration) into the slot freed
// in the previous iteration. Tiles on SLM carry memory_space = 3 and are distributed like any
// other tile: cooperative tiles [64, 1] x [4, 32] / [8, 8] x [4, 32], compute tiles [8, 8] x [32, 32].
// RUN: xe-opt %s --xetile-wg-to-sg | FileCheck %s

#mp_a     = #xetile.wg_map<sg_layout = [8, 8], sg_data = [32, 32]>
#mp_a_cop = #xetile.wg_map<sg_layout = [64, 1], sg_data = [4, 32]>
#mp_b     = #xetile.wg_map<sg_layout = [8, 8], sg_data = [32, 32]>
#mp_b_cop = #xetile.wg_map<sg_layout = [8, 8], sg_data = [4, 32]>
#mp_c     = #xetile.wg_map<sg_layout = [8, 8], sg_data = [32, 32]>

!ta_glb = !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_cop>>
!tb_glb = !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b_cop>>
!ta_slm = !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_cop, memory_space = 3 : i32>>
!tb_slm = !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b_cop, memory_space = 3 : i32>>
!ta_load = !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a, memory_space = 3 : i32>>
!tb_load = !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b, memory_space = 3 : i32>>
!tc = !xetile.tile<256x256xf32, #xetile.tile_attr<wg_map = #mp_c>>

// CHECK-LABEL: gpu.func @test_gemm
// CHECK-NOT:   wg_map
// CHECK:       %[[SG:.*]] = gpu.subgroup_id : index
// cooperative A tiles on [64, 1]: rows sg*4
// CHECK-DAG:   %[[ACOP:.*]] = arith.muli %[[SG]], %c4{{.*}} : index
// [8, 8] grid
// CHECK-DAG:   %[[R:.*]] = arith.divui %[[SG]], %c8{{.*}} : index
// CHECK-DAG:   %[[Q:.*]] = arith.remui %[[SG]], %c8{{.*}} : index
// CHECK-DAG:   %[[BCOPK:.*]] = arith.muli %[[R]], %c4{{.*}} : index
// CHECK-DAG:   %[[COL:.*]] = arith.muli %[[Q]], %c32{{.*}} : index
// CHECK-DAG:   %[[ROW:.*]] = arith.muli %[[R]], %c32{{.*}} : index
// CHECK:       %[[SA:.*]] = memref.alloc() : memref<256x128xf16, 3>
// CHECK:       %[[SB:.*]] = memref.alloc() : memref<128x256xf16, 3>
// CHECK-COUNT-4: xetile.init_tile %arg0[{{.*}}] : memref<4096x4096xf16> -> !xetile.tile<4x32xf16>
// CHECK:       xetile.init_tile %[[SA]][%[[ACOP]], 0] : memref<256x128xf16, 3> -> !xetile.tile<4x32xf16, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:       xetile.init_tile %[[SB]][%[[BCOPK]], %[[COL]]] : memref<128x256xf16, 3> -> !xetile.tile<4x32xf16, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:       gpu.barrier
// CHECK-COUNT-6: xetile.store_tile %{{.*}}, %{{.*}} : vector<4x32xf16>, !xetile.tile<4x32xf16, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:       gpu.barrier
// CHECK:       scf.for {{.*}} -> (vector<32x32xf32>, !xetile.tile<4x32xf16>, !xetile.tile<4x32xf16>) {
// CHECK:         %[[AL:.*]] = xetile.init_tile %[[SA]][%[[ROW]], %{{.*}}] : memref<256x128xf16, 3> -> !xetile.tile<32x32xf16, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:         %[[BL:.*]] = xetile.init_tile %[[SB]][%{{.*}}, %[[COL]]] : memref<128x256xf16, 3> -> !xetile.tile<32x32xf16, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:         %[[VA:.*]] = xetile.load_tile %[[AL]] : {{.*}} -> vector<32x32xf16>
// CHECK:         %[[VB:.*]] = xetile.load_tile %[[BL]] : {{.*}} -> vector<32x32xf16>
// CHECK:         xetile.tile_mma %[[VA]], %[[VB]], %{{.*}} : vector<32x32xf16>, vector<32x32xf16>, vector<32x32xf32> -> vector<32x32xf32>
// CHECK:         gpu.barrier
// CHECK:         xetile.store_tile %{{.*}} : vector<4x32xf16>, !xetile.tile<4x32xf16, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:         xetile.store_tile %{{.*}} : vector<4x32xf16>, !xetile.tile<4x32xf16, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:       }
// CHECK:       xetile.store_tile %{{.*}} : vector<32x32xf32>, !xetile.tile<32x32xf32>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @test_gemm(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<4096x4096xf32>) kernel
        attributes {known_block_size = array<i32: 1024, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c96 = arith.constant 96 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %c4096 = arith.constant 4096 : index
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %i = arith.muli %by, %c256 : index
      %j = arith.muli %bx, %c256 : index
      %sa = memref.alloc() : memref<256x128xf16, 3>
      %sb = memref.alloc() : memref<128x256xf16, 3>
      %a1_glb = xetile.init_tile %a[%i, %c0] : memref<4096x4096xf16> -> !ta_glb
      %b1_glb = xetile.init_tile %b[%c0, %j] : memref<4096x4096xf16> -> !tb_glb
      %a2_glb = xetile.init_tile %a[%i, %c32] : memref<4096x4096xf16> -> !ta_glb
      %b2_glb = xetile.init_tile %b[%c32, %j] : memref<4096x4096xf16> -> !tb_glb
      %a3_glb = xetile.init_tile %a[%i, %c64] : memref<4096x4096xf16> -> !ta_glb
      %b3_glb = xetile.init_tile %b[%c64, %j] : memref<4096x4096xf16> -> !tb_glb
      %a4_glb = xetile.init_tile %a[%i, %c96] : memref<4096x4096xf16> -> !ta_glb
      %b4_glb = xetile.init_tile %b[%c96, %j] : memref<4096x4096xf16> -> !tb_glb
      %a1_slm = xetile.init_tile %sa[%c0, %c0] : memref<256x128xf16, 3> -> !ta_slm
      %b1_slm = xetile.init_tile %sb[%c0, %c0] : memref<128x256xf16, 3> -> !tb_slm
      %a2_slm = xetile.init_tile %sa[%c0, %c32] : memref<256x128xf16, 3> -> !ta_slm
      %b2_slm = xetile.init_tile %sb[%c32, %c0] : memref<128x256xf16, 3> -> !tb_slm
      %a3_slm = xetile.init_tile %sa[%c0, %c64] : memref<256x128xf16, 3> -> !ta_slm
      %b3_slm = xetile.init_tile %sb[%c64, %c0] : memref<128x256xf16, 3> -> !tb_slm
      %a1_r = xetile.load_tile %a1_glb : !ta_glb -> vector<256x32xf16>
      %b1_r = xetile.load_tile %b1_glb : !tb_glb -> vector<32x256xf16>
      %a2_r = xetile.load_tile %a2_glb : !ta_glb -> vector<256x32xf16>
      %b2_r = xetile.load_tile %b2_glb : !tb_glb -> vector<32x256xf16>
      %a3_r = xetile.load_tile %a3_glb : !ta_glb -> vector<256x32xf16>
      %b3_r = xetile.load_tile %b3_glb : !tb_glb -> vector<32x256xf16>
      gpu.barrier
      xetile.store_tile %a1_r, %a1_slm : vector<256x32xf16>, !ta_slm
      xetile.store_tile %b1_r, %b1_slm : vector<32x256xf16>, !tb_slm
      xetile.store_tile %a2_r, %a2_slm : vector<256x32xf16>, !ta_slm
      xetile.store_tile %b2_r, %b2_slm : vector<32x256xf16>, !tb_slm
      xetile.store_tile %a3_r, %a3_slm : vector<256x32xf16>, !ta_slm
      xetile.store_tile %b3_r, %b3_slm : vector<32x256xf16>, !tb_slm
      gpu.barrier
      %c_glb = xetile.init_tile %c[%i, %j] : memref<4096x4096xf32> -> !tc
      %zero = arith.constant dense<0.0> : vector<256x256xf32>
      %r:3 = scf.for %k = %c0 to %c4096 step %c32 iter_args(%acc = %zero, %a4 = %a4_glb, %b4 = %b4_glb)
          -> (vector<256x256xf32>, !ta_glb, !tb_glb) {
        // cooperative load from global memory
        %a4_r = xetile.load_tile %a4 : !ta_glb -> vector<256x32xf16>
        %b4_r = xetile.load_tile %b4 : !tb_glb -> vector<32x256xf16>
        // load from SLM: slot k mod 128
        %slm_offset = arith.remui %k, %c128 : index
        %a1_load = xetile.init_tile %sa[%c0, %slm_offset] : memref<256x128xf16, 3> -> !ta_load
        %b1_load = xetile.init_tile %sb[%slm_offset, %c0] : memref<128x256xf16, 3> -> !tb_load
        %a1_rr = xetile.load_tile %a1_load : !ta_load -> vector<256x32xf16>
        %b1_rr = xetile.load_tile %b1_load : !tb_load -> vector<32x256xf16>
        %c_r = xetile.tile_mma %a1_rr, %b1_rr, %acc {wg_map_a = #mp_a, wg_map_b = #mp_b, wg_map_c = #mp_c}
            : vector<256x32xf16>, vector<32x256xf16>, vector<256x256xf32> -> vector<256x256xf32>
        gpu.barrier
        // cooperative save to SLM: slot (k + 96) mod 128
        %k3 = arith.addi %k, %c96 : index
        %wslot = arith.remui %k3, %c128 : index
        %a4_slm = xetile.init_tile %sa[%c0, %wslot] : memref<256x128xf16, 3> -> !ta_slm
        %b4_slm = xetile.init_tile %sb[%wslot, %c0] : memref<128x256xf16, 3> -> !tb_slm
        xetile.store_tile %a4_r, %a4_slm : vector<256x32xf16>, !ta_slm
        xetile.store_tile %b4_r, %b4_slm : vector<32x256xf16>, !tb_slm
        %a4n = xetile.update_tile_offset %a4, [%c0, %c32] : !ta_glb
        %b4n = xetile.update_tile_offset %b4, [%c32, %c0] : !tb_glb
        scf.yield %c_r, %a4n, %b4n : vector<256x256xf32>, !ta_glb, !tb_glb
      }
      xetile.store_tile %r#0, %c_glb : vector<256x256xf32>, !tc
      gpu.return
    }
  }
}
