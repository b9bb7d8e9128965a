"""The two kernels of a sum to a scalar over a dynamic-shape 1D/2D input (see full_reduce.py):
the grid and the partials buffer come from the runtime sizes (ceil(rows / `rows`) work-groups,
1D: ceil(length / `band`)), and every tile is a whole full-width tile whose out-of-bounds part
reads zeros, which a sum ignores (max/min are static-shape only)."""
from __future__ import annotations


def kernel_text_dynamic(form, plan, kname: str, writer_cls) -> str:
    A, T = form.acc, form.out_elt
    step, two_d = plan.step, len(form.shape) == 2
    src_t = str(form.src.type)
    pt, pv = f"memref<?x{A}>", f"memref<1x?x{A}>"

    def view(wr):
        """(base, base type, sizes operands, row count, row length) of the input as 2D."""
        if two_d:
            names = []
            for i, (nm, ext) in enumerate((("%xm", form.shape[0]), ("%xn", form.shape[1]))):
                if ext is None:
                    wr.w(f"    {nm} = memref.dim %X, {wr.const(i)} : {src_t}")
                names.append(nm if ext is None else wr.const(ext))
            xm, xn = names
            return "%X", src_t, f", [{xm}, {xn}], [{xn}, {wr.const(1)}]", xm, xn
        wr.w(f"    %xn = memref.dim %X, {wr.const(0)} : {src_t}")
        vt = f"memref<1x?x{form.elt}>"
        wr.w(f"    %X2 = memref.expand_shape %X [[0, 1]] output_shape [1, %xn] : {src_t} into {vt}")
        return "%X2", vt, f", [{wr.const(1)}, %xn], [%xn, {wr.const(1)}]", None, "%xn"

    def loop(wr, base, bt, sizes, row, h, lo, hi):
        """Fold the h x step tiles of `base` at row `row`, columns [lo, hi) into a 1x1 value."""
        acc0, res, k, a = wr.fresh("i"), wr.fresh("l"), wr.fresh("k"), wr.fresh("a")
        wr.w(f'    {acc0} = "arith.constant"() {{value = dense<{"0.0" if A != "i32" else "0"}> : {wr.one}, '
             f'wg_map = {wr.wgm.format(1, 1)}}} : () -> {wr.one}')
        wr.w(f"    {res} = scf.for {k} = {lo} to {hi} step {wr.const(step)} iter_args({a} = {acc0}) -> ({wr.one}) {{")
        r = wr.reduce_tile(base, bt, row, k, h, step, "      ", sizes)
        wr.w(f"      scf.yield {wr.combine(a, r, '      ')} : {wr.one}")
        wr.w("    }")
        return res

    s1 = writer_cls(form, plan)
    s1.header(f"{kname}_partials", f"%X: {src_t}, %P: {pt}", 16)
    base, bt, sizes, _, xn = view(s1)
    zero = s1.const(0)
    s1.w("    %bid = gpu.block_id y")
    if two_d:
        s1.w(f"    %row = arith.muli %bid, {s1.const(plan.rows)} : index")
        acc = loop(s1, base, bt, sizes, "%row", plan.rows, zero, xn)
    else:
        s1.w(f"    %col = arith.muli %bid, {s1.const(plan.band)} : index")
        s1.w(f"    %cend = arith.addi %col, {s1.const(plan.band)} : index")
        acc = loop(s1, base, bt, sizes, zero, 1, "%col", "%cend")
    s1.w(f"    %np = memref.dim %P, {zero} : {pt}")
    s1.w(f"    %P2 = memref.expand_shape %P [[0, 1]] output_shape [1, %np] : {pt} into {pv}")
    tt = s1.tile_t(1, 1, A)
    s1.w(f"    %pt = xetile.init_tile %P2[{zero}, %bid], [{s1.const(1)}, %np], [%np, {s1.const(1)}] : {pv} -> {tt}")
    s1.w(f"    xetile.store_tile {acc}, %pt : {s1.one}, {tt}")
    s1.w("    gpu.return")
    s1.w("  }")

    s2 = writer_cls(form, plan)
    ot = f"memref<1x1x{T}>"
    s2.header(f"{kname}_final", f"%X: {src_t}, %P: {pt}, %O2: {ot}", 16)
    zero = s2.const(0)
    s2.w(f"    %np = memref.dim %P, {zero} : {pt}")
    s2.w(f"    %P2 = memref.expand_shape %P [[0, 1]] output_shape [1, %np] : {pt} into {pv}")
    acc = loop(s2, "%P2", pv, f", [{s2.const(1)}, %np], [%np, {s2.const(1)}]", zero, 1, zero, "%np")
    s2.fold_into_output(acc, zero)
    return "\n".join(s1.L) + "\n" + "\n".join(s2.L)
