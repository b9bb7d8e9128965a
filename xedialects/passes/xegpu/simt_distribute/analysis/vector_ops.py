"""Layouts of vector data movement in `xegpu-simt-distribute`: extract / insert (strided) slices,
broadcasts, shape_cast and transpose, and where a subgroup reorder is allowed (transposed loads,
gathered blocks, broadcast columns; docs/simt.md, "Subgroup reorders", "Broadcasts")."""
from __future__ import annotations

import numpy as np
from mlir import ir

from ....utils.ir_walk import as_op, owner_op
from ..common import SG, SIMT_MAX_LANES, SimtError, is_gathered_block, int_list, is_vec, vec_shape
from ..fragment_index import broadcast_src_index, insert_pairs, piece_layout, uniform_positions
from ..layouts import Layout, SgMap, default_sgm
from .block_io import narrow_block


class VectorOpLayouts:
    """Layout rules of vector data-movement ops."""

    def reorder_gathered_block(self, op, form) -> bool:
        """True when the insert `op` completes a block assembled from gathered rows
        (`is_gathered_block`) whose users want a layout that would make the gathers take more messages
        than in VC mode: each row of the wanted layout split over so few work-items that a gathered
        row piece needs more than one 32-lane message (e.g. an i8 DPAS A in the packed order,
        [2, 8] x [1, 4]: a 16-element piece held by 4 work-items, 4 elements each). Such a block is
        assembled in its rows' gathered distribution (one element per work-item, as in VC mode) and
        reordered across the work-items after the last insert. Decided once per block."""
        res = op.results[0]
        if res in self.gather_reorder:
            return self.gather_reorder[res]
        ok = False
        p = op.operands[0]
        if form == "plain" and op.name == "vector.insert_strided_slice" and \
                len(vec_shape(p)) < len(vec_shape(res)) and is_gathered_block(res):
            dl = self.want_layout(res)
            need = None if dl is None else piece_layout(dl, self.insert_offsets(op), vec_shape(p))
            ok = need is not None and need.count * SG > SIMT_MAX_LANES
        self.gather_reorder[res] = ok
        return ok

    def broadcast_source_want(self, op):
        """What a vector.broadcast's source must hold for the layout the result's users want: each
        work-item needs the source elements its result fragment repeats. A row (1 x n) broadcast to
        a block distributed by an sg_map takes the same sg_map on the row (each work-item holds its
        columns' elements); a column (m x 1) broadcast to a block whose work-items each hold every
        row ([1, 16] x [1, 1], the DPAS C layout) needs the whole column in every work-item
        ("uniform"), as does any other pattern (each work-item then picks its elements by id)."""
        src, res = op.operands[0], op.results[0]
        wl = self.want_layout(res)
        if wl is None:
            return None
        sshape = vec_shape(src)
        idx = broadcast_src_index(sshape, vec_shape(res))[wl.tbl]
        sgm = self.want[res][1]
        cands = []
        if isinstance(sgm, SgMap):
            if len(sshape) == 2:
                cands.append(("plain", sgm))
            elif len(sshape) == 1:
                cands.append(("1d", SgMap((1, SG), (1, sgm.wd[1]))))
        cands.append(("uniform", None))
        for form, s in cands:
            try:
                lay = Layout.uniform(sshape) if form == "uniform" else Layout.plain(sshape, s)
            except ValueError:
                continue
            if uniform_positions(lay.tbl, idx) is not None:
                return form, s
        # (work-items needing different elements, e.g. a column broadcast to a [2, 8] block: each
        # work-item holds the whole source and picks its elements by work-item id)
        return "uniform", None

    @staticmethod
    def holds_all(src_lay: Layout, need_idx) -> bool:
        held = set(int(x) for x in np.unique(src_lay.tbl))
        return all(int(x) in held for x in np.unique(need_idx))

    def reorder_allowed(self, op) -> bool:
        """Cross-work-item layout changes are made only for the in-register transpose of a block
        load (the VC form of a transposed load of sub-32-bit data, which no PVC block load
        delivers in DPAS order: 'Transposed A, if the data type is less than 32 bits wide',
        xe-cute-architecture.md), where the loaded fragment has no other user, and for the
        transpose of a block assembled from gathered rows (`is_gathered_block`: the scattered
        fallback of such a load, e.g. for an unaligned pitch). Other values that would need
        another work-item's data are refused."""
        if op.name != "vector.transpose":
            return False
        src = op.operands[0]
        o = owner_op(src)
        if o is None:
            return False
        if o.name == "xegpu.load_nd":
            return sum(1 for _ in src.uses) == 1
        return is_gathered_block(src)

    def slice_index_fn(self, op, sshape, rshape):
        """Flat source index of each result element of extract_strided_slice / vector.extract (static
        position, vector result: the sub-vector at that position); shapes of the VC values."""
        if op.name == "vector.extract":
            offs = int_list(op.attributes["static_position"]) + [0] * len(rshape)
        else:
            offs = int_list(op.attributes["offsets"])
        k = len(sshape) - len(rshape)

        def idx_fn(rtbl):
            coords = np.unravel_index(rtbl, rshape)
            sc = tuple([np.full(np.shape(rtbl), offs[d]) for d in range(k)] +
                       [coords[d] + offs[k + d] for d in range(len(rshape))])
            return np.ravel_multi_index(sc, sshape)
        return idx_fn

    def whole_if_source_whole(self, op) -> bool:
        """True, with the result held whole by every work-item, when the source of the one-source
        data-movement op `op` is."""
        if self.lay_of(op, op.operands[0]).form != "uniform":
            return False
        self.set_lay(op.results[0], Layout.uniform(vec_shape(op.results[0])))
        return True

    def fwd_slice(self, op):
        if self.whole_if_source_whole(op):
            return
        src, res = op.operands[0], op.results[0]
        sl = self.lay_of(op, src)
        if op.name == "vector.extract" and len(op.operands) > 1:
            raise SimtError(op, "vector.extract of a sub-vector at a dynamic position of a distributed vector is "
                                "not supported by xegpu-simt-distribute")
        idx_fn = self.slice_index_fn(op, vec_shape(src), vec_shape(res))
        if sl.form == "sparse":
            self.set_lay(res, self.sparse_view(sl, vec_shape(res), idx_fn(np.arange(int(np.prod(vec_shape(res)))))))
            return
        lay = self.derive(op, res, sl, idx_fn)
        if lay is None:
            try:
                lay = self.generic_subset(op, sl, res, idx_fn)
            except SimtError:
                if self.feeds_reductions(res) or self.feeds_narrow_stores(res):
                    # a slice only reductions consume (e.g. the first column of a DPAS C block, the
                    # accumulator of a row reduction): a view of the source fragments
                    self.set_lay(res, self.sparse_view(sl, vec_shape(res),
                                                       idx_fn(np.arange(int(np.prod(vec_shape(res)))))))
                    return
                w = self.want.get(res)
                if w is None or w[0] != "uniform":
                    raise
                raise SimtError(op, f"'{op.name}': every work-item needs the whole {list(vec_shape(res))} slice (it is "
                                    f"broadcast along the rows of a block), but the source is distributed as "
                                    f"{sl.describe()} (a cross-work-item shuffle would be needed)")
        self.set_lay(res, lay)

    @staticmethod
    def feeds_narrow_stores(v) -> bool:
        """True when every use of `v` stores it with a scatter or into a block no sg_map distributes
        (a scattered store too): each work-item stores the elements it holds, so a slice some
        work-items hold none of can stay a view of the source fragments."""
        uses = list(v.uses)
        return bool(uses) and all(u.operand_number == 0 and (
            as_op(u.owner).name == "xegpu.store_scatter" or
            (as_op(u.owner).name == "xegpu.store_nd" and narrow_block(as_op(u.owner).operands[1]))) for u in uses)

    def generic_subset(self, op, sl, res, idx_fn):
        """Result layout where each work-item keeps exactly its source elements that the result covers."""
        rshape = vec_shape(res)
        n = int(np.prod(rshape))
        allr = np.arange(n)
        src_of = idx_fn(allr)
        inv = {int(s): r for r, s in enumerate(src_of)}
        rows = []
        for lane in range(SG):
            rows.append([inv[int(x)] for x in sl.tbl[lane] if int(x) in inv])
        if len({len(r) for r in rows}) != 1 or len(rows[0]) * SG != n:
            raise SimtError(op, f"'{op.name}' does not split evenly over the work-items ({sl.describe()})")
        tbl = np.array(rows, np.int64)
        return Layout(rshape, tbl, (tbl.shape[1],), "gen", None)

    def insert_offsets(self, op):
        if op.name == "vector.insert":
            piece = op.operands[0]
            rank = len(self.lay[piece].shape) if piece in self.lay else len(vec_shape(piece))
            return int_list(op.attributes["static_position"]) + [0] * rank
        return int_list(op.attributes["offsets"])

    def fwd_insert(self, op):
        piece, dest, res = op.operands[0], op.operands[1], op.results[0]
        ld = self.lay_of(op, dest)
        lp = self.lay_of(op, piece)
        offs = self.insert_offsets(op)
        if ld.form == "uniform" and lp.form == "uniform":
            self.set_lay(res, ld)
            return
        want = self.want_layout(res)
        final = None
        if self.gather_reorder.get(res):
            # the last insert of a gathered block its users want reordered: assembled in the
            # distribution of its gathers, then reordered (below)
            final, want = want, None
        if want is not None and not want.same(ld) and self.remat_able(dest):
            # a shared constant destination (zeros) is re-created in the layout this chain needs
            ld = want
            self.dest_need[res] = want
        # every destination element a work-item holds inside the piece must come from its own piece
        # fragment (work-items holding none of the piece keep their fragment)
        pairs = insert_pairs(lp, ld, offs)
        if pairs is None and want is None and self.remat_able(dest) and not self.remat_able(piece):
            # a shared constant destination (zeros) whose layout the users of another chain assembled
            # in it fixed (e.g. a gathered DPAS A block), while this chain's users want none (a
            # residual added to the GEMM result): the block is assembled in a layout its gathered
            # rows fit instead (the block's default, the DPAS C layout for a 16-column block)
            for cand in self.insert_dest_candidates(vec_shape(dest), lp):
                if cand.same(ld):
                    continue
                cpairs = insert_pairs(lp, cand, offs)
                if cpairs is not None:
                    ld, pairs = cand, cpairs
                    self.dest_need[res] = cand
                    break
        need = piece_layout(ld, offs, vec_shape(piece)) if self.remat_able(piece) else None
        need_pairs = None if need is None else insert_pairs(need, ld, offs)
        if pairs is None:
            if need_pairs is None:
                raise SimtError(op, f"inserting a fragment distributed as {lp.describe()} into {ld.describe()} would "
                                    "move data between work-items")
            self.piece_need[res] = need
        elif need_pairs is not None and len(set(need_pairs)) < len(set(pairs)):
            # a piece that does not depend on the work-item (the zero rows padding a gathered block)
            # is recomputed as the elements each work-item inserts, at the same fragment positions
            # in every work-item (rather than picked per work-item from the whole piece)
            self.piece_need[res] = need
        if final is not None and not final.same(ld) and self.holds_all(ld, final.tbl):
            # a subgroup reorder of the assembled block into the layout its users want
            self.reorders[res] = (ld, final.tbl)
            ld = final
        self.set_lay(res, ld)

    @staticmethod
    def insert_dest_candidates(dshape, lp: Layout):
        """Layouts for a constant destination that gathered pieces distributed as `lp` are inserted
        into: the block's default distribution, then the piece's sg_map spread over the block rows."""
        sgms = [default_sgm(dshape)]
        if lp.sgm is not None and len(lp.shape) == 1 and len(dshape) == 2:
            sgms.append(SgMap((1, SG), (1, lp.sgm.wd[-1])))
        out = []
        for s in sgms:
            try:
                out.append(Layout.plain(dshape, s))
            except ValueError:
                pass
        return out

    def fwd_broadcast(self, op):
        """vector.broadcast of a vector: the result takes the layout its users want when every
        work-item holds the source elements its fragment repeats (at the same fragment positions in
        every work-item, or the whole source); without a want, the source's sg_map or (a source
        held whole) the whole result."""
        src, res = op.operands[0], op.results[0]
        sl = self.lay_of(op, src)
        bidx = broadcast_src_index(vec_shape(src), vec_shape(res))
        want = self.want_layout(res)
        if want is not None:
            if sl.form == "uniform" or uniform_positions(sl.tbl, bidx[want.tbl]) is not None:
                self.set_lay(res, want)
                return
            raise SimtError(op, f"vector.broadcast: the source is distributed as {sl.describe()}, but the result's "
                                f"users need {want.describe()}, which repeats elements other work-items hold (a "
                                "cross-work-item shuffle would be needed)")
        if sl.form == "uniform":
            self.set_lay(res, Layout.uniform(vec_shape(res)))
            return
        lay = self.derive(op, res, sl, lambda t: bidx[t])
        if lay is None:
            free = self.free_layout(op, res)
            if free.form != "uniform" and uniform_positions(sl.tbl, bidx[free.tbl]) is not None:
                lay = free
        if lay is None:
            raise SimtError(op, f"vector.broadcast of a source distributed as {sl.describe()}: no distribution of "
                                f"the {'x'.join(map(str, vec_shape(res)))} result lets every work-item repeat its own "
                                "elements")
        self.set_lay(res, lay)

    def fwd_move(self, op):
        if self.whole_if_source_whole(op):
            return
        src, res = op.operands[0], op.results[0]
        sl = self.lay_of(op, src)
        sshape, rshape = vec_shape(src), vec_shape(res)
        if op.name == "vector.shape_cast":
            def idx_fn(rtbl):
                return rtbl
            src_idx_of_res = lambda tbl: tbl  # noqa: E731
        else:
            perm = int_list(op.attributes["permutation"])

            def idx_fn(rtbl):
                rc = np.unravel_index(rtbl, rshape)
                sc = [None] * len(perm)
                for d, p in enumerate(perm):
                    sc[p] = rc[d]
                return np.ravel_multi_index(tuple(sc), sshape)
            src_idx_of_res = idx_fn
        if sl.form == "sparse":
            self.set_lay(res, self.sparse_view(sl, rshape, src_idx_of_res(np.arange(int(np.prod(rshape))))))
            return
        lay = self.derive(op, res, sl, idx_fn)
        need = self.want_layout(res)
        if need is not None and (lay is None or not lay.same(need)) and self.reorder_allowed(op):
            if uniform_positions(sl.tbl, idx_fn(need.tbl)) is None and self.holds_all(sl, idx_fn(need.tbl)):
                # the users need elements other work-items loaded: a subgroup reorder
                self.reorders[res] = (sl, idx_fn(need.tbl))
                self.set_lay(res, need)
                return
        if lay is None:
            # same elements per work-item, in source order
            n = int(np.prod(rshape))
            inv = np.empty(n, np.int64)
            inv[src_idx_of_res(np.arange(n))] = np.arange(n)
            tbl = inv[sl.tbl]
            lay = Layout(rshape, tbl, (tbl.shape[1],), "gen", None)
        self.set_lay(res, lay)

    def fwd_constant(self, op, res):
        """Constants and broadcasts of scalars: in the layout the users want (else the default); a
        non-splat constant is kept whole in every work-item."""
        n = op.name
        if n == "arith.constant" and not ir.DenseElementsAttr(op.attributes["value"]).is_splat:
            # kept whole in every work-item; users take their elements by work-item id
            self.set_lay(res, Layout.uniform(vec_shape(res)))
            return
        self.set_lay(res, self.free_layout(op, res))

    def fwd_insert_element(self, op, res):
        """vector.insert of one element: only into a vector every work-item holds whole."""
        if self.lay_of(op, op.operands[1]).form != "uniform":
            raise SimtError(op, "vector.insert of one element into a distributed vector needs the work-item "
                                "that holds it")
        self.set_lay(res, self.lay[op.operands[1]])

    def fwd_extract_element(self, op):
        """vector.extract of one element: only from a vector every work-item holds whole."""
        n = op.name
        src = op.operands[0]
        if self.lay_of(op, src).form != "uniform":
            raise SimtError(op, f"'{n}' of one element of a distributed vector needs the work-item that holds "
                                "it (a cross-work-item shuffle)")

    def fwd_elementwise(self, op, res):
        """Element-wise arith / math on vectors: operands holding loaded or computed data must agree
        and fix the result's layout; the others are recomputed in it."""
        n = op.name
        vops = [v for v in op.operands if is_vec(v)]
        lays = [self.lay_of(op, v) for v in vops]
        for v in vops:
            if vec_shape(v) != vec_shape(res):
                raise SimtError(op, f"'{n}' mixes vector shapes {list(vec_shape(v))} and {list(vec_shape(res))}")
        # operands holding loaded or computed data fix the layout; values that do not depend on
        # the work-item (constants, broadcasts, address and mask arithmetic) are recomputed in it
        fixed = [lay for v, lay in zip(vops, lays) if not self.remat_able(v)]
        if fixed:
            ref = fixed[0]
            for lay in fixed[1:]:
                if not lay.same(ref):
                    raise SimtError(op, f"operands of '{n}' are distributed differently ({ref.describe()} vs "
                                        f"{lay.describe()})")
        else:
            ref = self.want_layout(res) or Layout.uniform(vec_shape(res))
        self.set_lay(res, Layout(ref.shape, ref.tbl, ref.lane_shape, ref.form, ref.sgm))
