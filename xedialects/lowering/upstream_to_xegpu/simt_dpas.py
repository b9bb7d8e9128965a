"""Our SIMT `xegpu.dpas` from lane-level operands in upstream's lane order: A reordered across lanes into
our packed order (or the defining load's own fragment), B and the accumulator shape-cast to our fragments.

Shared by the lane-level dpas (`simt_ops`) and `xevm.mma` (`xevm_ops`) translations.
"""
from __future__ import annotations

from .op_attrs import ImportOpError
from .types import element_bits, vector_parts, vector_text


def cast(src: str, src_t: str, dst_t: str, tr, lines) -> str:
    if src_t == dst_t:
        return src
    n = tr.fresh()
    lines.append(f"{n} = vector.shape_cast {src} : {src_t} to {dst_t}")
    return n


def reorder_a(name: str, t: str, tr, lines) -> tuple[str, str]:
    """A in upstream's lane order (lane c holds g consecutive columns g c .. g c + g - 1 of every row,
    rows in order: g = 1 for 16-bit A, 2 for 8-bit) -> our packed order (wi_layout [2, 8], wi_data
    [1, p], p = 32 / bits = 2 g: lane l holds rows l/8 + 2j, columns p (l%8) + q). Element (j, q) of
    lane l comes from lane 2 (l%8) + q / g, slot (l/8 + 2j) g + q % g."""
    shape, elt = vector_parts(t)
    bits = element_bits(elt)
    if len(shape) != 1 or bits not in (8, 16):
        raise ImportOpError(f"lane-level dpas A {t} not loaded by load_nd: only 8- and 16-bit A is reordered to our "
                            "SIMT dpas order")
    g = 16 // bits
    p = 2 * g
    m = shape[0] // g
    if m % 2:
        raise ImportOpError(f"lane-level dpas A {t}: an odd number of rows")
    f = tr.fresh
    lane, c8, c1, cp, w = f(), f(), f(), f(), f()
    ly, lx, odd, base = f(), f(), f(), f()
    lines += [f"{lane} = gpu.lane_id", f"{c8} = arith.constant 8 : index", f"{c1} = arith.constant 1 : index",
              f"{cp} = arith.constant 2 : index", f"{w} = arith.constant 16 : i32",
              f"{ly} = arith.divui {lane}, {c8} : index", f"{lx} = arith.remui {lane}, {c8} : index",
              f"{odd} = arith.cmpi eq, {ly}, {c1} : index", f"{base} = arith.muli {lx}, {cp} : index"]
    src = {}
    for d in sorted({q // g for q in range(p)}):
        s_idx, s32 = base, f()
        if d:
            c, s_idx = f(), f()
            lines += [f"{c} = arith.constant {d} : index", f"{s_idx} = arith.addi {base}, {c} : index"]
        lines.append(f"{s32} = arith.index_cast {s_idx} : index to i32")
        src[d] = s32
    elems = []
    for j in range(m // 2):
        for q in range(p):
            picked = []
            for r in (2 * j, 2 * j + 1):
                e, sh, ok = f(), f(), f()
                lines += [f"{e} = vector.extract {name}[{r * g + q % g}] : {elt} from {t}",
                          f"{sh}, {ok} = gpu.shuffle idx {e}, {src[q // g]}, {w} : {elt}"]
                picked.append(sh)
            sel = f()
            lines.append(f"{sel} = arith.select {odd}, {picked[1]}, {picked[0]} : {elt}")
            elems.append(sel)
    out, out_t = f(), vector_text([m // 2, p], elt)
    lines.append(f"{out} = vector.from_elements {', '.join(elems)} : {out_t}")
    return out, out_t


def packed_a(an: str, a_t: str, tr, lines) -> tuple[str, str]:
    """(name, type) of our SIMT dpas A for an 8- or 16-bit A in upstream's lane order: the defining
    load's own fragment, else reordered once per value and block (reorder_a)."""
    if (tr.scope, an) in tr.loaded:
        return tr.loaded[(tr.scope, an)]
    if ("a", tr.block, an) not in tr.vnni_done:
        tr.vnni_done[("a", tr.block, an)] = reorder_a(an, a_t, tr, lines)
    return tr.vnni_done[("a", tr.block, an)]


def emit_dpas(tr, lines, a_ours, b, acc, res: str, res_t: str) -> None:
    """Our SIMT `xegpu.dpas` of A already in our order (`a_ours`: name, type) and B, accumulator
    (name, upstream 1D type; acc may be None) in upstream's lane order; its result shape-cast to
    `res` of upstream's `res_t`."""
    a_name, a_t = a_ours
    (kb,), eb = vector_parts(b[1])
    (mc,), er = vector_parts(res_t)
    v = max(1, 32 // element_bits(eb))
    b_t = vector_text([kb // v, 1, v] if v > 1 else [kb, 1], eb)
    b_name = cast(b[0], b[1], b_t, tr, lines)
    c_t = vector_text([mc, 1], er)
    names, types = [a_name, b_name], [a_t, b_t]
    if acc is not None:
        names.append(cast(acc[0], acc[1], c_t, tr, lines))
        types.append(c_t)
    out = tr.fresh()
    lines.append(f"{out} = xegpu.dpas {', '.join(names)} : {', '.join(types)} -> {c_t}")
    lines.append(f"{res} = vector.shape_cast {out} : {c_t} to {res_t}")
