"""The layout dataflow of `xegpu-simt-distribute` (step 2, like upstream XeGPUPropagateLayout):
requirements ("wants") flow backwards from DPAS operands and stores to the values that feed them
(the A want of a computed DPAS operand last, on trial: `conversions`), then a forward walk gives every vector value its `Layout`, dispatching each op to the rule of its
family (block IO, DPAS, scattered, vector ops, reductions) and handling scf control flow here."""
from __future__ import annotations

from ....utils.ir_walk import as_op, owner_op, walk
from ..common import (SCATTERED_OPS, SG, SimtError, is_elementwise, is_gathered_block, is_vec, int_list,
                      vec_shape, vec_elt)
from .block_io import descriptor_chains, narrow_block
from ..fragment_index import piece_layout, uniform_positions
from ..layouts import Layout, SgMap, default_sgm, distributable
from ..reduction_math import COMBINE_KIND, REDUCTION_OPS, VIEW_OPS


class LayoutPropagation:
    """Wants, the forward walk and the layout queries every rule uses."""

    def analyse(self) -> bool:
        self.chain_of = descriptor_chains(self.func)
        # vector kernel arguments are the same in every work-item
        for a in self.func.regions[0].blocks[0].arguments:
            if is_vec(a):
                self.set_lay(a, Layout.uniform(vec_shape(a)))
        self.backward()
        try:
            self.forward_block(self.func.regions[0].blocks[0])
        except SimtError as e:
            self.errors.append((e.op, e.message))
        except ValueError as e:   # a block the chosen layout cannot distribute
            self.errors.append((self._current, f"cannot distribute over {SG} work-items: {e}"))
        return not self.errors

    def desire(self, v, form, sgm) -> bool:
        if not is_vec(v):
            return False
        if v in self.want:
            if self._refused is not None and self.want[v] != (form, sgm):
                self._refused.append(v)
            return False
        self.want[v] = (form, sgm)
        return True

    def backward(self):
        ops = list(walk(self.func))
        soft = []
        for op in ops:
            if op.name == "xegpu.dpas":
                a, b = op.operands[0], op.operands[1]
                la, lb, lc = self.roles(vec_elt(a), vec_elt(b), vec_elt(op.results[0]), a)
                if self.computed_a(a):
                    soft.append((a, ("plain", la)))
                else:
                    self.desire(a, "plain", la)
                self.desire(b, "vnni" if len(vec_shape(b)) == 3 else "plain", lb)
                if len(op.operands) > 2:
                    self.desire(op.operands[2], "plain", lc)
                self.desire(op.results[0], "plain", lc)
        for op in ops:
            # stored blocks: the default distribution of the block (unless a DPAS fixed one)
            # (a narrow block, which no sg_map distributes, is stored from the value's own layout)
            if op.name == "xegpu.store_nd" and len(vec_shape(op.operands[0])) in (1, 2) \
                    and distributable(vec_shape(op.operands[0])):
                shape = vec_shape(op.operands[0])
                self.desire(op.operands[0], "plain" if len(shape) == 2 else "1d", default_sgm(shape))
        for op in ops:
            # a block assembled from gathered pieces that no sg_map spreads over the work-items (a
            # remainder narrower than 16 columns): every work-item gathers and holds it whole
            if op.name in ("vector.insert_strided_slice", "vector.insert") and is_vec(op.results[0]) \
                    and not distributable(vec_shape(op.results[0])) \
                    and is_gathered_block(op.results[0], shared_base=True) \
                    and not any(as_op(u.owner).name in ("vector.insert_strided_slice", "vector.insert")
                                for u in op.results[0].uses):
                self.desire(op.results[0], "uniform", None)
        self.propagate_wants(ops)
        self.settle_dpas_a_wants(ops, soft)

    def propagate_wants(self, ops):
        """Push the wants backwards through the producers until nothing changes."""
        changed = True
        while changed:
            changed = False
            for op in reversed(ops):
                n = op.name
                res = list(op.results)
                if n == "scf.for":
                    body = op.regions[0].blocks[0]
                    y = list(body.operations)[-1].operation
                    for i, v in enumerate(list(op.operands)[3:]):
                        ws = [self.want.get(x) for x in (v, body.arguments[i + 1], op.results[i], y.operands[i])]
                        w = next((x for x in ws if x is not None), None)
                        if w is not None:
                            for x in (v, body.arguments[i + 1], op.results[i], y.operands[i]):
                                changed |= self.desire(x, *w)
                    continue
                if len(res) != 1 or res[0] not in self.want:
                    continue
                form, sgm = self.want[res[0]]
                if form == "tbl":
                    # an explicit per-work-item table (a scattered piece): element-wise producers only
                    if is_elementwise(op):
                        for v in op.operands:
                            if is_vec(v) and vec_shape(v) == vec_shape(res[0]):
                                changed |= self.desire(v, form, sgm)
                    continue
                if n == "vector.extract_strided_slice" or (n.startswith(("arith.", "math.")) and n != "arith.constant"):
                    for v in op.operands:
                        if is_vec(v) and (n == "vector.extract_strided_slice" or vec_shape(v) == vec_shape(res[0])):
                            changed |= self.desire(v, form, sgm)
                elif n == "vector.insert_strided_slice" or (n == "vector.insert" and is_vec(op.operands[0])):
                    if self.reorder_gathered_block(op, form):
                        # the block is assembled in its gathers' distribution and reordered after
                        # the last insert (fwd_insert)
                        continue
                    changed |= self.desire(op.operands[1], form, sgm)
                    p = op.operands[0]
                    if len(vec_shape(p)) == len(vec_shape(res[0])):
                        changed |= self.desire(p, form, sgm)
                    else:
                        # a lower-rank piece (e.g. a gathered row): each work-item takes the piece
                        # elements its destination fragment holds
                        dl = self.want_layout(res[0])
                        need = None if dl is None else piece_layout(dl, self.insert_offsets(op), vec_shape(p))
                        if need is not None:
                            changed |= self.desire(p, "tbl", need)
                        elif len(vec_shape(p)) == 1 and sgm.wl[0] == 1:
                            changed |= self.desire(p, "1d", SgMap((1, SG), (1, sgm.wd[1])))
                elif n in ("vector.broadcast", "vector.splat"):
                    if is_vec(op.operands[0]):
                        need = self.broadcast_source_want(op)
                        if need is not None:
                            changed |= self.desire(op.operands[0], *need)
                elif form == "uniform":
                    # a value every work-item holds whole: so is its source
                    if n in ("vector.transpose", "vector.shape_cast"):
                        changed |= self.desire(op.operands[0], "uniform", None)
                elif n == "vector.transpose":
                    perm = int_list(op.attributes["permutation"])
                    if perm == [1, 0] and form == "plain" and sgm.t() != SgMap((1, SG), (1, 1)) and \
                            is_gathered_block(op.operands[0]):
                        # a transposed operand assembled from gathered rows: the transposed sg_map
                        # would give every row to fewer than 16 work-items (packed A: two, half
                        # each, every work-item gathering four elements per row; B: one, gathering
                        # the whole row); the rows keep their gathers' distribution instead (one
                        # element per work-item, as in VC mode) and a subgroup reorder follows the
                        # transpose (fwd_move)
                        pass
                    elif perm == [1, 0]:
                        changed |= self.desire(op.operands[0], "plain", sgm.t())
                    elif perm == [0, 2, 1]:
                        changed |= self.desire(op.operands[0], "inter", sgm)
                elif n == "vector.bitcast":
                    need = self.bitcast_source_want(op)
                    if need is not None:
                        changed |= self.desire(op.operands[0], *need)
                elif n == "vector.shape_cast":
                    src = op.operands[0]
                    if form in ("inter", "vnni", "plain"):
                        f2 = "plain" if len(vec_shape(src)) == 2 else ("vnni" if form == "plain" else "inter")
                        changed |= self.desire(src, f2, sgm)

    def set_lay(self, v, lay: Layout):
        self.lay[v] = lay

    def lay_of(self, op, v) -> Layout:
        lay = self.lay.get(v)
        if lay is None:
            raise SimtError(op, f"no work-item layout for operand {v.get_name()} of '{op.name}'")
        return lay

    def want_layout(self, v, shape=None):
        w = self.want.get(v)
        shape = shape or vec_shape(v)
        if w is None:
            return None
        form, sgm = w
        if form == "tbl":
            return sgm if tuple(sgm.shape) == tuple(shape) else None
        if form == "uniform":
            return Layout.uniform(shape)
        try:
            if form == "vnni" and len(shape) == 3:
                return Layout.vnni(shape, sgm)
            if len(shape) == 2 and form == "plain":
                return Layout.plain(shape, sgm)
            if len(shape) == 1 and form == "1d":
                return Layout.plain(shape, sgm)
        except ValueError:
            return None
        return None

    def free_layout(self, op, v) -> Layout:
        """Layout of a value whose producer does not fix one (constants, broadcasts)."""
        lay = self.want_layout(v)
        if lay is not None:
            return lay
        shape = vec_shape(v)
        try:
            if len(shape) in (1, 2):
                return Layout.plain(shape, default_sgm(shape))
            if len(shape) == 3:
                return Layout.vnni(shape, SgMap((1, SG), (shape[2], 1)))
        except ValueError:
            pass
        # not spread evenly over the work-items: every work-item holds it whole (it is recomputed
        # in the layout each user needs)
        return Layout.uniform(shape)

    def derive(self, op, res, src_lay: Layout, res_src_idx_fn):
        """Layout of `res` from a data-movement op: the elements each work-item holds follow the
        source. Prefers the wanted / sg_map layout of the result when it needs no cross-lane move."""
        shape = vec_shape(res)
        cands = []
        wl = self.want_layout(res)
        if wl is not None:
            cands.append(wl)
        if src_lay.sgm is not None:
            for form in ("plain", "vnni", "1d"):
                try:
                    if form == "plain" and len(shape) == 2:
                        cands.append(Layout.plain(shape, src_lay.sgm))
                    elif form == "vnni" and len(shape) == 3:
                        cands.append(Layout.vnni(shape, src_lay.sgm))
                    elif form == "1d" and len(shape) == 1:
                        cands.append(Layout.plain(shape, SgMap((1, SG), (1, src_lay.sgm.wd[1]))))
                except ValueError:
                    pass
        for cand in cands:
            idx = res_src_idx_fn(cand.tbl)
            if idx is not None and uniform_positions(src_lay.tbl, idx) is not None:
                return cand
        # generic: every work-item keeps its elements in source order
        return None

    def forward_block(self, block):
        for op in block.operations:
            self.forward_op(op.operation)

    def forward_op(self, op):
        """Give the vector results of `op` their layouts: the rule of the op's family."""
        self._current = op
        n = op.name
        if n in COMBINE_KIND and any(self.lay.get(v) is not None and self.lay[v].special for v in op.operands) \
                and is_vec(op.results[0]):
            self.fwd_combine(op)
            return
        if n not in REDUCTION_OPS:
            for v in op.operands:
                lv = self.lay.get(v)
                if lv is not None and lv.special and not (lv.form == "sparse" and n in VIEW_OPS) and \
                        not (lv.form == "sparse" and v == op.operands[0] and (n == "xegpu.store_scatter" or (
                            n == "xegpu.store_nd" and narrow_block(op.operands[1])))):
                    raise SimtError(op, f"'{n}' cannot use {v.get_name()}, {lv.describe()}")
        if n in ("scf.yield", "gpu.return", "func.return"):
            return
        if n == "scf.for":
            self.fwd_for(op)
            return
        if n in ("scf.if", "scf.while"):
            if any(is_vec(r) for r in op.results):
                raise SimtError(op, f"'{n}' carrying vectors is not supported by xegpu-simt-distribute")
            self.forward_regions(op)
            return
        if n in SCATTERED_OPS:
            self.fwd_scattered(op)
            return
        if n == "xegpu.load_nd":
            self.fwd_load_nd(op)
            return
        if n == "xegpu.store_nd":
            self.fwd_store_nd(op)
            return
        if n in ("xegpu.prefetch_nd", "xegpu.update_nd_offset", "xegpu.create_nd_tdesc"):
            return
        if n == "xegpu.dpas":
            self.fwd_dpas(op)
            return
        if n in REDUCTION_OPS:
            self.fwd_reduction(op)
            return
        res = [r for r in op.results if is_vec(r)]
        if not res and not any(is_vec(v) for v in op.operands):
            self.forward_regions(op)
            return
        if n in ("vector.broadcast", "vector.splat") and is_vec(op.operands[0]):
            self.fwd_broadcast(op)
            return
        if n == "arith.constant" or n in ("vector.broadcast", "vector.splat"):
            self.fwd_constant(op, res[0])
            return
        if n == "vector.step":
            self.set_lay(res[0], Layout.uniform(vec_shape(res[0])))
            return
        if n == "vector.extract" and res:
            self.fwd_slice(op)
            return
        if n == "vector.insert" and not is_vec(op.operands[0]):
            self.fwd_insert_element(op, res[0])
            return
        if n == "vector.insert" and is_vec(op.operands[0]):
            if len(op.operands) > 2:
                raise SimtError(op, "vector.insert of a sub-vector at a dynamic position is not supported by "
                                    "xegpu-simt-distribute")
            self.fwd_insert(op)
            return
        if n in ("vector.extract", "vector.extractelement") and not res:
            self.fwd_extract_element(op)
            return
        if n == "vector.extract_strided_slice":
            self.fwd_slice(op)
            return
        if n == "vector.insert_strided_slice":
            self.fwd_insert(op)
            return
        if n in ("vector.shape_cast", "vector.transpose"):
            self.fwd_move(op)
            return
        if n == "vector.bitcast":
            self.fwd_bitcast(op)
            return
        if n.startswith(("arith.", "math.")) and len(res) == 1:
            self.fwd_elementwise(op, res[0])
            return
        raise SimtError(op, f"'{n}' on subgroup vectors is not supported by xegpu-simt-distribute")

    def forward_regions(self, op):
        for region in op.regions:
            for b in region.blocks:
                self.forward_block(b)

    def fwd_for(self, op):
        """scf.for: the iter_args take their initial values' layouts, which the yielded values must
        keep (a loop-carried fragment cannot change its distribution)."""
        body = op.regions[0].blocks[0]
        inits = list(op.operands)[3:]
        for i, v in enumerate(inits):
            if is_vec(v):
                self.set_lay(body.arguments[i + 1], self.lay_of(op, v))
        self.forward_block(body)
        y = list(body.operations)[-1].operation
        for i, v in enumerate(inits):
            if is_vec(v):
                ly = self.lay_of(y, y.operands[i])
                if not ly.same(self.lay[v]):
                    raise SimtError(y, f"loop-carried value {i}: the yielded fragment layout "
                                       f"({ly.describe()}) differs from the initial one ({self.lay[v].describe()})")
                self.set_lay(op.results[i], self.lay[v])

    def remat_able(self, v) -> bool:
        """True when `v` does not depend on per-work-item data: splat constants, broadcasts of
        scalars, values every work-item holds whole, and element-wise arithmetic on such values.
        Those are recomputed (or picked by work-item id) in whatever layout a user needs."""
        r = self._remat.get(v)
        if r is not None:
            return r
        o = owner_op(v)
        lay = self.lay.get(v)
        if lay is not None and lay.form == "uniform":
            r = True
        elif o is None:
            r = False
        elif o.name == "arith.constant":
            r = True
        elif o.name in ("vector.broadcast", "vector.splat"):
            r = not is_vec(o.operands[0])
        elif is_elementwise(o) and len(o.results) == 1:
            r = all(self.remat_able(x) for x in o.operands if is_vec(x))
        else:
            r = False
        self._remat[v] = r
        return r

    def convertible(self, v, to: Layout) -> bool:
        lay = self.lay.get(v)
        if lay is None:
            return False
        if lay.same(to) or self.remat_able(v):
            return True
        if lay.form == "partial":
            return False
        return uniform_positions(lay.tbl, to.tbl) is not None
