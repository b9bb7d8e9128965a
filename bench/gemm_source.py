"""The bf16 GEMM the benchmarks lower: `gemm_source(M, N, K)` is a linalg.matmul function @gemm
(bf16 inputs, f32 accumulator) on memrefs, as in examples/gemm_bf16.mlir."""

SRC = """\
func.func @gemm(%A: memref<{M}x{K}xbf16>, %B: memref<{K}x{N}xbf16>, %C: memref<{M}x{N}xf32>) {{
  linalg.matmul ins(%A, %B : memref<{M}x{K}xbf16>, memref<{K}x{N}xbf16>) outs(%C : memref<{M}x{N}xf32>)
  return
}}
"""


def gemm_source(M: int, N: int, K: int) -> str:
    return SRC.format(M=M, N=N, K=K)
