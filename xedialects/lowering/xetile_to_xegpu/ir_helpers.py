"""Small IR helpers shared by the modules of `convert-xetile-to-xegpu` (convert.py): the
conversion's error, the temporary op attributes the analysis (tile_plans.py) leaves for the rules,
vector types and splat constants, padding values.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

PLAN_ATTR = "__xe_tile_plan"          # temporary op attributes of the conversion
VNNI_ATTR = "__xe_load_vnni"
FUSED_T_ATTR = "__xe_fused_transpose"   # a load_tile and the tile_transpose folded into it


class ConversionError(Exception):
    def __init__(self, op, message):
        super().__init__(message)
        self.op = op
        self.message = message


def vector_type(shape, elt) -> ir.Type:
    return ir.VectorType.get(list(shape), element_type(elt))


def element_type(elt):
    if isinstance(elt, ir.Type):
        return elt
    return ir.Type.parse(elt)


def vector_shape(v):
    return tuple(ir.VectorType(v.type).shape)


def vector_element(v):
    return str(ir.VectorType(v.type).element_type)


def is_vector(t) -> bool:
    return isinstance(t, ir.VectorType) or str(t).startswith("vector<")


def zero_attr(elt: str):
    t = element_type(elt)
    if elt.startswith(("f", "bf", "tf")):
        return ir.FloatAttr.get(t, 0.0)
    return ir.IntegerAttr.get(t, 0)


def splat(shape, elt, attr):
    vt = vector_type(shape, elt)
    return arith.ConstantOp(vt, ir.DenseElementsAttr.get_splat(vt, attr)).result


def is_zero_padding(text) -> bool:
    t = str(text).split(":")[0].strip()
    try:
        return float(t) == 0.0
    except ValueError:
        return False


def padding_attr(text, elt):
    if text is None or is_zero_padding(text):
        return None
    val = str(text).split(":")[0].strip()
    t = element_type(elt)
    if elt.startswith(("f", "bf", "tf")):
        return ir.FloatAttr.get(t, float(val))
    return ir.IntegerAttr.get(t, int(float(val)))
