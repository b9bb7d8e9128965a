"""Simulator type model: parses MLIR types (builtin and our generic `!xetile.*` / `!xegpu.*` forms)
into small cached `TypeInfo` records with numpy dtypes, shapes and the decoded dialect parameters.

Dialect types are parsed from their printed generic text (docs/ir-encoding.md), once per distinct
type string; builtin shaped types are decoded from the same text, so the simulator never depends on
which Python class the bindings hand back for a type.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

try:  # bf16 numpy dtype
    import ml_dtypes

    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a dependency of the simulator
    ml_dtypes = None
    BF16 = None

INT64_MIN = -9223372036854775808
DYN = INT64_MIN

_SCALAR_DTYPES = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "si8": np.dtype(np.int8),
    "ui8": np.dtype(np.uint8),
    "i16": np.dtype(np.int16),
    "si16": np.dtype(np.int16),
    "ui16": np.dtype(np.uint16),
    "i32": np.dtype(np.int32),
    "si32": np.dtype(np.int32),
    "ui32": np.dtype(np.uint32),
    "i64": np.dtype(np.int64),
    "si64": np.dtype(np.int64),
    "ui64": np.dtype(np.uint64),
    "index": np.dtype(np.int64),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "tf32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
if BF16 is not None:
    _SCALAR_DTYPES["bf16"] = BF16


def scalar_dtype(name: str) -> np.dtype:
    """numpy dtype of an MLIR element type name (`bf16` maps to ml_dtypes.bfloat16)."""
    try:
        return _SCALAR_DTYPES[name]
    except KeyError:
        raise ValueError(f"unsupported element type '{name}'") from None


def is_float_name(name: str) -> bool:
    return name in ("bf16", "f16", "f32", "tf32", "f64")


def is_unsigned_name(name: str) -> bool:
    return name.startswith("ui")


def elem_bits(name: str) -> int:
    if name == "index":
        return 64
    if name == "i1":
        return 1
    if name == "tf32":
        return 32
    m = re.search(r"(\d+)$", name)
    return int(m.group(1)) if m else 64


# ----------------------------------------------------------------------------------------------
# A tiny parser for the generic parameter text of attributes/types.


class Opaque(str):
    """An attribute/type text the parameter parser keeps verbatim (e.g. `bf16`, `3 : i32`)."""


@dataclass(frozen=True)
class DialectAttr:
    """`#dialect.name<params...>` (or `!dialect.name<...>`) decoded into its parameters."""

    name: str
    params: tuple

    def __getitem__(self, i):
        return self.params[i]


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split `text` at top-level occurrences of `sep` (ignoring <>, (), [], {} nesting and strings)."""
    parts, depth, cur, i, n = [], 0, [], 0, len(text)
    in_str = False
    while i < n:
        ch = text[i]
        if in_str:
            cur.append(ch)
            if ch == "\\" and i + 1 < n:
                cur.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            cur.append(ch)
        elif ch in "<([{":
            depth += 1
            cur.append(ch)
        elif ch in ">)]}":
            # `->` inside function types is not a closing bracket
            if ch == ">" and i > 0 and text[i - 1] == "-":
                cur.append(ch)
            else:
                depth -= 1
                cur.append(ch)
        elif ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    last = "".join(cur).strip()
    if last or parts:
        parts.append(last)
    return parts


_ARRAY_RE = re.compile(r"^array<\s*i(?:64|32|16|8)\s*(?::\s*(.*))?>$", re.S)
_INT_RE = re.compile(r"^(-?\d+)(\s*:\s*\w+)?$")


def parse_param(text: str):
    """Decode one generic parameter: arrays → list[int], `unit` → None, `true/false` → bool,
    integers (optionally typed) → int, strings → str, `#d.a<...>`/`!d.t<...>` → DialectAttr,
    anything else (types such as `bf16`) → Opaque."""
    t = text.strip()
    if t == "unit":
        return None
    if t == "true":
        return True
    if t == "false":
        return False
    m = _ARRAY_RE.match(t)
    if m:
        body = m.group(1)
        if body is None or not body.strip():
            return []
        return [int(x) for x in body.split(",")]
    m = _INT_RE.match(t)
    if m:
        return int(m.group(1))
    if len(t) >= 2 and t[0] == '"' and t[-1] == '"':
        return t[1:-1]
    if t[:1] in "#!" and "<" in t and t.endswith(">"):
        name = t[1:t.index("<")]
        inner = t[t.index("<") + 1:-1]
        return DialectAttr(name, tuple(parse_param(p) for p in split_top(inner)))
    if t[:1] in "#!":
        return DialectAttr(t[1:], ())
    return Opaque(t)


