"""`gpu.printf` format strings: C's printf conversions parsed, checked against the op's operand types, and
rendered in Python as C's printf renders them (the simulator's output; the SPIR-V lowering checks with the
same rule). docs/whole-programs.md "Printing from kernels" says what is read at which width.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_SPEC = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d*))?"
                   r"(?P<len>hh|h|ll|l|j|z|t|L)?(?P<conv>.?)", re.S)
_INT_CONV = "diouxXc"
_FLOAT_CONV = "fFeEgGaA"
_LEN_BITS = {None: 32, "hh": 8, "h": 16, "l": 64, "ll": 64, "j": 64, "z": 64, "t": 64, "L": 64}


@dataclass(frozen=True)
class Conversion:
    """One `%...` of a format: its text with C's length modifier removed (a Python %-format), how many
    operands it takes (1, plus one per `*`), and the width in bits its integer operand is read at."""
    text: str
    conv: str
    stars: int
    bits: int


def parse(fmt: str, types: list[str]) -> list:
    """The format's pieces (literal strings and `Conversion`s); `types` the operands' types as MLIR spells
    them (i32, index, f16, ...). A conversion the kernel cannot print (%s, %p, %n, an unknown one), too few
    or too many operands, or an operand of the wrong kind (a float for %d) raises ValueError."""
    pieces, pos, k = [], 0, 0
    for m in _SPEC.finditer(fmt):
        if m.start() > pos:
            pieces.append(fmt[pos:m.start()])
        pos = m.end()
        conv = m.group("conv")
        if conv == "%" and m.group(0) == "%%":
            pieces.append("%")
            continue
        if not conv or conv not in _INT_CONV + _FLOAT_CONV:
            what = f"'%{conv}'" if conv else "a '%' at the end"
            raise ValueError(f"gpu.printf format \"{_shown(fmt)}\": {what} is not a conversion a kernel can print "
                             f"(integers: %d %i %u %o %x %X %c; floats: %f %F %e %E %g %G %a %A; %% for '%')")
        stars = [m.group("width"), m.group("prec")].count("*")
        for _ in range(stars):
            _operand(fmt, types, k, "an integer ('*' width or precision)", _is_int)
            k += 1
        kind = ("an integer", _is_int) if conv in _INT_CONV else ("a float", _is_float)
        _operand(fmt, types, k, f"{kind[0]} for '%{conv}'", kind[1])
        k += 1
        text = "%" + m.group("flags") + (m.group("width") or "") + \
            ("." + m.group("prec") if m.group("prec") is not None else "") + conv
        pieces.append(Conversion(text, conv, stars, _LEN_BITS[m.group("len")]))
    if pos < len(fmt):
        pieces.append(fmt[pos:])
    if k != len(types):
        raise ValueError(f"gpu.printf format \"{_shown(fmt)}\" takes {k} operand{'s' if k != 1 else ''}, "
                         f"the op has {len(types)}")
    return pieces


def _shown(fmt: str) -> str:
    return fmt.encode("unicode_escape").decode("ascii")


def _is_int(t: str) -> bool:
    return t == "index" or (t.startswith("i") and t[1:].isdigit())


def _is_float(t: str) -> bool:
    return t in ("f16", "bf16", "f32", "f64")


def _operand(fmt, types, k, want, ok):
    if k >= len(types):
        raise ValueError(f"gpu.printf format \"{_shown(fmt)}\" wants {want} as operand {k}, the op has only "
                         f"{len(types)} operand{'s' if len(types) != 1 else ''}")
    if not ok(types[k]):
        raise ValueError(f"gpu.printf format \"{_shown(fmt)}\" wants {want} as operand {k}, which is {types[k]}")


def render(pieces: list, values: list) -> str:
    """The text C's printf writes for `pieces` (from `parse`) and the operands' values (Python ints, their
    signed values, and floats, in order)."""
    out, k = [], 0
    for p in pieces:
        if isinstance(p, str):
            out.append(p)
            continue
        args = [int(v) for v in values[k:k + p.stars]]
        v = values[k + p.stars]
        k += p.stars + 1
        if p.conv in _FLOAT_CONV:
            out.append(_hex_float(p, args, float(v)) if p.conv in "aA" else p.text % (*args, float(v)))
            continue
        bits = p.bits
        v = int(v) % (1 << bits)                            # the operand read at the conversion's width
        if p.conv in "di" and v >= 1 << (bits - 1):
            v -= 1 << bits
        if p.conv == "c":
            v &= 0xFF
            out.append(p.text % (*args, chr(v)))
        else:
            text = p.text.replace("u", "d") % (*args, v)
            out.append(text.replace("0o", "0") if p.conv == "o" else text)     # C's '#' prefix is '0'

    return "".join(out)


def _hex_float(p: Conversion, args: list, v: float) -> str:
    """%a: C's shortest hexadecimal form (0x1.8p+1); width and '-' honoured, precision ignored."""
    if v != v or v in (float("inf"), float("-inf")):
        s = repr(v)
    else:
        s = v.hex()
        mant, exp = s.split("p")
        mant = mant.rstrip("0").rstrip(".")
        s = mant + "p" + exp
        if "+" in p.text and v >= 0:
            s = "+" + s
    if p.conv == "A":
        s = s.upper()
    width = args[0] if args and "*" in p.text.split(".")[0] else int(re.sub(r"\D", "", p.text.split(".")[0]) or 0)
    return s.ljust(width) if "-" in p.text else s.rjust(width)
