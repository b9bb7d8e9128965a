"""Text conversion between our readable syntax and MLIR's generic form.

MLIR parses and prints IRDL ops only in generic form. `to_generic` rewrites every readable
xetile/xegpu op, type and attribute in a source text into generic form (keeping each op on its
original line, so MLIR's locations still point into the user's file); `to_pretty` rewrites MLIR's
printed generic forms back into the readable syntax. Both are driven by the op/type/attribute
definitions, so there is no per-op parsing or printing code here.
"""
from __future__ import annotations

import re

from ..core.asmformat import GenericOp
from ..core.dialect import DIALECTS, op_class
from ..core.scanner import Scanner, ScanError

_OUR_PREFIX = re.compile(r"[!#](xetile|xegpu)\.([A-Za-z_][A-Za-z0-9_]*)")
_OP_NAME = re.compile(r"(xetile|xegpu)\.([A-Za-z_][A-Za-z0-9_]*)")
_ALIAS_DEF = re.compile(r"([#!])([A-Za-z_][A-Za-z0-9_$.]*)\s*=\s*")
_IDENT_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$#!@%^-")


def _definition(dialect: str, name: str, sigil: str):
    d = DIALECTS.get(dialect)
    if d is None:
        return None
    return (d.types if sigil == "!" else d.attrs).get(name)


class Converter:
    def __init__(self, direction: str, base: int = 0, aliases: dict | None = None):
        assert direction in ("generic", "pretty")
        self.direction = direction
        self.base = base  # absolute offset of this text inside the user's file (for errors)
        self.aliases = {} if aliases is None else aliases

    # -- helpers used by kinds and the format engine ------------------------------------------
    def convert_fragment(self, text: str, start: int | None = None) -> str:
        if "xetile." not in text and "xegpu." not in text and not ("#" in text or "!" in text):
            return text
        sub = Converter(self.direction, self.base + (start or 0), self.aliases)
        if start is not None:
            # `start` is an absolute position within the scanned text; fragment errors map there
            sub.base = start + self.base
        return sub.run(text)

    def attr_value(self, kind, text: str):
        sc = Scanner(text)
        return kind.parse_generic(sc, self)

    # -- main loop ----------------------------------------------------------------------------
    def run(self, text: str) -> str:
        out = []
        i, n = 0, len(text)
        copied = 0
        line_start = True
        while i < n:
            c = text[i]
            if c == "/" and text.startswith("//", i):
                j = text.find("\n", i)
                i = n if j < 0 else j
                continue
            if c == '"':
                if self.direction == "pretty" and _OP_NAME.match(text, i + 1) and self._op_position(text, i):
                    out.append(text[copied:i])
                    i = self._pretty_op(text, i, out)
                    copied = i
                    line_start = False
                    continue
                sc = Scanner(text, i)
                try:
                    sc.string()
                except ScanError as e:
                    raise self._err(e)
                i = sc.pos
                line_start = False
                continue
            if c == "\n":
                line_start = True
                i += 1
                continue
            if c in "#!":
                if line_start:
                    m = _ALIAS_DEF.match(text, i)
                    if m and "." not in m.group(2):
                        out.append(text[copied:m.end()])
                        i = copied = m.end()
                        value_start = i
                        i = self._maybe_ours(text, i, out, alias=(m.group(1), m.group(2)))
                        if i != value_start:
                            copied = i
                        line_start = False
                        continue
                m = _OUR_PREFIX.match(text, i)
                if m and (i == 0 or text[i - 1] not in _IDENT_CHARS):
                    out.append(text[copied:i])
                    i = copied = self._maybe_ours(text, i, out)
                    line_start = False
                    continue
            if self.direction == "generic" and c in "xX" and (i == 0 or text[i - 1] not in _IDENT_CHARS):
                m = _OP_NAME.match(text, i)
                if m and op_class(m.group(0)) is not None and (m.end() >= n or text[m.end()] not in _IDENT_CHARS):
                    out.append(text[copied:i])
                    i = copied = self._generic_op(text, i, m, out)
                    line_start = False
                    continue
                if m and (m.end() >= n or text[m.end()] not in _IDENT_CHARS):
                    raise self._err(ScanError(f"unknown operation '{m.group(0)}' in dialect "
                                              f"'{m.group(1)}'", i))
            if not c.isspace():
                line_start = False
            i += 1
        out.append(text[copied:])
        return "".join(out)

    def _err(self, e: ScanError):
        e.pos = e.pos + self.base
        e.adjusted = True
        return e

    def _op_position(self, text, i) -> bool:
        j = i - 1
        while j >= 0 and text[j] in " \t":
            j -= 1
        return j < 0 or text[j] in "=\n{}"

    def _maybe_ours(self, text, i, out, alias=None) -> int:
        m = _OUR_PREFIX.match(text, i)
        if m is None:
            return i
        end = _extent(text, m.end())
        key = (self.direction, text[i:end])
        hit = _MEMO.get(key) if alias is None and not self.aliases else None
        if hit is not None:
            out.append(hit)
            return end
        start_len = len(out)
        pos = self._convert_ours(text, i, m, out, alias)
        if alias is None and not self.aliases and pos == end and len(_MEMO) < 100000:
            _MEMO[key] = "".join(out[start_len:])
        return pos

    def _convert_ours(self, text, i, m, out, alias) -> int:
        sigil = text[i]
        d = _definition(m.group(1), m.group(2), sigil)
        if d is None:
            kind = "type" if sigil == "!" else "attribute"
            raise self._err(ScanError(f"unknown {kind} '{m.group(0)}' in dialect '{m.group(1)}'", i))
        sc = Scanner(text, i)
        try:
            value = d.parse_pretty(sc, self) if self.direction == "generic" else d.parse_generic(sc, self)
        except ScanError as e:
            raise self._err(e)
        out.append(d.generic(value) if self.direction == "generic" else d.pretty(value))
        if alias is not None:
            self.aliases[alias[1]] = value
        return sc.pos

    def _generic_op(self, text, i, m, out) -> int:
        return self._memoized(text, i, out, lambda t, j, o: self._generic_op_uncached(t, j, _OP_NAME.match(t, j), o))

    def _memoized(self, text, i, out, convert) -> int:
        """Convert the op starting at `i` through `convert`, memoized per line with SSA names
        abstracted (names are opaque to every format, so the result only differs by them)."""
        end = text.find("\n", i)
        end = len(text) if end < 0 else end
        line = text[i:end]
        names = _SSA.findall(line)
        if self.aliases or len(names) > 64:
            return convert(text, i, out)
        abstract = _SSA.sub(_Placeholders(), line)
        key = (self.direction, abstract)
        hit = _OP_MEMO.get(key)
        if hit is None:
            local = []
            try:
                consumed = convert(abstract, 0, local)
            except ScanError:  # report the error at its real position
                return convert(text, i, out)
            if consumed > len(abstract):  # ran past the line: do not memoize
                return convert(text, i, out)
            hit = ("".join(local), len(abstract) - consumed)
            if len(_OP_MEMO) < 100000:
                _OP_MEMO[key] = hit
        template, suffix = hit
        out.append(_PLACEHOLDER.sub(lambda mm: names[int(mm.group(1))], template))
        return end - suffix

    def _generic_op_uncached(self, text, i, m, out) -> int:
        cls = op_class(m.group(0))
        sc = Scanner(text, m.end())
        try:
            g = cls.asm().parse(sc, self)
        except ScanError as e:
            raise self._err(e)
        newlines = text.count("\n", i, sc.pos)
        out.append(g.text() + "\n" * newlines)
        return sc.pos

    def _pretty_op(self, text, i, out) -> int:
        return self._memoized(text, i, out, self._pretty_op_uncached)

    def _pretty_op_uncached(self, text, i, out) -> int:
        sc = Scanner(text, i)
        name = sc.string()[1:-1]
        cls = op_class(name)
        g = GenericOp(name)
        sc.expect("(")
        if not sc.accept(")"):
            while True:
                g.operands.append(sc.ssa())
                if sc.accept(")"):
                    break
                sc.expect(",")
        if sc.accept("<{"):
            self._attr_entries(sc, g, "}>")
        if sc.accept("{"):
            self._attr_entries(sc, g, "}")
        sc.expect(":")
        sc.expect("(")
        if not sc.accept(")"):
            while True:
                g.operand_types.append(sc.type_text())
                if sc.accept(")"):
                    break
                sc.expect(",")
        sc.expect("->")
        if sc.accept("("):
            if not sc.accept(")"):
                while True:
                    g.result_types.append(sc.type_text())
                    if sc.accept(")"):
                        break
                    sc.expect(",")
        else:
            g.result_types.append(sc.type_text())
        if cls is None:
            out.append(text[i:sc.pos])
        else:
            out.append(f"{name} " + cls.asm().print(g, self))
        return sc.pos

    def _attr_entries(self, sc, g, close):
        if sc.accept(close):
            return
        while True:
            key = sc.ident() or sc.string()
            if sc.accept("="):
                g.attrs[key] = sc.attr_text()
            else:
                g.attrs[key] = "unit"
            if sc.accept(close):
                return
            sc.expect(",")