# ----------------------------------------------------------------------------------------------
# Decoded dialect attributes


@dataclass(frozen=True)
class WgMap:
    sg_layout: tuple
    sg_data: tuple


@dataclass(frozen=True)
class SgMap:
    wi_layout: tuple
    wi_data: tuple


def _as_wg_map(p) -> WgMap | None:
    if isinstance(p, DialectAttr) and p.name.endswith("wg_map"):
        return WgMap(tuple(p[0]), tuple(p[1]))
    return None


def _as_sg_map(p) -> SgMap | None:
    if isinstance(p, DialectAttr) and p.name.endswith("sg_map"):
        return SgMap(tuple(p[0]), tuple(p[1]))
    return None


def decode_wg_map_attr(attr) -> WgMap | None:
    """An op attribute (ir.Attribute or text) holding `#xetile.wg_map<...>`."""
    if attr is None:
        return None
    p = parse_param(str(attr))
    return _as_wg_map(p)


# ----------------------------------------------------------------------------------------------


@dataclass
class TypeInfo:
    text: str
    kind: str  # scalar | vector | memref | tile | tdesc | nbarrier | token | none | other
    elem: str | None = None  # element type name
    shape: tuple = ()
    dtype: np.dtype | None = None
    # memref
    dyn_dims: tuple = ()
    memory_space: int = 0  # 0 global, 3 slm (workgroup), 5 private
    layout_strides: tuple | None = None  # static strides from a strided<> layout (DYN for '?')
    layout_offset: int | None = None
    # tile / tdesc
    order: tuple = (1, 0)
    inner_blocks: tuple | None = None
    wg_map: WgMap | None = None
    sg_map: SgMap | None = None
    scattered: bool = False
    boundary_check: bool = True
    chunk: int = 1
    extra: dict = field(default_factory=dict)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def rank(self) -> int:
        return len(self.shape)

    def __repr__(self):
        return f"TypeInfo({self.text})"


_CACHE: dict[str, TypeInfo] = {}

_VEC_RE = re.compile(r"^vector<(.*)>$", re.S)
_MEMREF_RE = re.compile(r"^memref<(.*)>$", re.S)


def _split_dims(body: str) -> tuple[list[str], str]:
    """`4x?x[8]xf32` → (['4','?','8'], 'f32')."""
    parts = split_top(body, "x")
    # element types never contain a top-level 'x' except e.g. 'index' - split_top splits on every x,
    # so rejoin: dims are leading numeric/?/[n] items.
    dims = []
    i = 0
    while i < len(parts) - 1 and re.fullmatch(r"\??\d*|\[\d+\]", parts[i].strip()) and parts[i].strip():
        dims.append(parts[i].strip().strip("[]"))
        i += 1
    elem = "x".join(parts[i:])
    return dims, elem.strip()


def _memory_space(text: str) -> int:
    t = text.strip()
    if not t:
        return 0
    if "workgroup" in t:
        return 3
    if "private" in t:
        return 5
    if "global" in t:
        return 1
    m = re.match(r"^(\d+)(\s*:\s*\w+)?$", t)
    if m:
        return int(m.group(1))
    return 0


def parse_type(t) -> TypeInfo:
    """TypeInfo of an `ir.Type` (or its text), cached by the type's text."""
    text = t if isinstance(t, str) else str(t)
    info = _CACHE.get(text)
    if info is None:
        info = _parse_type_text(text)
        _CACHE[text] = info
    return info


