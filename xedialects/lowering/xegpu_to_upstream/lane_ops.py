"""Op table of the lane-level export: one function per SIMT-mode xegpu op, from our op to upstream's
lane-level text (descriptors without layouts, 1D per-lane vectors, offsets on the accesses): block
accesses in `lane_blocks.py`, DPAS in `lane_dpas.py`, the scattered accesses here (per-lane
`xegpu.load` / `xegpu.store` of one element each)."""
from __future__ import annotations

import numpy as np

from .lane_blocks import create_nd_tdesc, load_nd, prefetch_nd, store_nd, update_nd_offset
from .lane_dpas import dpas
from .lane_values import elt_text, require_simt, vec_type
from .ops import ExportOpError, _flat_source, _hints
from .types import ExportTypeError, properties, simt_parts, vector_parts


def create_tdesc(op, ex) -> str:
    """Not kept: its (1D source, per-lane offsets) go into each access (upstream's lane-level
    `xegpu.load %src[%offset], %mask` takes one offset per lane and access)."""
    parts = simt_parts(str(op.result.type))
    if parts["chunk"] != 1:
        raise ExportOpError("a SIMT scattered descriptor with chunk_size_per_lane > 1 is not exported at lane level")
    lines, src, src_t = _flat_source(op.operands[0], ex)
    offs = op.operands[1]
    ot = str(offs.type)
    k = 1 if ot == "index" else int(np.prod(vector_parts(ot)[0]))
    ex.scatter[op.result] = (src, src_t, ex.name(offs), ot, k, parts["elt"])
    return "\n".join(lines)


def _scattered(op, td, ex):
    if td not in ex.scatter:
        raise ExportOpError(f"'{op.name}': scattered descriptor {ex.name(td)} does not come from create_tdesc in view "
                            "(not exported at lane level)")
    return ex.scatter[td]


def _element(name: str, t: str, i: int, elt: str, lines, ex) -> str:
    if not t.startswith("vector<"):
        return name
    x = ex.fresh()
    lines.append(f"{x} = vector.extract {name}[{i}] : {elt} from {t}")
    return x


def load_gather(op, ex) -> str:
    """Our SIMT gather of k elements per lane: k lane-level `xegpu.load`s of one element each."""
    require_simt(op)
    td, mask = op.operands[0], op.operands[1]
    src, src_t, offs, ot, k, elt = _scattered(op, td, ex)
    lines: list[str] = []
    hints = properties(_hints(op))
    one = vec_type(1, elt)
    vals = []
    for i in range(k):
        o = _element(offs, ot, i, "index", lines, ex)
        mk = _element(ex.name(mask), str(mask.type), i, "i1", lines, ex)
        g, e = ex.fresh(), ex.fresh()
        lines += [f"{g} = xegpu.load {src}[{o}], {mk}{hints} : {src_t}, index, i1 -> {one}",
                  f"{e} = vector.extract {g}[0] : {elt_text(elt)} from {one}"]
        vals.append(e)
    rt = str(op.result.type)
    if rt.startswith("vector<"):
        lines.append(f"{ex.result(op)} = vector.from_elements {', '.join(vals)} : {ex.type_text(rt)}")
    else:
        lines[-1] = lines[-1].replace(f"{vals[-1]} = ", f"{ex.result(op)} = ", 1)
    return "\n".join(lines)


def store_scatter(op, ex) -> str:
    require_simt(op)
    v, td, mask = op.operands[0], op.operands[1], op.operands[2]
    src, src_t, offs, ot, k, elt = _scattered(op, td, ex)
    lines: list[str] = []
    hints = properties(_hints(op))
    for i in range(k):
        o = _element(offs, ot, i, "index", lines, ex)
        mk = _element(ex.name(mask), str(mask.type), i, "i1", lines, ex)
        x = _element(ex.name(v), ex.type_text(str(v.type)), i, elt_text(elt), lines, ex)
        one = ex.fresh()
        lines += [f"{one} = vector.from_elements {x} : {vec_type(1, elt)}",
                  f"xegpu.store {one}, {src}[{o}], {mk}{hints} : {vec_type(1, elt)}, {src_t}, index, i1"]
    return "\n".join(lines)


TABLE = {
    "xegpu.create_nd_tdesc": create_nd_tdesc,
    "xegpu.update_nd_offset": update_nd_offset,
    "xegpu.load_nd": load_nd,
    "xegpu.store_nd": store_nd,
    "xegpu.prefetch_nd": prefetch_nd,
    "xegpu.dpas": dpas,
    "xegpu.create_tdesc": create_tdesc,
    "xegpu.load_gather": load_gather,
    "xegpu.store_scatter": store_scatter,
}


def translate(op, ex) -> str:
    fn = TABLE.get(op.name)
    if fn is None:
        raise ExportOpError(f"'{op.name}' is not exported at lane level (the lane-level export translates "
                            f"{', '.join(sorted(n.split('.')[1] for n in TABLE))})")
    try:
        return fn(op, ex)
    except ExportTypeError as e:
        raise ExportOpError(f"'{op.name}': {e}") from None
