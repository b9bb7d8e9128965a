"""What the parts of `xetile-wg-to-sg` share: the error a rule raises at an op (`PassError`), the RFC
tables the checks and the rules both read, and small queries/builders of work-group values (their
`Layout`, the type of one subgroup piece, ops re-created at subgroup level without `wg_map`)."""
from __future__ import annotations

from mlir import ir

from ....core.typeinfo import vector_info
from ....xetile.attributes import TileType
from .distribution import Layout

RFC_MMA = ("RFC: the A, B and C maps of tile_mma must have the same sg_layout, sg_data for the M and N "
           "dimensions must be the same as wg_map_c's, and sg_data for the K dimension the same for A and B")

COMBINE = {  # tile_reduce kind -> element-wise arith op combining partial results (float, int)
    "add": ("arith.addf", "arith.addi"), "mul": ("arith.mulf", "arith.muli"),
    "minsi": (None, "arith.minsi"), "minui": (None, "arith.minui"), "maxsi": (None, "arith.maxsi"),
    "maxui": (None, "arith.maxui"), "and": (None, "arith.andi"), "or": (None, "arith.ori"),
    "xor": (None, "arith.xori"), "minnumf": ("arith.minnumf", None), "maxnumf": ("arith.maxnumf", None),
    "minimumf": ("arith.minimumf", None), "maximumf": ("arith.maximumf", None),
}


class PassError(Exception):
    """A problem at `op` that stops the distribution of the function (reported by the driver)."""

    def __init__(self, op, message):
        super().__init__(message)
        self.op = op
        self.message = message


def is_tile(t) -> bool:
    return str(t).startswith("!xetile.tile")


def is_vector(t) -> bool:
    return isinstance(t, ir.VectorType) or str(t).startswith("vector<")


def tile_layout(t):
    """Layout of a tile type carrying wg_map, else None."""
    if not is_tile(t):
        return None
    tv = TileType(t)
    if tv.wg_map is None:
        return None
    return Layout.of(tv.shape, tv.wg_map)


def vshape(v):
    return vector_info(v)[0]


def elt_type(v) -> ir.Type:
    return ir.VectorType(v.type).element_type


def piece_type(v, lay) -> ir.Type:
    """Type of one subgroup piece of work-group vector `v` (blocked like `v` when it is 4D)."""
    s = vshape(v)
    d = lay.sg_data
    shape = (d[0] // s[2], d[1] // s[3], s[2], s[3]) if len(s) == 4 else d
    return vector_type(shape, ir.VectorType(v.type).element_type)


def vector_type(shape, elt) -> ir.Type:
    return ir.VectorType.get(list(shape), elt)


def short_map(lay: Layout) -> str:
    return f"sg_layout = [{lay.sg_layout[0]}, {lay.sg_layout[1]}], sg_data = [{lay.sg_data[0]}, {lay.sg_data[1]}]"


def create_op(name, operands, result_types, attrs=None):
    return ir.Operation.create(name, results=list(result_types), operands=list(operands),
                               attributes=dict(attrs or {}))


def sg_attrs(op, drop=("wg_map",)):
    """The attributes an op keeps at subgroup level: without `wg_map` (the subgroup form of an
    element-wise op, constant or broadcast carries no work-group map)."""
    named = (op.attributes[i] for i in range(len(op.attributes)))
    return {na.name: na.attr for na in named if na.name not in drop}
