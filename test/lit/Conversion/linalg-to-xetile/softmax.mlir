// linalg.softmax along the last dimension becomes a memory-bound XeTile kernel: every subgroup
// owns whole rows (sg_layout = [R, 1]); the row max and row sum are xetile.tile_reduce, their
// broadcasts over the row xetile.tile_broadcast. Columns are covered by full-width tiles plus
// one tile as wide as the remainder, so padding never enters the max or the sum. Short rows are
// loaded once; long rows take two passes over column chunks (online max/sum, then the write).
// f16/bf16 compute in f32 (arith.extf after the load, arith.truncf before the store).
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --xe-print-plan --convert-linalg-to-xetile -o %t 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry rows | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry long_rows | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry columns | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry middle | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-spirv-portable --backend opencl --check --entry rows_f16 | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry batch | FileCheck %s --check-prefix=OK
// RUN: xe-run %S/softmax-tensor.mlir --pipeline xe-linalg-to-xetile,xetile-wg-to-sg,xetile-canonicalize,xetile-blocking,convert-xetile-to-xegpu --check | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry dyn_rows --dims A=100x53,O=100x53 | FileCheck %s --check-prefix=OK
// RUN: xe-opt %s --convert-linalg-to-xetile --verify-diagnostics -o %t

// CHECK-LABEL: func.func @rows
// CHECK-NOT:   linalg.softmax
// CHECK:       gpu.launch_func @rows_kernels::@rows_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in {{.*}} args(%{{.*}} : memref<37x53xf32>, %{{.*}} : memref<37x53xf32>)
// CHECK-LABEL: func.func @columns
// CHECK:       gpu.launch_func @columns_kernels::@columns_0
// CHECK-LABEL: func.func @middle
// CHECK:       gpu.launch_func @middle_kernels::@middle_0 blocks in (%{{.*}}, %{{.*}}, %[[B:.*]]) threads
// CHECK-LABEL: func.func @middle_dyn
// CHECK:       linalg.softmax
// CHECK-LABEL: func.func @dyn_rows
// CHECK:       %[[M:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x53xf32>
// CHECK:       %[[G:.*]] = arith.ceildivui %[[M]], %{{.*}} : index
// CHECK:       gpu.launch_func @dyn_rows_kernels::@dyn_rows_0 blocks in (%{{.*}}, %[[G]], %{{.*}})
// CHECK-LABEL: func.func @dyn_cols
// CHECK:       linalg.softmax
// CHECK:       gpu.func @rows_0(
// CHECK-NOT:     scf.for
// CHECK:         %[[X0:.*]] = xetile.load_tile {{.*}} -> vector<{{[0-9]+}}x48xf32>
// CHECK:         %[[X1:.*]] = xetile.load_tile {{.*}} -> vector<{{[0-9]+}}x5xf32>
// CHECK:         %[[M0:.*]] = xetile.tile_reduce <maximumf> %[[X0]] [1] {wg_map = #xetile.wg_map<sg_layout = [1, 1], sg_data = [{{[0-9]+}}, 1]>} : vector<{{[0-9]+}}x48xf32> -> vector<{{[0-9]+}}x1xf32>
// CHECK:         %[[M1:.*]] = xetile.tile_reduce <maximumf> %[[X1]] [1]
// CHECK:         %[[M:.*]] = arith.maximumf %[[M0]], %[[M1]]
// CHECK:         %[[B:.*]] = xetile.tile_broadcast %[[M]] [1] {wg_map = #xetile.wg_map<sg_layout = [1, 1], sg_data = [{{[0-9]+}}, 48]>} : vector<{{[0-9]+}}x1xf32> -> vector<{{[0-9]+}}x48xf32>
// CHECK:         %[[D:.*]] = arith.subf %[[X0]], %[[B]]
// CHECK:         %[[E:.*]] = math.exp %[[D]]
// CHECK:         xetile.tile_reduce <add> %[[E]] [1]
// CHECK:         arith.divf %[[E]],
// CHECK:         xetile.store_tile {{.*}} : vector<{{[0-9]+}}x48xf32>
// CHECK:         xetile.store_tile {{.*}} : vector<{{[0-9]+}}x5xf32>
// CHECK:       gpu.func @columns_0(
// CHECK:         %[[BX:.*]] = gpu.block_id x
// CHECK:         xetile.load_tile {{.*}} -> vector<32x16xf32>
// CHECK:         xetile.load_tile {{.*}} -> vector<5x16xf32>
// CHECK:         xetile.tile_reduce <maximumf> %{{.*}} [0] {wg_map = #xetile.wg_map<sg_layout = [1, 1], sg_data = [1, 16]>} : vector<32x16xf32> -> vector<1x16xf32>
// CHECK:         xetile.tile_broadcast %{{.*}} [0] {wg_map = #xetile.wg_map<sg_layout = [1, 1], sg_data = [32, 16]>} : vector<1x16xf32> -> vector<32x16xf32>
// CHECK:         xetile.tile_reduce <add> %{{.*}} [0]
// CHECK:       gpu.func @middle_0(
// CHECK:         %[[BZ:.*]] = gpu.block_id z
// CHECK:         memref.subview %arg0[%[[BZ]], 0, 0] [1, 33, 21] [1, 1, 1] : memref<4x33x21xf32> to memref<33x21xf32, strided<[21, 1], offset: ?>>
// CHECK:         xetile.tile_reduce <maximumf> %{{.*}} [0]
// CHECK:       gpu.func @rows_f16_0(
// CHECK:         arith.extf {{.*}} : vector<{{[0-9]+}}x64xf16> to vector<{{[0-9]+}}x64xf32>
// CHECK:         arith.truncf {{.*}} to vector<{{[0-9]+}}x64xf16>
// CHECK:       gpu.func @long_rows_0(
// CHECK:         scf.for {{.*}} iter_args(%[[MR:.*]] = %{{.*}}, %[[SR:.*]] = %{{.*}}) -> (vector<{{[0-9]+}}x1xf32>, vector<{{[0-9]+}}x1xf32>)
// CHECK:           xetile.tile_reduce <maximumf>
// CHECK:           %[[MN:.*]] = arith.maximumf %[[MR]],
// CHECK:           %[[C:.*]] = arith.subf %[[MR]], %[[MN]]
// CHECK:           math.exp %[[C]]
// CHECK:           scf.yield
// CHECK:         scf.for
// CHECK:           arith.divf
// CHECK:           xetile.store_tile
// CHECK:       gpu.func @batch_0(
// CHECK:         memref.collapse_shape {{.*}} into memref<15x40xf32>

