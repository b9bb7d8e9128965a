// gemv from linalg (linalg.matvec, linalg.vecmat, linalg.batch_matvec, a gemv-shaped linalg.generic
// with a host scalar alpha and bf16 -> f32) becomes a memory-bound XeTile kernel: a loop over the
// reduced dimension of A loads one full-width A tile and the matching slice of x (1xN view for
// matvec, Mx1 for vecmat), broadcasts x over the tile, multiplies and reduces the product with
// xetile.tile_reduce into a row (matvec) or column (vecmat) accumulator; y is added at the end.
// Batches run on grid z over memref.subview slices. The plan says why vector FMAs, not DPAS, and
// how many A tiles each subgroup loads per step (all loads of a step come before its arithmetic).
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --xe-print-plan --convert-linalg-to-xetile -o %t 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: xe-opt %s --convert-linalg-to-xetile --verify-diagnostics -o %t
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry matvec | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry vecmat | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry batch_matvec | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry alpha_gemv | FileCheck %s --check-prefix=OK

// CHECK-LABEL: func.func @matvec
// CHECK-NOT:   linalg.matvec
// CHECK:       gpu.launch_func @matvec_kernels::@matvec_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in {{.*}} args(%{{.*}} : memref<100x70xf32>, %{{.*}} : memref<70xf32>, %{{.*}} : memref<100xf32>)
// CHECK-LABEL: func.func @vecmat
// CHECK:       gpu.launch_func @vecmat_kernels::@vecmat_0 {{.*}} args(%{{.*}} : memref<37x129xf16>, %{{.*}} : memref<37xf16>, %{{.*}} : memref<129xf16>)
// CHECK-LABEL: func.func @batch_matvec
// CHECK:       %[[B:.*]] = arith.constant 3 : index
// CHECK:       gpu.launch_func @batch_matvec_kernels::@batch_matvec_0 blocks in (%{{.*}}, %{{.*}}, %[[B]])
// CHECK-LABEL: func.func @alpha_gemv
// CHECK:       gpu.launch_func {{.*}} args({{.*}}, %{{.*}} : f32)
// CHECK-LABEL: func.func @dynamic
// CHECK:       %[[M:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?xf32>
// CHECK:       %[[GY:.*]] = arith.ceildivui %[[M]], %{{.*}} : index
// CHECK:       gpu.launch_func @dynamic_kernels::@dynamic_0 blocks in (%{{.*}}, %[[GY]], %{{.*}})
// CHECK-LABEL: func.func @dynamic_batch
// CHECK:       linalg.batch_matvec

