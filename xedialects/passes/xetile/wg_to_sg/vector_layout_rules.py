"""Distribution rules of the XeTile vector ops that change how a value is spread over subgroups:
tile_conv_layout, tile_transpose, tile_broadcast and tile_reduce. When every subgroup already
holds what it needs (checked statically, `distribution.local_plan`) they stay in registers;
otherwise the data moves through SLM (`slm_exchange`). A cross-subgroup tile_reduce reduces per
subgroup, exchanges the partial results and reduces again; a tile_conv_layout whose only user is
a tile_reduce is folded into it. Mixed into `WgToSg`."""
from __future__ import annotations

from mlir.dialects import gpu, vector

from ....xetile.ops import TileBroadcastOp, TileReduceOp, TileTransposeOp
from ...utils.ir_walk import owner_op
from .common import COMBINE, create_op, elt_type, vector_type, vshape
from .distribution import local_plan, local_reduce_plan


def _owner_name(owner):
    return owner.operation.name if hasattr(owner, "operation") else owner.name


class VectorLayoutRules:
    """tile_conv_layout, tile_transpose, tile_broadcast, tile_reduce."""

    def _slice(self, v, off, size):
        shape = vshape(v)
        if tuple(size) == tuple(shape):
            return v
        return vector.ExtractStridedSliceOp(vector_type(size, elt_type(v)), v, list(off), list(size), [1, 1]).result

    @staticmethod
    def _feeds_only_reduce(op) -> bool:
        """A tile_conv_layout whose only user is a tile_reduce: the reduction reads the conversion's
        source directly (partial reductions move between subgroups instead of the whole value)."""
        uses = list(op.results[0].uses)
        return len(uses) == 1 and _owner_name(uses[0].owner) == "xetile.tile_reduce"

    def h_conv_layout(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, dl = self.la.of(src), self.la.of(res)
        if sl is None:
            return None
        if self._feeds_only_reduce(op):
            return [[]]
        return [self._redistribute(op, sl, dl, self.pieces(src, sl), elt_type(src), "tile_conv_layout")]

    def _redistribute(self, op, sl, dl, sp, elt, what):
        """The pieces `sp` (distributed as `sl`) redistributed as `dl`: slices of what this
        subgroup holds when that suffices for every subgroup, else an SLM exchange."""
        plan = local_plan(sl, dl)
        if plan is not None:
            return [self._slice(sp[j], o, dl.sg_data) for j, o in plan]
        reads = [(self.piece_offsets(dl, k), dl.sg_data, False) for k in range(dl.num_subtiles)]
        return self._exchange(op, sl, sp, elt, reads, what)

    def h_transpose(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, dl = self.la.of(src), self.la.of(res)
        if sl is None:
            return None
        perm = tuple(TileTransposeOp(op).permutation)
        sp = self.pieces(src, sl)
        elt = elt_type(src)
        if perm == (0, 1):
            return [self._redistribute(op, sl, dl, sp, elt, "tile_transpose")]
        swap = lambda off, size: (off[::-1], size[::-1])  # noqa: E731
        plan = local_plan(sl, dl, swap)
        t = vector_type(dl.sg_data, elt)
        if plan is not None:
            out = []
            for j, o in plan:
                piece = self._slice(sp[j], o, dl.sg_data[::-1])
                out.append(TileTransposeOp.build(vector=piece, permutation=[1, 0], result_types=[t]).op.results[0])
            return [out]
        reads = [(self.piece_offsets(dl, k)[::-1], dl.sg_data[::-1], True) for k in range(dl.num_subtiles)]
        return [self._exchange(op, sl, sp, elt, reads, "tile_transpose")]

    def h_broadcast(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, dl = self.la.of(src), self.la.of(res)
        if sl is None:
            return None
        dims = tuple(TileBroadcastOp(op).broadcast_dims)
        sp = self.pieces(src, sl)
        elt = elt_type(src)
        collapse = lambda off, size: (tuple(0 if d in dims else off[d] for d in range(2)),  # noqa: E731
                                      tuple(1 if d in dims else size[d] for d in range(2)))
        box = collapse((0, 0), dl.sg_data)[1]
        plan = local_plan(sl, dl, collapse)
        if plan is not None:
            srcs = [self._slice(sp[j], o, box) for j, o in plan]
        else:
            reads = [(collapse(self.piece_offsets(dl, k), dl.sg_data)[0], box, False)
                     for k in range(dl.num_subtiles)]
            srcs = self._exchange(op, sl, sp, elt, reads, "tile_broadcast")
        t = vector_type(dl.sg_data, elt)
        return [[TileBroadcastOp.build(vector=s, broadcast_dims=list(dims), result_types=[t]).op.results[0]
                 for s in srcs]]

    def _combine(self, kind, a, b):
        name = COMBINE[kind][0 if self._is_float(a) else 1]
        return create_op(name, [a, b], [a.type]).results[0]

    def _reduce_piece(self, kind, v, dims):
        shape = vshape(v)
        if all(shape[d] == 1 for d in dims):
            return v
        rshape = tuple(1 if d in dims else shape[d] for d in range(2))
        return TileReduceOp.build(kind=kind, vector=v, reduction_dims=list(dims),
                                  result_types=[vector_type(rshape, elt_type(v))]).op.results[0]

    def h_reduce(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, dl = self.la.of(src), self.la.of(res)
        if sl is None:
            return None
        red = TileReduceOp(op)
        dims = tuple(sorted(red.reduction_dims))
        kind = red.kind
        owner = owner_op(src)
        if owner is not None and owner.name == "xetile.tile_conv_layout" and self._feeds_only_reduce(owner):
            src = owner.operands[0]
            sl = self.la.of(src)
        sp = self.pieces(src, sl)
        elt = elt_type(src)
        plan = local_reduce_plan(sl, dl, dims)
        if plan is not None:
            out = []
            box = tuple(sl.sg_data[d] if d in dims else dl.sg_data[d] for d in range(2))
            for picks in plan:
                acc = None
                for j, o in picks:
                    part = self._reduce_piece(kind, self._slice(sp[j], o, box), dims)
                    acc = part if acc is None else self._combine(kind, acc, part)
                out.append(acc)
            return [out]
        # partial reduction per subgroup, exchange of the partial results through SLM, final reduction
        partials = [self._reduce_piece(kind, p, dims) for p in sp]
        pshape = tuple(sl.shape[d] // sl.sg_data[d] if d in dims else sl.shape[d] for d in range(2))
        pdata = tuple(1 if d in dims else sl.sg_data[d] for d in range(2))
        buf = self._slm(op, pshape, elt)
        if self._in_loop(op):
            gpu.BarrierOp()
        offs = []
        for k in range(len(sp)):
            off = self.piece_offsets(sl, k)
            offs.append(tuple(self._div(off[d], sl.sg_data[d]) if d in dims else off[d] for d in range(2)))
        self._slm_store(buf, elt, partials, offs, pdata)
        gpu.BarrierOp()
        out = []
        rbox = tuple(pshape[d] if d in dims else dl.sg_data[d] for d in range(2))
        for k in range(dl.num_subtiles):
            off = self.piece_offsets(dl, k)
            loaded = self._slm_load(buf, elt, tuple(0 if d in dims else off[d] for d in range(2)), rbox)
            out.append(self._reduce_piece(kind, loaded, dims))
        return [out]
