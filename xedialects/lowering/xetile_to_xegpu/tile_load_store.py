"""Rules of `convert-xetile-to-xegpu` for tile loads, stores and prefetches: nd tiles become one
`load_nd` / `store_nd` / `prefetch_nd` per hardware block (VNNI loads for sub-32-bit tile_mma B
operands, transposed loads for fused transposes and column-major tiles); scatter tiles use the
row-piece gathers / scatters of scattered.py, and their prefetches are dropped with a remark.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import vector

from ...core.typeinfo import vector_info
from ...passes.utils.ir_walk import as_op
from ...xegpu.attributes import TensorDescType
from ...xegpu.ops import LoadNdOp, PrefetchNdOp, StoreNdOp, StoreScatterOp
from ...xetile.ops import LoadTileOp
from .converter import Converter, Grid
from .ir_helpers import FUSED_T_ATTR, VNNI_ATTR, padding_attr, vector_shape, vector_type
from .scattered import scatter_load_block, scatter_rows
from .tile_plan import TilePlan


def lower_load_tile(cv: Converter, rb, op):
    p = cv.plan(op, op.operands[0])
    ld = LoadTileOp(op)
    vnni = VNNI_ATTR in op.attributes and ir.BoolAttr(op.attributes[VNNI_ATTR]).value
    f = cv.vnni_f(p.elt) if vnni else 1
    # a fused tile_transpose user: this load produces the transposed value (passed through there)
    log_t = (ld.transpose == (1, 0)) != (FUSED_T_ATTR in op.attributes)
    R, C = p.shape
    bh, bw = p.block
    res_shape, _ = vector_info(op.results[0])
    # the 2D blocks of the tile, each built from hardware sub-blocks
    tile_blocks = []
    cur = rb.map(op.operands[0])
    gi, gj = R // bh, C // bw
    if p.mode == "scatter":
        pad_attr = padding_attr(ld.padding, p.elt)
        r0, c0 = cur
        uses = list(op.results[0].uses)
        column = bool(uses) and all(as_op(u.owner).name == "xetile.tile_transpose" for u in uses)
        for i in range(gi):
            for j in range(gj):
                blk = scatter_load_block(cv, p, cv.add(r0, i * bh), cv.add(c0, j * bw), bh, bw, pad_attr,
                                         column=column and not log_t)
                if log_t:
                    blk = vector.transpose(vector_type((bw, bh), p.elt), blk, [1, 0])
                tile_blocks.append(cv.as_form(blk, 1, f))
    else:
        # one block per hardware block (grids need not use the inner block: consumers re-block)
        sh, sw = p.sub
        sgr, sgc = p.sub_dims
        need_t = log_t != p.mem_t
        subs = [load_sub(cv, p, cur[k], need_t, f) for k in range(sgr * sgc)]
        if log_t:
            ordered = [subs[i * sgc + j] for j in range(sgc) for i in range(sgr)]
            return [Grid((C, R), (sw, sh), f, ordered, p.elt).blocks]
        return [Grid((R, C), (sh, sw), f, subs, p.elt).blocks]
    if log_t:
        # result block (J, I) is the transpose of tile block (I, J)
        ordered = [tile_blocks[i * gj + j] for j in range(gj) for i in range(gi)]
        g = Grid((C, R), (bw, bh), f, ordered, p.elt)
    else:
        g = Grid((R, C), (bh, bw), f, tile_blocks, p.elt)
    return [g.blocks]


def load_sub(cv: Converter, p: TilePlan, d, need_t, f):
    """Load one hardware block (memory orientation of its tdesc) as a logical block in form f."""
    mh, mw = TensorDescType(d.type).shape
    elt = p.elt
    if not need_t:
        if f > 1:
            return LoadNdOp.build(tdesc=d, mode="vc", vnni_axis=0,
                                  result_types=[vector_type((mh // f, mw, f), elt)]).op.results[0]
        return LoadNdOp.build(tdesc=d, mode="vc", result_types=[vector_type((mh, mw), elt)]).op.results[0]
    # the logical block is the transpose of the memory block
    if p.bits >= 32:
        return LoadNdOp.build(tdesc=d, mode="vc", transpose=(1, 0),
                              result_types=[vector_type((mw, mh), elt)]).op.results[0]
    if f > 1 and (mw * p.bits) % 32 == 0 and mw % f == 0:
        # 32-bit transpose of sub-32-bit data: the result is VNNI-packed (rfc-xetile-xegpu.md)
        return LoadNdOp.build(tdesc=d, mode="vc", transpose=(1, 0), vnni_axis=0,
                              result_types=[vector_type((mw // f, mh, f), elt)]).op.results[0]
    v = LoadNdOp.build(tdesc=d, mode="vc", result_types=[vector_type((mh, mw), elt)]).op.results[0]
    v = vector.transpose(vector_type((mw, mh), elt), v, [1, 0])
    return cv.as_form(v, 1, f)


def lower_store_tile(cv: Converter, rb, op):
    p = cv.plan(op, op.operands[1])
    cur = rb.map(op.operands[1])
    if p.mode == "scatter":
        g = cv.value_grid_for_tile(rb, p, op.operands[0], p.block)
        r0, c0 = cur
        gi, gj = g.dims
        for i in range(gi):
            for j in range(gj):
                def st(td, mask, piece):
                    StoreScatterOp.build(value=piece, tdesc=td, mask=mask, mode="vc")
                scatter_rows(cv, p, cv.add(r0, i * p.block[0]), cv.add(c0, j * p.block[1]), g.at(i, j), st)
        return []
    g = cv.value_grid_for_tile(rb, p, op.operands[0], p.sub)
    for k, d in enumerate(cur):
        v = g.blocks[k]
        if p.mem_t:
            h, w = vector_shape(v)
            v = vector.transpose(vector_type((w, h), p.elt), v, [1, 0])
        StoreNdOp.build(value=v, tdesc=d, mode="vc")
    return []


def lower_prefetch_tile(cv: Converter, rb, op):
    p = cv.plan(op, op.operands[0])
    if p.mode == "scatter":
        cv.remark(op, f"prefetch of a tile without 2D block access dropped ({p.why})")
        return []
    for d in rb.map(op.operands[0]):
        PrefetchNdOp.build(tdesc=d, mode="vc", l1_hint="cached", l2_hint="cached")
    return []
