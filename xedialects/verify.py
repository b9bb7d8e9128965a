"""Semantic verification: runs each of our ops' `verify` (the RFC rules) over a module."""
from __future__ import annotations

from .core.dialect import op_class
from .diagnostics import Diagnostic, at


def verify_module(root) -> list[Diagnostic]:
    """Diagnostics (errors first) for every xetile/xegpu op nested under `root`."""
    diags: list[Diagnostic] = []

    def visit(op):
        name = op.name
        if name.startswith(("xetile.", "xegpu.")):
            cls = op_class(name)
            if cls is not None:
                for item in cls(op).verify() or ():
                    sev, msg = item if isinstance(item, tuple) else ("error", item)
                    diags.append(at(op.location, sev, f"'{name}' op {msg}"))
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    visit(child.operation)

    visit(root.operation if hasattr(root, "operation") else root)
    return diags
