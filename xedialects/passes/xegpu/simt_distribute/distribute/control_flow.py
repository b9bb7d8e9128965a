"""Control flow in the rewrite of `xegpu-simt-distribute`: the Rebuilder that drives the
per-op rules, sends element-wise arith / math on vectors to `r_generic`, and rebuilds `scf.for`
with per-work-item iter_args, carrying the layouts and descriptor chains of the old block
arguments and results over to the new ones."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import scf

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

    def _rebind(self, olds, groups, news):
        """Map each old value to its group of new values; a 1:1 new value takes the old one's layout
        and descriptor chain and replaces its uses."""
        dist = self.dist
        k = 0
        for old, g in zip(olds, groups):
            vals = news[k:k + len(g)]
            k += len(g)
            if len(vals) != 1:
                self.set(old, vals)
                continue
            if old in dist.lay:
                dist.lay[vals[0]] = dist.lay[old]
            if old in dist.chain_of:
                dist.chain_of[vals[0]] = dist.chain_of[old]
            old.replace_all_uses_with(vals[0])

    def _for(self, op):
        # Rebuilder._for (1:N values flattened into the iter_args), registering the layouts
        # and descriptor chains of the new block arguments and results
        lb, ub, step, *inits = list(op.operands)
        body = op.regions[0].blocks[0]
        # also rebuilt when an enclosing loop's rebuild replaced a carried value in place
        retyped = any(v.type != a.type for v, a in zip(inits, list(body.arguments)[1:]))
        if not retyped and not any(self.is_changed(v) for v in op.operands):
            self.process_block(body)
            return False
        groups = [self.map(v) for v in inits]
        flat = [x for g in groups for x in g]
        new = scf.ForOp(self.one(lb), self.one(ub), self.one(step), flat)
        old_args = list(body.arguments)
        old_args[0].replace_all_uses_with(new.induction_variable)
        self._rebind(old_args[1:], groups, list(new.inner_iter_args))
        for child in list(body.operations):
            new.body.append(child.operation)
        self.process_block(new.body)
        self._rebind(list(op.results), groups, list(new.results))
        return True
