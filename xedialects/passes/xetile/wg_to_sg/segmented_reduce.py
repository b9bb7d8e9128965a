"""Segmented reductions of `xetile-wg-to-sg`: a work-group `vector.shape_cast` of an R x C vector to
L x S x C (L * S = R) whose only user is a `vector.multi_reduction` over dimension 1 (IMEX's
`wg_reduction`: each group of S consecutive rows summed to one row of the L x C result).

When every subgroup holds whole groups (its source piece is S rows tall and starts on a group
boundary, the result's wg_map has the same sg_layout, sg_data [1, C piece], the same rounds), the
pair is local: per piece a `tile_reduce` over dimension 0 combined with the accumulator piece by
the reduction's own arith op. Other distributions are a located error. Mixed into `WgToSg`;
`segment_pattern` is also read by the layout analysis and the checks."""
from __future__ import annotations

from mlir import ir

from ....core.opdef import attr_value
from ....xetile.attributes import WG_MAP
from ....xetile.ops import TileReduceOp
from ...utils.ir_walk import owner_op
from .common import COMBINE, PassError, elt_type, vector_type, vshape
from .distribution import Layout


def reduction_kind(op) -> str:
    return str(op.attributes["kind"]).split("<")[-1].rstrip(">").strip()


def segment_pattern(op):
    """(shape_cast op, 2D source, S) when `op` is a vector.multi_reduction [1] of an L x S x C
    shape_cast of an (L * S) x C vector into L x C, else None."""
    if op.name != "vector.multi_reduction" or not isinstance(op.results[0].type, ir.VectorType):
        return None
    cast = owner_op(op.operands[0])
    if cast is None or cast.name != "vector.shape_cast":
        return None
    dims = [int(x) for x in ir.DenseI64ArrayAttr(op.attributes["reduction_dims"])]
    mid, src = vshape(op.operands[0]), cast.operands[0]
    if dims != [1] or len(mid) != 3 or not isinstance(src.type, ir.VectorType) or len(vshape(src)) != 2:
        return None
    L, S, C = mid
    if tuple(vshape(src)) != (L * S, C) or tuple(vshape(op.results[0])) != (L, C):
        return None
    return cast, src, S


def segment_cast_user(cast):
    """The multi_reduction for which `cast` (a vector.shape_cast) is the segmenting view, or None."""
    uses = list(cast.results[0].uses)
    if len(uses) != 1:
        return None
    user = uses[0].owner
    user = user.operation if hasattr(user, "operation") else user
    pat = segment_pattern(user)
    return user if pat is not None and pat[0] == cast else None


def result_map(op):
    """The wg_map written on the multi_reduction (`wg_map`, or IMEX's `map`), or None."""
    for key in ("wg_map", "map"):
        if key in op.attributes:
            return attr_value(WG_MAP, op.attributes[key])
    return None


def derived_result(src_lay: Layout, res_shape, S: int):
    """The result layout when the op carries no map: the source's, sg_data rows divided by S."""
    if src_lay.sg_data[0] % S:
        return None
    return Layout(tuple(res_shape), src_lay.sg_layout, (src_lay.sg_data[0] // S, src_lay.sg_data[1]))


class SegmentedReduceRules:
    """vector.shape_cast to 3D + vector.multi_reduction [1]: a per-subgroup tile_reduce."""

    def _segment_plan(self, op):
        """(source, source layout, result layout, S) of a local segmented reduction; PassError otherwise."""
        _cast, src, S = segment_pattern(op)
        sl, dl = self.la.of(src), self.la.of(op.results[0])
        if sl is None or dl is None:
            raise PassError(op, "cannot tell how the segmented vector.multi_reduction is distributed: give "
                                "its source and result a wg_map")
        ok = (sl.sg_layout == dl.sg_layout and sl.sg_data == (S, dl.sg_data[1]) and dl.sg_data[0] == 1
              and sl.rounds == dl.rounds)
        if not ok:
            raise PassError(op, f"segmented reduction (groups of {S} rows) of {sl} into {dl} is not local to "
                                f"each subgroup: only a source map with sg_data [{S}, n] and a result map with "
                                f"the same sg_layout and sg_data [1, n] distribute")
        kind = reduction_kind(op)
        if COMBINE.get(kind, (None, None))[0 if self._is_float(op.results[0]) else 1] is None:
            raise PassError(op, f"reduction kind {kind} does not apply to {elt_type(op.results[0])} elements")
        return src, sl, dl, S

    def h_segment_cast(self, rb, op):
        if segment_cast_user(op) is None:
            return None
        return [[]]      # read by its multi_reduction (h_segment_reduce) from the 2D source

    def h_segment_reduce(self, rb, op):
        if segment_pattern(op) is None:
            return None
        src, sl, dl, _S = self._segment_plan(op)
        kind = reduction_kind(op)
        sp = self.pieces(src, sl)
        acc = self.pieces(op.operands[1], dl)
        t = vector_type(dl.sg_data, elt_type(src))
        out = []
        for p, a in zip(sp, acc):
            r = TileReduceOp.build(kind=kind, vector=p, reduction_dims=[0], result_types=[t]).op.results[0]
            out.append(self._combine(kind, r, a))
        return [out]
