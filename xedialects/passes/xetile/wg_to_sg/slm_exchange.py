"""Data exchange between subgroups through shared local memory: a `memref.alloc` in address space
3 at the function entry, per-subgroup `store_tile` with the source map, `gpu.barrier`, `load_tile`
of the boxes each subgroup needs (transposed loads for tile_transpose). A value larger than the
`slm-budget` option moves in bands, each under an scf.if. Mixed into `WgToSg`."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf

from ....core.typeinfo import element_bits
from ....xetile.attributes import TileType
from ....xetile.ops import InitTileOp, LoadTileOp, StoreTileOp
from .common import vector_type


def _lcm(a, b):
    from math import gcd
    return a * b // gcd(a, b)


class SlmExchange:
    """Data exchange between subgroups through SLM."""

    def _in_loop(self, op) -> bool:
        p = op.parent
        while p is not None:
            p = p.operation
            name = p.name
            if name in ("scf.for", "scf.while", "scf.parallel"):
                return True
            if name in ("gpu.func", "func.func"):
                return False
            p = p.parent
        return False

    def _slm(self, op, shape, elt):
        """A shared-local-memory buffer (memref.alloc in address space 3) at the function entry."""
        mt = ir.MemRefType.get(list(shape), elt, memory_space=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 3))
        self.slm_bytes += self._bytes(shape, elt)
        with self._hoist(), op.location:
            return memref.AllocOp(mt, [], []).result

    @staticmethod
    def _bytes(shape, elt):
        return shape[0] * shape[1] * max(1, element_bits(str(elt)) // 8)

    def _slm_tile_type(self, shape, elt):
        return TileType.get(list(shape), str(elt), memory_space=3)

    def _slm_store(self, buf, elt, pieces, offsets, shape):
        t = self._slm_tile_type(shape, elt)
        for p, off in zip(pieces, offsets):
            tile = InitTileOp.build(source=buf, offsets=list(off), result_types=[t]).op.results[0]
            StoreTileOp.build(value=p, tile=tile)

    def _slm_load(self, buf, elt, off, shape, transpose=False):
        t = self._slm_tile_type(shape, elt)
        tile = InitTileOp.build(source=buf, offsets=list(off), result_types=[t]).op.results[0]
        rshape = shape[::-1] if transpose else shape
        kw = {"transpose": [1, 0]} if transpose else {}
        return LoadTileOp.build(tile=tile, result_types=[vector_type(rshape, elt)], **kw).op.results[0]

    def _exchange(self, op, src_lay, src_pieces, elt, reads, what):
        """Store the source pieces into SLM with the source map, barrier, and read the boxes
        `reads` = [(offset, shape, transpose)] (source coordinates). A work-group value larger than
        the slm-budget moves in bands along one dimension (subtiles never straddle a band: their
        offsets are multiples of their sizes)."""
        shape = src_lay.shape
        offs = [self.piece_offsets(src_lay, k) for k in range(len(src_pieces))]
        band = self._band(src_lay, reads, elt)
        if band is None:
            if self._bytes(shape, elt) > self.slm_budget:
                self.ctx.remark(op, f"{what}: exchanges {self._bytes(shape, elt)} bytes through shared local memory "
                                    f"(slm-budget is {self.slm_budget}) and cannot be split into smaller bands")
            buf = self._slm(op, shape, elt)
            if self._in_loop(op):
                gpu.BarrierOp()
            self._slm_store(buf, elt, src_pieces, offs, src_lay.sg_data)
            gpu.BarrierOp()
            return [self._slm_load(buf, elt, o, s, tr) for o, s, tr in reads]
        b, h = band
        bshape = tuple(h if d == b else shape[d] for d in range(2))
        buf = self._slm(op, bshape, elt)
        out = [None] * len(reads)
        for i in range(shape[b] // h):
            start = i * h
            if i > 0 or self._in_loop(op):
                gpu.BarrierOp()
            t = self._slm_tile_type(src_lay.sg_data, elt)
            for p, off in zip(src_pieces, offs):
                def store(p=p, off=off):
                    loc = tuple(self.sub(off[d], start) if d == b else off[d] for d in range(2))
                    tile = InitTileOp.build(source=buf, offsets=list(loc), result_types=[t]).op.results[0]
                    StoreTileOp.build(value=p, tile=tile)
                self._in_band(off[b], h, i, store)
            gpu.BarrierOp()
            for r, (off, rs, tr) in enumerate(reads):
                def load(off=off, rs=rs, tr=tr):
                    loc = tuple(self.sub(off[d], start) if d == b else off[d] for d in range(2))
                    return self._slm_load(buf, elt, loc, rs, tr)
                rt = vector_type(rs[::-1] if tr else rs, elt)
                out[r] = self._in_band(off[b], h, i, load, out[r], rt)
        return out

    def _band(self, src_lay, reads, elt):
        """(dimension, band size) for a banded exchange, or None when the whole value fits the
        budget or no band size works."""
        shape = src_lay.shape
        if self._bytes(shape, elt) <= self.slm_budget:
            return None
        for b in range(2):
            unit = src_lay.sg_data[b]
            for _o, rs, _t in reads:
                unit = _lcm(unit, rs[b])
            other = shape[1 - b]
            best = None
            h = unit
            while h < shape[b]:
                if shape[b] % h == 0 and self._bytes((h, other), elt) <= self.slm_budget:
                    best = h
                h += unit
            if best is not None:
                return b, best
        return None

    def _in_band(self, off, h, i, emit, prev=None, rtype=None):
        """Run `emit` when offset `off` lies in band i (statically, or under an scf.if)."""
        if isinstance(off, int):
            if off // h == i:
                return emit()
            return prev
        idx = self._div(off, h)
        cond = arith.CmpIOp(arith.CmpIPredicate.eq, idx, self.index(i)).result
        if rtype is None:
            ifop = scf.IfOp(cond)
            with ir.InsertionPoint(ifop.then_block):
                emit()
                scf.YieldOp([])
            return None
        if prev is None:
            prev = arith.ConstantOp(rtype, ir.DenseElementsAttr.get_splat(
                rtype, self._zero(ir.VectorType(rtype).element_type))).result
        ifop = scf.IfOp(cond, [rtype], has_else=True)
        with ir.InsertionPoint(ifop.then_block):
            scf.YieldOp([emit()])
        with ir.InsertionPoint(ifop.else_block):
            scf.YieldOp([prev])
        return ifop.results[0]

    @staticmethod
    def _zero(elt):
        if isinstance(elt, (ir.F32Type, ir.F16Type, ir.BF16Type, ir.F64Type)) or str(elt).startswith(("f", "bf")):
            return ir.FloatAttr.get(elt, 0.0)
        return ir.IntegerAttr.get(elt, 0)
