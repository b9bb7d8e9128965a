// xe-kernel-report for arch=bmg (Arc B580): the 1024^3 bf16 GEMM lowered for bmg (256x128 tiles
// of 16 subgroups, 32 work-groups). The pipeline records xe.arch = "bmg" on the gpu.module, so the
// report needs no arch= of its own; its prediction is the planner's model (xe.model), the same line
// --xe-print-plan prints. Hand-computed model lines:
//   occupancy: 32 work-groups on 20 Xe-cores; large GRF gives 8 x 4 = 32 threads = 2 WG/Xe-core,
//     ceil(32 / 20) = 2 per core, wave efficiency 32 / 40 = 0.80;
//   XMX: 2 WG x (32 DPAS x 2x8x16x16 ops x 32 K steps x 16 subgroups) / (2048 ops/clk x 2.67 GHz
//     x 0.65) = 37.762 us; vector: 2 WG x 16 subgroups x 32x64 C elements / (256/clk x 2.67 GHz)
//     = 0.096 us; compute 37.858 us (bound) = 2 x 1024^3 / 37.858 us = 56.72 TFLOP/s;
//   HBM: A + B fit in the 18 MB L2: 2 + 2 MiB read once, C 4 MiB read and written = 12582912 B
//     / 365 GB/s = 34.474 us;
//   L2: each work-group's A panel (256x1024) and B panel (1024x128) once, 32 x 786432 B, + C traffic
//     8 MiB = 33554432 B / 1460 GB/s = 22.982 us;
//   latency: 32 K steps x 1000 clk / (prefetch distance 3 + 1) + 1000 clk = 9000 clk = 3.371 us.
// The same kernel lowered for pvc reports 128 Xe-cores (second RUN); an explicit arch= that differs
// from the recorded one wins with a remark, and then predicts from the IR counts (third RUN).
// RUN: xe-opt %s --xe-gemm-to-xegpu=arch=bmg --xe-print-plan --xe-kernel-report -o /dev/null 2>&1 | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-xegpu --xe-kernel-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=PVC
// RUN: xe-opt %s --xe-gemm-to-xegpu=arch=bmg --xe-kernel-report=arch=pvc -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVERRIDE
// RUN: not xe-opt %s --xe-kernel-report=arch=xe9 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK:       GEMM plan [bmg]
// CHECK:         model [bmg]      : predicted 37.858 us, 56.72 TFLOP/s, bound: compute
// CHECK-LABEL: kernel @gemm_0 (vc mode) [bmg]
// CHECK:         registers (estimate): {{[0-9]+}} GRFs x 64 B = {{[0-9]+}} B per subgroup -- needs large-GRF mode
// CHECK:         model: predicted 37.858 us, 56.72 TFLOP/s, bound: compute
// CHECK-NEXT:      terms: compute 37.858 us (XMX 37.762 us + vector 0.096 us), HBM 34.474 us, L2 22.982 us, latency 3.371 us
// CHECK-NEXT:      occupancy: 20 Xe-cores, 2 WG/Xe-core (large GRF), 1 wave(s), wave efficiency 0.80, XMX utilization 1.00
// CHECK-NEXT:      constant xe_cores = 20 Xe-cores -- [ARK] 20 per device / 1 stacks x 1 used
// CHECK-NEXT:      constant clock = 2670 MHz -- [ARK] B580 graphics clock
// CHECK-NEXT:      constant xmx_ops_per_clk[bf16] = 2048 ops/clk/Xe-core -- [XE2] 2048-bit XMX
// CHECK:           constant threads_per_core[large GRF] = 32 threads -- [NEO]
// CHECK:           constant hbm_gbs_per_stack = 365 GB/s -- [MODEL] assumed 0.8 x 456 GB/s
// CHECK:           constant xmx_efficiency = 0.65 x peak -- [MODEL] PVC's calibrated value, not calibrated on BMG
// CHECK:           inputs: the planner's model (xe.model, the numbers --xe-print-plan shows)

// OVERRIDE:    kernel @gemm_0 (vc mode) [pvc]
// OVERRIDE:      inputs: the IR counts (the planner's xe.model is for bmg, this report for pvc)
// OVERRIDE:    remark: xe-kernel-report: arch=pvc overrides the module's recorded xe.arch = "bmg"

// PVC:         occupancy: 128 Xe-cores
// PVC:         constant xmx_ops_per_clk[bf16] = 4096 ops/clk/Xe-core -- [ARK] Max 1550

// BAD: error: unknown architecture 'xe9' (known: bmg, pvc)

func.func @gemm(%A: memref<1024x1024xbf16>, %B: memref<1024x1024xbf16>, %C: memref<1024x1024xf32>) {
  linalg.matmul ins(%A, %B : memref<1024x1024xbf16>, memref<1024x1024xbf16>) outs(%C : memref<1024x1024xf32>)
  return
}
