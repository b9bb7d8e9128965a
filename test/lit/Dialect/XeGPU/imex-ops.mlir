// IMEX's / upstream's XeGPU spellings used in IMEX's XeTile programs: `alloc_nbarrier` with an
// integer literal, `init_nbarrier`, and `compile_hint` without a hint.
// RUN: xe-opt %s | FileCheck %s
// RUN: xe-opt %s | xe-opt | FileCheck %s
// RUN: xe-opt %s --mlir-print-op-generic | xe-opt | FileCheck %s

// CHECK-LABEL: func.func @barriers
func.func @barriers(%n: i8) {
  %c0 = arith.constant 0 : i8
  %c8 = arith.constant 8 : i8
  // CHECK: xegpu.alloc_nbarrier 2
  xegpu.alloc_nbarrier 2
  // CHECK: xegpu.alloc_nbarrier %{{.*}} : i8
  xegpu.alloc_nbarrier %n : i8
  // CHECK: %[[B:.*]] = xegpu.init_nbarrier %{{.*}}, %{{.*}} : i8, i8 -> !xegpu.nbarrier
  %b = xegpu.init_nbarrier %c0, %c8 : i8, i8 -> !xegpu.nbarrier
  // CHECK: xegpu.nbarrier_arrive %[[B]] : !xegpu.nbarrier
  xegpu.nbarrier_arrive %b : !xegpu.nbarrier
  // CHECK: xegpu.nbarrier_wait %[[B]] : !xegpu.nbarrier
  xegpu.nbarrier_wait %b : !xegpu.nbarrier
  // CHECK: xegpu.compile_hint{{ *$}}
  xegpu.compile_hint
  // CHECK: xegpu.compile_hint {hint = "schedule_barrier"}
  xegpu.compile_hint {hint = "schedule_barrier"}
  return
}
