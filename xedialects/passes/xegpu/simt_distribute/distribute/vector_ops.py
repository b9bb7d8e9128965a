"""Distribution rules of vector ops in `xegpu-simt-distribute`: slices, inserts, shape_cast,
transpose, broadcasts, constants and element-wise arith / math, rewritten on the per-work-item
fragments (a strided slice when the fragment elements form a box, a `vector.shuffle` otherwise)."""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, vector

from ....utils.ir_walk import attr_dict
from ..common import SG, SimtError, int_list, is_vec, vec_elt, vec_type
from ..fragment_index import box_in, broadcast_ok, broadcast_src_index, insert_pairs, uniform_positions
from ..layouts import Layout


class VectorOpRules:
    """Rewrite rules of vector data movement, constants and element-wise ops."""

    def r_slice(self, rb, op):
        src, res = op.operands[0], op.results[0]
        if not is_vec(res):
            return None         # an element of a vector every work-item holds whole: kept
        sl, rl = self.lay[src], self.lay[res]
        if rl.form == "sparse":
            return [rb.one(src)]    # a view for reductions: the source fragment
        idx = self.slice_index_fn(op, sl.shape, rl.shape)(rl.tbl)
        try:
            return [self.move(rb.one(src), sl, rl, idx, vec_elt(res))]
        except SimtError:
            raise SimtError(op, f"'{op.name}' would move data between work-items")

    def r_move(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, rl = self.lay[src], self.lay[res]
        if rl.form == "sparse":
            return [rb.one(src)]    # a view for reductions: the source fragment
        if res in self.reorders:
            src_lay, need_idx = self.reorders[res]
            try:
                return [self.reorder(rb.one(src), src_lay, need_idx, rl.lane_shape, vec_elt(res))]
            except SimtError as e:
                raise SimtError(op, f"'{op.name}': {e.message}")
        sshape, rshape = sl.shape, rl.shape
        if op.name == "vector.shape_cast":
            idx = rl.tbl
        else:
            perm = int_list(op.attributes["permutation"])
            rc = np.unravel_index(rl.tbl, rshape)
            sc = [None] * len(perm)
            for d, p in enumerate(perm):
                sc[p] = rc[d]
            idx = np.ravel_multi_index(tuple(sc), sshape)
        try:
            return [self.move(rb.one(src), sl, rl, idx, vec_elt(res))]
        except SimtError:
            raise SimtError(op, f"'{op.name}' would move data between work-items")

    def r_insert(self, rb, op):
        piece, dest, res = op.operands[0], op.operands[1], op.results[0]
        if not is_vec(piece) and self.lay[dest].form == "uniform":
            return None         # an element into a vector every work-item holds whole: kept
        lp, ldst = self.lay[piece], self.lay[dest]
        offs = self.insert_offsets(op)
        elt = vec_elt(res)
        if res in self.piece_need:   # (keyed by result: an Operation's hash changes as the IR is rebuilt)
            lp = self.piece_need[res]
            pnew = self.convert(rb, piece, lp, op, "inserted piece")
        else:
            pnew = rb.one(piece)
        if res in self.dest_need:
            ldst = self.dest_need[res]
            dnew = self.convert(rb, dest, ldst, op, "destination")
        else:
            dnew = rb.one(dest)
        pairs = insert_pairs(lp, ldst, offs)
        if pairs is None:
            raise SimtError(op, "insert_strided_slice would move data between work-items")
        groups = {}
        for lane, pr in enumerate(pairs):
            groups.setdefault(pr, []).append(lane)
        out = dnew
        for pr, lanes in groups.items():
            if not pr:
                continue        # these work-items hold none of the piece: their fragment is unchanged
            cand = self._insert_fragment(pnew, lp, dnew, ldst, pr, elt)
            if len(lanes) == SG:
                out = cand
                break
            out = arith.SelectOp(self.lane_pred(lanes), cand, out).result
        if res in self.reorders:
            # the assembled block reordered across the work-items (fwd_insert)
            src_lay, need_idx = self.reorders[res]
            try:
                out = self.reorder(out, src_lay, need_idx, self.lay[res].lane_shape, elt)
            except SimtError as e:
                raise SimtError(op, f"'{op.name}': {e.message}")
        return [out]

    def _insert_fragment(self, pnew, lp: Layout, dnew, ldst: Layout, pairs, elt):
        """dest fragment with position q replaced by piece fragment position p for each (q, p)."""
        nd = int(np.prod(ldst.lane_shape))
        npc = int(np.prod(lp.lane_shape))
        by_p = sorted(pairs, key=lambda x: x[1])
        if [p for _, p in by_p] == list(range(npc)):
            box = box_in([q for q, _ in by_p], ldst.lane_shape)
            if box is not None:
                first, sizes = box
                src_shape = list(sizes)
                while len(src_shape) > 1 and src_shape[0] == 1:
                    src_shape.pop(0)
                src = pnew
                if tuple(src_shape) != tuple(lp.lane_shape):
                    src = vector.shape_cast(vec_type(src_shape, elt), pnew)
                return vector.insert_strided_slice(src, dnew, first, [1] * len(src_shape))
        mask = list(range(nd))
        for q, p in pairs:
            mask[q] = nd + p
        fd = dnew if len(ldst.lane_shape) == 1 else vector.shape_cast(vec_type((nd,), elt), dnew)
        fp = pnew if len(lp.lane_shape) == 1 else vector.shape_cast(vec_type((npc,), elt), pnew)
        sh = vector.shuffle(fd, fp, mask)
        if len(ldst.lane_shape) != 1:
            sh = vector.shape_cast(vec_type(ldst.lane_shape, elt), sh)
        return sh

    def r_const(self, rb, op):
        res = op.results[0]
        if not is_vec(res):
            return None
        d = ir.DenseElementsAttr(op.attributes["value"])
        if not d.is_splat:
            return None         # kept whole (uniform); users pick their elements
        rt = self.lane_type(res)
        return [arith.ConstantOp(rt, ir.DenseElementsAttr.get_splat(rt, d.get_splat_value())).result]

    def r_broadcast(self, rb, op):
        res, src = op.results[0], op.operands[0]
        if not is_vec(src):
            return [vector.broadcast(self.lane_type(res), rb.one(src))]
        # a vector source: each work-item repeats the source elements it holds
        sl, rl = self.lay[src], self.lay[res]
        elt = vec_elt(res)
        rt = self.lane_type(res)
        idx = broadcast_src_index(sl.shape, rl.shape)[rl.tbl]
        src_new = rb.one(src)
        q = uniform_positions(sl.tbl, idx)
        if q is None:
            if sl.form != "uniform":
                raise SimtError(op, "vector.broadcast would move data between work-items")
            # the source is held whole: each work-item picks the elements it repeats by work-item id
            # (once each), then repeats them in registers
            rows = [list(dict.fromkeys(int(x) for x in r)) for r in idx]
            n = len(rows[0])
            even = all(len(r) == n for r in rows)
            if even and n == 1:
                one = Layout(sl.shape, np.array(rows, np.int64), (), "gen")
                return [vector.broadcast(rt, self.lane_extract(src_new, sl.shape, one, elt))]
            compact = Layout(sl.shape, np.array(rows, np.int64), (n,), "gen") if even else None
            q = None if compact is None else uniform_positions(compact.tbl, idx)
            if q is None:
                return [self.lane_extract(src_new, sl.shape, Layout(sl.shape, idx, rl.lane_shape, "gen"), elt)]
            src_new = self.lane_extract(src_new, sl.shape, compact, elt)
            sl = compact
        if broadcast_ok(sl.lane_shape, rl.lane_shape) and \
                np.array_equal(broadcast_src_index(sl.lane_shape, rl.lane_shape), q):
            # the per-work-item operation is itself a broadcast (a row: each work-item's column element)
            if tuple(sl.lane_shape) == tuple(rl.lane_shape):
                return [src_new]
            return [vector.broadcast(rt, src_new)]
        if (q == q[0]).all():
            pos = [int(x) for x in np.unravel_index(int(q[0]), sl.lane_shape)]
            return [vector.broadcast(rt, vector.extract(src_new, [], pos))]
        return [self.move(src_new, sl, rl, idx, elt)]

    def r_generic(self, rb, op):
        """Element-wise arith/math op on fragments (operands that do not depend on the work-item are
        recomputed in the result's layout)."""
        res = [r for r in op.results if is_vec(r)]
        if not res:
            return None
        if res[0] in self.red_plan:
            return [self.r_combine(rb, op)]
        lay = self.lay[res[0]]
        if len(op.results) == 1 and self.remat_able(res[0]):
            return [self.materialize(rb, res[0], lay, op, rebuild=True)]
        types = [self.lane_type(r) if is_vec(r) else r.type for r in op.results]
        operands = [self.convert(rb, v, lay, op) if is_vec(v) else rb.one(v) for v in op.operands]
        attrs = attr_dict(op)
        new = ir.Operation.create(op.name, results=types, operands=operands, attributes=attrs)
        return [new.results[i] for i in range(len(types))]
