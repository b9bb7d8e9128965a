"""Upstream spelling of our types and attributes: tensor descriptors, VNNI vectors, cache hints."""
from __future__ import annotations

import re

from ...core.typeinfo import element_bits


class ExportTypeError(Exception):
    """A type or attribute upstream xegpu cannot express (the caller adds the location)."""


_TDESC = re.compile(
    r'!xegpu\.tensor_desc<array<i64(?::\s*(?P<shape>[-\d, ]*))?>,\s*(?P<elt>[^,>]+),\s*(?P<attr>unit|'
    r'#xegpu\.tdesc_attr<"(?P<scope>\w+)",\s*(?P<bc>true|false),\s*(?P<sc>true|false),\s*'
    r'(?P<chunk>\d+)\s*:\s*i64,\s*(?P<sgm>unit|#xegpu\.sg_map<array<i64:\s*(?P<wl>[\d, ]*)>,\s*'
    r'array<i64:\s*(?P<wd>[\d, ]*)>>)>)>')


def find_end(text: str, start: int, error: type[Exception] = ExportTypeError) -> int:
    """Index just past the `>` closing the first `<` at or after `start` (`->` arrows skipped); `error`
    is raised for unbalanced text (the importer passes its own ImportTypeError)."""
    depth = 0
    for i in range(text.index("<", start), len(text)):
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">" and text[i - 1] != "-":
            depth -= 1
            if depth == 0:
                return i + 1
    raise error(f"unbalanced type text: {text[start:start + 80]}")


def tdesc(generic: str, lanes: bool = False) -> str:
    """`!xegpu.tensor_desc<array<i64: 8, 16>, f32, unit>` -> `!xegpu.tensor_desc<8x16xf32>` (block
    descriptors; scattered ones and 2D SLM descriptors are not exported; SIMT sg_maps only by the
    lane-level export, `lanes`, whose descriptors carry no layout)."""
    m = _TDESC.fullmatch(generic.strip())
    if not m:
        raise ExportTypeError(f"cannot read tensor_desc type {generic}")
    shape = [s.strip() for s in (m["shape"] or "").split(",") if s.strip()]
    body = "x".join(shape + [m["elt"].strip()])
    if m["attr"] == "unit":
        return f"!xegpu.tensor_desc<{body}>"
    if m["sgm"] != "unit" and not lanes:
        raise ExportTypeError(f"SIMT-mode tensor_desc with sg_map ({m['sgm']}) is not exported; export the "
                              "VC-mode kernel (before xegpu-simt-distribute), or at lane level (level=lane)")
    if m["sc"] == "true":
        raise ExportTypeError("a scattered tensor_desc outside create_tdesc / update_offset and the accesses "
                              "(a loop carry, a block argument) is not exported (upstream's scattered "
                              "load/store take the source and offsets)")
    parts = []
    if m["scope"] == "slm":
        if len(shape) != 1:
            raise ExportTypeError(f"SLM tensor_desc<{body}> is not exported: upstream supports SLM only for "
                                  "1D block tensor descriptors")
        parts.append("memory_space = slm")
    if m["bc"] == "false":
        parts.append("boundary_check = false")
    if not parts:
        return f"!xegpu.tensor_desc<{body}>"
    return f"!xegpu.tensor_desc<{body}, #xegpu.block_tdesc_attr<{', '.join(parts)}>>"


def simt_parts(generic: str) -> dict:
    """Shape, element type, sg_map (wi_layout, wi_data), scattered flag and chunk size of a SIMT-mode
    tensor_desc type (our generic spelling); ExportTypeError without an sg_map."""
    m = _TDESC.fullmatch(generic.strip())
    if not m or m["attr"] == "unit" or m["sgm"] == "unit":
        raise ExportTypeError(f"expected a SIMT-mode tensor_desc with sg_map, got {generic}")
    ints = lambda s: tuple(int(x) for x in s.split(",") if x.strip())  # noqa: E731
    return {"shape": ints(m["shape"] or ""), "elt": m["elt"].strip(), "layout": ints(m["wl"]),
            "data": ints(m["wd"]), "scattered": m["sc"] == "true", "chunk": int(m["chunk"]),
            "slm": m["scope"] == "slm"}


def scattered_parts(generic: str) -> tuple[int, int, str]:
    """(lanes, chunk size, element type) of our VC-mode scattered descriptor type."""
    m = _TDESC.fullmatch(generic.strip())
    if not m or m["sc"] != "true":
        raise ExportTypeError(f"expected a scattered tensor_desc, got {generic}")
    if m["sgm"] != "unit":
        raise ExportTypeError(f"SIMT-mode tensor_desc with sg_map ({m['sgm']}) is not exported; export the "
                              "VC-mode kernel (before xegpu-simt-distribute)")
    shape = [int(s) for s in (m["shape"] or "").split(",") if s.strip()]
    return shape[0], int(m["chunk"]), m["elt"].strip()


def rewrite_tdescs(text: str, lanes: bool = False) -> str:
    """Every generic `!xegpu.tensor_desc<...>` in `text` in upstream spelling (`tdesc`)."""
    out, pos = [], 0
    while True:
        i = text.find("!xegpu.tensor_desc<", pos)
        if i < 0:
            out.append(text[pos:])
            return "".join(out)
        j = find_end(text, i)
        out.append(text[pos:i])
        out.append(tdesc(text[i:j], lanes))
        pos = j


_VEC = re.compile(r"vector<(?P<dims>(?:\d+x)+)(?P<elt>\w+)>")


def vector_parts(t: str) -> tuple[list[int], str]:
    m = _VEC.fullmatch(t.strip())
    if not m:
        raise ExportTypeError(f"expected a static vector type, got {t}")
    return [int(d) for d in m["dims"].split("x") if d], m["elt"]


def vector_text(shape, elt: str) -> str:
    return "vector<" + "x".join(str(d) for d in shape) + f"x{elt}>"


def vnni_factor(elt: str) -> int:
    return max(1, 32 // element_bits(elt))


def flatten_vnni(shape, axis: int) -> list[int]:
    """Our VNNI shape [a, b, v] packed along `axis` as upstream's plain 2D shape."""
    a, b, v = shape
    return [a * v, b] if axis == 0 else [a, b * v]


def cache_hint(value: str) -> str:
    return f"#xegpu.cache_hint<{value}>"


def properties(items: list[tuple[str, str]]) -> str:
    """` <{a = x, b = y}>` (sorted like MLIR prints them) or the empty string."""
    if not items:
        return ""
    return " <{" + ", ".join(f"{k} = {v}" for k, v in sorted(items)) + "}>"
