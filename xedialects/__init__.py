"""xedialects: XeTile and XeGPU MLIR dialects for Intel Xe GPUs, defined in Python on upstream MLIR.

Public entry points: `make_context()`, `parse()`, `print_ir()`, `verify()`, the dialect Python APIs in
`xedialects.xetile` / `xedialects.xegpu`, passes in `xedialects.passes`. Importing the package makes
`str()` of IR in our contexts print the readable syntax (`xedialects.printing`), as do MLIR's parser and verifier errors, and a
parse failure on readable text names `parse()` (`xedialects.mlir_errors`).
"""
from . import mlir_errors as _mlir_errors, printing as _printing
from .context import make_context
from .diagnostics import Diagnostic, DiagnosticError

__all__ = ["make_context", "parse", "print_ir", "verify", "Diagnostic", "DiagnosticError"]

_printing.install()
_mlir_errors.install()


def parse(text: str, filename: str = "-", context=None):
    """Parse readable or generic MLIR text into a verified module (raises DiagnosticError).

    Like upstream's `ir.Module.parse`, the module lives in the enclosing `with ctx:` when there is one
    (a `make_context()`; a context without our dialects gets them registered, and a plain
    `ir.Context()`, which has upstream's own xegpu loaded, is a ValueError); `context=` picks one
    explicitly; with neither, a fresh `make_context()`. Verified as by `verify()`."""
    from .syntax import parse_source

    return parse_source(text, filename, context)


def print_ir(op, *, generic: bool = False, debuginfo: bool = False) -> str:
    """Print an operation in our readable syntax (what `str(op)` prints), or MLIR's generic form."""
    from .syntax import print_operation

    return print_operation(op, generic=generic, debuginfo=debuginfo)


def verify(op, *, collector=None) -> bool:
    """MLIR's verifier plus the RFC rules of every xetile/xegpu op in a module or op: True, or
    DiagnosticError with located, readable messages (upstream's `operation.verify()` raises MLIRError)."""
    from .verifier import verify as _verify

    return _verify(op, collector=collector)
