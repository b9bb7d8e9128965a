// The pvc-style SPIR-V for arch=bmg: Xe2 runs the same Intel DPAS and 2D block IO builtins, so
// xe-gemm-to-spirv{arch=bmg} emits the same calls; the spirv.module records the arch (its surface
// rules guard dynamic 2D block accesses) and the binary passes spirv-val (test_arch_bmg.py).
// RUN: xe-opt %s --pass-pipeline='builtin.module(xe-gemm-to-spirv{arch=bmg})' | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-xegpu=arch=bmg --convert-xegpu-to-spirv=arch=bmg | FileCheck %s
// RUN: not xe-opt %s --xe-gemm-to-xegpu --convert-xegpu-to-spirv=arch=pvcx 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK:     spirv.module @__spv__gemm_kernels {{.*}}__arch__ = "bmg", __target__ = "pvc"
// CHECK-DAG: spirv.func @__builtin_intel_sub_group_bf16_bf16_matrix_mad_k16(
// CHECK-DAG: spirv.func @__builtin_intel_sub_group_2d_block_read_transform_16b_32r16x2c(
// CHECK-DAG: spirv.func @__builtin_intel_sub_group_2d_block_write_32b_8r16x1c(
// BAD: error: unknown architecture 'pvcx' (known: bmg, pvc)

func.func @gemm(%A: memref<128x256xbf16>, %B: memref<256x128xbf16>, %C: memref<128x128xf32>) {
  linalg.matmul ins(%A, %B : memref<128x256xbf16>, memref<256x128xbf16>) outs(%C : memref<128x128xf32>)
  return
}
