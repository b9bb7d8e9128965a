// xe-opt --xe-draw=DIR: per kernel, SVG pictures of the GEMM plan (work-group, subgroup and
// work-item views), written only on success. The 4096^3 bf16 plan: 256x256 work-group tiles of
// 8x4 subgroups, 32x64 subgroup tiles of 8x16 DPAS blocks.
// RUN: rm -rf %t && xe-opt %s --xe-gemm-to-xegpu --xe-draw=%t -o /dev/null
// RUN: FileCheck %s --check-prefix=WG < %t/gemm_0-workgroup.svg
// RUN: FileCheck %s --check-prefix=SG < %t/gemm_0-subgroup.svg
// RUN: FileCheck %s --check-prefix=WI < %t/gemm_0-workitem.svg
// No kernel in the IR: a located error, exit 1, nothing written.
// RUN: rm -rf %t.none && not xe-opt %s --xe-draw=%t.none 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not ls %t.none

// WG: <svg xmlns="http://www.w3.org/2000/svg"
// WG: @gemm_0 - work-group view
// WG: C[4096x4096 f32] += A[4096x4096 bf16] * B[4096x4096 bf16]
// WG: B tile 32x256 bf16 (one K step)
// WG: sg 0,4..28
// WG: A 256x32
// WG: sg 0-3
// WG: >sg 0<
// WG: >sg 31<
// WG: C work-group tile 256x256 f32: 32 subgroups as sg_layout 8x4, sg_data 32x64
// WG: grid over C: 16 x 16 work-groups (M x N)
// WG: first wave: 128 work-groups, launch order row_major
// WG: wg_map C: sg_layout [8, 4], sg_data [32, 64] over 256x256
// WG: plan reasons
// WG: k_step 32: one 64-byte 2D block row of bf16

// SG: @gemm_0 - subgroup view
// SG: B 32x64 bf16
// SG: 32x16 VNNI
// SG: A 32x32 bf16
// SG: C3,3
// SG: C subgroup tile 32x64 f32: 16 DPAS blocks 8x16
// SG: A prefetch: work-group tile 256x32
// SG: sg_layout [32, 1], sg_data [8, 32]
// SG: B prefetch: work-group tile 32x256
// SG: 32 DPAS 8x16x16 (bf16 x bf16 -&gt; f32)
// SG: A: 1 x load 32x32 bf16
// SG: B: 4 x load 32x16 bf16 (VNNI)

// WI: @gemm_0 - work-item view
// WI: A (DPAS operand): 8x16 bf16 - wi_layout [1, 16], wi_data [1, 1]
// WI: per work-item: vector&lt;8x1xbf16&gt;
// WI: C (DPAS accumulator): 8x16 f32 - wi_layout [1, 16], wi_data [1, 1]
// WI: B (DPAS operand): 16x16 bf16 (VNNI: pairs of rows packed in 32 bits) - wi_layout [1, 16], wi_data [2, 1]
// WI: per work-item: vector&lt;8x1x2xbf16&gt;
// WI: WI 15

// ERR: gemm-4096.mlir:{{[0-9]+}}:{{[0-9]+}}: error: --xe-draw: nothing to draw: the IR holds no gpu.func kernel

func.func @gemm(%A: memref<4096x4096xbf16>, %B: memref<4096x4096xbf16>, %C: memref<4096x4096xf32>) {
  linalg.matmul ins(%A, %B : memref<4096x4096xbf16>, memref<4096x4096xbf16>) outs(%C : memref<4096x4096xf32>)
  return
}
