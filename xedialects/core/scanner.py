"""Character-level scanner for MLIR text, used by the syntax layer and the assembly-format engine.

It knows just enough of MLIR's lexical structure (SSA names, identifiers, strings, comments, balanced
brackets in types and attributes) to read our readable op/type/attribute syntax and MLIR's generic
form, and to report errors with line and column.
"""
from __future__ import annotations

import re

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$.\-]*")
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
_SSA = re.compile(r"%[A-Za-z0-9_$.\-]+(#[0-9]+)?")
_INT = re.compile(r"-?(0x[0-9a-fA-F]+|[0-9]+)")
_NUMBER = re.compile(r"[-+]?(0x[0-9a-fA-F]+|[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?)")

OPEN = "([{<"
_SPECIAL = re.compile(r'->|[()\[\]{}<>"\n,]')
CLOSE = ")]}>"


class ScanError(Exception):
    """A syntax error at an absolute position of the scanned text."""

    def __init__(self, message: str, pos: int):
        super().__init__(message)
        self.message = message
        self.pos = pos


class Scanner:
    def __init__(self, text: str, pos: int = 0, end: int | None = None):
        self.text = text
        self.pos = pos
        self.end = len(text) if end is None else end

    # -- basics -----------------------------------------------------------------------------
    def error(self, message: str, pos: int | None = None) -> ScanError:
        return ScanError(message, self.pos if pos is None else pos)

    def skip_ws(self) -> None:
        t, p, e = self.text, self.pos, self.end
        while p < e:
            c = t[p]
            if c in " \t\r\n":
                p += 1
            elif t.startswith("//", p):
                nl = t.find("\n", p)
                p = e if nl < 0 else nl + 1
            else:
                break
        self.pos = p

    def at_end(self) -> bool:
        self.skip_ws()
        return self.pos >= self.end

    def peek(self, s: str) -> bool:
        self.skip_ws()
        return self.text.startswith(s, self.pos)

    def peek_char(self) -> str:
        self.skip_ws()
        return self.text[self.pos] if self.pos < self.end else ""

    def accept(self, s: str) -> bool:
        if self.peek(s):
            if s[-1].isalnum() or s[-1] == "_":
                # keywords must not be a prefix of a longer identifier
                nxt = self.pos + len(s)
                if nxt < self.end and (self.text[nxt].isalnum() or self.text[nxt] in "_$."):
                    return False
            self.pos += len(s)
            return True
        return False

    def expect(self, s: str, context: str = "") -> None:
        if not self.accept(s):
            found = self.describe_next()
            where = f" {context}" if context else ""
            raise self.error(f"expected '{s}'{where}, found {found}")

    def describe_next(self) -> str:
        self.skip_ws()
        if self.pos >= self.end:
            return "end of input"
        m = _IDENT.match(self.text, self.pos) or _SSA.match(self.text, self.pos)
        tok = m.group(0) if m else self.text[self.pos]
        return f"'{tok}'"

    def _match(self, regex) -> str | None:
        self.skip_ws()
        m = regex.match(self.text, self.pos, self.end)
        if not m:
            return None
        self.pos = m.end()
        return m.group(0)

    def ident(self) -> str | None:
        return self._match(_BARE)

    def ssa(self) -> str | None:
        return self._match(_SSA)

    def integer(self) -> int | None:
        s = self._match(_INT)
        if s is None:
            return None
        return int(s, 0) if not s.lstrip("-").startswith("0x") else int(s, 16)

    def number_text(self) -> str | None:
        return self._match(_NUMBER)

    def expect_int(self, what: str) -> int:
        v = self.integer()
        if v is None:
            raise self.error(f"expected integer {what}, found {self.describe_next()}")
        return v

    def string(self) -> str | None:
        """A double-quoted string literal (returned with its quotes)."""
        self.skip_ws()
        if self.pos >= self.end or self.text[self.pos] != '"':
            return None
        p = self.pos + 1
        t = self.text
        while p < self.end:
            c = t[p]
            if c == "\\":
                p += 2
                continue
            if c == '"':
                s = t[self.pos : p + 1]
                self.pos = p + 1
                return s
            if c == "\n":
                break
            p += 1
        raise self.error("unterminated string")

    # -- balanced chunks --------------------------------------------------------------------
    def balanced(self, stop: str) -> str:
        """Raw text up to (not including) a character of `stop` at bracket depth 0.

        Tracks ()[]{}<> nesting, strings, and treats `->` as one token (not a closing `>`)."""
        self.skip_ws()
        t, e = self.text, self.end
        start = p = self.pos
        depth = 0
        arrow_stops = ">" in stop and "-" in stop
        while True:
            m = _SPECIAL.search(t, p, e)
            if m is None:
                p = e
                break
            q = m.start()
            tok = m.group(0)
            if tok == '"':
                self.pos = q
                self.string()
                p = self.pos
                continue
            if tok == "->":
                if depth == 0 and arrow_stops:
                    p = q
                    break
                p = q + 2
                continue
            if depth == 0 and tok in stop:
                p = q
                break
            if tok in OPEN:
                depth += 1
            elif tok in CLOSE:
                if depth == 0:
                    p = q
                    break
                depth -= 1
            p = q + 1
        self.pos = p
        return t[start:p].rstrip()

    def angle_body(self) -> str:
        """After a consumed '<', the raw text up to the matching '>' (consumed)."""
        body = self.balanced(">")
        self.expect(">")
        return body

    def type_text(self) -> str:
        """The raw text of one type (builtin, dialect or function type)."""
        self.skip_ws()
        start = self.pos
        t = self.text
        if self.accept("("):
            self.balanced(")")
            self.expect(")")
            if self.accept("->"):
                self.type_text()
            return t[start : self.pos]
        m = re.compile(r"!?[A-Za-z_][A-Za-z0-9_$.]*").match(t, self.pos, self.end)
        if not m:
            raise self.error(f"expected a type, found {self.describe_next()}")
        self.pos = m.end()
        if self.pos < self.end and t[self.pos] == "<":
            self.pos += 1
            self.angle_body()
        return t[start : self.pos]

    def attr_text(self) -> str:
        """The raw text of one attribute value inside an attribute dictionary or list."""
        return self.balanced(",}]")


def line_col(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of an absolute position."""
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col
