// MLIR's own parser and verifier messages name our types in readable syntax, not the IRDL encoding
// (`!xetile.tile<array<i64: 64, 32>, bf16, unit>`); docs/ir-encoding.md "Readable by default".
// RUN: not xe-opt %s --split-input-file 2>&1 | FileCheck %s

// CHECK-NOT: array<i64
// CHECK: readable-diagnostics.mlir:[[# @LINE + 4]]:27: error: use of value '%t' expects different type than prior uses: '!xetile.tile<64x32xbf16>' vs '!xetile.tile<64x64xbf16, #xetile.tile_attr<order = [0, 1]>>'
// CHECK-NOT: array<i64
func.func @mismatch(%A: memref<64x64xbf16>) {
  %t = xetile.init_tile %A[0, 0] : memref<64x64xbf16> -> !xetile.tile<64x64xbf16, #xetile.tile_attr<order = [0, 1]>>
  %v = xetile.load_tile %t : !xetile.tile<64x32xbf16> -> vector<64x32xbf16>
  return
}

// -----

// CHECK: readable-diagnostics.mlir:[[# @LINE + 5]]:3: error: type of return operand 0 ('!xegpu.tensor_desc<8x16xbf16>') doesn't match function result type ('!xetile.tile<8x16xbf16>') in function @ret
// CHECK-NEXT: note: see current operation: "func.return"(%0) : (!xegpu.tensor_desc<8x16xbf16>) -> ()
// CHECK-NOT: array<i64
func.func @ret(%A: memref<64x64xbf16>) -> !xetile.tile<8x16xbf16> {
  %d = xegpu.create_nd_tdesc %A[0, 0] : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16>
  return %d : !xegpu.tensor_desc<8x16xbf16>
}
