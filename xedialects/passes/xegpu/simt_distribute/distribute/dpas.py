"""Distribution rule of `xegpu.dpas` in `xegpu-simt-distribute`: the operands already arrive in
the layouts the analysis checked (docs/simt.md, "The DPAS operand orders"); the SIMT DPAS takes
the per-work-item fragments."""
from __future__ import annotations

from .....xegpu.ops import DpasOp


class DpasRules:
    """Rewrite rule of DPAS."""

    def r_dpas(self, rb, op):
        kw = {}
        if len(op.operands) > 2:
            kw["acc"] = rb.one(op.operands[2])
        res = op.results[0]
        return [DpasOp.build(a=rb.one(op.operands[0]), b=rb.one(op.operands[1]),
                             result_types=[self.lane_type(res)], **kw).op.results[0]]
