"""Layout conversions of `xegpu-simt-distribute` (docs/simt.md, "Layout conversions"), like
upstream's `xegpu.convert_layout`: a DPAS A operand computed by an element-wise chain (attention's
P = exp(S - max) fed to P x V) wants the packed A order, but the chain's inputs (a DPAS C result,
[1, 16] x [1, 1]) are in another one. Such an A want is "soft": it flows back through the chain
only when nothing on the way is fixed to another layout; otherwise the chain is computed in that
layout (the natural [1, 16] one) and the A operand is reordered across the work-items once, at
the DPAS (`dpas_a_conversions`, rewritten by `distribute/conversions.py`)."""
from __future__ import annotations

from ....utils.ir_walk import owner_op
from ..common import is_elementwise, is_vec
from ..layouts import SgMap


class LayoutConversions:
    """Soft DPAS A wants and the conversions they leave at DPAS A operands."""

    @staticmethod
    def computed_a(a) -> bool:
        """True when the DPAS A operand `a` is computed by an element-wise arith / math op (its want
        is soft: `settle_dpas_a_wants`)."""
        o = owner_op(a)
        return o is not None and is_elementwise(o)

    def fixed_elsewhere(self, v) -> bool:
        """True when `v` holds data whose layout a want outside the element-wise chain fixes (not a
        constant or a broadcast scalar, which are recomputed in any layout)."""
        o = owner_op(v)
        if o is None:
            return True
        if o.name == "arith.constant":
            return False
        if o.name in ("vector.broadcast", "vector.splat") and not is_vec(o.operands[0]):
            return False
        if is_elementwise(o) and len(o.results) == 1:
            return any(self.fixed_elsewhere(x) for x in o.operands if is_vec(x))
        return True

    def settle_dpas_a_wants(self, ops, soft):
        """Give each computed DPAS A operand its packed-A want, pushed back through its chain, unless
        the chain reaches a value another want already fixes differently (a DPAS result, a loaded
        block). Then the chain takes that value's want instead (computed where its data already
        is) and the A operand is converted at the DPAS."""
        for a, (form, sgm) in soft:
            if a in self.want:
                continue
            saved = dict(self.want), dict(self.gather_reorder)
            self._refused = []
            self.desire(a, form, sgm)
            self.propagate_wants(ops)
            refused, self._refused = self._refused, None
            conflict = next((saved[0][v] for v in refused
                             if v in saved[0] and saved[0][v] != (form, sgm) and self.fixed_elsewhere(v)), None)
            if conflict is None:
                continue
            self.want, self.gather_reorder = saved
            cform, csgm = conflict
            if cform == "plain" and isinstance(csgm, SgMap):
                self.desire(a, cform, csgm)
                self.propagate_wants(ops)
