// Plan options out of range are located errors, not silently the planner's choice; options that cannot
// fit the problem (more k-slices than K steps, prefetching past the end of the K loop) too.
// RUN: not xe-opt %s --convert-linalg-to-xetile=k-step=-32 -o %t 2>&1 | FileCheck %s --check-prefix=KSTEP
// RUN: not xe-opt %s --convert-linalg-to-xetile=prefetch-distance=-5 -o %t 2>&1 | FileCheck %s --check-prefix=PREF
// RUN: not xe-opt %s --convert-linalg-to-xetile=k-slices=-2 -o %t 2>&1 | FileCheck %s --check-prefix=SLICES
// RUN: not xe-opt %s --convert-linalg-to-xetile=local-k-slices=-1 -o %t 2>&1 | FileCheck %s --check-prefix=LOCAL
// RUN: not xe-opt %s --convert-linalg-to-xetile=prefetch-distance=1000000 -o %t 2>&1 | FileCheck %s --check-prefix=FAR
// RUN: not xe-opt %s --convert-linalg-to-xetile=k-slices=1000000 -o %t 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: xe-opt %s --convert-linalg-to-xetile=prefetch-distance=8 -o /dev/null
// RUN: xe-opt %s --convert-linalg-to-xetile=k-slices=8 -o /dev/null

// KSTEP: bad-options.mlir:19:3: error: GEMM plan: option k-step: expected > 0 (0: the planner chooses), got -32
// PREF: bad-options.mlir:19:3: error: GEMM plan: option prefetch-distance: expected >= 0 (-1: the planner chooses), got -5
// SLICES: error: GEMM plan: option k-slices: expected > 0 (0: the planner chooses), got -2
// LOCAL: error: GEMM plan: option local-k-slices: expected > 0 (0: the planner chooses), got -1
// FAR: error: GEMM plan: override prefetch_distance 1000000 exceeds the 8 K steps of a work-group's loop
// MANY: error: GEMM plan: override k_slices 1000000 exceeds the 8 K steps of K = 256 with k_step 32: every slice needs at least one K step
func.func @gemm(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}
