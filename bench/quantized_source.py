"""Weight-only quantized GEMMs as a framework writes them in upstream linalg (docs/quantized-gemm.md): a
linalg.generic dequantizing integer weights (per-group scales of G rows of K, f16) into a temporary that
is linalg.matmul's B. The programs bench/llm_kernels.py lowers."""


def quantized_gemm_source(m, n, k, wtype="i8", group=128, elt="f16", acc="f32") -> str:
    """@qgemm(A: m x k `elt`, W: k x n `wtype`, S: k/group x n `elt`, C: m x n `acc`) on memrefs."""
    g = k // group
    return f"""#id = affine_map<(d0, d1) -> (d0, d1)>
#grp = affine_map<(d0, d1) -> (d0 floordiv {group}, d1)>
func.func @qgemm(%A: memref<{m}x{k}x{elt}>, %W: memref<{k}x{n}x{wtype}>, %S: memref<{g}x{n}x{elt}>,
                 %C: memref<{m}x{n}x{acc}>) {{
  %B = memref.alloc() : memref<{k}x{n}x{elt}>
  linalg.generic {{indexing_maps = [#id, #grp, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%W, %S : memref<{k}x{n}x{wtype}>, memref<{g}x{n}x{elt}>) outs(%B : memref<{k}x{n}x{elt}>) {{
  ^bb0(%w: {wtype}, %s: {elt}, %o: {elt}):
    %f = arith.sitofp %w : {wtype} to {elt}
    %r = arith.mulf %f, %s : {elt}
    linalg.yield %r : {elt}
  }}
  linalg.matmul ins(%A, %B : memref<{m}x{k}x{elt}>, memref<{k}x{n}x{elt}>) outs(%C : memref<{m}x{n}x{acc}>)
  memref.dealloc %B : memref<{k}x{n}x{elt}>
  return
}}
"""
