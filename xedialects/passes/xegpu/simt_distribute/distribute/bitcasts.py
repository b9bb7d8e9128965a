"""Distribution rule of `vector.bitcast` in `xegpu-simt-distribute`: the per-work-item bitcast of
the fragment along its innermost dimension (rearranged in registers first where the analysis
said, `analysis/bitcasts.py`), reshaped to the result's per-work-item shape."""
from __future__ import annotations

from mlir.dialects import vector

from ..common import vec_elt, vec_type


class BitcastRules:
    """Rewrite rule of vector.bitcast."""

    def r_bitcast(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, rl = self.lay[src], self.lay[res]
        src_new = rb.one(src)
        if sl.form == "uniform":
            return [vector.bitcast(self.lane_type(res), src_new)]
        lane_shape = tuple(sl.lane_shape) or (1,)
        pre = self.bitcast_pre.get(res)
        if pre is not None:
            src_new = self.move(src_new, sl, pre, pre.tbl, vec_elt(src))
            lane_shape = tuple(pre.lane_shape)
        elif lane_shape != tuple(sl.lane_shape):
            src_new = vector.broadcast(vec_type(lane_shape, vec_elt(src)), src_new)
        n_src = 1
        for x in lane_shape:
            n_src *= x
        n_res = rl.count
        inner = lane_shape[-1] * n_res // n_src
        cast = vector.bitcast(vec_type(lane_shape[:-1] + (inner,), vec_elt(res)), src_new)
        if lane_shape[:-1] + (inner,) != tuple(rl.lane_shape):
            cast = vector.shape_cast(self.lane_type(res), cast)
        return [cast]
