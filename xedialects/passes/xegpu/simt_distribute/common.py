"""Shared pieces of `xegpu-simt-distribute`: the subgroup size, op-name sets, the located
`SimtError`, and small helpers on MLIR vector types and attributes."""
from __future__ import annotations

import numpy as np
from mlir import ir

from ...utils.ir_walk import owner_op


SG = 16  # work-items per subgroup
SCATTERED_OPS = ("xegpu.create_tdesc", "xegpu.load_gather", "xegpu.store_scatter", "xegpu.atomic_rmw",
                 "xegpu.update_offset", "xegpu.prefetch")
SIMT_MAX_LANES = 32   # a scattered access addresses at most 32 lanes on PVC: 2 elements per work-item
DYNAMIC = ir.ShapedType.get_dynamic_size() if hasattr(ir.ShapedType, "get_dynamic_size") else -(1 << 63)
PURE_OPS = ("vector.broadcast", "vector.splat", "vector.extract", "vector.from_elements", "vector.shape_cast",
            "vector.bitcast", "vector.extract_strided_slice", "vector.insert_strided_slice", "vector.shuffle",
            "vector.step", "gpu.lane_id")



class SimtError(Exception):
    def __init__(self, op, message):
        super().__init__(message)
        self.op = op
        self.message = message


def is_vec(v) -> bool:
    return isinstance(v.type, ir.VectorType) or str(v.type).startswith("vector<")


def vec_shape(v):
    return tuple(ir.VectorType(v.type).shape)


def vec_elt(v):
    return str(ir.VectorType(v.type).element_type)


def vec_type(shape, elt):
    et = elt if isinstance(elt, ir.Type) else ir.Type.parse(elt)
    return ir.VectorType.get(list(shape), et)


def value_type(shape, elt):
    """A work-item's type: the scalar for shape (), else the vector."""
    if tuple(shape) == ():
        return elt if isinstance(elt, ir.Type) else ir.Type.parse(elt)
    return vec_type(shape, elt)


def is_int_type(elt) -> bool:
    return elt == "index" or (elt.startswith("i") and elt[1:].isdigit())


def dense_ints(values, shape, elt):
    """Dense integer (index, i1, iN) elements attribute."""
    arr = np.asarray(values, np.int64).reshape(tuple(shape))

    def text(a):
        if a.ndim == 0:
            x = int(a)
            return ("true" if x else "false") if elt == "i1" else str(x)
        return "[" + ", ".join(text(x) for x in a) + "]"
    return ir.Attribute.parse(f"dense<{text(arr)}> : vector<{'x'.join(map(str, shape))}x{elt}>")


def is_elementwise(op) -> bool:
    return op.name.startswith(("arith.", "math.")) and op.name != "arith.constant" and \
        any(is_vec(r) for r in op.results)


def int_list(attr):
    if attr is None:
        return None
    try:
        return [int(x) for x in ir.DenseI64ArrayAttr(attr)]
    except (ValueError, TypeError):
        return [ir.IntegerAttr(x).value for x in ir.ArrayAttr(attr)]


def str_attr(op, name):
    return ir.StringAttr(op.attributes[name]).value


def cache_hints(op) -> dict:
    """The cache hints (l1/l2/l3_hint) `op` carries, as builder keywords."""
    return {k: str_attr(op, k) for k in ("l1_hint", "l2_hint", "l3_hint") if k in op.attributes}


def mixed_operands(rb, view, name):
    """A mixed static/SSA index list (`offsets`, `shape`, `strides`) of `view`, SSA values mapped by
    the Rebuilder `rb`."""
    return [rb.one(x) if isinstance(x, ir.Value) else x for x in view.mixed(name, "static_" + name)]


def tdesc_fields(tv):
    fields = {}
    if tv.memory_scope != "global":
        fields["memory_scope"] = tv.memory_scope
    if not tv.boundary_check:
        fields["boundary_check"] = False
    if tv.scattered:
        fields["scattered"] = True
    if tv.chunk_size_per_lane != 1:
        fields["chunk_size_per_lane"] = tv.chunk_size_per_lane
    return fields


def is_gathered_block(v, shared_base=False) -> bool:
    """True when `v` is a block assembled in registers from gathered pieces (convert-xetile-to-xegpu's
    scattered form of a block load): a chain of insert_strided_slice / vector.insert of vector pieces
    into a constant, each intermediate block used only by the next insert, at least one piece
    computed (element-wise, e.g. the select of masked lanes) from an `xegpu.load_gather`;
    `shared_base`: the constant may be shared with other blocks."""
    gathered = False
    while True:
        o = owner_op(v)
        if o is None:
            return False
        if o.name == "arith.constant":
            return gathered
        if o.name not in ("vector.insert_strided_slice", "vector.insert") or not is_vec(o.operands[0]):
            return False
        piece = [o.operands[0]]
        while piece and not gathered:
            x = owner_op(piece.pop())
            if x is None:
                continue
            if x.name == "xegpu.load_gather":
                gathered = True
            elif is_elementwise(x):
                piece.extend(y for y in x.operands if is_vec(y))
        v = o.operands[1]
        base = owner_op(v)
        if sum(1 for _ in v.uses) != 1 and not (shared_base and base is not None and base.name == "arith.constant"):
            return False
