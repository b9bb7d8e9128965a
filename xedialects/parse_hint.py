"""Upstream's `ir.Module.parse` / `ir.Operation.parse` in our contexts: a failure on text that uses
xetile/xegpu says that MLIR reads only the encoding and `xedialects.parse` reads the readable syntax.

Installed when `xedialects` is imported; other contexts and successful parses are untouched
(docs/ir-encoding.md "Readable by default").
"""
from __future__ import annotations

import sys

from mlir import ir

from .context import has_dialects
from .printing import from_package

HINT = ("MLIR's parser reads xetile/xegpu only in the generic IRDL encoding; parse the readable syntax "
        "(what print() and xedialects.print_ir show) with xedialects.parse(text)")


def _hinting(original):
    def parse(asm, *args, **kwargs):
        try:
            return original(asm, *args, **kwargs)
        except ir.MLIRError as e:
            ctx = kwargs.get("context") or next((a for a in args if isinstance(a, ir.Context)), None)
            ctx = ctx or ir.Context.current
            text = asm.decode(errors="replace") if isinstance(asm, bytes) else asm
            if (ctx is None or from_package(sys._getframe(1)) or not has_dialects(ctx)
                    or ("xetile." not in text and "xegpu." not in text)):
                raise
            raise type(e)(f"{e.message} ({HINT})", e.error_diagnostics) from None

    parse.__name__ = "parse"
    parse.__doc__ = (original.__doc__ or "") + f"\n(xedialects: in its contexts a failure adds: {HINT})"
    parse.__wrapped__ = original
    return staticmethod(parse)


def install() -> None:
    """Wrap `ir.Module.parse` and `ir.Operation.parse`; idempotent."""
    for cls in (ir.Module, ir.Operation):
        original = cls.__dict__["parse"]
        if not hasattr(original, "__wrapped__"):
            setattr(cls, "parse", _hinting(original))
