"""Parse errors without a location placed at the op they come from, when it can be told.

Upstream's parser builds the body of a named linalg op (`linalg.matmul` of bf16 inputs into f16:
no `extf`/`truncf` between types of one width) and verifies it with an unknown location, so the
error would print as `<unknown>: error: 'arith.addf' op requires the same type ...`. The note names
the body op and its types; the named linalg op of the source whose operand types hold all of them is
where the error belongs.

    diags = locate(diags, text, filename)
"""
from __future__ import annotations

import re

_NAMED = re.compile(r"\blinalg\.(?!generic\b|yield\b|index\b)([a-z_]+)\b")
_TYPES = re.compile(r"(?:(?<=[\d?]x)|\b)(?:bf16|f16|f32|f64|tf32|i1|i4|i8|i16|i32|i64|index)\b")
_OPERATION = re.compile(r"see current operation: .*?:\s*\(([^)]*)\)\s*->\s*(\S+)")


def locate(diags, text: str, filename: str):
    """`diags` with each unlocated error (and its unlocated notes) placed at the named linalg op of
    `text` whose types it mentions (unchanged when no single op fits)."""
    for d in diags:
        if d.severity != "error" or d.line is not None:
            continue
        wanted = set()
        for note in d.notes:
            m = _OPERATION.search(note.message)
            if m:
                wanted |= set(_TYPES.findall(m.group(1) + " " + m.group(2)))
        if not wanted:
            continue
        text = re.sub(r"//[^\n]*", lambda c: " " * len(c.group(0)), text)    # comments: same offsets
        spots = []
        for m in _NAMED.finditer(text):
            end = text.find("\n", text.find("outs(", m.end()) if "outs(" in text[m.end():] else m.end())
            span = text[m.start():end if end > 0 else len(text)]
            if wanted <= set(_TYPES.findall(span)):
                spots.append(m)
        if len(spots) != 1:
            continue
        m = spots[0]
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        d.filename, d.line, d.col = filename, line, col
        d.message += f" (in the body upstream's parser builds for this 'linalg.{m.group(1)}')"
        for note in d.notes:
            if note.line is None:
                note.filename, note.line, note.col = filename, line, col
    return diags
