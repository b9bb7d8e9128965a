"""DPAS of the lane-level export: each operand brought from our SIMT operand order (docs/simt.md:
the defining load's order, else packed A / VNNI B / [1, 16] C) into the DPAS register order --
straight from the load's upstream vector when the operand is slot selections of a load -- then
`xegpu.dpas` (bf16 / f16) or `xevm.mma` with tf32 types (LLVM 22's xegpu has no tf32 DPAS)."""
from __future__ import annotations

import numpy as np

from mlir import ir

from ...core.typeinfo import element_bits
from .lane_blocks import load_ids
from .lane_order import LANES, ours_ids, upstream_block_ids, upstream_tf32_a_ids
from .lane_values import from_1d, reorder, require_simt, to_1d, vec_type
from .ops import ExportOpError
from .types import simt_parts, vector_parts


def _operand_ids(v, default):
    """Our SIMT dpas operand order: its defining load_nd's, else `default` (docs/simt.md)."""
    owner = v.owner
    if isinstance(owner, ir.Operation) or hasattr(owner, "name"):
        owner = getattr(owner, "operation", owner)
        if getattr(owner, "name", None) == "xegpu.load_nd":
            parts = simt_parts(str(owner.operands[0].type))
            return load_ids(owner, parts)[0]
    return default


def _slots(v, ex):
    """(load_nd result, slot indices) when `v` is lane-uniform slot selections (`vector.shape_cast`,
    single-source `vector.shuffle`, unit-stride `vector.extract_strided_slice`) of a load_nd result
    exported in this module: every lane holds those slots of its loaded fragment; else None."""
    owner = getattr(v.owner, "operation", v.owner)
    name = getattr(owner, "name", None)
    if v in ex.loads:
        return v, np.arange(ex.loads[v][2].shape[1])
    if name not in ("vector.shape_cast", "vector.shuffle", "vector.extract_strided_slice"):
        return None
    src = owner.operands[0]
    inner = _slots(src, ex)
    if inner is None:
        return None
    load, slots = inner
    if name == "vector.shape_cast":
        return load, slots
    if name == "vector.shuffle":
        if owner.operands[1] != src:
            return None
        mask = list(ir.DenseI64ArrayAttr(owner.attributes["mask"]))
        return load, slots[mask] if all(0 <= i < len(slots) for i in mask) else None
    shape, _ = vector_parts(str(src.type))
    offs = [ir.IntegerAttr(x).value for x in ir.ArrayAttr(owner.attributes["offsets"])]
    sizes = [ir.IntegerAttr(x).value for x in ir.ArrayAttr(owner.attributes["sizes"])]
    strides = [ir.IntegerAttr(x).value for x in ir.ArrayAttr(owner.attributes["strides"])]
    if any(x != 1 for x in strides):
        return None
    grid = slots.reshape(shape)
    box = tuple(slice(o, o + z) for o, z in zip(offs, sizes))
    return load, grid[box].reshape(-1)


def _operand_from_load(v, ex, ours_default, want, elt, lines, op):
    """The DPAS operand `v` straight from its load's upstream vector when `v` is slot selections of
    one (one reorder, often in the lane, instead of one into our order and one out of it); else None.
    `ours_default`: our order of `v` (A-matrix ids), `want`: the DPAS order (A-matrix ids)."""
    traced = _slots(v, ex)
    if traced is None:
        return None
    load, slots = traced
    loaded, up_ids, ours = ex.loads[load]
    held = ours[:, slots]  # load-matrix ids of v's slots, per lane
    if held.shape != ours_default.shape:
        return None
    to_load = {}
    for l in range(LANES):
        for p in range(held.shape[1]):
            to_load[int(ours_default[l, p])] = int(held[l, p])
    try:
        dst = np.vectorize(to_load.__getitem__)(want)
    except KeyError:
        return None
    return reorder(ex, lines, loaded, up_ids, dst, elt, op)


def dpas(op, ex) -> str:
    require_simt(op)
    a, b = op.operands[0], op.operands[1]
    acc = op.operands[2] if len(op.operands) > 2 else None
    (na,), (nb,), (nc,) = ([int(np.prod(vector_parts(str(x.type))[0]))] for x in (a, b, op.result))
    ea, eb = vector_parts(str(a.type))[1], vector_parts(str(b.type))[1]
    er = vector_parts(str(op.result.type))[1]
    bits = element_bits(ea)
    if bits not in (8, 16, 32):
        raise ExportOpError(f"'xegpu.dpas' on {ea} operands is not exported at lane level (8-bit, 16-bit and tf32 "
                            "DPAS only)")
    m = nc
    k = na * LANES // m
    fa, fb = max(1, 32 // bits), max(1, 32 // element_bits(eb))
    a_ours = _operand_ids(a, ours_ids((m, k), (2, 8), (1, fa)))
    b_ours = _operand_ids(b, ours_ids((k, LANES), (1, LANES), (fb, 1), False, 0 if fb > 1 else None, fb))
    c_ids = upstream_block_ids((m, LANES))
    a_up = upstream_tf32_a_ids(m, k) if bits == 32 else upstream_block_ids((m, k), bits)
    b_up = upstream_block_ids((k, LANES))
    lines: list[str] = []
    xa = _operand_from_load(a, ex, a_ours, a_up, ea, lines, op)
    if xa is None:
        x, _ = to_1d(ex.name(a), str(a.type), ea, lines, ex)
        xa = reorder(ex, lines, x, a_ours, a_up, ea, op)
    x, _ = to_1d(ex.name(b), str(b.type), eb, lines, ex)
    xb = reorder(ex, lines, x, b_ours, b_up, eb, op)
    xc = None
    if acc is not None:
        x, _ = to_1d(ex.name(acc), str(acc.type), er, lines, ex)
        xc = reorder(ex, lines, x, _operand_ids(acc, c_ids), c_ids, er, op)
    ta, tb, tc = vec_type(na, ea), vec_type(nb, eb), vec_type(nc, er)
    res = ex.fresh()
    if bits == 32:  # tf32 (also f32 operands: our f32 DPAS is a tf32 one)
        if xc is None:
            xc = ex.fresh()
            lines.append(f"{xc} = arith.constant dense<0.0> : {tc}")
        lines.append(f"{res} = xevm.mma {xa}, {xb}, {xc} {{shape = <m = {m}, n = {LANES}, k = {k}>, types = <d = "
                     f"{er}, a = tf32, b = tf32, c = {er}>}} : ({ta}, {tb}, {tc}) -> {tc}")
    else:
        ops_, types = [xa, xb] + ([xc] if xc else []), [ta, tb] + ([tc] if xc else [])
        lines.append(f"{res} = xegpu.dpas {', '.join(ops_)} : {', '.join(types)} -> {tc}")
    from_1d(res, nc, er, ex.result(op), str(op.result.type), lines, ex)
    return "\n".join(lines)
