// What xe-run and xe-opt tell a first-time user (issue 31 point 10):
// * a linalg program run without --pipeline: the simulator's error names the pipeline;
// * --draw says what it wrote; with nothing to draw it names xe-run's spelling of the pipeline;
// * xe-opt's spellings on xe-run (--xe-draw, a pass flag) get xe-run's;
// * --xe-kernel-report on linalg input says there are no kernels yet and names the pipeline;
// * --backend=both --check: each line says which results it compares (separate test below, needs OpenCL).
// RUN: not xe-run %s --check 2>&1 | FileCheck %s --check-prefix=NOPIPE
// RUN: rm -rf %t.pics && xe-run %s --pipeline=xe-gemm-to-xegpu --draw=%t.pics 2>&1 | FileCheck %s --check-prefix=DRAW
// RUN: not xe-run %s --draw=%t.none 2>&1 | FileCheck %s --check-prefix=NODRAW
// RUN: not xe-run %s --xe-draw=%t.pics 2>&1 | FileCheck %s --check-prefix=XEDRAW
// RUN: not xe-run %s --xe-gemm-to-xegpu=arch=bmg 2>&1 | FileCheck %s --check-prefix=PASSFLAG
// RUN: xe-opt %s --xe-kernel-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOKERNELS
// A planner error names the pass options a CLI user has (there is no sg-data option):
// RUN: not xe-opt %s --convert-linalg-to-xetile=sg-layout=3x4 2>&1 | FileCheck %s --check-prefix=SGLAYOUT

// NOPIPE:   first-hour-hints.mlir:{{[0-9]+}}:3: error: simulator: unsupported operation 'linalg.matmul'; {{.*}}lower the program first, e.g. xe-run FILE --pipeline=xe-gemm-to-xegpu

// DRAW:     xe-run: --draw wrote {{.*}}gemm_0-workgroup.svg, {{.*}}gemm_0-subgroup.svg, {{.*}}gemm_0-workitem.svg

// NODRAW:   xe-run: error: --draw: nothing to draw: the IR holds no gpu.func kernel; run a pipeline that lowers a GEMM to XeGPU (e.g. --pipeline=xe-gemm-to-xegpu)

// XEDRAW:   xe-run: error: unrecognized arguments: --xe-draw={{.*}}; did you mean --draw={{.*}} (xe-opt's spelling is --xe-draw)

// PASSFLAG: xe-run: error: unrecognized arguments: --xe-gemm-to-xegpu=arch=bmg; passes run with --pipeline, e.g. '--pipeline=xe-gemm-to-xegpu{arch=bmg}'

// SGLAYOUT: error: GEMM plan: override sg_layout [3, 4] does not divide wg_tile [{{[0-9]+}}, {{[0-9]+}}]; choose a layout that divides it (pass option sg-layout=RxC) or a work-group tile it divides (wg-tile=MxN); from Python, overrides may also give sg_data

// NOKERNELS: no kernels (gpu.func) in the module yet: lower it first, e.g. xe-opt F --xe-gemm-to-xegpu --xe-kernel-report

func.func @gemm(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  return
}
