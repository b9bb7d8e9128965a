"""Distribution rules of the tile ops: init_tile becomes one subgroup init_tile per owned subtile
(offsets = work-group offsets + subtile offsets; dynamic shape/stride operands and i64 sources
kept; the tile type drops wg_map and keeps its other fields); load_tile, store_tile,
prefetch_tile, update_tile_offset and atomic_rmw_tile work per subtile. Mixed into `WgToSg`."""
from __future__ import annotations

from mlir import ir

from ....xetile.attributes import TileType
from ....xetile.ops import InitTileOp, LoadTileOp
from ...utils.ir_walk import owner_op
from .common import create_op, piece_type, sg_attrs, tile_layout


def _const_int(v):
    """An index value defined by arith.constant as a Python int (offsets fold into static ones)."""
    op = owner_op(v)
    if op is not None and op.name == "arith.constant" and isinstance(v.type, ir.IndexType):
        return ir.IntegerAttr(op.attributes["value"]).value
    return v


class TileRules:
    """Tile creation and access."""

    def h_init_tile(self, rb, op):
        lay = tile_layout(op.results[0].type)
        if lay is None:
            return None
        it = InitTileOp(op)
        offs = [x if isinstance(x, int) else _const_int(rb.one(x)) for x in it.mixed("offsets", "static_offsets")]
        shape = [x if isinstance(x, int) else rb.one(x) for x in it.mixed("shape", "static_shape")]
        strides = [x if isinstance(x, int) else rb.one(x) for x in it.mixed("strides", "static_strides")]
        t = self.sg_tile_type(op.results[0].type)
        out, sums = [], {}
        for k in range(lay.num_subtiles):
            sub = self.piece_offsets(lay, k)
            o = []
            for d in range(2):
                key = (d, sub[d])
                if key not in sums:
                    sums[key] = self.add(offs[d], sub[d], hoist=isinstance(offs[d], int))
                o.append(sums[key])
            kw = {"shape": shape, "strides": strides} if shape else {}
            out.append(InitTileOp.build(source=rb.one(it.source), offsets=o, result_types=[t], **kw).op.results[0])
        return [out]

    @staticmethod
    def sg_tile_type(t):
        tv = TileType(t)
        return TileType(tv.with_fields(wg_map=None)).with_shape(list(tv.wg_map.sg_data))

    def h_load_tile(self, rb, op):
        tile = op.operands[0]
        tlay = tile_layout(tile.type)
        if tlay is None:
            return None
        lay = self.la.of(op.results[0])
        perm = LoadTileOp(op).transpose
        transposed = perm is not None and tuple(perm) == (1, 0)
        t = piece_type(op.results[0], lay)
        loaded = [create_op(op.name, [p], [t], sg_attrs(op)).results[0] for p in rb.map(tile)]
        if transposed:
            n0, n1 = tlay.rounds
            loaded = [loaded[b * n1 + a] for a in range(n1) for b in range(n0)]
        return [loaded]

    def h_store_tile(self, rb, op):
        value, tile = op.operands
        lay = tile_layout(tile.type)
        if lay is None:
            return None
        vals = self.pieces(value, lay)
        for v, t in zip(vals, rb.map(tile)):
            create_op(op.name, [v, t], [], sg_attrs(op))
        return []

    def h_per_piece(self, rb, op):
        tile = op.operands[0]
        if tile_layout(tile.type) is None:
            return None
        for t in rb.map(tile):
            create_op(op.name, [t], [], sg_attrs(op))
        return []

    def h_update(self, rb, op):
        tile = op.operands[0]
        if tile_layout(tile.type) is None:
            return None
        offs = [rb.one(v) for v in list(op.operands)[1:]]
        out = [create_op(op.name, [t] + offs, [t.type], sg_attrs(op)).results[0] for t in rb.map(tile)]
        return [out]

    def h_atomic(self, rb, op):
        value, tile = op.operands
        lay = tile_layout(tile.type)
        if lay is None:
            return None
        vals = self.pieces(value, lay)
        t = piece_type(value, lay)
        return [[create_op(op.name, [v, tt], [t], sg_attrs(op)).results[0] for v, tt in zip(vals, rb.map(tile))]]
