// linalg.reduce over every dimension (to a 0-D memref) becomes two kernels: @<f>_partials (one
// work-group per band of elements of a 1D or contiguous 2D input seen as one row, per band of
// whole rows of a strided 2D input; each reduces its band with xetile.tile_reduce and stores one
// value into a host-allocated partials buffer) and @<f>_final (one work-group: the partials, the
// elements / rows the grid left over, and the init). Every tile lies inside the array: whole
// full-width tiles, then one exactly as wide (high) as the remainder.
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --xe-print-plan --convert-linalg-to-xetile -o %t 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry total | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry vmax | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry strided_max | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-spirv-portable --backend opencl --check --entry total | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry dyn_total --dims A=37x70 | FileCheck %s --check-prefix=OK
// RUN: xe-opt %s --convert-linalg-to-xetile --verify-diagnostics -o %t

// CHECK-LABEL: func.func @total
// CHECK:       %[[P:.*]] = memref.alloc() : memref<30xf32>
// CHECK:       gpu.launch_func @total_kernels::@total_0_partials blocks in (%{{.*}}, %[[G:.*]], %{{.*}}) {{.*}} args(%{{.*}} : memref<37x53xf32>, %[[P]] : memref<30xf32>)
// CHECK:       %[[O:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [1, 1], strides: [1, 1] : memref<f32> to memref<1x1xf32>
// CHECK:       gpu.launch_func @total_kernels::@total_0_final blocks in (%{{.*}}, %{{.*}}, %{{.*}}) {{.*}} args(%{{.*}} : memref<37x53xf32>, %[[P]] : memref<30xf32>, %[[O]] : memref<1x1xf32>)
// CHECK:       memref.dealloc %[[P]] : memref<30xf32>
// CHECK-LABEL: func.func @dyn_total
// CHECK:       %[[MD:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x?xf32>
// CHECK:       %[[GD:.*]] = arith.ceildivui %[[MD]], %{{.*}} : index
// CHECK:       %[[PD:.*]] = memref.alloc(%[[GD]]) : memref<?xf32>
// CHECK:       gpu.launch_func @dyn_total_kernels::@dyn_total_0_partials blocks in (%{{.*}}, %[[GD]], %{{.*}})
// CHECK:       gpu.launch_func @dyn_total_kernels::@dyn_total_0_final
// CHECK-LABEL: func.func @dyn_max
// CHECK:       linalg.reduce
// CHECK-LABEL: func.func @strided_max
// CHECK:       gpu.launch_func @strided_max_kernels::@strided_max_0_partials
// CHECK:       gpu.func @total_0_partials(
// CHECK:         memref.collapse_shape %arg0 {{\[}}[0, 1]] : memref<37x53xf32> into memref<1961xf32>
// CHECK:         scf.for {{.*}} -> (vector<1x1xf32>)
// CHECK:           xetile.tile_reduce <add> %{{.*}} [1] {{.*}} : vector<1x64xf32> -> vector<1x1xf32>
// CHECK:         xetile.store_tile %{{.*}}, %{{.*}} : vector<1x1xf32>
// CHECK:       gpu.func @total_0_final(
// CHECK:         xetile.tile_reduce <add> %{{.*}} [1] {{.*}} : vector<1x16xf32> -> vector<1x1xf32>
// CHECK:         xetile.tile_reduce <add> %{{.*}} [1] {{.*}} : vector<1x14xf32> -> vector<1x1xf32>
// CHECK:         xetile.tile_reduce <add> %{{.*}} [1] {{.*}} : vector<1x32xf32> -> vector<1x1xf32>
// CHECK:         xetile.tile_reduce <add> %{{.*}} [1] {{.*}} : vector<1x9xf32> -> vector<1x1xf32>
// CHECK:         xetile.load_tile %{{.*}} -> vector<1x1xf32>
// CHECK:         xetile.store_tile
// CHECK:       gpu.func @vmax_0_final(
// CHECK:         arith.extf {{.*}} : vector<1x13xf16> to vector<1x13xf32>
// CHECK:         xetile.tile_reduce <maximumf>
// CHECK:         arith.truncf {{.*}} : vector<1x1xf32> to vector<1x1xf16>
// CHECK:       gpu.func @dyn_total_0_partials(
// CHECK:         %[[XM:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?xf32>
// CHECK:         %[[XN:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[XN]] step
// CHECK:           xetile.init_tile %arg0[%{{.*}}, %{{.*}}], [%[[XM]], %[[XN]]], [%[[XN]], %{{.*}}] : memref<?x?xf32> -> !xetile.tile<8x64xf32

// CHECK:       gpu.func @strided_max_0_partials(
// CHECK:           xetile.tile_reduce <maximumf> %{{.*}} [1] {{.*}} : vector<{{[0-9]+}}x48xf32> -> vector<{{[0-9]+}}x1xf32>

// PLAN:      memory-bound plan [pvc]: reduce to a scalar on 1x1961 f32
// PLAN:        reason: two stages (partials buffer, then one work-group)
// PLAN:        reason: stage 1: 30 work-groups, 64 columns each; stage 2 reduces the 30 partial values and the last 41 columns
// PLAN:      memory-bound plan [pvc]: reduce to a scalar on 1x77 f16
// PLAN:        reason: stage 1: 1 work-groups, 64 columns each; stage 2 reduces the 1 partial values and the last 13 columns

// OK:       PASS

func.func @total(%A: memref<37x53xf32>, %O: memref<f32>) {
  linalg.reduce ins(%A : memref<37x53xf32>) outs(%O : memref<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

func.func @vmax(%A: memref<77xf16>, %O: memref<f16>) {
  linalg.reduce ins(%A : memref<77xf16>) outs(%O : memref<f16>) dimensions = [0]
    (%x: f16, %acc: f16) {
      %s = arith.maximumf %x, %acc : f16
      linalg.yield %s : f16
    }
  return
}

func.func @dyn_total(%A: memref<?x?xf32>, %O: memref<f32>) {
  linalg.reduce ins(%A : memref<?x?xf32>) outs(%O : memref<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

func.func @dyn_max(%A: memref<?xf32>, %O: memref<f32>) {
  // expected-remark @+1 {{not lowered to XeTile: 'linalg.reduce' <maximumf> to a scalar with dynamic shapes}}
  linalg.reduce ins(%A : memref<?xf32>) outs(%O : memref<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.maximumf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

func.func @strided_max(%A: memref<37x64xf32>, %O: memref<f32>) {
  %s = memref.subview %A[0, 0] [37, 53] [1, 1] : memref<37x64xf32> to memref<37x53xf32, strided<[64, 1]>>
  linalg.reduce ins(%s : memref<37x53xf32, strided<[64, 1]>>) outs(%O : memref<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) {
      %r = arith.maximumf %x, %acc : f32
      linalg.yield %r : f32
    }
  return
}
