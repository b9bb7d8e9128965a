"""A tiny text builder for IRDL modules (indentation and fresh SSA names per region)."""
from __future__ import annotations

from contextlib import contextmanager


class IrdlBuilder:
    def __init__(self):
        self.lines: list[str] = []
        self.indent = 0
        self._counter = [0]

    def line(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def op(self, rhs: str) -> str:
        name = f"%{self._counter[-1]}"
        self._counter[-1] += 1
        self.line(f"{name} = {rhs}")
        return name

    @contextmanager
    def block(self, header: str):
        self.line(header + " {")
        self.indent += 1
        self._counter.append(0)
        try:
            yield
        finally:
            self._counter.pop()
            self.indent -= 1
            self.line("}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"
