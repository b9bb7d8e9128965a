"""Rules of `convert-xetile-to-xegpu` for IMEX's XeTile forms (docs/imex-xetile.md): a scattered
tile moved by a vector of per-element deltas (`update_tile_offset %t, %deltas`) and
`atomic_rmw_tile` on a scattered tile (one `atomic_rmw` per row piece, all lanes on). The check
that names the forms the conversion does not take is `unsupported_forms`.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, vector

from ...xegpu.ops import AtomicRmwOp
from ...xetile.ops import AtomicRmwTileOp, UpdateTileOffsetOp
from . import scattered, tile_descriptors
from .converter import Converter
from .ir_helpers import PLAN_ATTR, ConversionError, vector_element, vector_shape, vector_type
from .unsupported_forms import is_scattered_tile


def _scattered_atomic(op) -> bool:
    """atomic_rmw_tile on a scattered tile: such tiles get no tile plan (its operand may already
    be rebuilt when the rule runs)."""
    return PLAN_ATTR not in op.attributes and (is_scattered_tile(op.operands[1]) or
                                               not str(op.operands[1].type).startswith("!xetile.tile"))


class _MemorySpace:
    """What `scattered._scatter_tdesc` reads of a tile type."""

    def __init__(self, memory_space):
        self.memory_space = memory_space


def lower_update_tile_offset(cv: Converter, rb, op):
    if not is_scattered_tile(op.results[0]):
        return tile_descriptors.lower_update_tile_offset(cv, rb, op)
    deltas = UpdateTileOffsetOp(op).deltas()
    if deltas is None:
        raise ConversionError(op, "a scattered tile moves by a vector of per-element offsets")
    src, indices = rb.map(op.operands[0])
    return [[src, arith.AddIOp(indices, rb.one(deltas)).result]]


def lower_atomic_rmw_tile(cv: Converter, rb, op):
    if not _scattered_atomic(op):
        return scattered.lower_atomic_rmw_tile(cv, rb, op)
    a = AtomicRmwTileOp(op)
    src, indices = rb.map(op.operands[1])
    if len(vector_shape(op.operands[0])) != 2:
        raise ConversionError(op, "atomic_rmw_tile on a scattered tile takes a 2D value")
    g = cv.grid_of(rb, op.operands[0])
    value = cv.reblock(g, g.shape[0], g.shape[1], 1).blocks[0]
    R, C = g.shape
    elt = vector_element(value)
    if a.kind in ("addf", "mulf") and elt in ("bf16", "f16"):
        raise ConversionError(op, f"PVC has no {elt} atomic {a.kind}; accumulate into an f32 tile")
    tt = _MemorySpace(3 if "slm" in str(src.type) or str(src.type).endswith(", 3>") else 0)
    old = cv.zero_block(R, C, elt, 1)
    i1 = ir.IntegerType.get_signless(1)
    for r in range(R):
        for cc, n in scattered.lane_pieces(C):
            offs = scattered._row_slices(indices, r, cc, n)
            piece = scattered._row_slices(value, r, cc, n)
            on = arith.ConstantOp(ir.VectorType.get([n], i1),
                                  ir.DenseElementsAttr.get_splat(ir.VectorType.get([n], i1),
                                                                 ir.BoolAttr.get(True))).result
            td = scattered._scatter_tdesc(src, offs, n, elt, tt)
            got = AtomicRmwOp.build(kind=a.kind, value=piece, tdesc=td, mask=on, mode="vc",
                                    result_types=[vector_type((n,), elt)]).op.results[0]
            old = vector.insert_strided_slice(got, old, [r, cc], [1])
    return [[old]]
