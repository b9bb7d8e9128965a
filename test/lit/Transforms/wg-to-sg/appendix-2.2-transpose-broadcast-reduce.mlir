// rfc-xetile.md appendix 2.2 (GEMM with transpose, broadcast and reduction), fixed up to valid
// syntax: the 1D vectors are viewed as 1x4096 / 4096x1 through memref.expand_shape, the loops
// carry their values, the B^T prefetch advances along K, the result of the reduction is stored.
// RUN: xe-opt %s --xetile-wg-to-sg | FileCheck %s

#mp_a       = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 32]>
#mp_a_pfh   = #xetile.wg_map<sg_layout = [32, 1], sg_data = [8, 32]>
#mp_b       = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>
#mp_bt      = #xetile.wg_map<sg_layout = [4, 8], sg_data = [64, 32]>
#mp_bt_pfh  = #xetile.wg_map<sg_layout = [32, 1], sg_data = [8, 32]>
#mp_c       = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>
#mp_bcast   = #xetile.wg_map<sg_layout = [8, 4], sg_data = [1, 64]>
#mp_reduce  = #xetile.wg_map<sg_layout = [32, 1], sg_data = [8, 1]>
#mp_reduce2 = #xetile.wg_map<sg_layout = [32, 1], sg_data = [8, 256]>

