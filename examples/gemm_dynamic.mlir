// A bf16 GEMM with dynamic shapes: xe-run needs their sizes, e.g.
//   xe-run examples/gemm_dynamic.mlir --pipeline=xe-gemm-to-xegpu --check --dims M=200,N=72,K=96,A=MxK,B=KxN,C=MxN
func.func @gemm(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) {
  linalg.matmul ins(%A, %B : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  return
}
