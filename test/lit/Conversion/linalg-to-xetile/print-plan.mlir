// xe-opt --xe-print-plan prints every GEMM plan (like convert-linalg-to-xetile{print-plan=1}),
// wherever the pass runs: here inside the named pipeline xe-linalg-to-xetile. The plan lists the
// work-group tile, subgroup layout, wg_maps, K step, prefetch, split-K, grid and every reason,
// followed by what was fused.
// RUN: xe-opt %s --xe-print-plan --xe-linalg-to-xetile -o %t 2>&1 | FileCheck %s
// RUN: xe-opt %s --convert-linalg-to-xetile=print-plan=1 -o %t 2>&1 | FileCheck %s
// RUN: xe-opt %s --xe-linalg-to-xetile -o %t 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// CHECK:      // GEMM plan for linalg.matmul at loc("{{.*}}print-plan.mlir":[[# @LINE + 36]]:3)
// CHECK-NEXT: GEMM plan [pvc]: C[1000x1000 f32] += A[1000x1000 bf16] * B[1000x1000 bf16]  (accumulate f32)
// CHECK-NEXT:   dpas             : M<=8 N=16 K=16
// CHECK-NEXT:   work-group tile  : 128x64  (8 subgroups as 4x2, 128 work-items, subgroup size 16)
// CHECK-NEXT:   subgroup C tile  : 32x32
// CHECK-NEXT:   k_step           : 32
// CHECK-NEXT:   wg_map A         : #xetile.wg_map<sg_layout = [4, 2], sg_data = [32, 32]>   tile 128x32
// CHECK-NEXT:   wg_map B         : #xetile.wg_map<sg_layout = [4, 2], sg_data = [32, 32]>   tile 32x64
// CHECK-NEXT:   wg_map C         : #xetile.wg_map<sg_layout = [4, 2], sg_data = [32, 32]>   tile 128x64
// CHECK-NEXT:   prefetch         : distance 3 K steps
// CHECK:        split-K          : none
// CHECK-NEXT:   grid             : x=16 (N tiles) y=8 (M tiles) z=1 (batch) = 128 work-groups
// CHECK:        reasons:
// CHECK:      - wg_tile 128x64: start from 256x256
// CHECK:        prologue         : linalg.fill fused
// CHECK-NEXT:   epilogue         : 1 fused element-wise op(s): linalg.generic
// CHECK-NEXT:   kernel stores    : 1 buffer(s); 0 temporary buffer(s) removed

// CHECK:      // GEMM plan for linalg.matmul at loc("{{.*}}print-plan.mlir":[[# @LINE + 28]]:3)
// CHECK-NEXT: GEMM plan [pvc]: C[1x4096 f32] += A[1x4096 bf16] * B[4096x4096 bf16]
// CHECK:        work-group tile  : 8x32  (2 subgroups as 1x2
// CHECK:        split-K          : atomic (k_slices = 4, 1024 of K per slice)
// CHECK-NEXT:   grid             : x=128 (N tiles) y=1 (M tiles) z=4 (batch x k-slices) = 512 work-groups, 4 k-slices
// CHECK:        - split-K for occupancy: 128 work-groups x 2 subgroups = 256 subgroups for 1024 vector engines

// CHECK:      // GEMM plan for linalg.matmul at loc("{{.*}}print-plan.mlir":[[# @LINE + 26]]:3)
// CHECK-NEXT: GEMM plan [pvc]: C[4096x7 f32] += A[4096x64 bf16] * B[64x7 bf16]
// CHECK:        work-group tile  : 32x16  (4 subgroups as 4x1
// CHECK:        prefetch         : distance 2 K steps

// QUIET-NOT:  GEMM plan

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @square(%A: memref<1000x1000xbf16>, %B: memref<1000x1000xbf16>, %C: memref<1000x1000xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%C : memref<1000x1000xf32>)
  linalg.matmul ins(%A, %B : memref<1000x1000xbf16>, memref<1000x1000xbf16>) outs(%C : memref<1000x1000xf32>)
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%C : memref<1000x1000xf32>) {
  ^bb0(%x: f32):
    %y = arith.maximumf %x, %z : f32
    linalg.yield %y : f32
  }
  return
}

func.func @gemv(%A: memref<1x4096xbf16>, %B: memref<4096x4096xbf16>, %C: memref<1x4096xf32>) {
  linalg.matmul ins(%A, %B : memref<1x4096xbf16>, memref<4096x4096xbf16>) outs(%C : memref<1x4096xf32>)
  return
}

func.func @skinny(%A: memref<4096x64xbf16>, %B: memref<64x7xbf16>, %C: memref<4096x7xf32>) {
  linalg.matmul ins(%A, %B : memref<4096x64xbf16>, memref<64x7xbf16>) outs(%C : memref<4096x7xf32>)
  return
}