// CHECK-LABEL: gpu.func @test_gemm
// CHECK-NOT: wg_map
// CHECK:      %[[SG:.*]] = gpu.subgroup_id : index
// [8, 4] grid
// CHECK-DAG:  %[[R:.*]] = arith.divui %[[SG]], %c4{{.*}} : index
// CHECK-DAG:  %[[Q:.*]] = arith.remui %[[SG]], %c4{{.*}} : index
// [4, 8] grid of B^T: rows (sg / 8)*64
// CHECK-DAG:  %[[R8:.*]] = arith.divui %[[SG]], %c8{{.*}} : index
// CHECK-DAG:  %[[BTM:.*]] = arith.muli %[[R8]], %c64{{.*}} : index
// CHECK-DAG:  %[[BN:.*]] = arith.muli %[[Q]], %c64{{.*}} : index
// the transpose goes through shared local memory; so do the partial sums of the reduction
// CHECK-DAG:  %[[SLMT:.*]] = memref.alloc() : memref<256x32xf16, 3>
// CHECK-DAG:  %[[SLMR:.*]] = memref.alloc() : memref<256x4xf32, 3>
// CHECK:      scf.for
// CHECK:        scf.for
// CHECK:          %[[BT:.*]] = xetile.init_tile {{.*}} -> !xetile.tile<64x32xf16>
// CHECK:          %[[BC:.*]] = xetile.init_tile {{.*}} : memref<1x4096xf32> -> !xetile.tile<1x64xf32>
// CHECK:          %[[RES:.*]] = xetile.init_tile {{.*}} : memref<4096x1xf32> -> !xetile.tile<8x1xf32>
// CHECK:          scf.for {{.*}} -> (!xetile.tile<32x32xf16>, !xetile.tile<64x32xf16>, !xetile.tile<8x32xf16>, !xetile.tile<8x32xf16>, vector<32x64xf32>) {
// CHECK:            %[[VA:.*]] = xetile.load_tile {{.*}} -> vector<32x32xf16>
// CHECK:            %[[VBT:.*]] = xetile.load_tile {{.*}} : !xetile.tile<64x32xf16> -> vector<64x32xf16>
// tile_transpose: store with the B^T map, barrier, load the transposed block with the B map
// CHECK:            gpu.barrier
// CHECK:            %[[ST:.*]] = xetile.init_tile %[[SLMT]][%[[BTM]], 0] : memref<256x32xf16, 3> -> !xetile.tile<64x32xf16, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:            xetile.store_tile %[[VBT]], %[[ST]]
// CHECK:            gpu.barrier
// CHECK:            %[[LT:.*]] = xetile.init_tile %[[SLMT]][%[[BN]], 0] : memref<256x32xf16, 3> -> !xetile.tile<64x32xf16, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:            %[[VB:.*]] = xetile.load_tile %[[LT]] {transpose = [1, 0]} : !xetile.tile<64x32xf16, #xetile.tile_attr<memory_space = 3 : i32>> -> vector<32x64xf16>
// CHECK:            xetile.prefetch_tile {{.*}} : !xetile.tile<8x32xf16>
// CHECK:            xetile.prefetch_tile {{.*}} : !xetile.tile<8x32xf16>
// CHECK:            xetile.tile_mma %[[VA]], %[[VB]], {{.*}} : vector<32x32xf16>, vector<32x64xf16>, vector<32x64xf32> -> vector<32x64xf32>
// CHECK:          }
// broadcast of the 1x64 bias piece in registers (its map is the derived one)
// CHECK:          %[[BV:.*]] = xetile.load_tile %[[BC]] : !xetile.tile<1x64xf32> -> vector<1x64xf32>
// CHECK:          %[[BB:.*]] = xetile.tile_broadcast %[[BV]] [0] : vector<1x64xf32> -> vector<32x64xf32>
// CHECK:          %[[SUM:.*]] = arith.addf %{{.*}}, %[[BB]] : vector<32x64xf32>
// conv_layout + reduce: partial row sums per subgroup, exchanged through SLM, final sums
// CHECK:          %[[P:.*]] = xetile.tile_reduce <add> %[[SUM]] [1] : vector<32x64xf32> -> vector<32x1xf32>
// CHECK:          %[[PT:.*]] = xetile.init_tile %[[SLMR]][{{.*}}] : memref<256x4xf32, 3> -> !xetile.tile<32x1xf32, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:          xetile.store_tile %[[P]], %[[PT]]
// CHECK:          gpu.barrier
// CHECK:          %[[FT:.*]] = xetile.init_tile %[[SLMR]][{{.*}}, 0] : memref<256x4xf32, 3> -> !xetile.tile<8x4xf32, #xetile.tile_attr<memory_space = 3 : i32>>
// CHECK:          %[[F:.*]] = xetile.load_tile %[[FT]] : {{.*}} -> vector<8x4xf32>
// CHECK:          %[[RED:.*]] = xetile.tile_reduce <add> %[[F]] [1] : vector<8x4xf32> -> vector<8x1xf32>
// CHECK:          xetile.store_tile %[[RED]], %[[RES]] : vector<8x1xf32>, !xetile.tile<8x1xf32>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @test_gemm(%a: memref<4096x4096xf16>, %bt: memref<4096x4096xf16>, %bcast: memref<4096xf32>, %res: memref<4096xf32>) kernel
        attributes {known_block_size = array<i32: 512, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c192 = arith.constant 192 : index
      %c256 = arith.constant 256 : index
      %c4096 = arith.constant 4096 : index
      scf.for %i = %c0 to %c4096 step %c256 {
        scf.for %j = %c0 to %c4096 step %c256 {
          %1 = xetile.init_tile %a[%i, %c0] : memref<4096x4096xf16> -> !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a>>
          %2 = xetile.init_tile %bt[%j, %c0] : memref<4096x4096xf16> -> !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>
          %p1 = xetile.init_tile %a[%i, %c192] : memref<4096x4096xf16> -> !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_pfh>>
          %p2 = xetile.init_tile %bt[%j, %c192] : memref<4096x4096xf16> -> !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt_pfh>>
          %bcast2 = memref.expand_shape %bcast [[0, 1]] output_shape [1, 4096] : memref<4096xf32> into memref<1x4096xf32>
          %7 = xetile.init_tile %bcast2[%c0, %j] : memref<1x4096xf32> -> !xetile.tile<1x256xf32, #xetile.tile_attr<wg_map = #mp_bcast>>
          %res2 = memref.expand_shape %res [[0, 1]] output_shape [4096, 1] : memref<4096xf32> into memref<4096x1xf32>
          %3 = xetile.init_tile %res2[%i, %c0] : memref<4096x1xf32> -> !xetile.tile<256x1xf32, #xetile.tile_attr<wg_map = #mp_reduce>>
          %zero = arith.constant dense<0.0> : vector<256x256xf32>
          %r:5 = scf.for %k = %c0 to %c4096 step %c32
              iter_args(%at = %1, %btt = %2, %pat = %p1, %pbt = %p2, %acc = %zero)
              -> (!xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a>>, !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>,
                  !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_pfh>>, !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt_pfh>>,
                  vector<256x256xf32>) {
            %4 = xetile.load_tile %at : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a>> -> vector<256x32xf16>
            %10 = xetile.load_tile %btt : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt>> -> vector<256x32xf16>
            %5 = xetile.tile_transpose %10 [1, 0] {wg_map = #mp_b} : vector<256x32xf16> -> vector<32x256xf16>
            xetile.prefetch_tile %pat : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_pfh>>
            xetile.prefetch_tile %pbt : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt_pfh>>
            %6 = xetile.tile_mma %4, %5, %acc {wg_map_a = #mp_a, wg_map_b = #mp_b, wg_map_c = #mp_c}
                : vector<256x32xf16>, vector<32x256xf16>, vector<256x256xf32> -> vector<256x256xf32>
            %at2 = xetile.update_tile_offset %at, [%c0, %c32] : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a>>
            %bt2 = xetile.update_tile_offset %btt, [%c0, %c32] : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>
            %pat2 = xetile.update_tile_offset %pat, [%c0, %c32] : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_pfh>>
            %pbt2 = xetile.update_tile_offset %pbt, [%c0, %c32] : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt_pfh>>
            scf.yield %at2, %bt2, %pat2, %pbt2, %6
                : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a>>, !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>,
                  !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_pfh>>, !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_bt_pfh>>,
                  vector<256x256xf32>
          }
          %12 = xetile.load_tile %7 : !xetile.tile<1x256xf32, #xetile.tile_attr<wg_map = #mp_bcast>> -> vector<1x256xf32>
          %13 = xetile.tile_broadcast %12 [0] {wg_map = #mp_c} : vector<1x256xf32> -> vector<256x256xf32>
          %14 = arith.addf %r#4, %13 : vector<256x256xf32>
          %15 = xetile.tile_conv_layout %14 {wg_map = #mp_reduce2, wg_map_source = #mp_c} : vector<256x256xf32> -> vector<256x256xf32>
          %16 = xetile.tile_reduce <add> %15 [1] {wg_map = #mp_reduce} : vector<256x256xf32> -> vector<256x1xf32>
          xetile.store_tile %16, %3 : vector<256x1xf32>, !xetile.tile<256x1xf32, #xetile.tile_attr<wg_map = #mp_reduce>>
        }
      }
      gpu.return
    }
  }
}
