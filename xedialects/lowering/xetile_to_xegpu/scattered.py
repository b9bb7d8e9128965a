"""Scattered accesses of `convert-xetile-to-xegpu`: the masked row pieces (`create_tdesc` +
`load_gather` / `store_scatter`, at most GATHER_LANES lanes each) through which scatter-mode tiles
are loaded and stored, `atomic_rmw_tile` (one `atomic_rmw` per row piece), and the rules for
XeTile's own `load_gather` / `store_scatter` on scattered tiles.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, vector

from ...core.typeinfo import vector_info
from ...xegpu.attributes import TensorDescType
from ...xegpu.ops import AtomicRmwOp, CreateTdescOp, LoadGatherOp, StoreScatterOp
from ...xetile.attributes import TileType
from ...xetile.ops import AtomicRmwTileOp, LoadGatherOp as XtLoadGatherOp, StoreScatterOp as XtStoreScatterOp
from .converter import Converter, Grid
from .ir_helpers import ConversionError, padding_attr, splat, vector_element, vector_shape, vector_type, zero_attr
from .tile_plan import TilePlan


GATHER_LANES = 16   # lanes of one scattered row piece (a SIMD16 message; PVC allows 1..32 lanes)


def lane_iota(cv: Converter, n):
    key = ("iota", n)
    if key not in cv.const_cache:
        vt = vector_type((n,), "index")
        attr = ir.DenseElementsAttr.get(__import__("numpy").arange(n, dtype="int64"), type=vt)
        cv.const_cache[key] = attr
    attr = cv.const_cache[key]
    return arith.ConstantOp(ir.VectorType.get([n], ir.IndexType.get()), attr).result


def row_access(cv: Converter, p: TilePlan, r0, c0, rr, cc, lanes):
    """(tdesc, mask) of the scattered access to logical row r0+rr, columns c0+cc .. +lanes."""
    vt = ir.VectorType.get([lanes], ir.IndexType.get())
    cols = arith.AddIOp(vector.broadcast(vt, cv.index(cv.add(c0, cc))), lane_iota(cv, lanes)).result
    return _access(cv, p, cv.add(r0, rr), cols, lanes)


def column_access(cv: Converter, p: TilePlan, r0, c0, rr, lanes):
    """(tdesc, mask) of the scattered access to logical rows r0+rr .. +lanes of column c0: one message for
    a one-column block (e.g. a column of per-group scales read through a transposed view)."""
    vt = ir.VectorType.get([lanes], ir.IndexType.get())
    rows = arith.AddIOp(vector.broadcast(vt, cv.index(cv.add(r0, rr))), lane_iota(cv, lanes)).result
    return _access(cv, p, rows, c0, lanes)


def _access(cv: Converter, p: TilePlan, row, col, lanes):
    """(tdesc, mask) of `lanes` elements at logical (row, col), one of them a vector<lanes x index> of the
    lanes' indices, the other a scalar index (masked outside the logical shape)."""
    vt = ir.VectorType.get([lanes], ir.IndexType.get())
    (sr, sc), (R, C) = p.log_strides, p.log_shape

    def is_vec(x) -> bool:
        return isinstance(x, ir.Value) and isinstance(x.type, ir.VectorType)

    def offsets(x, stride):          # x * stride (scalar: folded, broadcast by the caller)
        if not is_vec(x):
            return cv.mul(x, stride)
        return x if isinstance(stride, int) and stride == 1 else \
            arith.MulIOp(x, vector.broadcast(vt, cv.index(stride))).result

    def inside(x, bound):            # i1 (scalar x) or vector of i1
        return arith.CmpIOp(arith.CmpIPredicate.ult, x if is_vec(x) else cv.index(x),
                            vector.broadcast(vt, cv.index(bound)) if is_vec(x) else cv.index(bound)).result

    lr, lc = offsets(row, sr), offsets(col, sc)
    lin = arith.AddIOp(*(x if is_vec(x) else vector.broadcast(vt, cv.index(x)) for x in (lr, lc))).result
    oks = inside(row, R), inside(col, C)
    mask = arith.AndIOp(*(x if is_vec(x) else vector.broadcast(ir.VectorType.get([lanes], x.type), x)
                          for x in oks)).result
    fields = {"scattered": True}
    if p.slm:
        fields["memory_scope"] = "slm"
    tt = TensorDescType.get([lanes], p.elt, **fields)
    td = CreateTdescOp.build(source=p.scatter_source, offsets=lin, mode="vc", result_types=[tt]).op.results[0]
    return td, mask


def lane_pieces(width):
    out, c = [], 0
    while c < width:
        n = next(x for x in (GATHER_LANES, 8, 4, 2, 1) if x <= width - c)
        out.append((c, n))
        c += n
    return out


def scatter_load_block(cv: Converter, p, r0, c0, h, w, pad_attr, column=False):
    """An h x w block by masked gathers: one per row piece; with `column` and w 1, one per column piece (a
    column only ever transposed, e.g. per-group scales of N x K weights: lane = row, as the transposed row
    wants it; a column broadcast along its rows keeps one gather per row, each value then in every lane)."""
    elt = p.elt
    blk = cv.zero_block(h, w, elt, 1) if pad_attr is None else splat((h, w), elt, pad_attr)
    if column and w == 1 and h > 1:
        for rr, n in lane_pieces(h):
            td, mask = column_access(cv, p, r0, c0, rr, n)
            v = LoadGatherOp.build(tdesc=td, mask=mask, mode="vc", result_types=[vector_type((n,), elt)]).op.results[0]
            padv = splat((n,), elt, pad_attr if pad_attr is not None else zero_attr(elt))
            v = vector.shape_cast(vector_type((n, 1), elt), arith.SelectOp(mask, v, padv).result)
            blk = vector.insert_strided_slice(v, blk, [rr, 0], [1, 1])
        return blk
    for rr in range(h):
        for cc, n in lane_pieces(w):
            td, mask = row_access(cv, p, r0, c0, rr, cc, n)
            v = LoadGatherOp.build(tdesc=td, mask=mask, mode="vc", result_types=[vector_type((n,), elt)]).op.results[0]
            padv = splat((n,), elt, pad_attr if pad_attr is not None else zero_attr(elt))
            v = arith.SelectOp(mask, v, padv).result
            blk = vector.insert_strided_slice(v, blk, [rr, cc], [1])
    return blk


