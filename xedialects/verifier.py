"""Verification: MLIR's verifier plus each of our ops' `verify` (the RFC rules); `xedialects.verify`."""
from __future__ import annotations

from .core.dialect import op_class
from .diagnostics import Diagnostic, DiagnosticError, at, from_mlir


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


def verify(root, *, collector=None) -> bool:
    """Verify a module or op as upstream's `operation.verify()` does (True, or an exception), adding
    the RFC rules: MLIR's verifier first, then every xetile/xegpu op's rules. Errors raise
    DiagnosticError with located, readable messages; warnings and remarks go to `collector` (a
    `DiagnosticCollector`) when one is given."""
    from mlir import ir

    op = root.operation if hasattr(root, "operation") else root
    try:
        op.verify()
    except ir.MLIRError as e:
        raise DiagnosticError([from_mlir(d) for d in e.error_diagnostics]
                              or [at(op.location, "error", str(e))]) from None
    diags = verify_module(op)
    if collector is not None:
        collector.extend(d for d in diags if d.severity != "error")
    if any(d.severity == "error" for d in diags):
        raise DiagnosticError(diags)
    return True