// CHECK:       gpu.func @matvec_0(
// CHECK:         memref.expand_shape {{.*}} output_shape [1, 70] : memref<70xf32> into memref<1x70xf32>
// CHECK:         memref.expand_shape {{.*}} output_shape [100, 1] : memref<100xf32> into memref<100x1xf32>
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<8x1xf32>) {
// CHECK:           xetile.init_tile %arg0[%{{.*}}, %[[K]]]
// CHECK:           %[[K1:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK:           xetile.init_tile %arg0[%{{.*}}, %[[K1]]]
// CHECK:           xetile.init_tile %arg0[{{.*}}] : memref<100x70xf32> -> !xetile.tile<8x16xf32, #xetile.tile_attr<wg_map = <sg_layout = [1, 1], sg_data = [8, 16]>>>
// CHECK:           xetile.init_tile {{.*}} : memref<1x70xf32> -> !xetile.tile<1x16xf32
// CHECK:           %[[X:.*]] = xetile.tile_broadcast %{{.*}} [0] {{.*}} : vector<1x16xf32> -> vector<8x16xf32>
// CHECK:           %[[P:.*]] = arith.mulf %{{.*}}, %[[X]]
// CHECK:           %[[S:.*]] = xetile.tile_reduce <add> %[[P]] [1] {wg_map = #xetile.wg_map<sg_layout = [1, 1], sg_data = [8, 1]>} : vector<8x16xf32> -> vector<8x1xf32>
// CHECK:           arith.addf %{{.*}}, %[[S]]
// CHECK:         xetile.init_tile {{.*}} : memref<100x1xf32> -> !xetile.tile<8x1xf32
// CHECK:         xetile.store_tile

// CHECK:       gpu.func @vecmat_0(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<1x32xf16>) {
// CHECK:           xetile.init_tile {{.*}} : memref<37x1xf16> -> !xetile.tile<8x1xf16
// CHECK:           xetile.tile_broadcast %{{.*}} [1] {{.*}} : vector<8x1xf16> -> vector<8x32xf16>
// CHECK:           xetile.tile_reduce <add> %{{.*}} [0] {{.*}} : vector<8x32xf16> -> vector<1x32xf16>
// CHECK:         xetile.init_tile {{.*}} : memref<1x129xf16> -> !xetile.tile<1x32xf16

// CHECK:       gpu.func @batch_matvec_0(
// CHECK:         %[[Z:.*]] = gpu.block_id z
// CHECK:         memref.subview %arg0[%[[Z]], 0, 0] [1, 45, 77] [1, 1, 1] : memref<3x45x77xbf16> to memref<45x77xbf16, strided<[77, 1], offset: ?>>
// CHECK:         memref.subview {{.*}}[%[[Z]], 0, 0] [1, 1, 77] [1, 1, 1] : memref<3x1x77xbf16> to memref<1x77xbf16, strided<[77, 1], offset: ?>>
// CHECK:         memref.subview {{.*}}[%[[Z]], 0, 0] [1, 45, 1] [1, 1, 1] : memref<3x45x1xbf16> to memref<45x1xbf16, strided<[1, 1], offset: ?>>

// CHECK:       gpu.func @alpha_gemv_0(%{{.*}}: memref<65x33xbf16>, %{{.*}}: memref<33xbf16>, %{{.*}}: memref<65xf32>, %[[ALPHA:.*]]: f32)
// CHECK:           arith.extf %{{.*}} : vector<8x32xbf16> to vector<8x32xf32>
// CHECK:           vector.broadcast %[[ALPHA]] {{.*}} : f32 to vector<8x32xf32>
// CHECK:           xetile.tile_reduce <add> {{.*}} : vector<8x32xf32> -> vector<8x1xf32>

// CHECK:       gpu.func @dynamic_0(
// CHECK:         %[[N:.*]] = memref.dim %arg0, %c1 : memref<?x?xf32>
// CHECK:         %[[XN:.*]] = memref.dim %arg1, %c0 : memref<?xf32>
// CHECK:         %[[X2:.*]] = memref.expand_shape %arg1 [[0, 1]] output_shape [1, %[[XN]]] : memref<?xf32> into memref<1x?xf32>
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %[[N]] step
// CHECK:           xetile.init_tile %arg0[%{{.*}}, %[[K]]], [%{{.*}}, %[[N]]], [%[[N]], %c1] : memref<?x?xf32>
// CHECK:           xetile.init_tile %[[X2]][%{{.*}}, %[[K]]], [%c1, %[[XN]]], [%[[XN]], %c1] : memref<1x?xf32>

// CHECK:       gpu.func @big_matvec_0(
// CHECK:           xetile.init_tile {{.*}} -> !xetile.tile<64x32xbf16, #xetile.tile_attr<wg_map = <sg_layout = [4, 1], sg_data = [16, 32]>>>
// CHECK:           xetile.init_tile {{.*}} -> !xetile.tile<1x32xbf16, #xetile.tile_attr<wg_map = <sg_layout = [4, 1], sg_data = [1, 32]>>>

// PLAN:      memory-bound plan [pvc]: matvec (y = A x) on 100x70 f32
// PLAN:        reason: vector FMAs + tile_reduce: memory delivers 819 G f32 of A/s (3276.8 GB/s), the vector units multiply-add 26214 G/s (32x); DPAS would pad x to 16 columns and use 1 of them
// PLAN:        reason: A streams in full-width 2D block rows of 64 bytes = 16 f32
// PLAN:      memory-bound plan [pvc]: vecmat (y = x A) on 37x129 f16
// PLAN:        reason: {{.*}} A tiles of 8 rows
// PLAN:        reason: 4 A tiles per subgroup and step (the loop steps 32 rows): 2.0 KiB in flight per Xe-core for the 9.5 KiB its share of the bandwidth needs (15.6 GB/s per Xe-core x 625 ns latency)
// PLAN:      memory-bound plan [pvc]: batch matvec (y = A x) on 45x77 bf16
// PLAN:      grid             : x=1 (N tiles) y=6 (M tiles) = 6 work-groups per batch, z=3 (batches) = 18 work-groups
// PLAN:      memory-bound plan [pvc]: matvec (y = A x) on 65x33 bf16
// PLAN:      memory-bound plan [pvc]: matvec (y = A x) on ?x? f32
// PLAN:      grid             : from the runtime sizes
// PLAN:      memory-bound plan [pvc]: matvec (y = A x) on 8192x1024 bf16
// PLAN:      work-group tile  : 64x32  (4 subgroups as 4x1, 64 work-items)
// PLAN:        reason: 2 A tiles per subgroup and step (the loop steps 64 columns): 8.0 KiB in flight per Xe-core
// PLAN:        reason: 128 work-groups >= 128 Xe-cores of pvc: every Xe-core gets work

// OK:       PASS

func.func @matvec(%A: memref<100x70xf32>, %x: memref<70xf32>, %y: memref<100xf32>) {
  linalg.matvec ins(%A, %x : memref<100x70xf32>, memref<70xf32>) outs(%y : memref<100xf32>)
  return
}

func.func @vecmat(%x: memref<37xf16>, %A: memref<37x129xf16>, %y: memref<129xf16>) {
  linalg.vecmat ins(%x, %A : memref<37xf16>, memref<37x129xf16>) outs(%y : memref<129xf16>)
  return
}

func.func @batch_matvec(%A: memref<3x45x77xbf16>, %x: memref<3x77xbf16>, %y: memref<3x45xbf16>) {
  linalg.batch_matvec ins(%A, %x : memref<3x45x77xbf16>, memref<3x77xbf16>) outs(%y : memref<3x45xbf16>)
  return
}

// y += alpha * A x with alpha a kernel argument; bf16 A and x into an f32 y
func.func @alpha_gemv(%A: memref<65x33xbf16>, %x: memref<33xbf16>, %y: memref<65xf32>, %alpha: f32) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%A, %x : memref<65x33xbf16>, memref<33xbf16>) outs(%y : memref<65xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %0 = arith.mulf %a32, %b32 : f32
    %1 = arith.mulf %alpha, %0 : f32
    %2 = arith.addf %acc, %1 : f32
    linalg.yield %2 : f32
  }
  return
}

func.func @dynamic(%A: memref<?x?xf32>, %x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.matvec ins(%A, %x : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?xf32>)
  return
}

func.func @dynamic_batch(%A: memref<2x?x?xf32>, %x: memref<2x?xf32>, %y: memref<2x?xf32>) {
  // expected-remark @+1 {{not lowered to XeTile: 'linalg.batch_matvec' with dynamic shapes (static shapes supported for batches)}}
  linalg.batch_matvec ins(%A, %x : memref<2x?x?xf32>, memref<2x?xf32>) outs(%y : memref<2x?xf32>)
  return
}

func.func @big_matvec(%A: memref<8192x1024xbf16>, %x: memref<1024xbf16>, %y: memref<8192xbf16>) {
  linalg.matvec ins(%A, %x : memref<8192x1024xbf16>, memref<1024xbf16>) outs(%y : memref<8192xbf16>)
  return
}
