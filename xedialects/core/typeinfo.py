"""Shape/element queries on MLIR types used by verifiers, passes and the simulator."""
from __future__ import annotations

from mlir import ir

from .dialect import type_value


def vector_info(t):
    """(shape, element type text) of a vector type, else None."""
    if isinstance(t, ir.Value):
        t = t.type
    try:
        v = t if isinstance(t, ir.VectorType) else ir.VectorType(t)
    except (ValueError, TypeError):
        return None
    return tuple(v.shape), str(v.element_type)


def memref_info(t):
    """(shape with None for dynamic, element type, strides or None, memory space text) of a memref."""
    if isinstance(t, ir.Value):
        t = t.type
    try:
        m = t if isinstance(t, ir.MemRefType) else ir.MemRefType(t)
    except (ValueError, TypeError):
        return None
    shape = tuple(None if ir.ShapedType.is_dynamic_size(s) else s for s in m.shape)
    try:
        strides, _off = m.get_strides_and_offset()
        strides = tuple(None if m.is_dynamic_stride_or_offset(s) else s for s in strides)
    except Exception:  # non-strided layouts: recognise the column-major permutation map
        strides = None
        if str(m.layout).replace(" ", "") == "affine_map<(d0,d1)->(d1,d0)>" and len(shape) == 2:
            strides = (1, shape[0])
    space = str(m.memory_space) if m.memory_space is not None else None
    return shape, str(m.element_type), strides, space


def our_type(t):
    """The Python value of one of our dialect types (tile, tensor_desc), else None."""
    if isinstance(t, ir.Value):
        t = t.type
    return type_value(t)


def element_bits(elt: str) -> int:
    table = {"bf16": 16, "f16": 16, "f32": 32, "tf32": 32, "f64": 64, "i1": 1, "i8": 8, "i16": 16,
             "i32": 32, "i64": 64, "ui8": 8, "si8": 8, "index": 64, "f8E4M3FN": 8, "f8E5M2": 8}
    return table.get(elt, 32)


def is_float(elt: str) -> bool:
    return elt.startswith(("f", "bf", "tf"))
