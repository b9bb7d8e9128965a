"""Diagnostics: the one place errors, warnings, remarks and notes are represented and collected.

Every stage (syntax layer, verifiers, passes, lowering, simulator) reports through `Diagnostic`
objects carrying a source location, so tools print `file:line:col: error: msg` and
`--verify-diagnostics` can match them. MLIR's own diagnostics are converted into the same form. Our
types, attributes and ops in a message are in readable syntax (`syntax.readable`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

SEVERITIES = ("error", "warning", "note", "remark")


@dataclass
class Diagnostic:
    severity: str  # one of SEVERITIES
    message: str
    filename: str | None = None
    line: int | None = None
    col: int | None = None
    notes: list["Diagnostic"] = field(default_factory=list)

    def __post_init__(self):
        if "xetile." in self.message or "xegpu." in self.message:
            from .syntax.readable import readable  # local: the syntax layer reports through this module

            self.message = readable(self.message)

    def location_str(self) -> str:
        if self.filename is None or self.line is None:
            return "<unknown>"
        return f"{self.filename}:{self.line}:{self.col or 0}"

    def format(self) -> str:
        text = f"{self.location_str()}: {self.severity}: {self.message}"
        for note in self.notes:
            text += "\n" + note.format()
        return text

    def __str__(self) -> str:
        return self.format()


class DiagnosticError(Exception):
    """Raised when a stage fails; carries the diagnostics that explain why."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))


_FILE_LOC = re.compile(r'^loc\("(?P<file>(?:[^"\\]|\\.)*)":(?P<line>\d+):(?P<col>\d+)')
_ANY_FILE_LOC = re.compile(r'"(?P<file>(?:[^"\\]|\\.)*)":(?P<line>\d+):(?P<col>\d+)')


def split_location(loc) -> tuple[str | None, int | None, int | None]:
    """(filename, line, col) of an `ir.Location` (or its text); the first file location inside
    fused/name/callsite locations is used. Unknown locations give (None, None, None)."""
    text = str(loc)
    m = _FILE_LOC.match(text) or _ANY_FILE_LOC.search(text)
    if not m:
        return None, None, None
    return m.group("file"), int(m.group("line")), int(m.group("col"))


def at(loc, severity: str, message: str, notes: list[Diagnostic] | None = None) -> Diagnostic:
    """A diagnostic at an `ir.Location` (or location text)."""
    f, l, c = split_location(loc)
    return Diagnostic(severity, message, f, l, c, list(notes or []))


def from_mlir(diag) -> Diagnostic:
    """Convert an MLIR `ir.Diagnostic` / `ir.DiagnosticInfo` into ours."""
    sev = str(diag.severity).rsplit(".", 1)[-1].lower()
    sev = {"error": "error", "warning": "warning", "note": "note", "remark": "remark"}.get(sev, "error")
    d = at(diag.location, sev, str(diag.message))
    d.notes = [from_mlir(n) for n in diag.notes]
    return d


class DiagnosticCollector:
    """Collects diagnostics for one tool invocation (MLIR's, through a context handler, and ours)."""

    def __init__(self):
        self.diagnostics: list[Diagnostic] = []

    def attach(self, context) -> None:
        def handler(diag):
            self.diagnostics.append(from_mlir(diag))
            return True

        context.attach_diagnostic_handler(handler)

    def emit(self, diag: Diagnostic) -> None:
        self.diagnostics.append(diag)

    def extend(self, diags) -> None:
        self.diagnostics.extend(diags)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)
