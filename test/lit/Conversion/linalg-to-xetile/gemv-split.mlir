// A vecmat with too few output columns to fill the Xe-cores splits its reduced dimension over
// work-groups (grid y): each loops over its slice of rows and adds its partial column sums into
// y with xetile.atomic_rmw_tile (f32 / i32 outputs not overwritten by a folded fill). A matvec
// splits the same way over grid x (its y is a column: one atomic per element, test_simt_narrow.py).
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --xe-print-plan --convert-linalg-to-xetile -o %t 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry vecmat | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-spirv-portable --backend opencl --check --entry vecmat | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry matvec | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-spirv-portable --backend opencl --check --entry matvec | FileCheck %s --check-prefix=OK

// CHECK-LABEL: func.func @vecmat
// CHECK:       gpu.launch_func @vecmat_kernels::@vecmat_0 blocks in (%{{.*}}, %[[S:.*]], %{{.*}})
// CHECK-LABEL: func.func @matvec
// CHECK:       gpu.func @vecmat_0(
// CHECK:         %[[SID:.*]] = gpu.block_id  y
// CHECK:         %[[KB:.*]] = arith.muli %[[SID]], %{{.*}} : index
// CHECK:         %[[KC:.*]] = arith.addi %[[KB]], %{{.*}} : index
// CHECK:         %[[KE:.*]] = arith.minsi %[[KC]], %{{.*}} : index
// CHECK:         %[[RED:.*]] = scf.for %{{.*}} = %[[KB]] to %[[KE]] step
// CHECK:         %[[TY:.*]] = xetile.init_tile {{.*}} : memref<1x40xf32> -> !xetile.tile<1x16xf32
// CHECK:         xetile.atomic_rmw_tile <addf> %[[RED]], %[[TY]] : vector<1x16xf32>
// CHECK:       gpu.func @matvec_0(
// CHECK:         gpu.block_id  y
// CHECK:         %[[MB:.*]] = gpu.block_id  x
// CHECK:         arith.muli %[[MB]], %c256 : index
// CHECK:         xetile.atomic_rmw_tile <addf> %{{.*}} : vector<8x1xf32>, !xetile.tile<8x1xf32
// CHECK:         gpu.return

// PLAN:      memory-bound plan [pvc]: vecmat (y = x A) on 1000x40 f32
// PLAN:      grid             : x=3 (N tiles) y=8 (K slices) = 24 work-groups
// PLAN:        reason: 8 slices of 128 rows along the reduced dimension (grid y): too few outputs to fill pvc otherwise; each work-group adds its partial sums into y atomically
// PLAN:      memory-bound plan [pvc]: matvec (y = A x) on 24x1000 f32
// PLAN:      grid             : x=4 (N tiles) y=3 (K slices) = 12 work-groups
// PLAN:        reason: 4 slices of 256 columns along the reduced dimension (grid x)

// OK:       PASS

func.func @vecmat(%x: memref<1000xf32>, %A: memref<1000x40xf32>, %y: memref<40xf32>) {
  linalg.vecmat ins(%x, %A : memref<1000xf32>, memref<1000x40xf32>) outs(%y : memref<40xf32>)
  return
}

func.func @matvec(%A: memref<24x1000xf32>, %x: memref<1000xf32>, %y: memref<24xf32>) {
  linalg.matvec ins(%A, %x : memref<24x1000xf32>, memref<1000xf32>) outs(%y : memref<24xf32>)
  return
}
