// rfc-xetile.md appendix 2.1 (simple GEMM with cooperative prefetch), fixed up to valid syntax:
// C is memref<4096x4096xf32>, the prefetch ops use the prefetch tiles, and the loops carry the
// tiles and the accumulator. The outer i/j loops stay in the kernel (a persistent work-group).
// RUN: xe-opt %s --xetile-wg-to-sg | FileCheck %s

#mp_a     = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 32]>
#mp_a_pfh = #xetile.wg_map<sg_layout = [32, 1], sg_data = [8, 32]>
#mp_b     = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>
#mp_b_pfh = #xetile.wg_map<sg_layout = [4, 8], sg_data = [8, 32]>
#mp_c     = #xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 64]>

// CHECK-LABEL: gpu.func @test_gemm
// CHECK-NOT: wg_map
// subgroup id, row-major on the [8, 4] grid: row = sg / 4, column = sg % 4
// CHECK:      %[[SG:.*]] = gpu.subgroup_id : index
// CHECK-DAG:  %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:  %[[R:.*]] = arith.divui %[[SG]], %[[C4]] : index
// CHECK-DAG:  %[[Q:.*]] = arith.remui %[[SG]], %[[C4]] : index
// A: rows r*32 (sg_layout*sg_data = 256 = tile), K column 0 (wrap-around: (q*32) mod 32 = 0)
// CHECK-DAG:  %[[AM:.*]] = arith.muli %[[R]], %c32{{.*}} : index
// B and C: columns q*64
// CHECK-DAG:  %[[BN:.*]] = arith.muli %[[Q]], %c64{{.*}} : index
// A prefetch on [32, 1]: rows sg*8
// CHECK-DAG:  %[[PAM:.*]] = arith.muli %[[SG]], %c8{{.*}} : index
// B prefetch on [4, 8]: rows (sg / 8)*8, columns (sg % 8)*32
// CHECK-DAG:  %[[R8:.*]] = arith.divui %[[SG]], %c8{{.*}} : index
// CHECK-DAG:  %[[Q8:.*]] = arith.remui %[[SG]], %c8{{.*}} : index
// CHECK-DAG:  %[[PBK:.*]] = arith.muli %[[R8]], %c8{{.*}} : index
// CHECK-DAG:  %[[PBN:.*]] = arith.muli %[[Q8]], %c32{{.*}} : index
// CHECK-DAG:  %[[PK:.*]] = arith.addi %[[PBK]], %c96{{.*}} : index
// CHECK:      scf.for %[[I:.*]] = {{.*}} {
// CHECK:        scf.for %[[J:.*]] = {{.*}} {
// CHECK:          %[[M0:.*]] = arith.addi %[[I]], %[[AM]] : index
// CHECK:          %[[A:.*]] = xetile.init_tile %{{.*}}[%[[M0]], 0] : memref<4096x4096xf16> -> !xetile.tile<32x32xf16>
// CHECK:          %[[N0:.*]] = arith.addi %[[J]], %[[BN]] : index
// CHECK:          %[[B:.*]] = xetile.init_tile %{{.*}}[0, %[[N0]]] : memref<4096x4096xf16> -> !xetile.tile<32x64xf16>
// CHECK:          %[[PM:.*]] = arith.addi %[[I]], %[[PAM]] : index
// CHECK:          %[[PA:.*]] = xetile.init_tile %{{.*}}[%[[PM]], 96] : memref<4096x4096xf16> -> !xetile.tile<8x32xf16>
// CHECK:          %[[PN:.*]] = arith.addi %[[J]], %[[PBN]] : index
// CHECK:          %[[PB:.*]] = xetile.init_tile %{{.*}}[%[[PK]], %[[PN]]] : memref<4096x4096xf16> -> !xetile.tile<8x32xf16>
// CHECK:          %[[C:.*]] = xetile.init_tile %{{.*}} : memref<4096x4096xf32> -> !xetile.tile<32x64xf32>
// CHECK:          %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<32x64xf32>
// CHECK:          %[[RES:.*]]:5 = scf.for {{.*}} iter_args(%[[AT:.*]] = %[[A]], %[[BT:.*]] = %[[B]], %[[PAT:.*]] = %[[PA]], %[[PBT:.*]] = %[[PB]], %[[ACC:.*]] = %[[Z]]) -> (!xetile.tile<32x32xf16>, !xetile.tile<32x64xf16>, !xetile.tile<8x32xf16>, !xetile.tile<8x32xf16>, vector<32x64xf32>) {
// CHECK:            %[[VA:.*]] = xetile.load_tile %[[AT]] : !xetile.tile<32x32xf16> -> vector<32x32xf16>
// CHECK:            %[[VB:.*]] = xetile.load_tile %[[BT]] : !xetile.tile<32x64xf16> -> vector<32x64xf16>
// CHECK:            xetile.prefetch_tile %[[PAT]] : !xetile.tile<8x32xf16>
// CHECK:            xetile.prefetch_tile %[[PBT]] : !xetile.tile<8x32xf16>
// CHECK:            %[[MMA:.*]] = xetile.tile_mma %[[VA]], %[[VB]], %[[ACC]] : vector<32x32xf16>, vector<32x64xf16>, vector<32x64xf32> -> vector<32x64xf32>
// CHECK:            xetile.update_tile_offset %[[AT]], [%{{.*}}, %{{.*}}] : !xetile.tile<32x32xf16>
// CHECK:            xetile.update_tile_offset %[[BT]], [%{{.*}}, %{{.*}}] : !xetile.tile<32x64xf16>
// CHECK:            xetile.update_tile_offset %[[PAT]], [%{{.*}}, %{{.*}}] : !xetile.tile<8x32xf16>
// CHECK:            xetile.update_tile_offset %[[PBT]], [%{{.*}}, %{{.*}}] : !xetile.tile<8x32xf16>
// CHECK:            scf.yield {{.*}}, %[[MMA]] : !xetile.tile<32x32xf16>, !xetile.tile<32x64xf16>, !xetile.tile<8x32xf16>, !xetile.tile<8x32xf16>, vector<32x64xf32>
// CHECK:          }
// CHECK:          xetile.store_tile %[[RES]]#4, %[[C]] : vector<32x64xf32>, !xetile.tile<32x64xf32>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @test_gemm(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<4096x4096xf32>) kernel
        attributes {known_block_size = array<i32: 512, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c96 = arith.constant 96 : index
      %c256 = arith.constant 256 : index
      %c4096 = arith.constant 4096 : index
      scf.for %i = %c0 to %c4096 step %c256 {
        scf.for %j = %c0 to %c4096 step %c256 {
          %1 = xetile.init_tile %a[%i, %c0] : memref<4096x4096xf16> -> !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a>>
          %2 = xetile.init_tile %b[%c0, %j] : memref<4096x4096xf16> -> !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b>>
          %p1 = xetile.init_tile %a[%i, %c96] : memref<4096x4096xf16> -> !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_pfh>>
          %p2 = xetile.init_tile %b[%c96, %j] : memref<4096x4096xf16> -> !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b_pfh>>
          %3 = xetile.init_tile %c[%i, %j] : memref<4096x4096xf32> -> !xetile.tile<256x256xf32, #xetile.tile_attr<wg_map = #mp_c>>
          %zero = arith.constant dense<0.0> : vector<256x256xf32>
          %r:5 = scf.for %k = %c0 to %c4096 step %c32
              iter_args(%at = %1, %bt = %2, %pat = %p1, %pbt = %p2, %acc = %zero)
              -> (!xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a>>, !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b>>,
                  !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_pfh>>, !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b_pfh>>,
                  vector<256x256xf32>) {
            %4 = xetile.load_tile %at : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a>> -> vector<256x32xf16>
            %10 = xetile.load_tile %bt : !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b>> -> vector<32x256xf16>
            xetile.prefetch_tile %pat : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_pfh>>
            xetile.prefetch_tile %pbt : !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b_pfh>>
            %6 = xetile.tile_mma %4, %10, %acc {wg_map_a = #mp_a, wg_map_b = #mp_b, wg_map_c = #mp_c}
                : vector<256x32xf16>, vector<32x256xf16>, vector<256x256xf32> -> vector<256x256xf32>
            %at2 = xetile.update_tile_offset %at, [%c0, %c32] : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a>>
            %bt2 = xetile.update_tile_offset %bt, [%c32, %c0] : !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b>>
            %pat2 = xetile.update_tile_offset %pat, [%c0, %c32] : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_pfh>>
            %pbt2 = xetile.update_tile_offset %pbt, [%c32, %c0] : !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b_pfh>>
            scf.yield %at2, %bt2, %pat2, %pbt2, %6
                : !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a>>, !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b>>,
                  !xetile.tile<256x32xf16, #xetile.tile_attr<wg_map = #mp_a_pfh>>, !xetile.tile<32x256xf16, #xetile.tile_attr<wg_map = #mp_b_pfh>>,
                  vector<256x256xf32>
          }
          xetile.store_tile %r#4, %3 : vector<256x256xf32>, !xetile.tile<256x256xf32, #xetile.tile_attr<wg_map = #mp_c>>
        }
      }
      gpu.return
    }
  }
}
