"""Distribution rules of reductions in `xegpu-simt-distribute`: per-work-item reductions, partial
results of the elements each work-item holds, and their combination across the work-items with
`gpu.subgroup_reduce` (`gpu.shuffle xor` butterflies for minui / maxui; docs/simt.md, "Reductions")."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, gpu, vector

from ..common import DYNAMIC, SG, is_int_type, vec_shape, vec_type
from ..reduction_math import ARITH_COMBINE, SUBGROUP_REDUCE_KINDS, contributions, group_slots, identity_attr, pad_rows


class ReductionRules:
    """Rewrite rules of reductions and of element-wise combinations of partials."""

    def _flat(self, v, lane_shape, elt):
        """A work-item's fragment as a 1-D vector (a scalar as vector<1>)."""
        if len(lane_shape) == 1:
            return v
        if tuple(lane_shape) == ():
            return self.memo("flat", v, lambda: vector.broadcast(vec_type((1,), elt), v))
        return self.memo("flat", v, lambda: vector.shape_cast(vec_type((int(np.prod(lane_shape)),), elt), v))

    @staticmethod
    def _unflat(v, lane_shape, elt):
        if tuple(lane_shape) == ():
            return vector.extract(v, [], [0])
        if len(lane_shape) == 1:
            return v
        return vector.shape_cast(vec_type(lane_shape, elt), v)

    def identity_vec(self, kind, elt, n):
        def build():
            t = vec_type((n,), elt)
            return arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, identity_attr(kind, elt))).result
        return self.memo("identity", (kind, elt, n), build)

    @staticmethod
    def combine(kind, elt, a, b):
        name = ARITH_COMBINE[kind][1 if is_int_type(elt) else 0]
        return ir.Operation.create(name, results=[a.type], operands=[a, b]).results[0]

    def reduce_rows(self, frag, M, acc_vec, kind, elt):
        """vector<n_r>: element r the `kind` reduction of the fragment positions M[r] (-1: identity),
        combined with acc_vec (vector<n_r>) when given; None when nothing contributes."""
        n_r, k = M.shape
        if (M < 0).all():
            return acc_vec
        n_src = vec_shape(frag)[0]
        mask = M.reshape(-1)
        if (mask >= 0).all():
            x = frag if np.array_equal(mask, np.arange(n_src)) else vector.shuffle(frag, frag, [int(i) for i in mask])
        else:
            x = vector.shuffle(frag, self.identity_vec(kind, elt, 1), [int(i) if i >= 0 else n_src for i in mask])
        if k == 1:
            return x if acc_vec is None else self.combine(kind, elt, x, acc_vec)
        x = vector.shape_cast(vec_type((n_r, k), elt), x)
        a = acc_vec if acc_vec is not None else self.identity_vec(kind, elt, n_r)
        return ir.Operation.create("vector.multi_reduction", results=[vec_type((n_r,), elt)], operands=[x, a],
                                   attributes={"kind": ir.Attribute.parse(f"#vector.kind<{kind}>"),
                                               "reduction_dims": ir.DenseI64ArrayAttr.get([1])}).results[0]

    def select_groups(self, groups: dict, build):
        """One value per group of work-items (key -> work-items), selected by work-item id."""
        items = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[1][0]))
        out = build(items[0][0])
        for key, lanes in items[1:]:
            cand = build(key)
            if cand != out:
                out = arith.SelectOp(self.lane_pred(lanes), cand, out).result
        return out

    def all_reduce(self, x, kind, elt):
        """The `kind` combination of x over the 16 work-items, in every work-item."""
        if kind in SUBGROUP_REDUCE_KINDS:
            return ir.Operation.create("gpu.subgroup_reduce", results=[x.type], operands=[x],
                                       attributes={"op": ir.Attribute.parse(f"#gpu<all_reduce_op {kind}>")}).results[0]
        i32 = ir.IntegerType.get_signless(32)
        width = self.memo("const_i32", SG, lambda: arith.ConstantOp(i32, SG).result)
        off = SG // 2
        while off:
            o = self.memo("const_i32", off, lambda: arith.ConstantOp(i32, off).result)
            y = gpu.ShuffleOp(x, o, width, gpu.ShuffleMode.XOR).results[0]
            x = self.combine(kind, elt, x, y)
            off //= 2
        return x

    def r_reduction(self, rb, op):
        res = op.results[0]
        plan = self.red_plan[res]
        src = op.operands[0]
        acc = op.operands[1] if len(op.operands) > 1 else None
        sl = self.lay[src]
        frag = self._flat(rb.one(src), sl.lane_shape, plan.elt)
        if plan.mode == "local":
            return [self.red_local(rb, op, plan, sl, frag, acc)]
        return [self.red_cross(rb, op, plan, sl, frag, acc)]

    def red_local(self, rb, op, plan, sl, frag, acc):
        kind, elt, lay = plan.kind, plan.elt, plan.res_lay
        rows = lay.tbl if lay is not None else np.zeros((SG, 1), np.int64)
        n = rows.shape[1]
        src_of = [[] for _ in range(plan.n_r)]
        for s_, r in enumerate(plan.ridx):
            src_of[int(r)].append(s_)
        acc_vec = None
        if acc is not None:
            if lay is None:
                acc_vec = self._flat(rb.one(acc), (), elt)
            else:
                acc_vec = self.convert(rb, acc, lay.with_lane_shape((n,)), op, "accumulator")
        groups = {}
        for lane in range(SG):
            pos = {}
            for p, x in enumerate(sl.tbl[lane]):
                pos.setdefault(int(x), p)
            key = tuple(tuple(pos[s_] for s_ in src_of[int(r)]) for r in rows[lane])
            groups.setdefault(key, []).append(lane)
        out = self.select_groups(groups, lambda key: self.reduce_rows(frag, np.array(key, np.int64), acc_vec, kind,
                                                                         elt))
        return self._unflat(out, lay.lane_shape if lay is not None else (), elt)

    def operand_term(self, rb, v, n, elt):
        """(fragment, per-work-item contribution rows) of an operand of a cross-work-item combination
        (n elements): every position of a partial result, else each element once."""
        lay = self.lay[v]
        frag = self._flat(rb.one(v), lay.lane_shape, elt)
        return frag, contributions(lay.tbl, np.arange(n, dtype=np.int64), n, dedupe=lay.form != "partial")

    def partial_of_terms(self, terms, kind, elt, n_r):
        """This work-item's vector<n_r> partial result of the `kind` combination of the terms (fragment,
        per-work-item rows: the fragment positions each result element takes). Work-items with the
        same positions share the code (selected by work-item id); a term whose positions differ in
        many work-items, one element per result element, is inserted at positions looked up by
        work-item id instead."""
        def key_of(rows, lane):
            return tuple(map(tuple, rows[lane]))
        merged = []
        for frag, rows in terms:
            # views of one fragment (a slice and the rest of the block): one term
            same = next((i for i, (f, _) in enumerate(merged) if f == frag), None)
            if same is None:
                merged.append((frag, [[list(r) for r in lane_rows] for lane_rows in rows]))
            else:
                for lane in range(SG):
                    for r, ps in enumerate(rows[lane]):
                        merged[same][1][lane][r] += ps
        terms = merged
        joint = {}
        for lane in range(SG):
            joint.setdefault(tuple(key_of(rows, lane) for _, rows in terms), []).append(lane)

        def build(key):
            x = None
            for (frag, _), rows in zip(terms, key):
                x = self.reduce_rows(frag, pad_rows(rows), x, kind, elt)
            return x if x is not None else self.identity_vec(kind, elt, n_r)
        if len(joint) <= 4:
            return self.select_groups(joint, build)
        x = None
        for frag, rows in terms:
            groups = {}
            for lane in range(SG):
                groups.setdefault(key_of(rows, lane), []).append(lane)
            slots, slot_rows = group_slots(rows, vec_shape(frag)[0], n_r)
            k = max([len(r) for lane_rows in slot_rows for r in lane_rows] + [0])
            if len(groups) > len(slots) + 1 and k <= 1:
                # positions that always go to one result element are reduced first (e.g. the 4 rows
                # of a column a work-item of a [2, 8] layout holds), then inserted by work-item id
                sv = frag
                if any(len(ps) > 1 for ps in slots) or [ps[0] for ps in slots] != list(range(vec_shape(frag)[0])):
                    sv = self.reduce_rows(frag, pad_rows(slots), None, kind, elt)
                y = self.insert_by_lane(sv, slot_rows, kind, elt, n_r)
            else:
                def one(key, frag=frag):
                    y = self.reduce_rows(frag, pad_rows(key), None, kind, elt)
                    return y if y is not None else self.identity_vec(kind, elt, n_r)
                y = self.select_groups(groups, one)
            x = y if x is None else self.combine(kind, elt, y, x)
        return x

    def insert_by_lane(self, frag, rows, kind, elt, n_r):
        """vector<n_r>: the identity, with each fragment position inserted at the result element it
        takes in this work-item (a lookup by work-item id; positions a work-item does not put anywhere
        go to a scratch element past the end)."""
        n_pos = vec_shape(frag)[0]
        dest = np.full((SG, n_pos), n_r, np.int64)
        for lane in range(SG):
            for r, ps in enumerate(rows[lane]):
                for p in ps:
                    dest[lane, p] = r
        x = self.identity_vec(kind, elt, n_r + 1)
        for p in range(n_pos):
            col = dest[:, p]
            if (col == n_r).all():
                continue
            e = vector.extract(frag, [], [p])
            if (col == col[0]).all():
                x = vector.insert(e, x, [], [int(col[0])])
            else:
                x = vector.insert(e, x, [self.lane_index(col)], [DYNAMIC])
        return vector.extract_strided_slice(vec_type((n_r,), elt), x, [0], [n_r], [1])

    def r_combine(self, rb, op):
        res = op.results[0]
        plan = self.red_plan[res]
        kind, elt, n = plan.kind, plan.elt, plan.n_r
        part = self.partial_of_terms([self.operand_term(rb, v, n, elt) for v in op.operands], kind, elt, n)
        if not plan.keep:
            part = self.all_reduce(part, kind, elt)
        return self._unflat(part, plan.rshape, elt)

    def red_cross(self, rb, op, plan, sl, frag, acc):
        kind, elt, n_r = plan.kind, plan.elt, plan.n_r
        terms = [(frag, contributions(sl.tbl, plan.ridx, n_r, dedupe=sl.form != "partial"))]
        if plan.acc_mode == "partial":
            terms.append(self.operand_term(rb, acc, n_r, elt))
        elif plan.acc_mode == "contrib":
            if self.lay.get(acc) is None:       # a scalar every work-item holds: added by work-item 0
                terms.append((self._flat(rb.one(acc), (), elt),
                              contributions(np.zeros((SG, 1), np.int64), np.zeros(1, np.int64), 1)))
            else:
                terms.append(self.operand_term(rb, acc, n_r, elt))
        part = self.partial_of_terms(terms, kind, elt, n_r)
        if plan.keep:
            return self._unflat(part, plan.rshape, elt)
        if not plan.rshape:
            part = vector.extract(part, [], [0])
        total = self.all_reduce(part, kind, elt)
        if not plan.rshape:
            return total if plan.acc_mode != "post" else self.combine(kind, elt, total, rb.one(acc))
        lay = plan.res_lay
        n = lay.count
        if lay.form != "uniform":
            total = self.lane_extract(total, (plan.n_r,), lay.with_lane_shape((n,)), elt)
        if plan.acc_mode == "post":
            total = self.combine(kind, elt, total, self.convert(rb, acc, lay.with_lane_shape((n,)), op, "accumulator"))
        return self._unflat(total, lay.lane_shape, elt)
