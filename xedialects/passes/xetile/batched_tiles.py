"""IMEX's batched `init_tile` (one offset per dimension of an N-D memref; the tile spans the last two
dimensions) rewritten as a 2D `init_tile` on a rank-reducing `memref.subview`, the form the rest
of the pipeline lowers; with the base's shape and strides given (dynamic dims), on a 2D
`memref.reinterpret_cast` at the leading offsets instead. Used by `xetile-canonicalize`.
"""
from __future__ import annotations

from mlir import ir

from ...core.kinds import DYNAMIC
from ...core.typeinfo import memref_info
from ...xetile.attributes import TileType
from ...xetile.ops import InitTileOp
from ..utils.ir_walk import walk


def _subview(src, lead, shape, strides, space, elt, loc):
    """memref.subview src[lead..., 0, 0] [1..., H, W] [1...] to a 2D strided memref."""
    rank = len(shape)
    dyn = [v for v in lead if isinstance(v, ir.Value)]
    static_offs = [DYNAMIC if isinstance(v, ir.Value) else v for v in lead] + [0, 0]
    if dyn:
        offset = "?"
    else:
        offset = str(sum(o * s for o, s in zip(static_offs, strides)))
    layout = f"strided<[{strides[-2]}, {strides[-1]}], offset: {offset}>"
    space_txt = f", {space}" if space is not None else ""
    rt = ir.Type.parse(f"memref<{shape[-2]}x{shape[-1]}x{elt}, {layout}{space_txt}>")
    i64 = lambda xs: ir.DenseI64ArrayAttr.get(list(xs))  # noqa: E731
    attrs = {"operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, len(dyn), 0, 0]),
             "static_offsets": i64(static_offs),
             "static_sizes": i64([1] * (rank - 2) + list(shape[-2:])),
             "static_strides": i64([1] * rank)}
    return ir.Operation.create("memref.subview", results=[rt], operands=[src] + dyn, attributes=attrs,
                               loc=loc).result


def _index(v, loc):
    if isinstance(v, ir.Value):
        return v
    return ir.Operation.create("arith.constant", results=[ir.IndexType.get()],
                               attributes={"value": ir.IntegerAttr.get(ir.IndexType.get(), v)}, loc=loc).result


def _arith(name, a, b, loc):
    return ir.Operation.create(name, results=[ir.IndexType.get()], operands=[a, b], loc=loc).result


def _explicit_view(src, lead, shape, strides, elt, space, loc):
    """memref.reinterpret_cast of `src` to the 2D base at the leading offsets: offset = src's own
    offset + sum(lead[d] * strides[d]), sizes and strides the last two given."""
    shape, strides = [_index(v, loc) for v in shape], [_index(v, loc) for v in strides]
    rank = len(shape)
    idx = ir.IndexType.get()
    base_t = ir.Type.parse(f"memref<{elt}{', ' + space if space is not None else ''}>")
    meta = ir.Operation.create("memref.extract_strided_metadata", results=[base_t] + [idx] * (1 + 2 * rank),
                               operands=[src], loc=loc)
    offset = meta.results[1]
    for o, st in zip(lead, strides):
        offset = _arith("arith.addi", offset, _arith("arith.muli", _index(o, loc), st, loc), loc)
    dyn = ir.ShapedType.get_dynamic_size()
    space_txt = f", {space}" if space is not None else ""
    rt = ir.Type.parse(f"memref<?x?x{elt}, strided<[?, ?], offset: ?>{space_txt}>")
    i64 = lambda xs: ir.DenseI64ArrayAttr.get(list(xs))  # noqa: E731
    attrs = {"operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 1, 2, 2]), "static_offsets": i64([dyn]),
             "static_sizes": i64([dyn, dyn]), "static_strides": i64([dyn, dyn])}
    view = ir.Operation.create("memref.reinterpret_cast", results=[rt],
                               operands=[src, offset] + shape[-2:] + strides[-2:], attributes=attrs, loc=loc).result
    return view, shape[-2:], strides[-2:]


def flatten_batched_init_tiles(root) -> int:
    """Rewrite every batched init_tile under `root`; returns how many."""
    n = 0
    for op in [o for o in walk(root) if o.name == "xetile.init_tile"]:
        it = InitTileOp(op)
        mi = memref_info(it.source)
        if mi is None or len(mi[0]) <= 2 or TileType(op.results[0].type).scattered:
            continue
        shape, elt, strides, space = mi
        offs = it.mixed("offsets", "static_offsets")
        given = it.mixed("shape", "static_shape")
        if given and len(given) == len(offs) == len(shape):
            with ir.InsertionPoint(op):
                view, sizes, steps = _explicit_view(it.source, offs[:-2], given, it.mixed("strides", "static_strides"),
                                                    elt, space, op.location)
                new = InitTileOp.build(source=view, offsets=list(offs[-2:]), shape=sizes, strides=steps,
                                       result_types=[op.results[0].type], loc=op.location).op
            op.results[0].replace_all_uses_with(new.results[0])
            op.erase()
            n += 1
            continue
        if len(offs) != len(shape) or strides is None or None in shape or None in strides:
            continue  # the verifier reports these
        with ir.InsertionPoint(op):
            view = _subview(it.source, offs[:-2], shape, strides, space, elt, op.location)
            new = InitTileOp.build(source=view, offsets=list(offs[-2:]), result_types=[op.results[0].type],
                                   loc=op.location).op
        op.results[0].replace_all_uses_with(new.results[0])
        op.erase()
        n += 1
    return n
