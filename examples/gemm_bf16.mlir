// C += A x B, bf16 inputs with f32 accumulation: the running example of docs/pipeline.md.
// Main job:  xe-run examples/gemm_bf16.mlir --pipeline=xe-gemm-to-xegpu --check
func.func @gemm(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}
