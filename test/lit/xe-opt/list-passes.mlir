// --list-passes and --help are generated from the pass registry.
// RUN: xe-opt --list-passes | FileCheck %s
// RUN: xe-opt --help | FileCheck %s --check-prefix=HELP

// CHECK:      Passes:
// CHECK:        convert-linalg-to-xetile  -  {{.+}}
// CHECK-NEXT:       arch=<string>  target architecture, pvc or bmg (default: the module's recorded xe.arch, else pvc)
// CHECK:      Pass pipelines:
// CHECK:      Upstream MLIR passes
// HELP: usage: xe-opt [options] [FILE|-]
// HELP: --split-input-file
// HELP: --verify-diagnostics
// HELP: --pass-pipeline=PIPELINE
// HELP: --convert-linalg-to-xetile
// HELP: arch=<string>
