// arch=bmg (Arc B580, Xe2): the same DPAS and 2D block rules as PVC, but 20 Xe-cores instead of
// 128. The planner shrinks the 1024^3 work-group tile only until the work-groups cover the Xe-cores
// of the target: 128x64 (128 work-groups) on pvc, 256x128 (32 work-groups, large GRF) on bmg.
// Named pipelines forward arch= to their passes (xe-gemm-to-xegpu{arch=bmg}).
// RUN: xe-opt %s --xe-print-plan --convert-linalg-to-xetile -o /dev/null 2>&1 | FileCheck %s --check-prefix=PVC
// RUN: xe-opt %s --xe-print-plan --convert-linalg-to-xetile=arch=bmg -o /dev/null 2>&1 | FileCheck %s --check-prefix=BMG
// RUN: xe-opt %s --xe-print-plan --xe-gemm-to-xegpu=arch=bmg -o /dev/null 2>&1 | FileCheck %s --check-prefix=BMG
// RUN: xe-opt %s --pass-pipeline='builtin.module(xe-gemm-to-xegpu{arch=bmg})' | FileCheck %s --check-prefix=IR
// RUN: not xe-opt %s --pass-pipeline='builtin.module(xe-gemm-to-xegpu{arch=b570x})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not xe-opt %s --pass-pipeline='builtin.module(xe-gemm-to-xegpu{archh=bmg})' 2>&1 | FileCheck %s --check-prefix=NOOPT

// PVC:      GEMM plan [pvc]: C[1024x1024 f32] += A[1024x1024 bf16] * B[1024x1024 bf16]
// PVC:      work-group tile  : 128x64  (8 subgroups as 4x2, 128 work-items
// PVC:      grid             : x=16 (N tiles) y=8 (M tiles) z=1 (batch) = 128 work-groups
// PVC:      registers        : default GRF mode (128 x 64 B)
// PVC:      halved the larger dimension until 128 work-groups >= 128 Xe-cores

// BMG:      GEMM plan [bmg]: C[1024x1024 f32] += A[1024x1024 bf16] * B[1024x1024 bf16]
// BMG-NEXT:   dpas             : M<=8 N=16 K=16
// BMG-NEXT:   work-group tile  : 256x128  (16 subgroups as 8x2, 256 work-items
// BMG:      grid             : x=8 (N tiles) y=4 (M tiles) z=1 (batch) = 32 work-groups
// BMG:      registers        : large GRF mode (256 x 64 B)
// BMG:      halved the larger dimension until 32 work-groups >= 20 Xe-cores

// IR:       gpu.launch_func @gemm_kernels::@gemm_0
// IR:       gpu.func @gemm_0({{.*}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>
// IR:       xegpu.dpas

// BAD:      error: unknown architecture 'b570x' (known: bmg, pvc)
// NOOPT:    error: pipeline 'xe-gemm-to-xegpu' has no pass with option 'archh'

func.func @gemm(%A: memref<1024x1024xbf16>, %B: memref<1024x1024xbf16>, %C: memref<1024x1024xf32>) {
  linalg.matmul ins(%A, %B : memref<1024x1024xbf16>, memref<1024x1024xbf16>) outs(%C : memref<1024x1024xf32>)
  return
}
