"""Rules of `convert-xetile-to-xegpu` for tile creation and movement: `init_tile` becomes one
`create_nd_tdesc` per hardware block (nd tiles) or the (row, column) origin of a scatter tile;
`update_tile_offset` moves each descriptor (`update_nd_offset`) or the origin.
"""
from __future__ import annotations

from mlir import ir

from ...xegpu.attributes import TensorDescType
from ...xegpu.ops import CreateNdTdescOp, UpdateNdOffsetOp
from ...xetile.attributes import TileType
from ...xetile.ops import InitTileOp, UpdateTileOffsetOp
from .converter import Converter
from .tile_plan import TilePlan


def lower_init_tile(cv: Converter, rb, op):
    tv = TileType(op.results[0].type)
    if tv.scattered:
        it = InitTileOp(op)
        return [[it.source, rb.one(it.indices)]]
    p = cv.plan(op, op.results[0])
    offs = InitTileOp(op).mixed("offsets", "static_offsets")
    offs = [cv.folded(rb.one(o)) if isinstance(o, ir.Value) else o for o in offs]
    if p.mode == "scatter":
        return [[cv.index(offs[0]), cv.index(offs[1])]]
    return [make_tdescs(cv, p, offs)]


def lower_update_tile_offset(cv: Converter, rb, op):
    p = cv.plan(op, op.operands[0])
    u = UpdateTileOffsetOp(op)
    offs = [cv.folded(rb.one(o)) if isinstance(o, ir.Value) else o for o in u.mixed("offsets", "static_offsets")]
    cur = rb.map(op.operands[0])
    if p.mode == "scatter":
        return [[cv.index(cv.add(cur[0], offs[0])), cv.index(cv.add(cur[1], offs[1]))]]
    moffs = [offs[1], offs[0]] if p.mem_t else offs
    out = []
    for d in cur:
        out.append(UpdateNdOffsetOp.build(tdesc=d, offsets=moffs, mode="vc",
                                          result_types=[d.type]).op.results[0])
    return [out]


def tdesc_type(p: TilePlan, mh, mw):
    fields = {}
    if p.slm:
        fields["memory_scope"] = "slm"
    return TensorDescType.get([mh, mw], p.elt, **fields)


def make_tdescs(cv: Converter, p: TilePlan, offsets):
    r0, c0 = offsets
    sh, sw = p.sub
    gr, gc = p.sub_dims
    mh, mw = (sw, sh) if p.mem_t else (sh, sw)
    t = tdesc_type(p, mh, mw)
    out = []
    for i in range(gr):
        for j in range(gc):
            r, c = cv.add(r0, i * sh), cv.add(c0, j * sw)
            offs = [c, r] if p.mem_t else [r, c]
            kw = {}
            if p.nd_shape is not None:
                kw["shape"] = p.nd_shape
                kw["strides"] = p.nd_strides
            out.append(CreateNdTdescOp.build(source=p.source, offsets=offs, mode="vc", result_types=[t],
                                             **kw).op.results[0])
    return out