def scatter_rows(cv: Converter, p, r0, c0, blk, fn):
    """Call fn(tdesc, mask, piece) for every row piece of plain block blk at logical (r0, c0)."""
    h, w = vector_shape(blk)
    elt = vector_element(blk)
    for rr in range(h):
        for cc, n in lane_pieces(w):
            td, mask = row_access(cv, p, r0, c0, rr, cc, n)
            piece = vector.extract_strided_slice(vector_type((1, n), elt), blk, [rr, cc], [1, n], [1, 1])
            piece = vector.shape_cast(vector_type((n,), elt), piece)
            fn(td, mask, piece)


def lower_atomic_rmw_tile(cv: Converter, rb, op):
    a = AtomicRmwTileOp(op)
    p = cv.plan(op, op.operands[1])
    kind = a.kind
    if kind in ("addf", "mulf") and p.elt in ("bf16", "f16"):
        raise ConversionError(op, f"PVC has no {p.elt} atomic {kind} (rfc-xetile-xegpu.md: 'The BF16/FP16 matrix "
                                  "needs to be converted to FP32 to perform the reduction'); accumulate into an "
                                  "f32 tile (extf the value) instead")
    g = cv.value_grid_for_tile(rb, p, op.operands[0], p.block)
    r0, c0 = rb.map(op.operands[1])
    olds = []
    gi, gj = g.dims
    for i in range(gi):
        for j in range(gj):
            blk = g.at(i, j)
            h, w = vector_shape(blk)
            old_blk = cv.zero_block(h, w, p.elt, 1)
            rows = []

            def at(td, mask, piece, rows=rows):
                r = AtomicRmwOp.build(kind=kind, value=piece, tdesc=td, mask=mask, mode="vc",
                                      result_types=[piece.type]).op.results[0]
                rows.append(r)
            scatter_rows(cv, p, cv.add(r0, i * p.block[0]), cv.add(c0, j * p.block[1]), blk, at)
            k = 0
            for rr in range(h):
                for cc, n in lane_pieces(w):
                    old_blk = vector.insert_strided_slice(rows[k], old_blk, [rr, cc], [1])
                    k += 1
            olds.append(old_blk)
    res = Grid(g.shape, p.block, 1, olds, p.elt)
    shp, _ = vector_info(op.results[0])
    if len(shp) == 4:
        res = cv.reblock(res, shp[2], shp[3], 1)
    return [res.blocks]


def lower_load_gather(cv: Converter, rb, op):
    g = XtLoadGatherOp(op)
    src, indices = rb.map(g.tile)
    mask = rb.one(g.mask)
    shp, elt = vector_info(op.results[0])
    pad_attr = padding_attr(g.padding, elt)
    return [[_gather2d(cv, src, indices, mask, shp, elt, TileType(g.tile.type), pad_attr)]]


def _scatter_tdesc(src, offs, n, elt, tt):
    fields = {"scattered": True}
    if tt.memory_space == 3:
        fields["memory_scope"] = "slm"
    t = TensorDescType.get([n], elt, **fields)
    return CreateTdescOp.build(source=src, offsets=offs, mode="vc", result_types=[t]).op.results[0]


def _row_slices(v, r, cc, n):
    elt = vector_element(v)
    s = vector.extract_strided_slice(vector_type((1, n), elt), v, [r, cc], [1, n], [1, 1])
    return vector.shape_cast(vector_type((n,), elt), s)


def _gather2d(cv: Converter, src, indices, mask, shp, elt, tt, pad_attr):
    R, C = shp
    dest = cv.zero_block(R, C, elt, 1)
    for r in range(R):
        for cc, n in lane_pieces(C):
            offs = _row_slices(indices, r, cc, n)
            m = _row_slices(mask, r, cc, n)
            td = _scatter_tdesc(src, offs, n, elt, tt)
            v = LoadGatherOp.build(tdesc=td, mask=m, mode="vc", result_types=[vector_type((n,), elt)]).op.results[0]
            padv = splat((n,), elt, pad_attr if pad_attr is not None else zero_attr(elt))
            v = arith.SelectOp(m, v, padv).result
            dest = vector.insert_strided_slice(v, dest, [r, cc], [1])
    return dest


def lower_store_scatter(cv: Converter, rb, op):
    s = XtStoreScatterOp(op)
    src, indices = rb.map(s.tile)
    g = cv.grid_of(rb, s.value)
    val = cv.reblock(g, g.shape[0], g.shape[1], 1).blocks[0]
    mask = rb.one(s.mask)
    R, C = g.shape
    tt = TileType(s.tile.type)
    for r in range(R):
        for cc, n in lane_pieces(C):
            offs = _row_slices(indices, r, cc, n)
            m = _row_slices(mask, r, cc, n)
            td = _scatter_tdesc(src, offs, n, g.elt, tt)
            StoreScatterOp.build(value=_row_slices(val, r, cc, n), tdesc=td, mask=m, mode="vc")
    return []
