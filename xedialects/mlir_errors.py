"""Upstream's parser and verifier in our contexts (`ir.Module.parse`, `ir.Operation.parse`, `ir.Type.parse`,
`ir.Attribute.parse`, `op.verify()`): their MLIRError names our types in readable syntax, and a parse
failure on text that uses xetile/xegpu says that `xedialects.parse` reads the readable syntax.

Installed when `xedialects` is imported; other contexts, successful calls and the package's own calls
are untouched (docs/ir-encoding.md "Readable by default").
"""
from __future__ import annotations

import sys
from types import SimpleNamespace

from mlir import ir

from .context import has_dialects
from .printing import from_package

HINT = ("MLIR's parser reads xetile/xegpu only in the generic IRDL encoding (what op.get_asm() prints); "
        "xedialects.parse(text) reads the readable syntax (what print() shows)")


def _ours(ctx, frame) -> bool:
    return ctx is not None and not from_package(frame) and has_dialects(ctx)


def _readable_diagnostic(d):
    """An `ir.DiagnosticInfo` look-alike (what MLIRError and `diagnostics.from_mlir` read) in readable syntax."""
    from .syntax.readable import readable

    return SimpleNamespace(severity=d.severity, location=d.location, message=readable(d.message),
                           notes=[_readable_diagnostic(n) for n in d.notes])


def _readable_error(e, hint: str = ""):
    from .syntax.readable import readable

    return type(e)(readable(e.message) + hint, [_readable_diagnostic(d) for d in e.error_diagnostics])


def _parse(original):
    def parse(asm, *args, **kwargs):
        try:
            return original(asm, *args, **kwargs)
        except ir.MLIRError as e:
            ctx = kwargs.get("context") or next((a for a in args if isinstance(a, ir.Context)), None)
            if not _ours(ctx or ir.Context.current, sys._getframe(1)):
                raise
            text = asm.decode(errors="replace") if isinstance(asm, bytes) else asm
            hint = f" ({HINT})" if "xetile." in text or "xegpu." in text else ""
            raise _readable_error(e, hint) from None

    parse.__name__ = "parse"
    parse.__doc__ = (original.__doc__ or "") + f"\n(xedialects: in its contexts errors are readable; {HINT})"
    parse.__wrapped__ = original
    return staticmethod(parse)


def _verify(original):
    def verify(self):
        try:
            return original(self)
        except ir.MLIRError as e:
            if not _ours(self.context, sys._getframe(1)):
                raise
            raise _readable_error(e) from None

    verify.__name__ = "verify"
    verify.__doc__ = (original.__doc__ or "") + ("\n(xedialects: in its contexts errors are readable; "
                                                 "xedialects.verify(op) adds the RFC rules)")
    verify.__wrapped__ = original
    return verify


def install() -> None:
    """Wrap the four `parse` functions and `verify`; idempotent."""
    for cls in (ir.Module, ir.Operation, ir.Type, ir.Attribute):
        original = cls.__dict__["parse"]
        if not hasattr(original, "__wrapped__"):
            setattr(cls, "parse", _parse(original))
    base = ir.Operation.__mro__[1]  # `_OperationBase`: verify() of every op and OpView
    if not hasattr(base.__dict__["verify"], "__wrapped__"):
        base.verify = _verify(base.__dict__["verify"])
