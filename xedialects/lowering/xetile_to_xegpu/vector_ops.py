"""Rules of `convert-xetile-to-xegpu` for values in registers: `tile_unpack` / `tile_pack` (re-
blocking only), `tile_transpose`, `tile_broadcast`, `tile_reduce`, element-wise arith / math ops
and constants on blocked vectors (one op per block), and the splat accumulators that start
loop-carried grids.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import vector

from ...core.typeinfo import vector_info
from ...passes.utils.ir_walk import attr_dict as _attr_dict, owner_op
from ...passes.utils.reduction_kinds import ARITH_COMBINE
from ...xetile.ops import TileBroadcastOp, TilePackOp, TileReduceOp
from .converter import Converter, Grid
from .ir_helpers import FUSED_T_ATTR, ConversionError, element_type, is_vector, splat, vector_shape, vector_type


def lower_tile_unpack(cv: Converter, rb, op):
    # the 2D value keeps the blocks of its source: nothing to emit
    return [list(rb.map(op.operands[0]))]


def lower_tile_pack(cv: Converter, rb, op):
    g = cv.grid_of(rb, op.operands[0])
    ib = TilePackOp(op).inner_blocks
    return [cv.reblock(g, ib[0], ib[1]).blocks]


def lower_tile_transpose(cv: Converter, rb, op):
    if FUSED_T_ATTR in op.attributes:
        # its load_tile loaded the transposed value already (fuse_transpose)
        return [list(rb.map(op.operands[0]))]
    g = cv.grid_of(rb, op.operands[0])
    shp, elt = vector_info(op.results[0])
    if len(shp) != 2:
        raise ConversionError(op, "tile_transpose of a blocked vector")
    gi, gj = g.dims
    bm, bn = g.block
    out = []
    for j in range(gj):
        for i in range(gi):
            b = cv.as_form(g.at(i, j), g.vnni, 1)
            out.append(vector.transpose(vector_type((bn, bm), elt), b, [1, 0]))
    return [out]


def lower_tile_broadcast(cv: Converter, rb, op):
    """tile_broadcast of a row (dims [0]) or column (dims [1]) vector: every result block is a
    vector.broadcast of the matching source piece (a 1 x bn row or a bm x 1 column)."""
    g = cv.grid_of(rb, op.operands[0])
    dims = tuple(TileBroadcastOp(op).broadcast_dims)
    shp, elt = vector_info(op.results[0])
    if len(shp) == 4:
        (R, C), (bm, bn) = (shp[0] * shp[2], shp[1] * shp[3]), (shp[2], shp[3])
    else:
        R, C = shp
        bm = next(d for d in range(min(R, cv.arch.dpas.max_repeat_count), 0, -1) if R % d == 0)
        bn = g.block[1] if 1 not in dims else C
    sbm, sbn = (1 if 0 in dims else bm), (1 if 1 in dims else bn)
    src = cv.reblock(g, sbm, sbn, 1)
    out = []
    for i in range(R // bm):
        for j in range(C // bn):
            piece = src.at(0 if 0 in dims else i, 0 if 1 in dims else j)
            out.append(vector.broadcast(vector_type((bm, bn), elt), piece))
    return [out]


def lower_tile_reduce(cv: Converter, rb, op):
    """tile_reduce over columns (dims [1], 4D [1, 3]), rows ([0] / [0, 2]) or both: per block row
    (column) the blocks combined element-wise, then one `vector.multi_reduction` (starting from
    the combined block's own first column / row, so no identity value is needed); a 16-bit sum or
    product chains one reduction per block instead. The result blocks are bm x 1 (1 x bn) pieces
    of the R x 1 (1 x C) result."""
    r = TileReduceOp(op)
    g = cv.grid_of(rb, op.operands[0])
    g = cv.reblock(g, *g.block, 1)   # plain (not VNNI) blocks
    # the result's rank tells 2D from 4D dims: a loop-carried source may already be mapped to the
    # loop's new (2D block) results by the time this rule sees it
    res_rank = len(vector_info(op.results[0])[0])
    src_shape, elt = vector_info(op.operands[0])
    dims = set(r.reduction_dims)
    if res_rank == 4:
        dims = {d % 2 for d in dims}
    kind = ir.Attribute.parse(f"#vector.kind<{r.kind}>")
    bm, bn = g.block
    gm, gn = g.dims
    et = element_type(elt)
    combine = ARITH_COMBINE[r.kind][0 if isinstance(et, ir.FloatType) else 1]
    if r.kind in ("add", "mul") and elt in ("f16", "bf16"):
        combine = None    # these reduce in f32, rounded once (docs/numerics.md): no 16-bit partial sums

    def reduce_blocks(blocks, axis):
        """Reduce a list of (bm, bn) blocks along `axis` (1: columns, 0: rows) into one vector: the
        blocks combined element-wise first (one register op each; not a 16-bit sum or product, which
        reduces in f32 and rounds once), then one reduction."""
        keep = bm if axis == 1 else bn
        first = blocks[0]
        if combine is not None:
            for blk in blocks[1:]:
                first = ir.Operation.create(combine, results=[first.type], operands=[first, blk]).results[0]
            blocks = [first]
        if axis == 1:
            acc = vector.shape_cast(vector_type((keep,), elt), cv.slice(first, 1, 0, 0, bm, 1))
            rest = cv.slice(first, 1, 0, 1, bm, bn - 1) if bn > 1 else None
        else:
            acc = vector.shape_cast(vector_type((keep,), elt), cv.slice(first, 1, 0, 0, 1, bn))
            rest = cv.slice(first, 1, 1, 0, bm - 1, bn) if bm > 1 else None
        for blk in ([rest] if rest is not None else []) + blocks[1:]:
            acc = vector.multi_reduction(kind, blk, acc, [axis])
        return acc

    out = []
    if dims == {1}:
        for i in range(gm):
            v = reduce_blocks([g.at(i, j) for j in range(gn)], 1)
            out.append(vector.shape_cast(vector_type((bm, 1), elt), v))
    elif dims == {0}:
        for j in range(gn):
            v = reduce_blocks([g.at(i, j) for i in range(gm)], 0)
            out.append(vector.shape_cast(vector_type((1, bn), elt), v))
    elif dims == {0, 1}:
        rows = [reduce_blocks([g.at(i, j) for j in range(gn)], 1) for i in range(gm)]   # vector<bm> each
        acc = None
        for v in rows:
            acc = vector.reduction(et, kind, v, acc=acc) if acc is not None else vector.reduction(et, kind, v)
        out.append(vector.broadcast(vector_type((1, 1), elt), acc))
    else:
        raise ConversionError(op, f"tile_reduce over dimensions {sorted(r.reduction_dims)} of {src_shape}")
    res_shape, _ = vector_info(op.results[0])
    if len(res_shape) == 4 and out:
        want = (res_shape[2], res_shape[3])
        have = vector_shape(out[0])
        if tuple(have) != want:
            blk = Grid((res_shape[0] * want[0], res_shape[1] * want[1]), tuple(have), 1, out, elt)
            out = cv.reblock(blk, *want, 1).blocks
    return [out]


def lower_elementwise(cv: Converter, rb, op):
    """Per-block clone of an arith/math op (or a vector.broadcast of a scalar) on grids."""
    name = op.name
    results = list(op.results)
    if len(results) != 1:
        return None
    rt = results[0].type
    if not is_vector(rt):
        return None
    shp, relt = vector_info(results[0])
    vec_operands = [v for v in op.operands if is_vector(v.type)]
    changed = any(rb.is_changed(v) for v in vec_operands)
    if len(shp) != 4 and not changed:
        return None
    if name == "arith.constant":
        return [const_blocks(op, shp, relt)]
    if name in ("vector.broadcast", "vector.splat"):
        src = op.operands[0]
        if is_vector(src.type):
            raise ConversionError(op, "vector.broadcast of a vector onto a blocked vector is not supported; "
                                      "use xetile.tile_broadcast")
        R, C, bm, bn = (shp[0] * shp[2], shp[1] * shp[3], shp[2], shp[3]) if len(shp) == 4 else (*shp, *shp)
        v = vector.broadcast(vector_type((bm, bn), relt), rb.one(src))
        return [[v] * ((R // bm) * (C // bn))]
    if name == "vector.bitcast":
        return [_bitcast_blocks(cv, rb, op, relt)]
    if not (name.startswith("arith.") or name.startswith("math.")):
        raise ConversionError(op, f"'{name}' on a blocked vector is not supported by convert-xetile-to-xegpu")
    grids = {}
    ref = None
    for v in vec_operands:
        g = cv.grid_of(rb, v)
        grids[v] = g
        if ref is None or (g.vnni == 1 and ref.vnni > 1):
            ref = g
    if ref is None:
        return None
    form = ref.vnni if all(g.vnni == ref.vnni for g in grids.values()) else 1
    aligned = {v: cv.reblock(g, ref.block[0], ref.block[1], form) for v, g in grids.items()}
    n = len(ref.blocks)
    bm, bn = ref.block
    out = []
    attrs = _attr_dict(op)
    for k in range(n):
        operands = []
        for v in op.operands:
            operands.append(aligned[v].blocks[k] if v in aligned else rb.one(v))
        rtype = cv.block_type(bm, bn, relt, form)
        new = ir.Operation.create(name, results=[rtype], operands=operands, attributes=attrs)
        out.append(new.results[0])
    return [out]


def _bitcast_blocks(cv: Converter, rb, op, relt):
    """vector.bitcast block by block: plain (non-VNNI) row-major blocks whose innermost size scales by the
    width ratio, so the result's blocks cover the same bytes in the same grid order."""
    g = cv.grid_of(rb, op.operands[0])
    g = cv.reblock(g, g.block[0], g.block[1], 1)
    bm, bn = g.block
    src_bits = element_type(g.elt).width
    dst_bits = element_type(relt).width
    if (bn * src_bits) % dst_bits:
        raise ConversionError(op, f"vector.bitcast of {bm}x{bn} blocks of i{src_bits} to i{dst_bits}")
    t = vector_type((bm, bn * src_bits // dst_bits), relt)
    return [vector.bitcast(t, b) for b in g.blocks]


def splat_accumulator(cv: Converter, v):
    """A 2D splat constant starting a loop-carried value (e.g. a zero GEMM accumulator) as a
    grid of DPAS result blocks, so that the loop carries the blocks tile_mma produces."""
    op = owner_op(v)
    if op is None or op.name != "arith.constant":
        return None
    shp, elt = vector_info(v)
    dense = ir.DenseElementsAttr(op.attributes["value"])
    if len(shp) != 2 or not dense.is_splat:
        return None
    R, C = shp
    bm = next(d for d in range(min(R, cv.arch.dpas.max_repeat_count), 0, -1) if R % d == 0)
    bn = cv.arch.dpas.exec_size if C % cv.arch.dpas.exec_size == 0 else C
    return [splat((bm, bn), elt, dense.get_splat_value())] * ((R // bm) * (C // bn))


def const_blocks(op, shp, elt):
    attr = op.attributes["value"]
    dense = ir.DenseElementsAttr(attr)
    if len(shp) == 4:
        gm, gn, bm, bn = shp
    else:
        gm, gn, bm, bn = 1, 1, shp[0], shp[1]
    if dense.is_splat:
        v = splat((bm, bn), elt, dense.get_splat_value())
        return [v] * (gm * gn)
    if len(shp) == 2:
        return [op.results[0]]
    raise ConversionError(op, "non-splat constants of blocked vectors are not supported")
