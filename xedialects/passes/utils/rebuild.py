"""One-to-N IR rebuilding for our passes (the Python counterpart of MLIR's 1:N dialect conversion).

A pass gives handlers for the ops it rewrites; `Rebuilder` walks a region in order, calls the
handler with the insertion point before the op, and records each old result as a *list* of new
values (a work-group tile can become several subgroup tiles, a blocked vector a grid of blocks).
Ops without a handler are kept and have their operands remapped; `scf.for` loops whose carried
values change are rebuilt with the flattened iter_args, and `scf.yield` follows. Replaced ops are
erased once their block is done.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import scf

from ...diagnostics import DiagnosticError, at


class RewriteError(Exception):
    def __init__(self, op, message):
        super().__init__(message)
        self.op = op
        self.message = message


class Rebuilder:
    def __init__(self, handlers: dict | None = None):
        self.handlers = dict(handlers or {})
        self.mapping: dict = {}

    # -- value mapping ----------------------------------------------------------------------------
    def map(self, value) -> list:
        return self.mapping.get(value, [value])

    def one(self, value):
        vals = self.map(value)
        if len(vals) != 1:
            raise RewriteError(value.owner, f"expected one value for {value.get_name()}, got {len(vals)}")
        return vals[0]

    def set(self, old, new) -> None:
        self.mapping[old] = list(new) if isinstance(new, (list, tuple)) else [new]

    def is_changed(self, value) -> bool:
        vals = self.mapping.get(value)
        return vals is not None and (len(vals) != 1 or vals[0] != value)

    # -- driving --------------------------------------------------------------------------------
    def run(self, op) -> None:
        """Rebuild every block nested in `op` (e.g. a gpu.func)."""
        try:
            for region in op.regions:
                for block in region.blocks:
                    self.process_block(block)
        except RewriteError as e:
            raise DiagnosticError([at(e.op.location if e.op is not None else op.location, "error", e.message)])

    def process_block(self, block) -> None:
        dead = []
        for op in list(block.operations):
            op = op.operation
            if self.process_op(op):
                dead.append(op)
        for op in reversed(dead):
            op.erase()

    def process_op(self, op) -> bool:
        """Rewrite one op; True when the old op is to be erased."""
        handler = self.handlers.get(op.name)
        with ir.InsertionPoint(op), op.location:
            if handler is not None:
                results = handler(self, op)
                if results is not None:
                    for old, new in zip(op.results, results):
                        self.set(old, new)
                    return True
            if op.name == "scf.for":
                return self._for(op)
            if op.name == "scf.yield":
                return self._yield(op)
        for i, v in enumerate(op.operands):
            if self.is_changed(v):
                op.operands[i] = self.one(v)
        for region in op.regions:
            for block in region.blocks:
                self.process_block(block)
        return False

    def _for(self, op) -> bool:
        lb, ub, step, *inits = list(op.operands)
        body = op.regions[0].blocks[0]
        # rebuilt when a carried value is remapped, or was replaced in place by an enclosing loop's
        # rebuild (its type no longer matches the iter_arg, e.g. a tile carried by nested loops)
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

    def _rebind(self, olds, groups, news):
        """Map each old value to its group of new values (`groups[i]` gives the group sizes): a
        group of several is recorded with `set`, a single new value replaces the old one's uses
        after `rebound(old, new)`."""
        k = 0
        for old, g in zip(olds, groups):
            vals = news[k:k + len(g)]
            k += len(g)
            if len(vals) != 1:
                self.set(old, vals)
                continue
            self.rebound(old, vals[0])
            old.replace_all_uses_with(vals[0])

    def rebound(self, old, new) -> None:
        """Hook: `new` (a rebuilt loop's block argument or result) takes the place of `old`."""

    def _yield(self, op) -> bool:
        if not any(self.is_changed(v) for v in op.operands):
            return False
        flat = [x for v in op.operands for x in self.map(v)]
        scf.YieldOp(flat)
        return True