def _parse_type_text(text: str) -> TypeInfo:
    t = text.strip()
    if t in _SCALAR_DTYPES:
        return TypeInfo(t, "scalar", t, (), _SCALAR_DTYPES[t])
    m = _VEC_RE.match(t)
    if m:
        dims, elem = _split_dims(m.group(1))
        return TypeInfo(t, "vector", elem, tuple(int(d) for d in dims), scalar_dtype(elem))
    m = _MEMREF_RE.match(t)
    if m:
        items = split_top(m.group(1))
        dims, elem = _split_dims(items[0])
        shape = tuple(DYN if d == "?" else int(d) for d in dims)
        # i4 memrefs hold one value per byte (int8), as the CPU lowering stores them (sub_byte_memrefs.py); the
        # kernels of a fused W4A16 GEMM read them packed two per byte (docs/quantized-gemm.md "i4 weights")
        info = TypeInfo(t, "memref", elem, shape, np.dtype(np.int8) if elem == "i4" else scalar_dtype(elem))
        info.dyn_dims = tuple(i for i, d in enumerate(shape) if d == DYN)
        for extra in items[1:]:
            if extra.startswith("strided<"):
                inner = extra[len("strided<"):-1]
                sp = split_top(inner)
                strides = sp[0].strip().strip("[]")
                info.layout_strides = tuple(
                    DYN if s.strip() == "?" else int(s) for s in strides.split(",") if s.strip()
                )
                info.layout_offset = 0
                for rest in sp[1:]:
                    if rest.strip().startswith("offset"):
                        v = rest.split(":", 1)[1].strip()
                        info.layout_offset = DYN if v == "?" else int(v)
            elif extra.startswith("affine_map<"):
                info.extra["affine_map"] = extra
            else:
                info.memory_space = _memory_space(extra)
        return info
    if t.startswith("!xetile.tile<"):
        return _parse_tile(t)
    if t.startswith("!xegpu.tensor_desc<"):
        return _parse_tdesc(t)
    if t.startswith("!xegpu.nbarrier"):
        return TypeInfo(t, "nbarrier")
    if t.startswith("!gpu.async.token"):
        return TypeInfo(t, "token")
    if t.startswith("tensor<") or t.startswith("!"):
        return TypeInfo(t, "other")
    return TypeInfo(t, "other")


def _parse_tile(t: str) -> TypeInfo:
    p = parse_param(t)
    shape, elem, attr = p.params[0], str(p.params[1]), p.params[2] if len(p.params) > 2 else None
    info = TypeInfo(t, "tile", elem, tuple(shape), scalar_dtype(elem))
    if isinstance(attr, DialectAttr):
        # tile_attr<order, inner_blocks|unit, wg_map|unit, sg_map|unit, memory_space, scattered>
        ps = attr.params
        if len(ps) > 0 and isinstance(ps[0], list) and ps[0]:
            info.order = tuple(ps[0])
        if len(ps) > 1 and isinstance(ps[1], list) and ps[1]:
            info.inner_blocks = tuple(ps[1])
        if len(ps) > 2:
            info.wg_map = _as_wg_map(ps[2])
            if info.wg_map is None and isinstance(ps[2], DialectAttr) and ps[2].name.endswith("xe_map"):
                info.wg_map = _as_wg_map(ps[2][0])
                info.sg_map = _as_sg_map(ps[2][1])
        if len(ps) > 3 and info.sg_map is None:
            info.sg_map = _as_sg_map(ps[3])
        if len(ps) > 4 and isinstance(ps[4], int) and not isinstance(ps[4], bool):
            info.memory_space = ps[4]
        if len(ps) > 5 and isinstance(ps[5], bool):
            info.scattered = ps[5]
    return info


def _parse_tdesc(t: str) -> TypeInfo:
    p = parse_param(t)
    shape, elem, attr = p.params[0], str(p.params[1]), p.params[2] if len(p.params) > 2 else None
    info = TypeInfo(t, "tdesc", elem, tuple(shape), scalar_dtype(elem))
    if isinstance(attr, DialectAttr):
        # tdesc_attr<memory_scope, boundary_check, scattered, chunk_size_per_lane, sg_map|unit>
        ps = attr.params
        if len(ps) > 0 and isinstance(ps[0], str):
            info.memory_space = 3 if ps[0] == "slm" else 0
        if len(ps) > 1 and isinstance(ps[1], bool):
            info.boundary_check = ps[1]
        if len(ps) > 2 and isinstance(ps[2], bool):
            info.scattered = ps[2]
        if len(ps) > 3 and isinstance(ps[3], int) and not isinstance(ps[3], bool):
            info.chunk = ps[3]
        if len(ps) > 4:
            info.sg_map = _as_sg_map(ps[4])
    return info


def vnni_factor(elem: str) -> int:
    """Number of elements packed into 32 bits by a VNNI transform (2 for 16-bit, 4 for 8-bit)."""
    bits = elem_bits(elem)
    return max(1, 32 // bits) if bits < 32 else 1
