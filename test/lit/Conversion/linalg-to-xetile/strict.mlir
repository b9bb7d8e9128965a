// With strict=1 a matmul that cannot be lowered is a located error (the pass fails).
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile=strict=1 --verify-diagnostics
// RUN: not xe-opt %s --split-input-file --convert-linalg-to-xetile=strict=1 -o %t 2>&1 | FileCheck %s

// CHECK:      strict.mlir: error: pass 'convert-linalg-to-xetile' failed
// CHECK-NEXT: strict.mlir:[[# @LINE + 3]]:3: error: not lowered to XeTile: unsupported element types f16 x bf16 -> f32
func.func @mixed_types(%A: memref<64x64xf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{not lowered to XeTile: unsupported element types f16 x bf16 -> f32}}
  linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  return
}

// -----
func.func @tensors(%A: tensor<64x64xbf16>, %B: tensor<64x64xbf16>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{operands must be memrefs}}
  %r = linalg.matmul ins(%A, %B : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----
// a supported matmul next to an unsupported one: the pass fails, nothing is half-converted
func.func @two(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>, %D: memref<64x64xf64>) {
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  // expected-error @+1 {{not lowered to XeTile: unsupported element types f64 x f64 -> f64}}
  linalg.matmul ins(%D, %D : memref<64x64xf64>, memref<64x64xf64>) outs(%D : memref<64x64xf64>)
  return
}
