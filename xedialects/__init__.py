"""xedialects: XeTile and XeGPU MLIR dialects for Intel Xe GPUs, defined in Python on upstream MLIR.

Public entry points: `make_context()`, `parse()`, `print_ir()`, the dialect Python APIs in
`xedialects.xetile` / `xedialects.xegpu`, passes in `xedialects.passes`.
"""
from .context import make_context
from .diagnostics import Diagnostic, DiagnosticError

__all__ = ["make_context", "parse", "print_ir", "Diagnostic", "DiagnosticError"]


def parse(text: str, filename: str = "-", context=None):
    """Parse readable or generic MLIR text into a verified module (raises DiagnosticError).

    Like upstream's `ir.Module.parse`, the module lives in the enclosing `with ctx:` when there is one
    (a `make_context()`; a context without our dialects gets them registered, and a plain
    `ir.Context()`, which has upstream's own xegpu loaded, is a ValueError); `context=` picks one
    explicitly; with neither, a fresh `make_context()`."""
    from .syntax import parse_source

    return parse_source(text, filename, context)


def print_ir(op, *, generic: bool = False, debuginfo: bool = False) -> str:
    """Print an operation in our readable syntax (or MLIR's generic form)."""
    from .syntax import print_operation

    return print_operation(op, generic=generic, debuginfo=debuginfo)
