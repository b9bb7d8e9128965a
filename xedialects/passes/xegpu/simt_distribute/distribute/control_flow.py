"""Control flow in the rewrite of `xegpu-simt-distribute`: the Rebuilder that drives the
per-op rules, sends element-wise arith / math on vectors to `r_generic`; `scf.for` loops are
rebuilt by the base Rebuilder with per-work-item iter_args, and their new block arguments and
results take the layouts and descriptor chains of the old ones."""
from __future__ import annotations

from mlir import ir

from ....utils.rebuild import Rebuilder
from ..common import is_vec


class SimtRebuilder(Rebuilder):
    def __init__(self, dist):
        super().__init__(dist.handlers())
        self.dist = dist

    def process_op(self, op):
        n = op.name
        if n not in self.handlers and n not in ("scf.for", "scf.yield") and \
                n.startswith(("arith.", "math.")) and any(is_vec(r) for r in op.results):
            with ir.InsertionPoint(op), op.location:
                res = self.dist.r_generic(self, op)
            for old, new in zip(op.results, res):
                self.set(old, new)
            return True
        return super().process_op(op)

    def rebound(self, old, new):
        """A rebuilt loop's value takes the layout and descriptor chain of the one it replaces."""
        dist = self.dist
        if old in dist.lay:
            dist.lay[new] = dist.lay[old]
        if old in dist.chain_of:
            dist.chain_of[new] = dist.chain_of[old]
