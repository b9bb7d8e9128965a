"""Distribution rules of scattered access in `xegpu-simt-distribute`. A scattered chain's access
layout says which (lane, chunk element) pairs of the VC access each work-item addresses. A SIMT
scattered access addresses at most 32 lanes (2 elements per work-item), so a work-item holding
more is split into parts of at most 2, each its own SIMT descriptor / message; the parts of a
loaded value are concatenated in the work-item."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, vector

from .....xegpu.attributes import TensorDescType
from .....xegpu.ops import AtomicRmwOp, CreateTdescOp, LoadGatherOp, PrefetchOp, StoreScatterOp, UpdateOffsetOp
from ..common import (SG, SIMT_MAX_LANES, SimtError, cache_hints, dense_ints, is_vec, tdesc_fields, value_type, vec_elt,
                      vec_shape, vec_type)
from ..layouts import Layout


class ScatteredRules:
    """Rewrite rules of scattered descriptors, gathers, scatters, atomics and prefetches."""

    def sc_access(self, tdesc):
        c = self.chain_of.get(tdesc)
        if c not in self.sc_lay:
            _, lanes, chunk = self.scatter_info(tdesc)
            acc = self.default_access(lanes, chunk)
            self.sc_lay[c] = Layout(acc.shape, acc.tbl, (acc.count,), acc.form, acc.sgm)
        return self.sc_lay[c]

    def sc_parts(self, tdesc):
        """[(first position, access Layout of the part)] of a chain's SIMT messages."""
        acc = self.sc_access(tdesc)
        per = SIMT_MAX_LANES // SG
        return [(p, Layout(acc.shape, acc.tbl[:, p:p + per], (min(per, acc.count - p),), "gen"))
                for p in range(0, acc.count, per)]

    def sc_tdesc_type(self, tdesc, part: Layout):
        """SIMT type of (a part of) a scattered descriptor: 16 x n lanes (n elements per work-item), 1D,
        sg_map [1, 16] x [1, n] when each work-item's lanes are consecutive, else [1, 16] x [1, 1]."""
        tv = self.scatter_info(tdesc)[0]
        n = part.count
        fields = tdesc_fields(tv)
        fields.pop("chunk_size_per_lane", None)
        consecutive = n > 1 and bool((np.diff(part.tbl, axis=1) == 1).all())
        fields["sg_map"] = {"wi_layout": (1, SG), "wi_data": (1, n if consecutive else 1)}
        return TensorDescType.get([SG * n], tv.element_type, **fields)

    def sc_lanes(self, tdesc, part: Layout):
        """Layout over the VC lanes (offsets, masks, deltas) of each work-item's elements of a part;
        the scalar form for one element per work-item."""
        _, lanes, chunk = self.scatter_info(tdesc)
        lay = Layout((lanes,), np.maximum(part.tbl, 0) // chunk, (part.count,), "gen")   # (-1: masked off)
        return lay.with_lane_shape(()) if part.count == 1 else lay

    def sc_offsets(self, rb, op, tdesc, part: Layout, offsets, what):
        """This work-item's offsets of a part: the VC offsets of its lanes (plus the chunk position)."""
        _, lanes, chunk = self.scatter_info(tdesc)
        o = self.convert(rb, offsets, self.sc_lanes(tdesc, part), op, what)
        if chunk > 1 and what == "offsets":
            k = np.maximum(part.tbl, 0) % chunk
            if part.count == 1:
                o = arith.AddIOp(o, self.lane_index(k[:, 0])).result
            elif (k == k[0:1]).all():
                t = vec_type((part.count,), "index")
                o = arith.AddIOp(o, arith.ConstantOp(t, dense_ints(k[0], (part.count,), "index")).result).result
            else:
                kv = vector.from_elements(vec_type((part.count,), "index"), [self.lane_index(k[:, p])
                                                                       for p in range(part.count)])
                o = arith.AddIOp(o, kv).result
        return o

    def sc_value(self, rb, op, tdesc, v, what):
        """The value's elements this work-item stores, in access order, split per part."""
        acc = self.sc_access(tdesc)
        _, lanes, chunk = self.scatter_info(tdesc)
        lay = self.value_layout(acc, lanes, chunk, self.lay[v].shape, self.lay.get(v))
        parts = self.sc_parts(tdesc)
        if lay.form == "sparse":
            # a view of the source fragments (sparse_view): the fragment as is, flattened
            whole = rb.one(v)
            if tuple(vec_shape(whole)) != (acc.count,):
                whole = vector.shape_cast(vec_type((acc.count,), vec_elt(v)), whole)
        elif len(parts) == 1:
            return [self.convert(rb, v, lay.with_lane_shape(() if acc.count == 1 else (acc.count,)), op, what)]
        else:
            whole = self.convert(rb, v, lay.with_lane_shape((acc.count,)), op, what)
        out = []
        for first, part in parts:
            if part.count == 1:
                out.append(vector.extract(whole, [], [first]))
            else:
                out.append(vector.extract_strided_slice(vec_type((part.count,), vec_elt(v)), whole, [first],
                                                        [part.count], [1]))
        return out

    def sc_result(self, res, pieces):
        """A work-item's loaded parts (scalars or vectors) as the fragment the rest of the program uses."""
        lay = self.lay[res]
        elt = vec_elt(res)
        vecs = [vector.broadcast(vec_type((1,), elt), x) if not is_vec(x) else x for x in pieces]
        whole = vecs[0]
        for x in vecs[1:]:
            a, b = vec_shape(whole)[0], vec_shape(x)[0]
            whole = vector.shuffle(whole, x, list(range(a + b)))
        if tuple(lay.lane_shape) != tuple(vec_shape(whole)):
            whole = vector.shape_cast(self.lane_type(res), whole)
        return whole

    @staticmethod
    def _one_or_list(vals):
        return vals[0] if len(vals) == 1 else vals

    def r_create_tdesc(self, rb, op):
        d = op.results[0]
        out = []
        for _, part in self.sc_parts(d):
            offs = self.sc_offsets(rb, op, d, part, op.operands[1], "offsets")
            out.append(CreateTdescOp.build(source=rb.one(op.operands[0]), offsets=offs,
                                           result_types=[self.sc_tdesc_type(d, part)]).op.results[0])
        return [self._one_or_list(out)]

    def r_update_offset(self, rb, op):
        old = op.operands[0]
        out = []
        for d, (_, part) in zip(rb.map(old), self.sc_parts(old)):
            delta = self.sc_offsets(rb, op, old, part, op.operands[1], "delta")
            out.append(UpdateOffsetOp.build(tdesc=d, delta=delta, result_types=[d.type]).op.results[0])
        return [self._one_or_list(out)]

    def r_gather(self, rb, op):
        old, res = op.operands[0], op.results[0]
        elt = vec_elt(res)
        pieces = []
        for d, (_, part) in zip(rb.map(old), self.sc_parts(old)):
            mask = self.convert(rb, op.operands[1], self.sc_lanes(old, part), op, "mask")
            rt = value_type(() if part.count == 1 else (part.count,), elt)
            pieces.append(LoadGatherOp.build(tdesc=d, mask=mask, result_types=[rt], **cache_hints(op)).op.results[0])
        return [self.sc_result(res, pieces)]

    def r_scatter(self, rb, op):
        """A scatter: work-items addressing the same element store the same value; a view some
        work-items hold none of (-1 in the access layout) is stored by the others only."""
        v, old = op.operands[0], op.operands[1]
        vals = self.sc_value(rb, op, old, v, "stored value")
        holds = self.sc_access(old).tbl >= 0
        for d, val, (pos, part) in zip(rb.map(old), vals, self.sc_parts(old)):
            mask = self.convert(rb, op.operands[2], self.sc_lanes(old, part), op, "mask")
            mask = self.once_mask(mask, holds[:, pos:pos + part.count])
            StoreScatterOp.build(value=val, tdesc=d, mask=mask, **cache_hints(op))
        return []

    def sc_first_holders(self, tdesc):
        """[lanes, count] booleans: True where a work-item's access element is not also addressed by
        a lower work-item (or an earlier position of its own), so each element is accessed once;
        False at -1 (a work-item holding none of a stored view)."""
        tbl = self.sc_access(tdesc).tbl
        first = np.zeros(tbl.shape, bool)
        seen = set()
        for p in range(tbl.shape[1]):
            for lane in range(tbl.shape[0]):
                if int(tbl[lane, p]) >= 0 and int(tbl[lane, p]) not in seen:
                    seen.add(int(tbl[lane, p]))
                    first[lane, p] = True
        return first

    def once_mask(self, mask, part_first):
        """`mask` (a work-item's i1 or vector of i1 of one part) and-ed with `part_first` ([lanes,
        count]: the work-item may access the element, e.g. is the first to address it), unchanged
        when all may."""
        if part_first.all():
            return mask
        i1 = ir.IntegerType.get_signless(1)
        if not is_vec(mask):
            return arith.AndIOp(mask, self.lane_pred(np.nonzero(part_first[:, 0])[0])).result
        n = part_first.shape[1]
        preds = [self.lane_value(part_first[:, p].astype(np.int64), "i1") for p in range(n)]
        return arith.AndIOp(mask, vector.from_elements(ir.VectorType.get([n], i1), preds)).result

    def r_atomic(self, rb, op):
        """An atomic read-modify-write: every element is updated once -- a work-item addressing an
        element a lower work-item also addresses (fewer elements than work-items, a value held
        whole) has its lane masked off. The old values the atomic returns then reach only the
        work-item that addressed the element: a result used elsewhere is an error."""
        v, old, res = op.operands[0], op.operands[1], op.results[0]
        first = self.sc_first_holders(old)
        if not first.all() and any(True for _ in res.uses):
            raise SimtError(op, f"the old values of an atomic on {int(np.unique(self.sc_access(old).tbl).size)} "
                                f"elements addressed by several of the {SG} work-items are used: each element is "
                                "updated by one work-item only, the others would not receive its old value")
        vals = self.sc_value(rb, op, old, v, "value")
        kind = AtomicRmwOp(op).kind
        pieces = []
        for d, val, (pos, part) in zip(rb.map(old), vals, self.sc_parts(old)):
            mask = self.convert(rb, op.operands[2], self.sc_lanes(old, part), op, "mask")
            mask = self.once_mask(mask, first[:, pos:pos + part.count])
            pieces.append(AtomicRmwOp.build(kind=kind, value=val, tdesc=d, mask=mask,
                                            result_types=[val.type]).op.results[0])
        return [self.sc_result(res, pieces)]

    def r_prefetch_sc(self, rb, op):
        for d in rb.map(op.operands[0]):
            PrefetchOp.build(tdesc=d, **cache_hints(op))
        return []