// CHECK:       gpu.func @dyn_rows_0(
// CHECK:         %[[R:.*]] = memref.dim %arg0, %{{.*}} : memref<?x53xf32>
// CHECK:         xetile.init_tile %arg0[%{{.*}}, %{{.*}}], [%[[R]], %{{.*}}], [%{{.*}}, %{{.*}}] : memref<?x53xf32>

// PLAN:      memory-bound plan [pvc]: softmax along dimension 1 on 37x53 f32
// PLAN:        reason: whole rows in registers
// PLAN:      memory-bound plan [pvc]: softmax along dimension 0 on 37x53 f32
// PLAN:        reason: whole columns in registers
// PLAN:      memory-bound plan [pvc]: softmax along dimension 1 on 37x70 f16
// PLAN:      memory-bound plan [pvc]: softmax along dimension 1 on 20x1000 f32
// PLAN:        reason: rows of 1000 do not fit in registers: two passes over {{[0-9]+}}-column chunks

// OK:       PASS

func.func @rows(%A: memref<37x53xf32>, %O: memref<37x53xf32>) {
  linalg.softmax dimension(1) ins(%A : memref<37x53xf32>) outs(%O : memref<37x53xf32>)
  return
}

func.func @columns(%A: memref<37x53xf32>, %O: memref<37x53xf32>) {
  linalg.softmax dimension(0) ins(%A : memref<37x53xf32>) outs(%O : memref<37x53xf32>)
  return
}

func.func @middle(%A: memref<4x33x21xf32>, %O: memref<4x33x21xf32>) {
  linalg.softmax dimension(1) ins(%A : memref<4x33x21xf32>) outs(%O : memref<4x33x21xf32>)
  return
}

func.func @middle_dyn(%A: memref<?x8x16xf32>, %O: memref<?x8x16xf32>) {
  // expected-remark @+1 {{not lowered to XeTile: 'linalg.softmax' along dimension 1 of a rank-3 input with dynamic shapes (static shapes supported)}}
  linalg.softmax dimension(1) ins(%A : memref<?x8x16xf32>) outs(%O : memref<?x8x16xf32>)
  return
}

func.func @rows_f16(%A: memref<37x70xf16>, %O: memref<37x70xf16>) {
  linalg.softmax dimension(1) ins(%A : memref<37x70xf16>) outs(%O : memref<37x70xf16>)
  return
}

func.func @long_rows(%A: memref<20x1000xf32>, %O: memref<20x1000xf32>) {
  linalg.softmax dimension(1) ins(%A : memref<20x1000xf32>) outs(%O : memref<20x1000xf32>)
  return
}

func.func @batch(%A: memref<3x5x40xf32>, %O: memref<3x5x40xf32>) {
  linalg.softmax dimension(2) ins(%A : memref<3x5x40xf32>) outs(%O : memref<3x5x40xf32>)
  return
}

func.func @dyn_rows(%A: memref<?x53xf32>, %O: memref<?x53xf32>) {
  linalg.softmax dimension(1) ins(%A : memref<?x53xf32>) outs(%O : memref<?x53xf32>)
  return
}

func.func @dyn_cols(%A: memref<8x?xf32>, %O: memref<8x?xf32>) {
  // expected-remark @+1 {{not lowered to XeTile: 'linalg.softmax' with a dynamic row length}}
  linalg.softmax dimension(1) ins(%A : memref<8x?xf32>) outs(%O : memref<8x?xf32>)
  return
}
