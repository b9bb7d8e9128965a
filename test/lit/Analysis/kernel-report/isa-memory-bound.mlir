// xe-kernel-report{isa=true} on a memory-bound kernel: no K loop (no DPAS), so the report shows the loop
// with the most memory messages -- here the row-reduction loop streaming A with 2D block loads -- and its
// instructions per memory message (docs/igc.md). Counts of a moving compiler are not pinned.
// REQUIRES: igc
// RUN: xe-opt %s --xe-gemm-to-xegpu --xe-kernel-report=isa=true -o /dev/null 2>&1 | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-xegpu --xe-kernel-report='isa=true json=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// CHECK:      ISA: {{[0-9]+}} instructions, DPAS 0,
// CHECK-NEXT: ISA hot loop (one iteration; no DPAS): {{[0-9]+}} instructions, block loads {{[1-9][0-9]*}}, stores 0, prefetches {{[0-9]+}}, scattered messages {{[0-9]+}}, scratch messages 0, {{[0-9.]+}} instructions per memory message

// JSON:      "isa": {
// JSON:        "k_loop": null,
// JSON-NEXT:   "hot_loop": {
// JSON:          "instructions_per_message": {{[0-9.]+}}

func.func @rsum(%A: memref<256x65536xf32>, %R: memref<256xf32>) {
  linalg.reduce ins(%A : memref<256x65536xf32>) outs(%R : memref<256xf32>) dimensions = [1]
    (%a: f32, %r: f32) {
      %s = arith.addf %a, %r : f32
      linalg.yield %s : f32
    }
  return
}
