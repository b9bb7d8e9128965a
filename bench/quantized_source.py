"""Weight-only quantized GEMMs as a framework writes them in upstream linalg (docs/quantized-gemm.md): a
linalg.generic dequantizing integer weights (per-group scales of G rows of K, f16) into a temporary that
is linalg.matmul's B. The weights are K x N, or N x K (`layout="nk"`: PyTorch's nn.Linear [out, in], the
matmul reading B through a transposing indexing map). The programs bench/llm_kernels.py lowers."""


def quantized_gemm_source(m, n, k, wtype="i8", group=128, elt="f16", acc="f32", layout="kn") -> str:
    """@qgemm(A: m x k `elt`, W: k x n `wtype` (n x k for layout "nk"), S: k/group x n `elt` (n x k/group),
    C: m x n `acc`) on memrefs."""
    g = k // group
    if layout == "nk":
        w, s, grp, b_map = f"{n}x{k}", f"{n}x{g}", f"(d0, d1 floordiv {group})", "(d1, d2)"
    else:
        w, s, grp, b_map = f"{k}x{n}", f"{g}x{n}", f"(d0 floordiv {group}, d1)", "(d2, d1)"
    return f"""#id = affine_map<(d0, d1) -> (d0, d1)>
#grp = affine_map<(d0, d1) -> {grp}>
#ma = affine_map<(d0, d1, d2) -> (d0, d2)>
#mb = affine_map<(d0, d1, d2) -> {b_map}>
#mc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @qgemm(%A: memref<{m}x{k}x{elt}>, %W: memref<{w}x{wtype}>, %S: memref<{s}x{elt}>,
                 %C: memref<{m}x{n}x{acc}>) {{
  %B = memref.alloc() : memref<{w}x{elt}>
  linalg.generic {{indexing_maps = [#id, #grp, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%W, %S : memref<{w}x{wtype}>, memref<{s}x{elt}>) outs(%B : memref<{w}x{elt}>) {{
  ^bb0(%w: {wtype}, %s: {elt}, %o: {elt}):
    %f = arith.sitofp %w : {wtype} to {elt}
    %r = arith.mulf %f, %s : {elt}
    linalg.yield %r : {elt}
  }}
  linalg.matmul indexing_maps = [#ma, #mb, #mc] ins(%A, %B : memref<{m}x{k}x{elt}>, memref<{w}x{elt}>)
      outs(%C : memref<{m}x{n}x{acc}>)
  memref.dealloc %B : memref<{w}x{elt}>
  return
}}
"""


def quantized_gemv_source(n, k, wtype="i8", group=None, elt="f16", acc=None, form="matvec", zero_point=False) -> str:
    """@qgemv: y[n] (`acc`, default `elt`) = W x for a `form` "matvec" (W stored N x K, a framework's linear
    layer weight, i4 packed along K) or x W for "vecmat" (W stored K x N); W's `wtype` weights dequantized to
    `elt` with scales per output (group None) or per `group` of K, and an optional i8 zero point subtracted
    after the conversion."""
    acc = acc or elt
    nk = form == "matvec"
    wshape = f"{n}x{k}" if nk else f"{k}x{n}"
    if group is None:
        pmap, pshape = ("(d0)", f"{n}") if nk else ("(d1)", f"{n}")
    else:
        pmap = f"(d0, d1 floordiv {group})" if nk else f"(d0 floordiv {group}, d1)"
        pshape = f"{n}x{k // group}" if nk else f"{k // group}x{n}"
    zp_arg = f", %Z: memref<{pshape}xi8>" if zero_point else ""
    zp_map = ", #p" if zero_point else ""
    zp_blk = ", %z: i8" if zero_point else ""
    conv = (f"%e = arith.extsi %w : {wtype} to i8\n    %f = arith.sitofp %e : i8 to {elt}" if wtype == "i4" else
            f"%f = arith.sitofp %w : {wtype} to {elt}")
    body = (f"{conv}\n    %zf = arith.sitofp %z : i8 to {elt}\n    %d = arith.subf %f, %zf : {elt}\n"
            f"    %r = arith.mulf %d, %s : {elt}" if zero_point else f"{conv}\n    %r = arith.mulf %f, %s : {elt}")
    ins = f"%W, %S{', %Z' if zero_point else ''} : memref<{wshape}x{wtype}>, memref<{pshape}x{elt}>" + (
        f", memref<{pshape}xi8>" if zero_point else "")
    op = (f"linalg.matvec ins(%B, %x : memref<{wshape}x{elt}>, memref<{k}x{elt}>) outs(%y : memref<{n}x{acc}>)"
          if nk else
          f"linalg.vecmat ins(%x, %B : memref<{k}x{elt}>, memref<{wshape}x{elt}>) outs(%y : memref<{n}x{acc}>)")
    return f"""#id = affine_map<(d0, d1) -> (d0, d1)>
#p = affine_map<(d0, d1) -> {pmap}>
func.func @qgemv(%W: memref<{wshape}x{wtype}>, %S: memref<{pshape}x{elt}>{zp_arg}, %x: memref<{k}x{elt}>,
                 %y: memref<{n}x{acc}>) {{
  %B = memref.alloc() : memref<{wshape}x{elt}>
  linalg.generic {{indexing_maps = [#id, #p{zp_map}, #id], iterator_types = ["parallel", "parallel"]}}
      ins({ins}) outs(%B : memref<{wshape}x{elt}>) {{
  ^bb0(%w: {wtype}, %s: {elt}{zp_blk}, %o: {elt}):
    {body}
    linalg.yield %r : {elt}
  }}
  {op}
  memref.dealloc %B : memref<{wshape}x{elt}>
  return
}}
"""
