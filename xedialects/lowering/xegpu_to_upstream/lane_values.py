"""Values crossing between our SIMT fragments and upstream's per-lane 1D vectors in the lane-level
export: element-type spelling (tf32 stored as f32), shape casts to and from 1D, and reorders of the
slots (`lane_order.Reorder`) with errors located at the op."""
from __future__ import annotations

import numpy as np

from .lane_order import Reorder
from .ops import ExportOpError, _attr
from .types import vector_parts


def elt_text(elt: str) -> str:
    """tf32 data is stored as 32-bit floats; the export spells it f32 (the DPAS rounds it)."""
    return "f32" if elt == "tf32" else elt


def vec_type(n: int, elt: str) -> str:
    return f"vector<{n}x{elt_text(elt)}>"


def require_simt(op) -> None:
    if _attr(op, "mode") is not None:
        raise ExportOpError(f"'{op.name}' in VC mode is not exported at lane level; distribute the kernel to lanes "
                            "first (xegpu-simt-distribute), or export it at subgroup level")


def to_1d(name: str, t: str, elt: str, lines, ex) -> tuple[str, int]:
    shape, _ = vector_parts(t) if t.startswith("vector<") else ([1], t)
    n = int(np.prod(shape))
    flat = vec_type(n, elt)
    if not t.startswith("vector<"):
        x = ex.fresh()
        lines.append(f"{x} = vector.from_elements {name} : {flat}")
        return x, n
    if ex.type_text(t) == flat:
        return name, n
    x = ex.fresh()
    lines.append(f"{x} = vector.shape_cast {name} : {ex.type_text(t)} to {flat}")
    return x, n


def from_1d(name: str, n: int, elt: str, result: str, t: str, lines, ex) -> None:
    """`result` = the 1D vector `name` as our type `t` (shape_cast, or extract of a scalar)."""
    if not t.startswith("vector<"):
        lines.append(f"{result} = vector.extract {name}[0] : {elt_text(elt)} from {vec_type(n, elt)}")
    elif ex.type_text(t) == vec_type(n, elt):
        lines.append(f"{result} = vector.shape_cast {name} : {vec_type(n, elt)} to {vec_type(n, elt)}")
    else:
        lines.append(f"{result} = vector.shape_cast {name} : {vec_type(n, elt)} to {ex.type_text(t)}")


def reorder(ex, lines, name, src, dst, elt, op) -> str:
    try:
        return Reorder(ex.fresh, lines).run(name, src, dst, elt_text(elt))
    except ValueError as e:
        raise ExportOpError(f"'{op.name}': the lanes cannot be reordered ({e})") from None
