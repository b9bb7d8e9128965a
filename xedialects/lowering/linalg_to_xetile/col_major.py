"""Matmuls on column-major memrefs brought to the transposed forms the GEMM lowering takes.

A static `memref<MxKxf32, strided<[1, M']>>` (its first dimension contiguous) is the row-major K x M
matrix `memref.transpose` of it gives (`strided<[M', 1]>`): the matmul reads that view through a
transposing indexing map, which the kernel loads with transposed tiles (as `linalg.matmul` with
transposing `indexing_maps`). A column-major C is the row-major N x M view of C^T = B^T A^T: the M and
N loops are renamed and A and B trade places (the product is commutative), each map changed to
match. The rewritten op is a clone of the original (same body, new operands and maps) and replaces
it only when `match_matmul` takes it; otherwise the original stays and is reported as usual
(`linalg_match`: an operand whose innermost dimension is not contiguous is not lowered).

    op = normalize(op)        # the op to match (the original, or its replacement)
"""
from __future__ import annotations

from mlir import ir

from ...core.typeinfo import memref_info

MATMUL_NAMES = ("linalg.matmul", "linalg.batch_matmul", "linalg.generic")


def _col_major(v) -> bool:
    """A static memref whose last dimension is not contiguous but the one before it is."""
    try:
        t = ir.MemRefType(v.type)
    except (ValueError, TypeError):
        return False
    if t.rank < 2:
        return False
    try:
        ir.StridedLayoutAttr(t.layout)
    except (ValueError, TypeError):
        return False
    info = memref_info(v)
    if info is None or info[2] is None or None in info[2] or None in info[0]:
        return False
    strides, shape = info[2], info[0]
    return strides[-1] != 1 and shape[-1] > 1 and strides[-2] == 1


def _transposed_view(v):
    """`memref.transpose` of `v` swapping its last two dimensions (inserted before the op using it)."""
    t = ir.MemRefType(v.type)
    strides, offset = t.get_strides_and_offset()
    perm = list(range(t.rank))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    layout = ir.StridedLayoutAttr.get(offset, [strides[p] for p in perm])
    rtype = ir.MemRefType.get([t.shape[p] for p in perm], t.element_type, layout, t.memory_space)
    pmap = ir.AffineMap.get_permutation(perm)
    return ir.Operation.create("memref.transpose", results=[rtype], operands=[v],
                               attributes={"permutation": ir.AffineMapAttr.get(pmap)}).results[0]


def _dims(amap) -> list[int] | None:
    out = []
    for e in amap.results:
        try:
            out.append(ir.AffineDimExpr(e).position)
        except (ValueError, TypeError):
            return None
    return out


def normalize(op):
    """`op`, or a replacement reading column-major operands through transposed views (see above)."""
    from .linalg_match import NotAMatmul, match_matmul

    if op.name not in MATMUL_NAMES or len(op.operands) != 3 or "indexing_maps" not in op.attributes:
        return op
    operands = list(op.operands)
    flips = [_col_major(v) for v in operands]
    if not any(flips):
        return op
    maps = [_dims(ir.AffineMapAttr(a).value) for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    if any(m is None or len(m) < 2 for m in maps):
        return op
    n_dims = ir.AffineMapAttr(ir.ArrayAttr(op.attributes["indexing_maps"])[0]).value.n_dims
    new_ops = []
    with op.context, op.location, ir.InsertionPoint(op):
        for i, flip in enumerate(flips):
            if flip:
                view = _transposed_view(operands[i])
                new_ops.append(view.owner)
                operands[i] = view
                maps[i][-2], maps[i][-1] = maps[i][-1], maps[i][-2]
        if flips[2]:              # C^T = B^T A^T: rename the M and N loops, swap the inputs
            m_, n_ = maps[2][-1], maps[2][-2]
            swap = {m_: n_, n_: m_}
            maps = [[swap.get(d, d) for d in mp] for mp in maps]
            operands[0], operands[1] = operands[1], operands[0]
            maps[0], maps[1] = maps[1], maps[0]
        clone = op.clone()
        new_ops.append(clone)
        for i, v in enumerate(operands):
            clone.operands[i] = v
        clone.attributes["indexing_maps"] = ir.ArrayAttr.get([
            ir.AffineMapAttr.get(ir.AffineMap.get(n_dims, 0, [ir.AffineDimExpr.get(d) for d in mp])) for mp in maps])
    clone = clone.operation
    try:
        if flips[2] and ir.MemRefType(operands[0].type).element_type != ir.MemRefType(operands[1].type).element_type:
            raise NotAMatmul("inputs of different element types cannot trade places")
        match_matmul(clone)
    except NotAMatmul:
        for o in reversed(new_ops):
            o.operation.erase()
        return op
    op.erase()
    return clone
