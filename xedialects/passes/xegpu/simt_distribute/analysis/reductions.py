"""Layouts of reductions in `xegpu-simt-distribute` (vector.multi_reduction, vector.reduction and
element-wise ops combining like a reduction kind): "local" reductions within the work-items,
"cross" ones through per-work-item partials, and the "sparse" / "partial" forms between them
(docs/simt.md, "Reductions")."""
from __future__ import annotations

import numpy as np

from ....utils.ir_walk import as_op
from ..common import SG, SimtError, is_vec, vec_elt, vec_shape
from ..layouts import Layout, default_sgm
from ..reduction_math import (COMBINE_KIND, REDUCTION_OPS, VIEW_OPS, ReductionPlan, identity_attr, reduce_index,
                              reduction_dims, reduction_kind)


class ReductionLayouts:
    """Layout rules (and plans) of reductions."""

    def feeds_reductions(self, v) -> bool:
        """True when every use of `v` is a reduction (source or accumulator) or an element-wise op
        combining like one (arith.addf, maximumf, ...), directly or through static data movement
        (slices, shape_cast, transpose) whose results are such values too."""
        uses = list(v.uses)
        if not uses:
            return False
        for u in uses:
            o = as_op(u.owner)
            if o.name in REDUCTION_OPS and u.operand_number in (0, 1):
                continue
            if o.name in COMBINE_KIND and is_vec(o.results[0]):
                continue
            if o.name in VIEW_OPS and u.operand_number == 0 and len(o.operands) == 1 and is_vec(o.results[0]) \
                    and self.feeds_reductions(o.results[0]):
                continue
            return False
        return True

    @staticmethod
    def sparse_view(sl: Layout, rshape, src_of_res) -> Layout:
        """The "sparse" layout of a data-movement result kept as a view of its source's fragments:
        each fragment position holds the result element of its source element, or -1 outside."""
        inv = np.full(int(np.prod(sl.shape)), -1, np.int64)
        inv[np.asarray(src_of_res, np.int64)] = np.arange(len(src_of_res))
        tbl = np.where(sl.tbl >= 0, inv[np.maximum(sl.tbl, 0)], -1)
        return Layout(tuple(rshape), tbl, sl.lane_shape, "sparse")

    def result_target(self, res):
        """The layout a reduction result should take for its users: the wanted one, else, for a value
        yielded by a loop, the loop's initial value's (the loop-carried layouts must agree)."""
        w = self.want_layout(res)
        if w is not None and not w.special:
            return w
        for u in res.uses:
            o = as_op(u.owner)
            par = as_op(o.parent) if o.name == "scf.yield" else None
            if par is not None and par.name == "scf.for":
                init = list(par.operands)[3 + u.operand_number]
                lay = self.lay.get(init)
                if lay is not None and not lay.special and lay.shape == vec_shape(res):
                    return lay
        return None

    def keeps_partial(self, res, kind) -> bool:
        """A cross-work-item reduction result stays partial when its only users are reductions of the
        same kind (the accumulator chains convert-xetile-to-xegpu builds per block): their own combine
        across the work-items covers it."""
        def same_kind(u):
            o = as_op(u.owner)
            if o.name in REDUCTION_OPS:
                return u.operand_number in (0, 1) and reduction_kind(o) == kind
            return COMBINE_KIND.get(o.name) == kind and is_vec(o.results[0])
        uses = list(res.uses)
        return bool(uses) and all(same_kind(u) for u in uses)

    def fwd_combine(self, op):
        """An element-wise op combining like a reduction kind (arith.addf for add, ...) with an
        operand held in part ("sparse" view) or as partial results: the result is a partial
        result of that kind (each work-item combines the operand elements it holds, the identity
        for the others), combined across the work-items unless only same-kind reductions or
        combinations consume it (as fwd_reduction)."""
        kind = COMBINE_KIND[op.name]
        res = op.results[0]
        rshape = vec_shape(res)
        elt = vec_elt(res)
        for v in op.operands:
            lv = self.lay_of(op, v)
            if lv.form == "partial" and lv.kind != kind:
                raise SimtError(op, f"'{op.name}': operand {v.get_name()} is a partial <{lv.kind}> result")
        n = int(np.prod(rshape))
        keep = self.keeps_partial(res, kind)
        lay = Layout(rshape, np.tile(np.arange(n, dtype=np.int64), (SG, 1)), rshape, "partial", kind=kind) if keep \
            else Layout.uniform(rshape)
        self.red_plan[res] = ReductionPlan(kind, elt, np.arange(n, dtype=np.int64), n, rshape, "combine", lay, keep,
                                           "none")
        self.set_lay(res, lay)

    def fwd_reduction(self, op):
        """vector.multi_reduction / vector.reduction. When every result element a work-item is to
        hold has all its source elements in that work-item ("local": column sums of a DPAS C
        block, a source every work-item holds whole), each work-item reduces its own fragment.
        Otherwise ("cross": row sums of a C block, each work-item holding one column) every
        work-item reduces the source elements it holds into a partial result of the whole shape
        (the kind's identity where it holds none; an element several work-items hold counts once),
        and `gpu.subgroup_reduce` (gpu.shuffle xor butterflies for minui / maxui) combines the
        partials, leaving the result in every work-item ("uniform"); a result only reductions of
        the same kind consume stays partial and is combined by them. The accumulator is combined
        after the cross-work-item step when every work-item holds it, else by the work-items
        holding its elements, before."""
        kind = reduction_kind(op)
        src, res = op.operands[0], op.results[0]
        acc = op.operands[1] if len(op.operands) > 1 else None
        sshape = vec_shape(src)
        rshape = vec_shape(res) if is_vec(res) else ()
        elt = vec_elt(src)
        try:
            identity_attr(kind, elt)
        except ValueError as e:
            raise SimtError(op, f"'{op.name}': {e}")
        ridx, n_r = reduce_index(sshape, reduction_dims(op))
        sl = self.lay_of(op, src)
        if acc is not None and is_vec(acc):
            al = self.lay_of(op, acc)
        else:
            al = self.lay.get(acc) if acc is not None else None     # a scalar: uniform unless partial
        for what, lay in (("source", sl), ("accumulator", al)):
            if lay is not None and lay.form == "partial" and lay.kind != kind:
                raise SimtError(op, f"'{op.name}' <{kind}>: the {what} is a partial <{lay.kind}> result")
        if sl.form != "partial" and (al is None or al.form != "partial"):
            ok, lay = self.local_reduction_layout(sl, res, acc, ridx, n_r, rshape)
            if ok:
                self.red_plan[res] = ReductionPlan(kind, elt, ridx, n_r, rshape, "local", lay, False,
                                                   "none" if acc is None else "local")
                if lay is not None:
                    self.set_lay(res, lay)
                return
        keep = self.keeps_partial(res, kind)
        lay = None
        if keep:
            lay = Layout(rshape, np.tile(np.arange(n_r, dtype=np.int64), (SG, 1)), rshape, "partial", kind=kind)
        elif rshape:
            # after the combine every work-item has the whole result: it keeps the elements its
            # users want (e.g. a loop-carried value's distribution), else all
            lay = self.result_target(res)
            if lay is None:
                lay = Layout.uniform(rshape)
        if acc is None:
            acc_mode = "none"
        elif al is not None and al.form == "partial":
            acc_mode = "partial"
        elif not keep and (al is None if not rshape else self.convertible(acc, lay)):
            acc_mode = "post"
        else:
            acc_mode = "contrib"
        self.red_plan[res] = ReductionPlan(kind, elt, ridx, n_r, rshape, "cross", lay, keep, acc_mode)
        if lay is not None:
            self.set_lay(res, lay)

    def local_reduction_layout(self, sl: Layout, res, acc, ridx, n_r, rshape):
        """(True, layout) when the reduction needs no other work-item's data: a result layout in which
        every work-item holds all source elements of its result elements (the users' wanted layout,
        the default distribution, the whole result, or each work-item's complete elements) and the
        accumulator can be brought to it; layout None for a scalar every work-item computes."""
        held = [set(int(x) for x in row if x >= 0) for row in sl.tbl]
        src_of = [[] for _ in range(n_r)]
        for s_, r in enumerate(ridx):
            src_of[int(r)].append(s_)
        full = [frozenset(r for r in range(n_r) if all(x in held[lane] for x in src_of[r])) for lane in range(SG)]
        if not rshape:
            return all(len(f) == 1 for f in full), None
        cands = []
        w = self.result_target(res)
        if w is not None:
            cands.append(w)
        if len(rshape) in (1, 2):
            try:
                cands.append(Layout.plain(rshape, default_sgm(rshape)))
            except ValueError:
                pass
        if all(len(f) == n_r for f in full):
            cands.append(Layout.uniform(rshape))
        sizes = {len(f) for f in full}
        if len(sizes) == 1 and 0 < min(sizes) < n_r and frozenset().union(*full) == frozenset(range(n_r)):
            tbl = np.array([sorted(f) for f in full], np.int64)
            cands.append(Layout(rshape, tbl, (tbl.shape[1],), "gen"))
        for c in cands:
            if all(set(int(x) for x in c.tbl[lane]) <= full[lane] for lane in range(SG)) and \
                    (acc is None or self.convertible(acc, c)):
                return True, c
        return False, None
