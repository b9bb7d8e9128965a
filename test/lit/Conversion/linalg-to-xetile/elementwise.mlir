// Stand-alone element-wise linalg ops become memory-bound work-group XeTile kernels: one tile per
// operand at the work-group's position, the body's arith ops on whole tiles (wg_map on each),
// host scalars passed as kernel arguments and broadcast, one store; the memory-bound planner
// picks full-width subgroup tiles (64-byte rows: 16 f32) and prints its reasons.
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --xe-print-plan --convert-linalg-to-xetile -o %t 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry add | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry axpby | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry vadd | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-spirv-portable --backend opencl --check --entry axpby | FileCheck %s --check-prefix=OK

// CHECK-LABEL: func.func @add
// CHECK-NOT:   linalg.add
// CHECK:       gpu.launch_func @add_kernels::@add_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%{{.*}} : memref<100x70xf32>, %{{.*}} : memref<100x70xf32>, %{{.*}} : memref<100x70xf32>)
// CHECK-LABEL: func.func @axpby
// CHECK-NOT:   linalg.generic
// CHECK:       gpu.launch_func @axpby_kernels::@axpby_0 {{.*}} args(%{{.*}} : memref<37x53xf16>, %{{.*}} : memref<37x53xf16>, %{{.*}} : f16, %{{.*}} : f16)
// CHECK:       gpu.func @add_0(
// CHECK:         %[[TA:.*]] = xetile.init_tile %arg0[%{{.*}}, %{{.*}}] : memref<100x70xf32> -> !xetile.tile<8x32xf32, #xetile.tile_attr<wg_map = <sg_layout = [1, 2], sg_data = [8, 16]>>>
// CHECK:         %[[VA:.*]] = xetile.load_tile %[[TA]]
// CHECK:         %[[VB:.*]] = xetile.load_tile
// CHECK:         %[[S:.*]] = arith.addf %[[VA]], %[[VB]] {wg_map = #xetile.wg_map<sg_layout = [1, 2], sg_data = [8, 16]>} : vector<8x32xf32>
// CHECK:         xetile.store_tile %[[S]], %{{.*}} : vector<8x32xf32>
// CHECK:       gpu.func @axpby_0(%arg0: memref<37x53xf16>, %arg1: memref<37x53xf16>, %arg2: f16, %arg3: f16)
// CHECK:         vector.broadcast %arg2 {wg_map = {{.*}}} : f16 to vector<8x64xf16>
// CHECK:         arith.mulf
// CHECK:         vector.broadcast %arg3 {wg_map = {{.*}}} : f16 to vector<8x64xf16>
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:         xetile.store_tile
// a 1D op works on 1xN views of its arguments
// CHECK:       gpu.func @vadd_0(%arg0: memref<1000xf32>, %arg1: memref<1000xf32>, %arg2: memref<1000xf32>)
// CHECK:         memref.expand_shape %arg0 {{\[\[}}0, 1]] output_shape [1, 1000] : memref<1000xf32> into memref<1x1000xf32>
// CHECK:         xetile.init_tile %{{.*}}[%{{.*}}, %{{.*}}] : memref<1x1000xf32> -> !xetile.tile<8x

// PLAN:      memory-bound plan [pvc]: element-wise linalg.add on 100x70 f32
// PLAN-NEXT: work-group tile  : 8x32  (2 subgroups as 1x2, 32 work-items)
// PLAN-NEXT: subgroup tile    : 8x16
// PLAN-NEXT: grid             : x=3 (N tiles) y=13 (M tiles) = 39 work-groups
// PLAN-NEXT:   reason: subgroup tile width 16: one full-width 2D block row is 64 bytes = 16 f32 (rows start at 32 per subgroup)
// PLAN:        reason: only 39 work-groups for 128 Xe-cores
// PLAN:      memory-bound plan [pvc]: element-wise linalg.generic on 37x53 f16

// OK:       PASS

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @add(%A: memref<100x70xf32>, %B: memref<100x70xf32>, %C: memref<100x70xf32>) {
  linalg.add ins(%A, %B : memref<100x70xf32>, memref<100x70xf32>) outs(%C : memref<100x70xf32>)
  return
}

func.func @axpby(%x: memref<37x53xf16>, %y: memref<37x53xf16>, %alpha: f16, %beta: f16) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<37x53xf16>) outs(%y : memref<37x53xf16>) {
  ^bb0(%a: f16, %b: f16):
    %0 = arith.mulf %alpha, %a : f16
    %1 = arith.mulf %beta, %b : f16
    %2 = arith.addf %0, %1 : f16
    linalg.yield %2 : f16
  }
  return
}

func.func @vadd(%A: memref<1000xf32>, %B: memref<1000xf32>, %C: memref<1000xf32>) {
  linalg.add ins(%A, %B : memref<1000xf32>, memref<1000xf32>) outs(%C : memref<1000xf32>)
  return
}
