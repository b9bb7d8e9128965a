// --list-passes and --help are generated from the pass registry.
// RUN: xe-opt --list-passes | FileCheck %s
// RUN: xe-opt --help | FileCheck %s --check-prefix=HELP

// CHECK:      Passes:
// CHECK:        convert-linalg-to-xetile  -  {{.+}}
// CHECK-NEXT:       arch=<string>  target architecture, one of pvc|bmg (default: the module's recorded xe.arch, else pvc)
// A named pipeline lists the options it forwards: type, default, choices, the passes each goes to,
// and what its own text sets (the arch choices come from xedialects.arch's tables).
// CHECK:      Pass pipelines (a pipeline's options, --PIPELINE=opt=v or PIPELINE{opt=v}, go to each of its passes named after '->' and win over what the pipeline sets):
// CHECK:        xe-gemm-to-spirv  -  {{.+}}
// CHECK-NEXT:       = builtin.module(xe-gemm-to-xegpu, convert-xegpu-to-spirv{target=pvc})
// CHECK-NEXT:       arch=<string> (default: the module's recorded xe.arch, else pvc) [pvc|bmg] -> convert-linalg-to-xetile, xetile-wg-to-sg, xetile-blocking, convert-xetile-to-xegpu, convert-xegpu-to-spirv
// CHECK-NEXT:       wg-tile=<string> (default: planner) -> convert-linalg-to-xetile
// CHECK:            vector-ops-only=<bool> (default: false) -> xetile-canonicalization; the pipeline sets vector-ops-only=true for xetile-canonicalization (its run 1 of 2)
// CHECK:            load-blocks=<string> (default: largest) [largest|mma] -> xetile-blocking
// CHECK-NEXT:       target=<string> (default: pvc) [pvc|portable] -> convert-xegpu-to-spirv; the pipeline sets target=pvc for convert-xegpu-to-spirv
// CHECK-NEXT:   xe-gemm-to-spirv-portable  -  {{.+}}
// CHECK:        xe-gemm-to-xegpu  -  {{.+}}
// CHECK-NEXT:       = builtin.module({{.+}})
// CHECK-NEXT:       arch=<string> (default: the module's recorded xe.arch, else pvc) [pvc|bmg] -> convert-linalg-to-xetile, xetile-wg-to-sg, xetile-blocking, convert-xetile-to-xegpu
// CHECK-NOT:        target=
// CHECK:      Upstream MLIR passes
// HELP: usage: xe-opt [options] [FILE|-]
// HELP: --split-input-file
// HELP: --verify-diagnostics
// HELP: --pass-pipeline=PIPELINE
// HELP: --convert-linalg-to-xetile
// HELP: arch=<string>
// HELP: Pass pipelines
// HELP: --xe-gemm-to-spirv-portable
// HELP-NEXT: arch=<string> (default: the module's recorded xe.arch, else pvc) [pvc|bmg] -> convert-linalg-to-xetile,
// HELP: target=<string> (default: pvc) [pvc|portable] -> convert-xegpu-to-spirv; the pipeline sets target=portable for convert-xegpu-to-spirv
