"""Rewrite MLIR's encoding of our ops, types and attributes inside any text into the readable syntax.

`readable(text)` serves printed IR (`str()` of IR objects, `xedialects.printing`) and messages
(`Diagnostic`s, MLIR's parser and verifier errors): text that is not our encoding is left as it is
(upstream's own `!xegpu.*` types, already readable text). docs/ir-encoding.md "Readable by default".
"""
from __future__ import annotations

import re

from ..core.scanner import Scanner, ScanError
from .convert import to_pretty

_OURS = re.compile(r"[!#](?:xetile|xegpu)\.[A-Za-z_]")


def readable(text: str) -> str:
    """`text` with every xetile/xegpu op, type and attribute in MLIR's encoding in readable syntax."""
    if "xetile." not in text and "xegpu." not in text:
        return text
    try:
        return to_pretty(text)
    except ScanError:
        pass
    # Not all of it is our encoding (a message quoting upstream's xegpu, or text already readable):
    # rewrite the types and attributes one by one, keeping those that do not convert.
    out, copied = [], 0
    for m in _OURS.finditer(text):
        if m.start() < copied:
            continue
        sc = Scanner(text, m.start() + 1)
        try:
            sc.type_text()
            fragment = text[m.start():sc.pos]
            out += [text[copied:m.start()], to_pretty(fragment)]
        except ScanError:
            continue
        copied = sc.pos
    return "".join(out) + text[copied:]
