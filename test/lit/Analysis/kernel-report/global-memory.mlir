// xe-kernel-report: bytes one launch moves to and from global memory (every block access and
// unmasked scattered lane of every subgroup of the gpu.launch_func grid, clipped to the memref),
// the HBM bytes (each argument byte once per direction) and the bandwidth bound at the arch
// table's sustained HBM bandwidth (pvc: 2 stacks x 1000 GB/s STREAM triad; bmg: 365 GB/s).
// RUN: xe-opt %s --xe-gemm-to-xegpu --xe-kernel-report -o %t 2>&1 | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-xegpu=arch=bmg --xe-kernel-report=arch=bmg -o %t 2>&1 | FileCheck %s --check-prefix=BMG
// SIMT kernels (one work-item per lane: scattered offsets per gpu.lane_id) count the same bytes:
// RUN: xe-opt %s --xe-gemm-to-xegpu --xegpu-simt-distribute --xe-kernel-report -o %t 2>&1 | FileCheck %s --check-prefix=SIMT

// axpby on 37x64 f16: 5 work-groups of 8 rows = 40 rows of 2D blocks, clipped to the 37 in bounds:
// x and y read 37 x 64 x 2 = 4,736 B each, y written 4,736 B; 14,208 B / 2000 GB/s = 0.0071 us
// CHECK-LABEL: kernel @axpby_0 (vc mode)
// CHECK:         global memory, one launch of 5 work-group(s) x 2 subgroup(s) (grid 1x5x1 from gpu.launch_func):
// CHECK-NEXT:      accessed: 14,208 B (read 9,472, write 4,736) -- {{.*}}; exact
// CHECK-NEXT:      HBM bytes: 14,208 (read 9,472, write 4,736) -> bandwidth bound 0.007 us at 2000 GB/s sustained (2 stack(s) x 1000 GB/s) [pvc]; 0.004 us at the 3276.8 GB/s peak
// the memory-bound kernel's model terms use the same bytes
// CHECK:           terms: {{.*}} HBM 0.007 us, L2 0.002 us
// BMG-LABEL: kernel @axpby_0 (vc mode)
// BMG:           HBM bytes: 14,208 (read 9,472, write 4,736) -> bandwidth bound 0.039 us at 365 GB/s sustained (1 stack(s) x 365 GB/s) [bmg]; 0.031 us at the 456 GB/s peak

// add on 100x70 f32 (pitch 280 B: scattered rows of 16 lanes, masked past column 70 and row 100):
// 2 x 28,000 B read, 28,000 B written; 84,000 B / 2000 GB/s = 0.042 us
// SIMT-LABEL: kernel @add_0 (simt mode)
// SIMT:          accessed: 84,000 B (read 56,000, write 28,000) -- {{.*}}; exact
// SIMT-LABEL: kernel @row_sum_0 (simt mode)
// SIMT:          accessed: 264,000 B (read 260,000, write 4,000) -- {{.*}}; exact
// CHECK-LABEL: kernel @add_0 (vc mode)
// CHECK:           accessed: 84,000 B (read 56,000, write 28,000) -- {{.*}}; exact
// CHECK-NEXT:      HBM bytes: 84,000 (read 56,000, write 28,000) -> bandwidth bound 0.042 us at 2000 GB/s

// row sum of 1000x64 f32: the input read once (256,000 B), the 1000-element output read (init) and
// written (4,000 B each); 264,000 B / 2000 GB/s = 0.132 us
// CHECK-LABEL: kernel @row_sum_0 (vc mode)
// CHECK:           global memory, one launch of 125 work-group(s) x 1 subgroup(s) (grid 1x125x1 from gpu.launch_func):
// CHECK-NEXT:      accessed: 264,000 B (read 260,000, write 4,000) -- {{.*}}; exact
// CHECK-NEXT:      HBM bytes: 264,000 (read 260,000, write 4,000) -> bandwidth bound 0.132 us at 2000 GB/s

// dynamic shapes: the grid is a runtime value and the bounds unknown, so one work-group's whole
// blocks are counted (8 subgroups x 32x16 f32 from A and B, the same to C) and called an upper bound
// CHECK-LABEL: kernel @add_dyn_0 (vc mode)
// CHECK:         global memory, one work-group of 8 subgroup(s) only (the gpu.launch_func grid is not constant):
// CHECK-NEXT:      accessed: 49,152 B (read 32,768, write 16,384) -- {{.*}}; an upper bound: dynamic memref shape: whole blocks counted

// GEMM 256^3 bf16 (32x64 work-group tiles, 4x8 grid, 8 subgroups with 8x32 C tiles, K step 32 = 8 steps):
// A: 256 subgroups x 8 steps x 8x32 bf16 (512 B) = 1,048,576; B: 256 x 8 x 32x32 bf16 (2048 B) = 4,194,304;
// C read and written once: 262,144 each. Prefetches: 768 B per subgroup per K step, 8 steps in bounds
// (the 3 steps ahead past K = 256 are clipped): 1,572,864. HBM: A + B + C read 524,288, C written 262,144;
// 786,432 B / 2000 GB/s = 0.393 us. The model is the planner's (xe.model, the same numbers as
// --xe-print-plan): HBM = A + B + C read and written once = 0.393 us; L2 = each work-group's A and B
// panels once (32 x (32x256 + 256x64) x 2 B) + C traffic = 524,288 B = 0.262 us; latency = 8 K steps x
// 1000 clk / (prefetch distance 3 + 1) + 1000 clk = 3000 clk at 1.6 GHz = 1.875 us.
// CHECK-LABEL: kernel @gemm_0 (vc mode)
// CHECK:         global memory, one launch of 32 work-group(s) x 8 subgroup(s) (grid 4x8x1 from gpu.launch_func):
// CHECK-NEXT:      accessed: 5,767,168 B (read 5,505,024, write 262,144; prefetched 1,572,864) -- {{.*}}; exact
// CHECK-NEXT:      HBM bytes: 786,432 (read 524,288, write 262,144) -> bandwidth bound 0.393 us at 2000 GB/s
// CHECK-NEXT:      (each argument byte counted once per direction; re-reads of 4,980,736 B assumed to hit L2)
// CHECK-NEXT:    model: predicted 1.875 us, 17.90 TFLOP/s, bound: latency
// CHECK-NEXT:      terms: compute 0.251 us (XMX 0.246 us + vector 0.005 us), HBM 0.393 us, L2 0.262 us, latency 1.875 us
// CHECK:           inputs: the planner's model (xe.model, the numbers --xe-print-plan shows)

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @axpby(%x: memref<37x64xf16>, %y: memref<37x64xf16>, %alpha: f16, %beta: f16) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<37x64xf16>) outs(%y : memref<37x64xf16>) {
  ^bb0(%a: f16, %b: f16):
    %0 = arith.mulf %alpha, %a : f16
    %1 = arith.mulf %beta, %b : f16
    %2 = arith.addf %0, %1 : f16
    linalg.yield %2 : f16
  }
  return
}

func.func @add(%A: memref<100x70xf32>, %B: memref<100x70xf32>, %C: memref<100x70xf32>) {
  linalg.add ins(%A, %B : memref<100x70xf32>, memref<100x70xf32>) outs(%C : memref<100x70xf32>)
  return
}

func.func @row_sum(%A: memref<1000x64xf32>, %O: memref<1000xf32>) {
  linalg.reduce ins(%A : memref<1000x64xf32>) outs(%O : memref<1000xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

func.func @add_dyn(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  linalg.add ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  return
}

func.func @gemm(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}
