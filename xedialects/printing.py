"""`str()` and `repr()` of MLIR IR objects print our readable syntax, as upstream prints its own dialects.

Installed when `xedialects` is imported. Only objects of a context that holds our dialects
(`make_context()`, `register_dialects`) change; other contexts print exactly as before. Code inside the
`xedialects` package keeps MLIR's encoding (it reads it back), and `op.get_asm()` /
`print_ir(op, generic=True)` print MLIR's form. The design and its cost: docs/ir-encoding.md
"Readable by default".
"""
from __future__ import annotations

import sys

from mlir import ir

from .context import has_dialects

_PACKAGE = __name__.split(".", 1)[0]


def from_package(frame) -> bool:
    """Whether `frame` runs code of the xedialects package (which reads MLIR's encoding)."""
    name = frame.f_globals.get("__name__") or ""
    return name == _PACKAGE or name.startswith(_PACKAGE + ".")


def _context(obj):
    if isinstance(obj, ir.Block):
        return obj.owner.context
    return obj.context


def _readable_method(original):
    def method(self):
        text = original(self)
        if ("xetile." not in text and "xegpu." not in text) or from_package(sys._getframe(1)):
            return text
        try:
            if not has_dialects(_context(self)):
                return text
            from .syntax.readable import readable

            return readable(text)
        except Exception:  # printing never fails: MLIR's text is still the truth
            return text

    method.__name__ = original.__name__
    method.__doc__ = (original.__doc__ or "") + "\n(xedialects: readable syntax for xetile/xegpu)"
    method.__wrapped__ = original
    return method


_CLASSES = (ir.Module, ir.Operation, ir.OpView, ir.Block, ir.Type, ir.Attribute, ir.Value, ir.OpResult,
            ir.BlockArgument)
_OPERATION_BASE = ir.Operation.__mro__[1]  # `_OperationBase`: str() of every op and OpView
# Concrete types and attributes with a `__repr__` of their own, which can hold ours: `TypeAttr(...)`,
# `ArrayAttr([...])`, `DictAttr({...})`, `FunctionType(...)`, ... (their `__str__` is Type's / Attribute's).
_SUBCLASSES = tuple(c for c in vars(ir).values()
                    if isinstance(c, type) and issubclass(c, (ir.Type, ir.Attribute)) and c not in _CLASSES)


def install() -> None:
    """Wrap `__str__` and `__repr__` of the IR classes (`Type(...)`, `TypeAttr(...)`, ...); idempotent."""
    for cls in _CLASSES + (_OPERATION_BASE,) + _SUBCLASSES:
        for name in ("__str__", "__repr__"):
            original = cls.__dict__.get(name)
            if original is not None and not hasattr(original, "__wrapped__"):
                setattr(cls, name, _readable_method(original))
