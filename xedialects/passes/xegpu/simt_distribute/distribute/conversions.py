"""Building blocks of the rewrite (step 3) of `xegpu-simt-distribute`: the work-item id and
values looked up by it, fragments converted between layouts inside a work-item (or recomputed,
for values that do not depend on the work-item), and subgroup reorders (`gpu.shuffle idx`) where
a rule needs another work-item's elements (docs/simt.md, "Subgroup reorders")."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, gpu, vector

from ....utils.ir_walk import attr_dict, owner_op
from ..common import (DYNAMIC, SG, SimtError, dense_ints, is_elementwise, is_int_type, is_vec, value_type,
                      vec_elt, vec_shape, vec_type)
from ..fragment_index import box_offsets, uniform_positions
from ..layouts import Layout


class FragmentConversions:
    """Work-item ids, layout conversions and subgroup reorders."""

    def lane_type(self, v, lay=None):
        lay = lay or self.lay[v]
        return vec_type(lay.lane_shape, vec_elt(v))

    def _block_key(self):
        return ir.InsertionPoint.current.block

    def memo(self, what, key, build):
        k = (what, key, self._block_key())
        v = self._memo.get(k)
        if v is None:
            v = build()
            self._memo[k] = v
        return v

    def lane(self):
        """This work-item's id (`gpu.lane_id`, created once at the top of the function)."""
        if self._lane is None:
            entry = self.func.regions[0].blocks[0]
            with ir.InsertionPoint.at_block_begin(entry), self.func.location:
                self._lane = ir.Operation.create("gpu.lane_id", results=[ir.IndexType.get()]).results[0]
        return self._lane

    def lane_index(self, col):
        """An index value equal to col[work-item id] (col: 16 integers)."""
        return self.lane_value(col, "index")

    def lane_value(self, col, elt):
        """A scalar of integer type `elt` equal to col[work-item id] (col: 16 integers): a constant,
        the work-item id (plus a constant) or a lookup in a 16-entry table."""
        col = [int(x) for x in col]

        def build():
            t = value_type((), elt)
            if all(x == col[0] for x in col):
                return arith.ConstantOp(t, col[0]).result
            c = col[0]
            if elt == "index" and col == [c + i for i in range(SG)]:
                if c == 0:
                    return self.lane()
                return arith.AddIOp(self.lane(), arith.ConstantOp(t, c).result).result
            table = arith.ConstantOp(vec_type((SG,), elt), dense_ints(col, (SG,), elt)).result
            return vector.extract(table, [self.lane()], [DYNAMIC])
        return self.memo("lane_value", (tuple(col), elt), build)

    def lane_pred(self, lanes):
        """An i1 value true in the given work-items."""
        lanes = sorted(int(x) for x in lanes)

        def build():
            i1 = ir.IntegerType.get_signless(1)
            lo, hi = lanes[0], lanes[-1] + 1
            if lanes == list(range(lo, hi)):
                conds = []
                if lo > 0:
                    conds.append(arith.CmpIOp(arith.CmpIPredicate.uge, self.lane(),
                                              arith.ConstantOp(ir.IndexType.get(), lo).result).result)
                if hi < SG:
                    conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, self.lane(),
                                              arith.ConstantOp(ir.IndexType.get(), hi).result).result)
                if len(conds) == 1:
                    return conds[0]
                if len(conds) == 2:
                    return arith.AndIOp(conds[0], conds[1]).result
                return arith.ConstantOp(i1, 1).result
            bits = np.zeros(SG, np.int64)
            bits[lanes] = 1
            return self.lane_value(bits, "i1")
        return self.memo("lane_pred", tuple(lanes), build)

    def lane_extract(self, src_new, shape, to: Layout, elt):
        """Elements of a vector every work-item holds whole, picked by work-item id per `to`."""
        def build():
            n = int(np.prod(shape))
            flat = src_new if len(shape) == 1 else vector.shape_cast(vec_type((n,), elt), src_new)
            vals = []
            for p in range(to.count):
                col = to.tbl[:, p]
                if (col == col[0]).all():
                    vals.append(vector.extract(flat, [], [int(col[0])]))
                else:
                    vals.append(vector.extract(flat, [self.lane_index(col)], [DYNAMIC]))
            if to.lane_shape == ():
                return vals[0]
            return vector.from_elements(vec_type(to.lane_shape, elt), vals)
        return self.memo("extract", (src_new, to.key()), build)

    def convert(self, rb, v, to: Layout, op, what="operand"):
        """`v` (an old value) in layout `to` in this work-item: as is, recomputed (values that do not
        depend on the work-item), picked by work-item id (values every work-item holds whole) or
        rearranged within the work-item; anything else needs another work-item's data. A layout
        with lane_shape () gives the scalar."""
        lay = self.lay_of(op, v)
        if lay.same(to):
            return rb.one(v)
        if lay.form == "partial":
            raise SimtError(op, f"{what} {v.get_name()} is {lay.describe()}; '{op.name}' needs {to.describe()}")
        if self.remat_able(v):
            return self.materialize(rb, v, to, op)
        elt = vec_elt(v)
        if to.lane_shape == ():
            vec1 = self.convert(rb, v, to.with_lane_shape((1,)), op, what)
            return vector.extract(vec1, [], [0])
        try:
            return self.move(rb.one(v), lay, to, to.tbl, elt)
        except SimtError:
            raise SimtError(op, f"{what} {v.get_name()} is distributed as {lay.describe()}; '{op.name}' needs "
                                f"{to.describe()} (a cross-work-item shuffle would be needed)")

    def materialize(self, rb, v, to: Layout, op, rebuild=False):
        """`v` (a value that does not depend on the work-item) recomputed in layout `to`: constants
        and broadcasts are re-created, element-wise ops recomputed from their recomputed operands,
        values held whole picked by work-item id."""
        lay = self.lay[v]
        if lay.same(to) and not rebuild:
            return rb.one(v)
        o = owner_op(v)
        elt = vec_elt(v)
        rt = value_type(to.lane_shape, elt)

        def build():
            if to.count == 1 and to.lane_shape != () and not (o is not None and o.name == "arith.constant"):
                # one element per work-item: compute the scalar (shared with scalar users), then wrap it
                return vector.broadcast(rt, self.materialize(rb, v, to.with_lane_shape(()), op))
            if o is not None and o.name == "arith.constant":
                d = ir.DenseElementsAttr(o.attributes["value"])
                if d.is_splat:
                    if to.lane_shape == ():
                        return arith.ConstantOp(rt, d.get_splat_value()).result
                    return arith.ConstantOp(rt, ir.DenseElementsAttr.get_splat(rt, d.get_splat_value())).result
                if is_int_type(elt):
                    # a constant table: each element this work-item holds, by work-item id
                    di = ir.DenseIntElementsAttr(o.attributes["value"])
                    vals = np.array([int(di[i]) for i in range(len(di))], np.int64)
                    per = vals[to.tbl]
                    if (per == per[0:1]).all():
                        if to.lane_shape == ():
                            return arith.ConstantOp(rt, int(per[0, 0])).result
                        return arith.ConstantOp(rt, dense_ints(per[0], to.lane_shape, elt)).result
                    elems = [self.lane_value(per[:, p], elt) for p in range(to.count)]
                    return elems[0] if to.lane_shape == () else vector.from_elements(rt, elems)
            if o is not None and o.name in ("vector.broadcast", "vector.splat") and not is_vec(o.operands[0]):
                s = rb.one(o.operands[0])
                return s if to.lane_shape == () else vector.broadcast(rt, s)
            if o is not None and is_elementwise(o) and len(o.results) == 1 and \
                    all(self.remat_able(x) for x in o.operands if is_vec(x)):
                operands = [self.materialize(rb, x, to, op) if is_vec(x) else rb.one(x) for x in o.operands]
                return ir.Operation.create(o.name, results=[rt], operands=operands,
                                           attributes=attr_dict(o)).results[0]
            if lay.form == "uniform":
                return self.lane_extract(rb.one(v), lay.shape, to, elt)
            raise SimtError(op, f"cannot recompute {v.get_name()} in the layout '{op.name}' needs")
        return self.memo("remat", (v, to.key(), to.lane_shape), build)

    def move(self, src_new, src_lay: Layout, res_lay: Layout, src_idx, elt):
        """Per-work-item rewrite of a data-movement op: result fragment element p comes from source
        fragment position q[p] (uniform over work-items)."""
        q = uniform_positions(src_lay.tbl, src_idx)
        if q is None:
            raise SimtError(None, "data movement between work-items")
        rt = vec_type(res_lay.lane_shape, elt)
        n_src = int(np.prod(src_lay.lane_shape))
        if np.array_equal(q, np.arange(n_src)) and len(q) == n_src:
            if tuple(src_lay.lane_shape) == tuple(res_lay.lane_shape):
                return src_new
            return vector.shape_cast(rt, src_new)
        off = box_offsets(q, src_lay.lane_shape, res_lay.lane_shape)
        if off is not None:
            return vector.extract_strided_slice(rt, src_new, off, list(res_lay.lane_shape),
                                                [1] * len(off))
        flat_src = src_new
        if len(src_lay.lane_shape) != 1:
            flat_src = vector.shape_cast(vec_type((n_src,), elt), src_new)
        sh = vector.shuffle(flat_src, flat_src, [int(x) for x in q])
        if len(res_lay.lane_shape) != 1:
            sh = vector.shape_cast(rt, sh)
        return sh

    def converted(self, v, v_new, have: Layout, need: Layout):
        """`v` (its fragment `v_new`, distributed as `have`) in layout `need`: moved inside the
        work-items when each holds its elements at the same positions, else a subgroup reorder;
        built once per block (every DPAS using one A operand shares it)."""
        def build():
            elt = vec_elt(v)
            if uniform_positions(have.tbl, need.tbl) is not None:
                return self.move(v_new, have, need, need.tbl, elt)
            return self.reorder(v_new, have, need.tbl, need.lane_shape, elt)
        return self.memo("convert", (v, have.key(), need.key()), build)

    def reorder(self, src_new, src_lay: Layout, need_idx, lane_shape, elt):
        """A subgroup reorder (xe-cute-architecture.md 'Subgroup Reorders'): element p of work-item
        l's result fragment is the source element need_idx[l, p] (flat index into the VC value),
        taken from this work-item's own fragment when it holds it, else fetched from a work-item
        that does with `gpu.shuffle idx` (one shuffle of the whole fragment per distinct source
        work-item pattern), then put in place in registers."""
        holders = {}
        for lane in range(SG):
            for q, e in enumerate(src_lay.tbl[lane]):
                holders.setdefault(int(e), []).append((lane, q))
        n = need_idx.shape[1]
        src_lane = np.empty((SG, n), np.int64)
        src_pos = np.empty((SG, n), np.int64)
        for lane in range(SG):
            for p in range(n):
                hs = holders.get(int(need_idx[lane, p]))
                if not hs:
                    raise SimtError(None, "an element no work-item holds")
                ll, q = next(((x, y) for x, y in hs if x == lane), hs[0])
                src_lane[lane, p], src_pos[lane, p] = ll, q
        n_src = src_lay.count
        flat = src_new
        if tuple(src_lay.lane_shape) != (n_src,):
            flat = vector.shape_cast(vec_type((n_src,), elt), src_new)
        pieces, keys = [], {}
        which = []
        identity = tuple(range(SG))
        for p in range(n):
            pat = tuple(int(x) for x in src_lane[:, p])
            if pat not in keys:
                keys[pat] = len(pieces)
                if pat == identity:
                    pieces.append(flat)
                else:
                    i32 = ir.IntegerType.get_signless(32)
                    width = self.memo("const_i32", SG, lambda: arith.ConstantOp(i32, SG).result)
                    pieces.append(gpu.ShuffleOp(flat, self.lane_value(pat, "i32"), width,
                                                gpu.ShuffleMode.IDX).results[0])
            which.append(keys[pat])
        if (src_pos == src_pos[0:1]).all():
            cat = pieces[0]
            for x in pieces[1:]:
                k = vec_shape(cat)[0]
                cat = vector.shuffle(cat, x, list(range(k + n_src)))
            mask = [which[p] * n_src + int(src_pos[0, p]) for p in range(n)]
            out = cat if mask == list(range(vec_shape(cat)[0])) else vector.shuffle(cat, cat, mask)
        else:
            elems = []
            for p in range(n):
                col = src_pos[:, p]
                if (col == col[0]).all():
                    elems.append(vector.extract(pieces[which[p]], [], [int(col[0])]))
                else:
                    elems.append(vector.extract(pieces[which[p]], [self.lane_index(col)], [DYNAMIC]))
            out = vector.from_elements(vec_type((n,), elt), elems)
        if tuple(lane_shape) != (n,):
            out = vector.shape_cast(vec_type(lane_shape, elt), out)
        return out
