// REQUIRES: mlir-opt
// Upstream's route to SPIR-V (xe-gemm-to-spirv-upstream, docs/upstream-xegpu.md): the export, upstream
// mlir-opt's xegpu -> XeVM -> LLVM passes, mlir-translate, opt, llvm-spirv, spirv-val. xe-opt prints the
// binary's disassembly: an OpenCL kernel calling the Intel 2D block IO and DPAS builtins (imported),
// B loaded with the VNNI transform, the K loop's block loads and prefetches (route-error.mlir: a
// program the route cannot take).
// RUN: xe-opt %s --xe-gemm-to-spirv-upstream | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-upstream-xegpu | FileCheck %s --check-prefix=UP
// RUN: xe-opt %s --xe-gemm-to-spirv-upstream --emit=spirv-binary -o %t.spv && %python -c "import sys; d = open(sys.argv[1], 'rb').read(); assert d[:4] == bytes([3, 2, 0x23, 7]), d[:4]" %t.spv

func.func @gemm(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}

// CHECK-DAG:  OpCapability Kernel
// CHECK-DAG:  OpMemoryModel Physical64 OpenCL
// CHECK-DAG:  OpEntryPoint Kernel %{{[0-9]+}} "gemm_0"
// CHECK-DAG:  LinkageAttributes "_Z40intel_sub_group_bf16_bf16_matrix_mad_k16Dv8_sDv8_iDv8_f" Import
// CHECK-DAG:  LinkageAttributes "_Z52intel_sub_group_2d_block_read_transform_16b_32r16x1cPU3AS1viiiDv2_iPj" Import
// CHECK-DAG:  LinkageAttributes "_Z41intel_sub_group_2d_block_read_16b_8r32x1cPU3AS1viiiDv2_iPt" Import
// CHECK-DAG:  LinkageAttributes "_Z45intel_sub_group_2d_block_prefetch_16b_8r16x1cPU3AS1viiiDv2_i" Import
// CHECK-DAG:  LinkageAttributes "_Z42intel_sub_group_2d_block_write_32b_8r16x1cPU3AS1viiiDv2_iPj" Import
// CHECK:      OpFunctionCall %{{.*}} %{{[0-9]+}}
// CHECK:      OpBranchConditional
// UP:         gpu.module @gemm_kernels [#xevm.target<chip = "pvc">] {
// UP:         xegpu.dpas
