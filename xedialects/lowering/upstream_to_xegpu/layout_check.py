"""Upstream `#xegpu.layout` attributes checked in the user's text before LLVM 22 sees them.

LLVM 22 asserts (aborts) on layouts its verifier lets through (and on a descriptor with a
dimension 0, checked here too): a zero or negative `sg_layout`,
`sg_data`, `inst_data`, `lane_layout` or `lane_data` entry (`computeShapeRatio`, while parsing), and
a work-group layout with `order` but no lane fields (its passes keep `order` when they drop
`sg_layout`, and such a layout does not verify). So the import reads every layout of the source
text first: a bad value or `order` is a located error at the attribute naming the rule, and an
`order` that changes nothing (the default row-major order, or any order of an `sg_layout` with at
most one dimension above 1) is blanked out of a work-group layout without lane fields, in place,
so every position in the text stays where it was (docs/upstream-xegpu-reference.md, "Errors": Layouts).

`check_array_length` and `check_dpas_layouts` are the other aborts found, in work-group programs:
upstream's blocking aborts on a subgroup-level descriptor (no `sg_layout`) with `array_length` > 1,
and its layout propagation on an `xegpu.dpas` whose `layout_cd` has `inst_data` but whose
`layout_a` or `layout_b` has not.
"""
from __future__ import annotations

import re

from ...diagnostics import Diagnostic, DiagnosticError, at

PASS_NAME = "convert-upstream-xegpu"
_SIZE_FIELDS = {
    "sg_layout": "subgroups along each dimension",
    "sg_data": "elements of one subgroup's share along each dimension",
    "inst_data": "elements of one instruction's block along each dimension",
    "lane_layout": "lanes along each dimension",
    "lane_data": "elements of one lane's share along each dimension",
}
_HEAD = "#xegpu.layout<"
_FIELD = re.compile(r"(\w+)\s*=\s*(\[[^\]]*\]|[^,>]*)")
_INT = re.compile(r"^\s*(-?\d+)\s*(?::\s*i\d+)?\s*$")


def _blank_comments(text: str) -> str:
    """`text` with every `// ...` comment replaced by spaces (offsets unchanged)."""
    return re.sub(r"//[^\n]*", lambda m: " " * len(m.group(0)), text)


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _ints(value: str) -> list[int] | None:
    """[1, -2] -> [1, -2]; None when `value` is not a bracketed list of integers."""
    value = value.strip()
    if not (value.startswith("[") and value.endswith("]")):
        return None
    items = [x for x in value[1:-1].split(",")]
    if items == [""] or all(not x.strip() for x in items):
        return []
    out = []
    for x in items:
        m = _INT.match(x)
        if not m:
            return None
        out.append(int(m.group(1)))
    return out


