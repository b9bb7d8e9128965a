// ger from linalg: an outer-product linalg.generic (C[i, j] = x[i] * y[j], with a host scalar
// alpha and accumulation into C, or C written only) is planned as a ger (C's traffic decides the
// tiles) and becomes a memory-bound XeTile kernel: x is loaded as an M x 1 tile and y as a 1 x N
// tile per work-group tile (memref.expand_shape views of the 1D vectors) and broadcast with
// xetile.tile_broadcast; alpha is a kernel argument; unaligned edges use out-of-bounds semantics.
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --xe-print-plan --convert-linalg-to-xetile -o %t 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry ger_acc | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry outer | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-spirv-portable --backend opencl --check --entry ger_acc | FileCheck %s --check-prefix=OK

// CHECK-LABEL: func.func @ger_acc
// CHECK-NOT:   linalg.generic
// CHECK:       gpu.launch_func @ger_acc_kernels::@ger_acc_0 {{.*}} args(%{{.*}} : memref<37xf32>, %{{.*}} : memref<53xf32>, %{{.*}} : memref<37x53xf32>, %{{.*}} : f32)
// CHECK-LABEL: func.func @outer
// CHECK:       gpu.launch_func @outer_kernels::@outer_0
// CHECK:       gpu.func @ger_acc_0(%{{.*}}: memref<37xf32>, %{{.*}}: memref<53xf32>, %[[C:.*]]: memref<37x53xf32>, %[[ALPHA:.*]]: f32)
// CHECK:         memref.expand_shape {{.*}} output_shape [37, 1] : memref<37xf32> into memref<37x1xf32>
// CHECK:         xetile.init_tile {{.*}} : memref<37x1xf32> -> !xetile.tile<8x1xf32
// CHECK:         xetile.tile_broadcast %{{.*}} [1] {{.*}} : vector<8x1xf32> -> vector<8x32xf32>
// CHECK:         xetile.init_tile {{.*}} : memref<1x53xf32> -> !xetile.tile<1x32xf32
// CHECK:         xetile.tile_broadcast %{{.*}} [0] {{.*}} : vector<1x32xf32> -> vector<8x32xf32>
// CHECK:         %[[TC:.*]] = xetile.init_tile %[[C]][{{.*}}] : memref<37x53xf32> -> !xetile.tile<8x32xf32
// CHECK:         arith.mulf
// CHECK:         vector.broadcast %[[ALPHA]]
// CHECK:         %[[R:.*]] = arith.addf
// CHECK:         xetile.store_tile %[[R]], %[[TC]]
// CHECK:       gpu.func @outer_0(
// CHECK:         xetile.tile_broadcast {{.*}} -> vector<{{[0-9]+}}x64xf16>
// CHECK:         xetile.tile_broadcast {{.*}} -> vector<{{[0-9]+}}x64xf16>
// CHECK-NOT:     xetile.load_tile
// CHECK:         xetile.store_tile

// PLAN:      memory-bound plan [pvc]: ger (outer product, C accumulated) on 37x53 f32
// PLAN:        reason: C is read and written once; x and y come in as 8x1 and 1x32 tiles per 8x32 C tile (8% of C's traffic), broadcast with tile_broadcast
// PLAN:      memory-bound plan [pvc]: ger (outer product) on 129x257 f16
// PLAN:        reason: C is written once;

// OK:       PASS

func.func @ger_acc(%x: memref<37xf32>, %y: memref<53xf32>, %C: memref<37x53xf32>, %alpha: f32) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<37xf32>, memref<53xf32>) outs(%C : memref<37x53xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.mulf %alpha, %0 : f32
    %2 = arith.addf %c, %1 : f32
    linalg.yield %2 : f32
  }
  return
}

func.func @outer(%x: memref<129xf16>, %y: memref<257xf16>, %C: memref<129x257xf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<129xf16>, memref<257xf16>) outs(%C : memref<129x257xf16>) {
  ^bb0(%a: f16, %b: f16, %c: f16):
    %0 = arith.mulf %a, %b : f16
    linalg.yield %0 : f16
  }
  return
}
