"""The errors of the pass infrastructure: a pipeline that cannot be built (`PassPipelineError`), a
pass that failed (`PassFailure`, with located diagnostics) or crashed (`PassInternalError`), and
`PlainDiagnostic` for problems without a source position."""
from __future__ import annotations

from ...diagnostics import Diagnostic, DiagnosticError


class PlainDiagnostic(Diagnostic):
    """A diagnostic without a source position (a pipeline or driver problem): prints
    `[where: ]severity: message` instead of `<unknown>: ...`."""

    def location_str(self) -> str:
        if self.line is not None:
            return super().location_str()
        return self.filename or ""

    def format(self) -> str:
        where = self.location_str()
        text = f"{where + ': ' if where else ''}{self.severity}: {self.message}"
        for note in self.notes:
            text += "\n" + note.format()
        return text


class PassPipelineError(DiagnosticError, ValueError):
    """A pipeline cannot be built: syntax error, unknown pass, bad option name or value."""


class PassFailure(DiagnosticError):
    """A pass failed while running. `.diagnostics` is the summary ("pass 'x' failed") followed by
    the located diagnostics; `.located` holds only the latter, `.pass_name` the failing pass."""

    def __init__(self, pass_name: str, summary: Diagnostic, located: list[Diagnostic]):
        self.pass_name = pass_name
        self.summary = summary
        self.located = list(located)
        super().__init__([summary, *self.located])


class PassInternalError(RuntimeError):
    """A Python pass raised an unexpected exception (a bug in the pass); the original exception is
    chained as `__cause__`."""

    def __init__(self, pass_name: str, exc: BaseException):
        self.pass_name = pass_name
        super().__init__(f"pass '{pass_name}' raised {type(exc).__name__}: {exc}")


def pipeline_error(message: str, text: str | None = None, col: int | None = None) -> PassPipelineError:
    if text is not None and col is not None:
        return PassPipelineError([Diagnostic("error", message, "<pass-pipeline>", 1, col)])
    return PassPipelineError([PlainDiagnostic("error", message)])
