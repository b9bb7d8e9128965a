"""Upstream xegpu types and attributes read from their printed text, and respelled in our dialect.

`!xegpu.tensor_desc<8x16xf16, #xegpu.block_tdesc_attr<array_length = 2>, #xegpu.layout<...>>` is read
into a `TDesc`; `ours(td, mode)` prints it as our RFC type (VC: no layout; SIMT: `sg_map` from the
lane layout). `array_length` has no counterpart in our type: the descriptor is one block, accesses
are repeated by the op translation (`sg_ops.py`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..xegpu_to_upstream.types import find_end as _find_end


class ImportTypeError(Exception):
    """A type or attribute our dialect cannot express (the caller adds the location)."""


def split_top(text: str) -> list[str]:
    """Split at commas not nested in <>, [] or ()."""
    out, depth, cur = [], 0, []
    for i, c in enumerate(text):
        if c in "<[(":
            depth += 1
        elif c in ">])" and not (c == ">" and i and text[i - 1] == "-"):
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def attr_params(text: str) -> dict[str, str]:
    """`#xegpu.x<a = 1 : i64, b = [1, 2]>` -> {'a': '1', 'b': '[1, 2]'} (integer suffixes dropped)."""
    body = text[text.index("<") + 1:text.rindex(">")]
    out = {}
    for part in split_top(body):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = re.sub(r"\s*:\s*i\d+$", "", v.strip())
        else:
            out[part.strip()] = "true"
    return out


def int_list(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", text)]


@dataclass
class Layout:
    """`#xegpu.layout<...>` parameters (absent ones None)."""
    sg_layout: list[int] | None = None
    sg_data: list[int] | None = None
    inst_data: list[int] | None = None
    lane_layout: list[int] | None = None
    lane_data: list[int] | None = None
    order: list[int] | None = None

    @staticmethod
    def parse(text: str) -> "Layout":
        if text.startswith("#xegpu.slice"):
            raise ImportTypeError(f"'#xegpu.slice' layout {text} has no equivalent in our xegpu (lane level needs a "
                                  "2D sg_map)")
        p = attr_params(text)
        lay = Layout()
        for k, v in p.items():
            if not hasattr(lay, k):
                raise ImportTypeError(f"'#xegpu.layout' parameter '{k}' is not supported")
            setattr(lay, k, int_list(v))
        return lay

    @property
    def workgroup(self) -> bool:
        return self.sg_layout is not None


@dataclass
class TDesc:
    shape: list[int]
    elt: str
    array_length: int = 1
    boundary_check: bool = True
    memory_space: str = "global"
    scattered: bool = False
    chunk_size: int = 1
    layout: Layout | None = None
    extra: list[str] = field(default_factory=list)

    @property
    def block(self) -> str:
        return "x".join(str(d) for d in self.shape) + f"x{self.elt}"


_TD_HEAD = "!xegpu.tensor_desc<"


def parse_tdesc(text: str) -> TDesc:
    text = text.strip()
    if not text.startswith(_TD_HEAD):
        raise ImportTypeError(f"expected !xegpu.tensor_desc, got {text}")
    parts = split_top(text[len(_TD_HEAD):-1])
    dims = parts[0].split("x")
    td = TDesc([int(d) for d in dims[:-1]], dims[-1])
    for a in parts[1:]:
        if a.startswith("#xegpu.block_tdesc_attr"):
            p = attr_params(a)
            td.array_length = int(p.pop("array_length", "1"))
            td.boundary_check = p.pop("boundary_check", "true") == "true"
            td.memory_space = p.pop("memory_space", "global")
            if p:
                raise ImportTypeError(f"'#xegpu.block_tdesc_attr' parameter(s) {', '.join(p)} not supported")
        elif a.startswith("#xegpu.scatter_tdesc_attr"):
            p = attr_params(a)
            td.scattered = True
            td.chunk_size = int(p.pop("chunk_size", "1"))
            td.memory_space = p.pop("memory_space", "global")
            if p:
                raise ImportTypeError(f"'#xegpu.scatter_tdesc_attr' parameter(s) {', '.join(p)} not supported")
        elif a.startswith("#xegpu.layout"):
            td.layout = Layout.parse(a)
        elif a.startswith("#xegpu.slice"):
            td.extra.append(a)  # dropped at subgroup level; a lane-level descriptor needs a plain lane layout
        else:
            raise ImportTypeError(f"tensor_desc attribute {a} is not supported")
    return td


def ours(td: TDesc, simt: bool = False, rows: bool = False) -> str:
    """Our spelling of a tensor descriptor (one block: array_length is handled by the accesses)."""
    parts = []
    if td.memory_space == "slm":
        parts.append("memory_scope = slm")
    shape = list(td.shape)
    if not td.boundary_check or (len(shape) == 1 and not td.scattered):  # ours: 1D blocks are unchecked
        parts.append("boundary_check = false")
    if td.scattered:
        parts.append("scattered = true")
        if td.chunk_size > 1:
            parts.append(f"chunk_size_per_lane = {td.chunk_size}")
    if simt and td.extra:
        raise ImportTypeError(f"'#xegpu.slice' layout of a lane-level tensor_desc<{td.block}> is not imported")
    if simt:
        # one lane's share is a column of 16-lane rows: with lane_data [2, 1] (packed B) or [1, 1] the
        # per-lane elements come in the same order, so every block takes wi_layout [1, 16], wi_data [1, 1]
        lay = td.layout
        if lay is not None and lay.lane_layout is not None and _two_d(lay.lane_layout, 1) != [1, 16]:
            raise ImportTypeError(f"lane layout {lay.lane_layout} of tensor_desc<{td.block}>: only [1, 16] is imported")
        # a block loaded transposed gives lane i its row i (the column of the transposed block)
        parts.append("sg_map = <wi_layout = [16, 1], wi_data = [1, 1]>" if rows else
                     f"sg_map = <wi_layout = [1, 16], wi_data = [1, {lane_group(td)}]>")
    body = "x".join(str(d) for d in shape) + f"x{td.elt}"
    if not parts:
        return f"!xegpu.tensor_desc<{body}>"
    return f"!xegpu.tensor_desc<{body}, #xegpu.tdesc_attr<{', '.join(parts)}>>"


def lane_group(td: TDesc) -> int:
    """Consecutive elements of a row one lane holds in a lane-level 2D block access: 2 for an 8-bit
    block 32 wide (LLVM 22 lowers it to a 2D block IO of tile_width 32, 8-bit elements, whose
    registers give each lane a 16-bit unit of every row -- OpenCL's
    intel_sub_group_2d_block_read_8b_8r32x1c returns a ushort per row: bytes 2l, 2l + 1 -- and the
    layout upstream's distribution gives a DPAS A of 8-bit data, lane_data [1, 2]); 1 otherwise (lane l:
    elements l, l + 16, ... of each row). Other widths of 8-bit blocks have no modelled lane order:
    their accesses are errors (`check_lane_order`), their descriptors take 1."""
    if len(td.shape) != 2 or element_bits(td.elt) != 8 or td.scattered:
        return 1
    return 2 if td.shape[1] == 32 else 1


def check_lane_order(td: TDesc) -> None:
    """A lane-level access of an 8-bit 2D block neither 16 nor 32 wide: ImportTypeError."""
    if len(td.shape) == 2 and element_bits(td.elt) == 8 and not td.scattered and td.shape[1] not in (16, 32):
        raise ImportTypeError(f"lane-level access of tensor_desc<{td.block}>: 8-bit blocks are imported 16 or 32 wide "
                              "only (the lane order of other widths is not modelled)")


def _two_d(v: list[int], pad: int) -> list[int]:
    return [pad] * (2 - len(v)) + list(v) if len(v) < 2 else list(v)


_OTHER_TYPE = re.compile(r"!xegpu\.(?!tensor_desc<|nbarrier\b)[\w.]+")


def rewrite_tdescs(text: str, simt: bool = False, rows_types=frozenset()) -> str:
    """Every upstream `!xegpu.tensor_desc<...>` in `text` in our spelling (other xegpu types: error)."""
    other = _OTHER_TYPE.search(text)
    if other and other.group(0) == "!xegpu.mem_desc":
        raise ImportTypeError("type '!xegpu.mem_desc' outside create_mem_desc / load_matrix / store_matrix (a function "
                              "argument or result, loop carry, call operand): a mem_desc is imported only as the "
                              "view of its buffer in the function that creates it")
    if other:
        raise ImportTypeError(f"type '{other.group(0)}' has no equivalent in our xegpu")
    out, pos = [], 0
    while True:
        i = text.find(_TD_HEAD, pos)
        if i < 0:
            out.append(text[pos:])
            return "".join(out)
        j = _find_end(text, i, ImportTypeError)
        out.append(text[pos:i])
        out.append(ours(parse_tdesc(text[i:j]), simt, text[i:j] in rows_types))
        pos = j


_VEC = re.compile(r"vector<(?P<dims>(?:\d+x)*)(?P<elt>\w+)>")


def vector_parts(t: str) -> tuple[list[int], str]:
    m = _VEC.fullmatch(str(t).strip())
    if not m:
        raise ImportTypeError(f"expected a static vector type, got {t}")
    return [int(d) for d in m["dims"].split("x") if d], m["elt"]


def vector_text(shape, elt: str) -> str:
    return "vector<" + "".join(f"{d}x" for d in shape) + f"{elt}>"


def element_bits(elt: str) -> int:
    m = re.search(r"(\d+)", elt)
    if elt in ("tf32",):
        return 32
    if elt in ("index",):
        return 64
    return int(m.group(1)) if m else 32


def zero_of(elt: str) -> str:
    return "0.0" if elt.startswith(("f", "bf", "tf")) else "0"
