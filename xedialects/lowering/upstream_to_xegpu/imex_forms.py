"""IMEX's upstream-syntax spellings that LLVM 22 no longer parses, rewritten in the text before the
upstream parse (docs/upstream-xegpu-reference.md, "IMEX's older spellings"):

- `xegpu.compile_hint` (a scheduling fence for IGC; no upstream op) crosses the upstream context as a
  marked `llvm.intr.donothing` and is printed back as our `xegpu.compile_hint` (`restore_hints`);
- `load_nd <{transpose = array<i64: 1, 0>, transpose_bit_width = 32 : i32}>` of 16- or 8-bit data (a
  transposed load of 32-bit pairs / quads) becomes, on the same line, the plain load, a
  `vector.shape_cast` H x W -> H x W/f x f and a `vector.transpose` [1, 0, 2] (f elements per 32 bits).
"""
from __future__ import annotations

import re

_HINT_IN = re.compile(r"^(\s*)xegpu\.compile_hint\s*$", re.M)
_HINT_MARK = '"llvm.intr.donothing"() {xegpu_compile_hint} : () -> ()'
_HINT_OUT = re.compile(r'^(\s*)"llvm\.intr\.donothing"\(\) \{xegpu_compile_hint\} : \(\) -> \(\)', re.M)

_TBW_LOAD = re.compile(
    r"(?P<res>%[\w$.-]+) = xegpu\.load_nd (?P<args>[^<\n]*?)\s*<\{(?P<attrs>[^}\n]*)\}>\s*:\s*"
    r"(?P<td>!xegpu\.tensor_desc<(?P<h>\d+)x(?P<w>\d+)x(?P<elt>[a-z]+\d+)>)\s*->\s*"
    r"vector<(?P<a>\d+)x(?P<b>\d+)x(?P<f>\d+)x(?P=elt)>")
_TRANSPOSE = re.compile(r"\s*transpose\s*=\s*array<i64:\s*1,\s*0>\s*,?")
_BIT_WIDTH = re.compile(r"\s*transpose_bit_width\s*=\s*32\s*:\s*i32\s*,?")


def _tbw(m: re.Match) -> str:
    attrs = m.group("attrs")
    h, w, f, elt = int(m.group("h")), int(m.group("w")), int(m.group("f")), m.group("elt")
    bits = int(re.sub(r"\D", "", elt))
    if (not _TRANSPOSE.search(attrs) or not _BIT_WIDTH.search(attrs) or bits * f != 32 or w % f
            or (int(m.group("a")), int(m.group("b"))) != (w // f, h)):
        return m.group(0)  # not the form: upstream's parser reports it
    rest = _BIT_WIDTH.sub("", _TRANSPOSE.sub("", attrs)).strip().rstrip(",").strip()
    res, tag = m.group("res"), re.sub(r"\W", "_", m.group("res")[1:])
    plain, pairs = f"%tbw_{tag}_load", f"%tbw_{tag}_pairs"
    flat, split, out = f"vector<{h}x{w}x{elt}>", f"vector<{h}x{w // f}x{f}x{elt}>", f"vector<{w // f}x{h}x{f}x{elt}>"
    props = f" <{{{rest}}}>" if rest else ""
    return (f"{plain} = xegpu.load_nd {m.group('args')}{props} : {m.group('td')} -> {flat} "
            f"{pairs} = vector.shape_cast {plain} : {flat} to {split} "
            f"{res} = vector.transpose {pairs}, [1, 0, 2] : {split} to {out}")


def rewrite(text: str) -> str:
    """The text with IMEX's older spellings in forms LLVM 22 parses (line numbers kept)."""
    if "compile_hint" in text:
        text = _HINT_IN.sub(lambda m: m.group(1) + _HINT_MARK, text)
    if "transpose_bit_width" in text:
        text = _TBW_LOAD.sub(_tbw, text)
    return text


def restore_hints(text: str) -> str:
    """Our `xegpu.compile_hint` where the upstream side printed the marked no-op."""
    return _HINT_OUT.sub(r"\1xegpu.compile_hint", text) if "xegpu_compile_hint" in text else text