_MEMO: dict = {}
_OP_MEMO: dict = {}
_SSA = re.compile(r"%[A-Za-z0-9_$.\-]+(?:#[0-9]+)?")
_PLACEHOLDER = re.compile(r"%__xe_ph([0-9]+)__")


class _Placeholders:
    """re.sub callback numbering SSA names as %__xe_ph0__, %__xe_ph1__, ..."""

    def __init__(self):
        self.n = -1

    def __call__(self, m):
        self.n += 1
        return f"%__xe_ph{self.n}__"


_EXTENT_TOKENS = re.compile(r'->|[<>"\n]')


def _extent(text: str, pos: int) -> int:
    """End of a type/attribute starting with its mnemonic just before `pos`: the matching '>' of
    an immediately following '<' (tracking nesting, strings and '->'), else `pos`."""
    if pos >= len(text) or text[pos] != "<":
        return pos
    depth = 0
    i = pos
    while True:
        m = _EXTENT_TOKENS.search(text, i)
        if m is None:
            return pos
        tok, q = m.group(0), m.start()
        if tok == '"':
            j = text.find('"', q + 1)
            while j > 0 and text[j - 1] == "\\":
                j = text.find('"', j + 1)
            if j < 0:
                return pos
            i = j + 1
        elif tok == "->":
            i = q + 2
        elif tok == "<":
            depth += 1
            i = q + 1
        elif tok == ">":
            depth -= 1
            if depth == 0:
                return q + 1
            i = q + 1
        else:  # a newline: not on one line, let the full parser report the problem
            return pos


def to_generic(text: str) -> str:
    """Readable (or already generic) text → text MLIR's parser accepts. Raises ScanError."""
    return Converter("generic").run(text)


def to_pretty(text: str) -> str:
    """MLIR-printed text → our readable syntax."""
    return Converter("pretty").run(text)


def type_from_text(text: str):
    """The `ir.Type` (current context) of a type's text, readable (what `str()` of a type prints for a
    user) or MLIR's encoding: a builder's `result_types=["!xetile.tile<8x16xf32>"]`, `xe_kernel`'s types."""
    from mlir import ir

    return ir.Type.parse(to_generic(text))