def _body_end(text: str, start: int) -> int:
    """Offset of the `>` closing the layout whose body starts at `start` (-1 if none)."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in "<[(":
            depth += 1
        elif c in "])":
            depth -= 1
        elif c == ">":
            if depth == 0:
                return i
            depth -= 1
    return -1


_DESC_SHAPE = re.compile(r"!xegpu\.(tensor_desc|mem_desc)<((?:\d+x)+)")


def check_layouts(text: str, filename: str = "-") -> str:
    """`text` with its `#xegpu.layout`s and descriptor shapes checked (DiagnosticError at the first bad
    one) and the `order` fields LLVM 22 cannot take but that change nothing blanked out (same length)."""
    scan = _blank_comments(text)
    for m in _DESC_SHAPE.finditer(scan):     # a 0 in a descriptor's shape aborts computeShapeRatio
        dims = [int(d) for d in m.group(2).split("x") if d]
        if 0 in dims:
            _fail(scan, m.start(), filename, f"!xegpu.{m.group(1)} of shape {m.group(2)[:-1]}: every dimension of "
                                             f"a {m.group(1)} must be positive")
    out = list(text)
    pos = scan.find(_HEAD)
    while pos >= 0:
        body = pos + len(_HEAD)
        end = _body_end(scan, body)
        if end < 0:
            break
        blank = _check_one(scan, pos, body, end, filename)
        if blank is not None:
            a, b = blank
            out[a:b] = " " * (b - a)
        pos = scan.find(_HEAD, end)
    return "".join(out)


def _fail(text: str, offset: int, filename: str, message: str, note: str | None = None):
    line, col = _position(text, offset)
    notes = [Diagnostic("note", note, filename, line, col)] if note else []
    raise DiagnosticError([Diagnostic("error", f"{PASS_NAME}: {message}", filename, line, col, notes)])


def _check_one(text: str, start: int, body: int, end: int, filename: str):
    """Check the layout text[start:end + 1]; the (start, end) span of an `order` to blank, or None."""
    fields = {}      # name -> (values or None, offset of the name, (span start, span end) with its comma)
    for m in _FIELD.finditer(text, body, end):
        name = m.group(1)
        fields[name] = (_ints(m.group(2)), m.start(1), m.span())
    attr = " ".join(text[start:end + 1].split())
    ranks = {}
    for name, what in _SIZE_FIELDS.items():
        if name not in fields or fields[name][0] is None:
            continue
        values, off, _ = fields[name]
        bad = [v for v in values if v < 1]
        if bad:
            _fail(text, off, filename, f"{attr}: {name} = {values} has {'an entry' if len(bad) == 1 else 'entries'} "
                                       f"< 1 ({', '.join(map(str, bad))}); every entry of {name} ({what}) must be "
                                       "a positive number")
        ranks[name] = len(values)
    if len(set(ranks.values())) > 1:
        first = next(iter(ranks))
        other = next(n for n in ranks if ranks[n] != ranks[first])
        _fail(text, fields[other][1], filename,
              f"{attr}: {other} has {ranks[other]} entries but {first} has {ranks[first]}; every field of a "
              "layout has one entry per dimension")
    if "order" not in fields or fields["order"][0] is None:
        return None
    order, off, span = fields["order"]
    rank = next(iter(ranks.values()), None)
    if rank is not None and len(order) != rank:
        _fail(text, off, filename, f"{attr}: order = {order} has {len(order)} entries but the layout has {rank} "
                                   "dimensions; order lists every dimension once")
    if sorted(order) != list(range(len(order))):
        _fail(text, off, filename, f"{attr}: order = {order} is not a permutation of 0..{len(order) - 1}; order "
                                   "lists every dimension once, the fastest-varying first")
    if "sg_layout" not in ranks or "lane_layout" in fields or "lane_data" in fields:
        return None          # LLVM 22 takes order with lane fields; without sg_layout its verifier answers
    default = list(range(len(order) - 1, -1, -1))
    wide = sum(1 for v in fields["sg_layout"][0] if v > 1)
    if order != default and wide > 1:
        _fail(text, off, filename,
              f"{attr}: order = {order} on a work-group layout without lane fields is not imported: LLVM 22's "
              "work-group distribution keeps order when it drops sg_layout and then aborts on the layout it "
              f"made; only the default order {default} (row-major subgroup ids) is taken, where it is left out "
              "(write the layout without order, or give it lane_layout and lane_data)")
    return _field_span(text, span, body, end)


def _field_span(text: str, span, body: int, end: int) -> tuple[int, int]:
    """The span of one field with the comma that joins it to its neighbours (`, order = [1, 0]`)."""
    a, b = span
    while b < end and text[b] in " \t":
        b += 1
    before = text[body:a].rstrip()
    if before.endswith(","):
        a = body + len(before) - 1
    elif b < end and text[b] == ",":
        b += 1
        while b < end and text[b] in " \t\n":
            b += 1
    return a, b


def check_array_length(module_op, filename: str) -> None:
    """In a work-group program: a subgroup-level descriptor (no sg_layout) with array_length > 1 is a
    located error (LLVM 22's xegpu-blocking aborts on it after layout propagation)."""
    from ...passes.utils.ir_walk import walk

    first_wg = None
    culprit = None
    for op in walk(module_op):
        for v in op.results:
            t = str(v.type)
            if not t.startswith("!xegpu.tensor_desc<"):
                continue
            if "sg_layout" in t:
                first_wg = first_wg or op
            elif re.search(r"array_length\s*=\s*([2-9]|\d\d)", t) and culprit is None:
                culprit = (op, t)
    if culprit is None or first_wg is None:
        return
    op, t = culprit
    d = at(op.location, "error",
           f"{PASS_NAME}: '{op.name}' makes a subgroup-level descriptor with array_length > 1 ({t}, no sg_layout) "
           "in a work-group program: upstream's work-group passes run over every kernel of it and LLVM 22's "
           "xegpu-blocking aborts on such a descriptor; give it a work-group layout (sg_layout, sg_data) or "
           "keep sg_layout out of the program")
    note = at(first_wg.location, "note", "the program is work-group level because of this sg_layout")
    d.notes.append(note)
    for x in (d, note):
        if x.filename in (None, "-", "<unknown>"):
            x.filename = filename
    raise DiagnosticError([d])


def check_dpas_layouts(module_op, filename: str) -> None:
    """In a work-group program: an `xegpu.dpas` whose layout_cd has inst_data must have it in layout_a
    and layout_b too (LLVM 22's xegpu-propagate-layout{layout-kind=inst} asserts otherwise)."""
    from ...passes.utils.ir_walk import walk

    for op in walk(module_op):
        if op.name != "xegpu.dpas" or "layout_cd" not in op.attributes:
            continue
        if "inst_data" not in str(op.attributes["layout_cd"]):
            continue
        missing = [n for n in ("layout_a", "layout_b")      # (an absent one: upstream's own located error)
                   if n in op.attributes and "inst_data" not in str(op.attributes[n])]
        if missing:
            d = at(op.location, "error",
                   f"{PASS_NAME}: 'xegpu.dpas' has inst_data in layout_cd but not in {' and '.join(missing)}: LLVM 22's "
                   "layout propagation (xegpu-propagate-layout{layout-kind=inst}) aborts on it; give layout_a, "
                   "layout_b and layout_cd inst_data, or leave it out of layout_cd")
            if d.filename in (None, "-", "<unknown>"):
                d.filename = filename
            raise DiagnosticError([d])
