// The 4096^3 bf16 GEMM on arch=bmg keeps the appendix 2.1 tile (256x256, 8x4 subgroups of 32x64,
// K step 32, prefetch distance 3): 256 work-groups already cover the 20 Xe-cores (13 waves).
// RUN: xe-opt %s --xe-print-plan --convert-linalg-to-xetile=arch=bmg -o /dev/null 2>&1 | FileCheck %s

// CHECK:      GEMM plan [bmg]: C[4096x4096 f32] += A[4096x4096 bf16] * B[4096x4096 bf16]
// CHECK:      work-group tile  : 256x256  (32 subgroups as 8x4, 512 work-items, subgroup size 16)
// CHECK-NEXT: subgroup C tile  : 32x64
// CHECK-NEXT: k_step           : 32
// CHECK:      prefetch         : distance 3 K steps
// CHECK:      grid             : x=16 (N tiles) y=16 (M tiles) z=1 (batch) = 256 work-groups
// CHECK:      registers        : large GRF mode (256 x 64 B)
// CHECK:      256 work-groups >= 20 Xe-cores

func.func @gemm(%A: memref<4096x4096xbf16>, %B: memref<4096x4096xbf16>, %C: memref<4096x4096xf32>) {
  linalg.matmul ins(%A, %B : memref<4096x4096xbf16>, memref<4096x4096xbf16>) outs(%C : memref<4096x4096xf32>)
  return
}
