"""Distribution rules of 2D block IO in `xegpu-simt-distribute`: create_nd_tdesc /
update_nd_offset take their chain's sg_map, load_nd / store_nd / prefetch_nd lose `mode = vc`
and move per-work-item fragments (a load reordered across work-items where the analysis said)."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, memref, vector

from .....arch import elem_bits
from .....xegpu.attributes import TensorDescType
from .....xegpu.ops import (CreateNdTdescOp, CreateTdescOp, LoadGatherOp, LoadNdOp, PrefetchNdOp, PrefetchOp,
                           StoreNdOp, StoreScatterOp, UpdateNdOffsetOp)
from ....utils.index_arith import IndexArith
from ....utils.ir_walk import as_op
from ..analysis.block_io import narrow_block, narrow_layout
from ..common import DYNAMIC, SG, SimtError, cache_hints, mixed_operands, tdesc_fields, vec_elt, vec_type
from ..layouts import Layout, SgMap, default_sgm, simt_shape_of


class _AtInsertionPoint(IndexArith):
    """Index arithmetic whose constants are created where the ops are (at the insertion point)."""

    def index_constant(self, value: int) -> ir.Value:
        return arith.ConstantOp(ir.IndexType.get(), value).result


_IX = _AtInsertionPoint()
_index, _add, _mul = _IX.index, _IX.add, _IX.mul


class BlockIORules:
    """Rewrite rules of descriptors, block loads, stores and prefetches."""

    def new_tdesc_type(self, op, t):
        c = self.chain_of.get(t)
        sgm = self.chain_sgm.get(c)
        tv = TensorDescType(t.type)
        if sgm is None:
            sgm = default_sgm(tuple(tv.shape))
            self.chain_sgm[c] = sgm
        fields = tdesc_fields(tv)
        fields["sg_map"] = {"wi_layout": tuple(sgm.wl), "wi_data": tuple(sgm.wd)}
        return TensorDescType.get(list(tv.shape), tv.element_type, **fields)

    def r_create(self, rb, op):
        if narrow_block(op.results[0]):
            # its accesses are scattered ones addressed from this op's operands (narrow_messages)
            return [op.results[0]]
        c = CreateNdTdescOp(op)
        t = self.new_tdesc_type(op, op.results[0])
        offs = mixed_operands(rb, c, "offsets")
        sh = mixed_operands(rb, c, "shape")
        st = mixed_operands(rb, c, "strides")
        kw = {"shape": sh, "strides": st} if sh else {}
        return [CreateNdTdescOp.build(source=rb.one(c.source), offsets=offs, result_types=[t], **kw).op.results[0]]

    def r_update(self, rb, op):
        u = UpdateNdOffsetOp(op)
        d = rb.one(op.operands[0])
        offs = mixed_operands(rb, u, "offsets")
        return [UpdateNdOffsetOp.build(tdesc=d, offsets=offs, result_types=[d.type]).op.results[0]]

    def narrow_messages(self, rb, op, tdesc, lay: Layout, positions=None, bounds=True):
        """The scattered messages of a narrow block access in layout `lay`: per position p of the
        work-item's fragment, a 16-lane SIMT descriptor at the element lay.tbl[lane, p] of the block
        (its offset in the create_nd_tdesc's source) and the bit saying it is inside the source's
        shape (boundary_check; not for `bounds` = False), as [(descriptor, in-bounds i1 or None)]
        (for `positions` only when given)."""
        create = as_op(tdesc.owner)
        c = CreateNdTdescOp(create)
        tv = TensorDescType(tdesc.type)
        bshape = tuple(tv.shape)
        offs = mixed_operands(rb, c, "offsets")
        sh = mixed_operands(rb, c, "shape")
        st = mixed_operands(rb, c, "strides")
        src = rb.one(c.source)
        if not st:
            mt = ir.MemRefType(c.source.type)
            strides, _ = mt.get_strides_and_offset()
            if any(x == DYNAMIC for x in strides):
                raise SimtError(op, f"no sg_map distributes the {'x'.join(map(str, bshape))} block over {SG} "
                                    "work-items, and its scattered form needs the source's strides (dynamic here)")
            st = [int(x) for x in strides]
            sh = [memref.DimOp(src, _index(d)).result if x == DYNAMIC else int(x) for d, x in enumerate(mt.shape)]
        R, k = len(offs), len(bshape)
        base = 0
        for d in range(R - k):
            base = _add(base, _mul(offs[d], st[d]))
        fields = {"scattered": True, "sg_map": {"wi_layout": (1, SG), "wi_data": (1, 1)}}
        if tv.memory_scope != "global":
            fields["memory_scope"] = tv.memory_scope
        dtype = TensorDescType.get([SG], tv.element_type, **fields)
        out = []
        for p in (range(lay.count) if positions is None else positions):
            e = np.maximum(lay.tbl[:, p], 0)     # (-1: no element there; the caller masks it off)
            coords = [e // bshape[1], e % bshape[1]] if k == 2 else [e]
            addr, inb = base, None
            for d, col in zip(range(R - k, R), coords):
                pos = _add(offs[d], self.lane_index(col) if not (col == col[0]).all() else int(col[0]))
                addr = _add(addr, _mul(pos, st[d]))
                static_in = isinstance(offs[d], int) and isinstance(sh[d], int) and \
                    bool(((offs[d] + col >= 0) & (offs[d] + col < sh[d])).all())
                if bounds and tv.boundary_check and not static_in:
                    if isinstance(pos, int) and isinstance(sh[d], int):
                        ok = arith.ConstantOp(ir.IntegerType.get_signless(1), 0).result
                    else:
                        ok = arith.CmpIOp(arith.CmpIPredicate.ult, _index(pos), _index(sh[d])).result
                    inb = ok if inb is None else arith.AndIOp(inb, ok).result
            d_ = CreateTdescOp.build(source=src, offsets=_index(addr), result_types=[dtype]).op.results[0]
            out.append((d_, inb))
        return out

    def r_load(self, rb, op):
        if narrow_block(op.operands[0]):
            res = op.results[0]
            lay = self.lay[res]
            elt = ir.VectorType(res.type).element_type
            true = None
            vals = []
            for d, inb in self.narrow_messages(rb, op, op.operands[0], lay):
                if inb is None:
                    true = true or arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result
                vals.append(LoadGatherOp.build(tdesc=d, mask=inb if inb is not None else true, result_types=[elt],
                                               **cache_hints(op)).op.results[0])
            return [vector.from_elements(self.lane_type(res), vals)]
        ld = LoadNdOp(op)
        d = rb.one(op.operands[0])
        kw = cache_hints(op)
        if ld.vnni_axis is not None:
            kw["vnni_axis"] = ld.vnni_axis
        if ld.transpose is not None:
            kw["transpose"] = tuple(ld.transpose)
        res = op.results[0]
        lay = self.lay[res]
        tv = TensorDescType(d.type)
        vnni = ld.vnni_axis is not None and elem_bits(vec_elt(res)) < 32
        native = simt_shape_of(tuple(tv.shape), SgMap(tuple(tv.sg_map.wi_layout), tuple(tv.sg_map.wi_data)),
                               vnni=vnni, transpose=ld.transpose is not None)
        if res in self.reorders:
            src_lay, need_idx = self.reorders[res]
            v = LoadNdOp.build(tdesc=d, result_types=[vec_type(native, vec_elt(res))], **kw).op.results[0]
            try:
                return [self.reorder(v, src_lay.with_lane_shape(tuple(native)), need_idx, lay.lane_shape,
                                     vec_elt(res))]
            except SimtError as e:
                raise SimtError(op, f"'{op.name}': {e.message}")
        if tuple(native) == tuple(lay.lane_shape):
            return [LoadNdOp.build(tdesc=d, result_types=[self.lane_type(res)], **kw).op.results[0]]
        v = LoadNdOp.build(tdesc=d, result_types=[vec_type(native, vec_elt(res))], **kw).op.results[0]
        return [vector.shape_cast(self.lane_type(res), v)]

    def r_narrow_store(self, rb, op):
        """A narrow block store: each work-item stores the elements it holds, an element held by
        several work-items only by the first of them."""
        v = op.operands[0]
        lay = self.narrow_store_layout(v)
        val = self.convert(rb, v, lay, op, "stored value")
        elt = ir.VectorType(v.type).element_type
        if len(lay.lane_shape) != 1:
            val = vector.shape_cast(vec_type((lay.count,), elt), val)
        seen = set()
        firsts = {}
        for p in range(lay.count):
            first = []
            for lane in range(SG):
                e = int(lay.tbl[lane, p])
                if e >= 0 and e not in seen:
                    seen.add(e)
                    first.append(lane)
            if first:
                firsts[p] = first
        for p, (d, inb) in zip(firsts, self.narrow_messages(rb, op, op.operands[1], lay, list(firsts))):
            first = firsts[p]
            m = self.lane_pred(first) if len(first) < SG else None
            if inb is not None:
                m = inb if m is None else arith.AndIOp(inb, m).result
            if m is None:
                m = arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result
            StoreScatterOp.build(value=vector.extract(val, [], [p]), tdesc=d, mask=m, **cache_hints(op))
        return []

    def r_store(self, rb, op):
        if narrow_block(op.operands[1]):
            return self.r_narrow_store(rb, op)
        kw = cache_hints(op)
        v, d = op.operands[0], rb.one(op.operands[1])
        tv = TensorDescType(d.type)
        # (a value held whole, e.g. a reduction result, is picked per work-item)
        # (the old value may already be a loop's rebuilt block argument: shapes from the layout)
        need = Layout.plain(self.lay_of(op, v).shape, SgMap(tuple(tv.sg_map.wi_layout), tuple(tv.sg_map.wi_data)))
        StoreNdOp.build(value=self.convert(rb, v, need, op, "stored value"), tdesc=d, **kw)
        return []

    def r_prefetch(self, rb, op):
        kw = cache_hints(op)
        if narrow_block(op.operands[0]):
            self.check_narrow(op, op.operands[0])
            lay = narrow_layout(TensorDescType(op.operands[0].type).shape)
            for d, _ in self.narrow_messages(rb, op, op.operands[0], lay, bounds=False):
                PrefetchOp.build(tdesc=d, **kw)     # (a cache hint: no value, no mask)
            return []
        PrefetchNdOp.build(tdesc=rb.one(op.operands[0]), **kw)
        return []
