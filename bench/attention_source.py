"""Scaled dot-product attention as a framework lowers it to upstream linalg on tensors: the
programs the attention tests and bench/llm_kernels.py lower (docs/attention.md). Contractions are
linalg.generic (3D and 4D alike), the mask linalg.index + arith.cmpi + arith.select to -inf."""


def attention_source(batch=(2,), lq=64, lk=64, d=64, elt="f16", causal=False, scale=None, out=None,
                     transpose_op=False, mask=None) -> str:
    """@attention(Q, K, V) -> O on tensors: batch dims `batch` ((B*H,) or (B, H)), Lq x d queries, Lk x d
    keys and values of `elt`; optional scale and causal mask (one element-wise generic; `causal=True` the
    top-left one, column > row to -inf, `causal="bottom-right"` column > row + Lk - Lq), P rounded to
    `elt`, O in f32 or `out`. `transpose_op`: K^T by linalg.transpose and a plain contraction. `mask`:
    an additive mask argument %M of that element type, "full" ([batch.., Lq, Lk]) or "shared" ([Lq, Lk])."""
    r = len(batch) + 2
    dims = [f"d{i}" for i in range(r + 1)]
    bd = dims[:len(batch)]
    m, n, k = dims[len(batch):len(batch) + 3]

    def amap(*ds):
        return f"affine_map<({', '.join(dims)}) -> ({', '.join(list(bd) + list(ds))})>"
    bs = "x".join(str(b) for b in batch)
    def t(a, b, e):
        return f"tensor<{bs}x{a}x{b}x{e}>"

    ident = f"affine_map<({', '.join(dims[:r])}) -> ({', '.join(dims[:r])})>"
    par = ", ".join(['"parallel"'] * r)
    red = ", ".join(['"parallel"'] * r + ['"reduction"'])
    out = out or "f32"
    mask_t = None if mask is None else t(lq, lk, "f32") if mask == "full" else f"tensor<{lq}x{lk}xf32>"
    margs = f", %M: {mask_t}" if mask else ""
    L = [f"func.func @attention(%Q: {t(lq, d, elt)}, %K: {t(lk, d, elt)}, %V: {t(lk, d, elt)}{margs}) -> "
         f"{t(lq, d, out)} {{",
         "  %z = arith.constant 0.0 : f32", "  %ninf = arith.constant 0xFF800000 : f32"]
    w = L.append

    def contraction(name, a, b, at, bt, ct, maps, res):
        w(f"  %{name}e = tensor.empty() : {ct}")
        w(f"  %{name}f = linalg.fill ins(%z : f32) outs(%{name}e : {ct}) -> {ct}")
        w(f"  %{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{red}]}} "
          f"ins({a}, {b} : {at}, {bt}) outs(%{name}f : {ct}) {{")
        w(f"  ^bb0(%x: {elt}, %y: {elt}, %acc: f32):")
        w(f"    %{name}xe = arith.extf %x : {elt} to f32")
        w(f"    %{name}ye = arith.extf %y : {elt} to f32")
        w(f"    %{name}mul = arith.mulf %{name}xe, %{name}ye : f32")
        w(f"    %{name}add = arith.addf %acc, %{name}mul : f32")
        w(f"    linalg.yield %{name}add : f32")
        w(f"  }} -> {ct}")

    def ew(name, src, st, dt, body, res_elt, src_elt="f32"):
        w(f"  %{name}e = tensor.empty() : {dt}")
        w(f"  %{name} = linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = [{par}]}} "
          f"ins({src} : {st}) outs(%{name}e : {dt}) {{")
        w(f"  ^bb0(%x: {src_elt}, %out_: {res_elt}):")
        for line in body:
            w("    " + line)
        w(f"  }} -> {dt}")

    st = t(lq, lk, "f32")
    if transpose_op:
        w(f"  %kte = tensor.empty() : {t(d, lk, elt)}")
        perm = ", ".join(str(i) for i in list(range(len(batch))) + [r - 1, r - 2])
        w(f"  %kt = linalg.transpose ins(%K : {t(lk, d, elt)}) outs(%kte : {t(d, lk, elt)}) permutation = [{perm}]")
        contraction("s", "%Q", "%kt", t(lq, d, elt), t(d, lk, elt), st, [amap(m, k), amap(k, n), amap(m, n)], "")
    else:
        contraction("s", "%Q", "%K", t(lq, d, elt), t(lk, d, elt), st, [amap(m, k), amap(n, k), amap(m, n)], "")
    cur = "%s"
    if scale is not None or causal:
        body = []
        y = "%x"
        if scale is not None:
            body += [f"%c = arith.constant {scale!r} : f32", "%sy = arith.mulf %x, %c : f32"]
            y = "%sy"
        if causal:
            body += [f"%i = linalg.index {r - 2} : index", f"%j = linalg.index {r - 1} : index"]
            row = "%i"
            if causal == "bottom-right":
                body += [f"%coff = arith.constant {lk - lq} : index", "%ioff = arith.addi %i, %coff : index"]
                row = "%ioff"
            body += [f"%gt = arith.cmpi ugt, %j, {row} : index", f"%msk = arith.select %gt, %ninf, {y} : f32"]
            y = "%msk"
        body.append(f"linalg.yield {y} : f32")
        ew("sm", cur, st, st, body, "f32")
        cur = "%sm"
    if mask:
        mmap = ident if mask == "full" else f"affine_map<({', '.join(dims[:r])}) -> ({', '.join(dims[r - 2:r])})>"
        w(f"  %ame = tensor.empty() : {st}")
        w(f"  %am = linalg.generic {{indexing_maps = [{ident}, {mmap}, {ident}], iterator_types = [{par}]}} "
          f"ins({cur}, %M : {st}, {mask_t}) outs(%ame : {st}) {{")
        w("  ^bb0(%x: f32, %mv: f32, %out_: f32):")
        w("    %amr = arith.addf %x, %mv : f32")
        w("    linalg.yield %amr : f32")
        w(f"  }} -> {st}")
        cur = "%am"
    w(f"  %pe = tensor.empty() : {st}")
    w(f"  %p = linalg.softmax dimension({r - 1}) ins({cur} : {st}) outs(%pe : {st}) -> {st}")
    ew("ph", "%p", st, t(lq, lk, elt), ["%pr = arith.truncf %x : f32 to " + elt, f"linalg.yield %pr : {elt}"], elt)
    contraction("o", "%ph", "%V", t(lq, lk, elt), t(lk, d, elt), t(lq, d, "f32"),
                [amap(m, k), amap(k, n), amap(m, n)], "")
    res = "%o"
    if out != "f32":
        ew("oh", "%o", t(lq, d, "f32"), t(lq, d, out), ["%or = arith.truncf %x : f32 to " + out,
                                                         f"linalg.yield %or : {out}"], out)
        res = "%oh"
    w(f"  return {res} : {t(lq, d, out)}")
    w("}")
    return "\n".join(L) + "\n"
