"""Walking IR for our passes: the functions of a module, every op nested in an op, the op defining
a value. One copy shared by every pass (xedialects/passes and xedialects/lowering)."""
from __future__ import annotations

from mlir import ir


def functions(module_op, kinds=("gpu.func", "func.func")) -> list:
    """Every function op named in `kinds` (default gpu.func and func.func) of the module, nested
    gpu.modules and modules included, in order."""
    out = []

    def visit(op):
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    child = child.operation
                    if child.name in kinds:
                        out.append(child)
                    elif child.name in ("builtin.module", "gpu.module"):
                        visit(child)
    visit(module_op.operation if hasattr(module_op, "operation") else module_op)
    return out


def walk(op, into=None):
    """Every op nested in `op` (pre-order); with `into`, only the regions of ops for which
    `into(op)` holds are entered (the ops themselves are still yielded)."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                yield child
                if into is None or into(child):
                    yield from walk(child, into)


def owner_op(v):
    """The ir.Operation defining `v`, or None for a block argument."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def as_op(x):
    """The ir.Operation of an op view (OpView or Operation); None stays None."""
    return x.operation if x is not None and hasattr(x, "operation") else x


def attr_dict(op) -> dict:
    """Name -> attribute of an op's attributes (iteration yields names or NamedAttributes)."""
    out = {}
    for a in op.attributes:
        if isinstance(a, str):
            out[a] = op.attributes[a]
        else:
            out[a.name] = a.attr
    return out
