// xe-kernel-report{isa=true}: the kernels compiled by IGC for the arch's device with the metadata's build
// options. A 4096^3 bf16 GEMM asks for the large register file and then does not spill; its K loop keeps
// one hardware DPAS per XeGPU DPAS (32 per iteration), under one non-DPAS instruction per DPAS, and no scratch
// message. Counts of a moving compiler
// are not pinned (docs/igc.md).
// REQUIRES: igc
// RUN: xe-opt %s --xe-gemm-to-xegpu --xe-kernel-report=isa=true -o /dev/null 2>&1 | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-xegpu=arch=bmg --xe-kernel-report='arch=bmg isa=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BMG
// RUN: xe-opt %s --xe-gemm-to-xegpu --xe-kernel-report='isa=true json=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// CHECK-LABEL: kernel @gemm_0 (vc mode)
// CHECK:         IGC {{[0-9.]+}}{{.*}} for pvc (-ze-opt-large-register-file -igc_opts 'AllowPrefetchDecomposeWithHoisting=1'): SIMD16, large GRF mode (256 GRFs), spill 0 B
// CHECK-NEXT:      ISA: {{[0-9]+}} instructions, DPAS 32, 2D block loads {{[0-9]+}}, stores {{[0-9]+}}, prefetches {{[0-9]+}}, scattered messages {{[0-9]+}}, scratch messages 0
// CHECK-NEXT:      ISA K loop (one iteration): {{[0-9]+}} instructions, DPAS 32, non-DPAS per DPAS {{0\.[0-9]+}}, block loads 3, prefetches 2, scratch messages 0
// CHECK:         assumed: issue: IGC's K loop: {{[0-9]+}} instructions per iteration (1 K step(s)), 128 iterations

// BMG:         IGC {{.*}} for bmg (-ze-opt-large-register-file -igc_opts 'AllowPrefetchDecomposeWithHoisting=1'): SIMD16, large GRF mode (256 GRFs), spill 0 B
// BMG:         ISA K loop (one iteration): {{[0-9]+}} instructions, DPAS 32,

// JSON:        "isa": {
// JSON-DAG:      "build_options": "-ze-opt-large-register-file -igc_opts 'AllowPrefetchDecomposeWithHoisting=1'",
// JSON-DAG:      "device": "pvc",
// JSON-DAG:      "grf_count": 256,
// JSON-DAG:      "grf_mode": "large",
// JSON-DAG:      "spill_bytes": 0,

func.func @gemm(%A: memref<4096x4096xbf16>, %B: memref<4096x4096xbf16>, %C: memref<4096x4096xf32>) {
  linalg.matmul ins(%A, %B : memref<4096x4096xbf16>, memref<4096x4096xbf16>) outs(%C : memref<4096x4096xf32>)
  return
}
