// --emit-irdl prints the IRDL of both dialects; upstream mlir-opt loads it and reads our IR in
// generic form.
// RUN: xe-opt --emit-irdl | FileCheck %s --check-prefix=IRDL
// RUN: xe-opt --emit-irdl -o %t.irdl
// RUN: xe-opt %s --mlir-print-op-generic > %t.generic.mlir
// RUN: %mlir-opt --irdl-file=%t.irdl %t.generic.mlir | FileCheck %s
// REQUIRES: mlir-opt

// IRDL: irdl.dialect @xetile {
// IRDL: irdl.operation @init_tile {
// IRDL: irdl.dialect @xegpu {
// CHECK: "xetile.init_tile"
// CHECK: "xetile.load_tile"
func.func @f(%A: memref<128x128xbf16>) {
  %t = xetile.init_tile %A[0, 0] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16>
  %v = xetile.load_tile %t : !xetile.tile<8x16xbf16> -> vector<8x16xbf16>
  return
}
