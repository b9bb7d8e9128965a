"""Distribution rule of `xegpu.dpas` in `xegpu-simt-distribute`: the operands arrive in the layouts
the analysis checked (docs/simt.md, "The DPAS operand orders"), but for a computed A operand the
analysis left in another layout, which is reordered into the A order first ("Layout
conversions"); the SIMT DPAS takes the per-work-item fragments."""
from __future__ import annotations

from .....xegpu.ops import DpasOp


class DpasRules:
    """Rewrite rule of DPAS."""

    def r_dpas(self, rb, op):
        kw = {}
        if len(op.operands) > 2:
            kw["acc"] = rb.one(op.operands[2])
        res = op.results[0]
        a = rb.one(op.operands[0])
        if res in self.dpas_a_conv:
            have, need = self.dpas_a_conv[res]
            a = self.converted(op.operands[0], a, have, need)
        return [DpasOp.build(a=a, b=rb.one(op.operands[1]),
                             result_types=[self.lane_type(res)], **kw).op.results[0]]
