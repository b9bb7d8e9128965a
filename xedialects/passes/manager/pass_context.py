"""`PassContext`: what a Python pass is handed to report located errors, warnings and remarks."""
from __future__ import annotations

from ...diagnostics import Diagnostic, at
from .options import PassOptions


def _location_of(where, fallback):
    """An `ir.Location` (or None) for an op, op view, value, location or None."""
    if where is None:
        return getattr(fallback, "location", None)
    if isinstance(where, str):
        return where
    loc = None
    try:
        loc = where.location
    except Exception:  # noqa: BLE001 - values without a location (block arguments in old bindings)
        owner = getattr(where, "owner", None)
        loc = getattr(owner, "location", None)
    if loc is None and hasattr(where, "operation"):
        loc = where.operation.location
    if loc is None:
        from mlir import ir

        if isinstance(where, ir.Location):
            return where
        return getattr(fallback, "location", None)
    return loc


class PassContext:
    """Handed to a pass: `ctx.error/warning/remark(op_or_loc, message, notes=[(op_or_loc, msg)])`.
    An error makes the pass fail once it returns (it keeps running, so several errors can be
    reported); `ctx.fail(msg)` fails without a location. Each method returns the Diagnostic."""

    def __init__(self, pass_name: str, module_op, options: PassOptions):
        self.pass_name = pass_name
        self.module = module_op
        self.options = options
        self.diagnostics: list[Diagnostic] = []

    def _emit(self, severity, where, message, notes) -> Diagnostic:
        loc = _location_of(where, self.module)
        d = at(loc, severity, str(message)) if loc is not None else Diagnostic(severity, str(message))
        for note in notes or ():
            if isinstance(note, Diagnostic):
                d.notes.append(note)
            elif isinstance(note, str):
                d.notes.append(Diagnostic("note", note, d.filename, d.line, d.col))
            else:
                nwhere, nmsg = note
                nloc = _location_of(nwhere, self.module)
                d.notes.append(at(nloc, "note", str(nmsg)) if nloc is not None else Diagnostic("note", str(nmsg)))
        self.diagnostics.append(d)
        return d

    def error(self, where, message, *, notes=None) -> Diagnostic:
        return self._emit("error", where, message, notes)

    def warning(self, where, message, *, notes=None) -> Diagnostic:
        return self._emit("warning", where, message, notes)

    def remark(self, where, message, *, notes=None) -> Diagnostic:
        return self._emit("remark", where, message, notes)

    def emit(self, diag: Diagnostic) -> Diagnostic:
        """Report a prebuilt Diagnostic (e.g. from a helper that returns diagnostics)."""
        self.diagnostics.append(diag)
        return diag

    def fail(self, message: str | None = None) -> None:
        """Fail the pass; with a message, report it at the module."""
        self._emit("error", None, message or f"pass '{self.pass_name}' failed", None)

    @property
    def failed(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)
