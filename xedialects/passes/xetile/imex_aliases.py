"""IMEX's XeTile pass names (intel/mlir-extensions before PR #1143) on our pipeline.

* `xetile-canonicalization` (IMEX Canonicalization.cpp): 2D `vector.transpose`, `vector.broadcast`
  (of a vector) and `vector.multi_reduction` (one dimension) become tile_transpose / tile_broadcast /
  tile_reduce (+ shape_cast and the accumulator combine), `reduction_size` becomes shape casts around
  a plain tile_reduce, chains of `vector.shape_cast` fold and a 2D [1, N] <-> [N, 1] cast becomes a
  tile_transpose, IMEX's `map` attribute becomes `wg_map`, batched N-D init_tiles become 2D tiles on
  a memref.subview; then our `xetile-canonicalize`
  (column-major tiles made row-major, transpose pairs folded, ...). `vector-ops-only=true` stops
  after the first step (used in front of `xetile-wg-to-sg`, which IMEX did in its wg-to-sg).
* `xetile-init-duplicate` (InitDuplicate.cpp): an init_tile loaded and also stored, prefetched or
  atomically updated (or atomically updated and stored) is cloned; store/prefetch/atomic users
  take the clone.
* `xetile-blockop-fallback{device=pvc}`: IMEX rewrote block accesses the hardware cannot do into
  scattered XeTile ops. Our `convert-xetile-to-xegpu` makes that choice per tile itself (its remarks
  say why), so this pass leaves the IR unchanged (docs/imex-xetile.md).
* `xetile-blocking` and `convert-xetile-to-xegpu` are our passes' own names already.
"""
from __future__ import annotations

from mlir import ir

from ...xetile.ops import TileBroadcastOp, TileReduceOp, TileTransposeOp
from ..registry import Option, register_pass, register_pipeline
from ..utils.ir_walk import walk
from .batched_tiles import flatten_batched_init_tiles
from .canonicalize import xetile_canonicalize

_ACC_COMBINE = {  # vector.multi_reduction kind -> (float op, integer op) adding the accumulator
    "add": ("arith.addf", "arith.addi"), "mul": ("arith.mulf", "arith.muli"),
    "minnumf": ("arith.minnumf", None), "maxnumf": ("arith.maxnumf", None),
    "minimumf": ("arith.minimumf", None), "maximumf": ("arith.maximumf", None),
    "minsi": (None, "arith.minsi"), "maxsi": (None, "arith.maxsi"), "minui": (None, "arith.minui"),
    "maxui": (None, "arith.maxui"), "and": (None, "arith.andi"), "or": (None, "arith.ori"),
    "xor": (None, "arith.xori"),
}


def _vec(shape, elt):
    return ir.VectorType.get(list(shape), elt)


def _wg_attrs(op) -> dict:
    """IMEX keeps a vector op's work-group map in a discardable `map` attribute."""
    return {"wg_map": op.attributes["map"]} if "map" in op.attributes else {}


def _shape_cast(value, shape, elt, loc):
    return ir.Operation.create("vector.shape_cast", results=[_vec(shape, elt)], operands=[value], loc=loc).result


def _replace(op, new_value):
    op.result.replace_all_uses_with(new_value)
    op.erase()


def _transpose(op):
    vt = ir.VectorType(op.operands[0].type)
    if vt.rank != 2:
        return False
    perm = [int(x) for x in ir.DenseI64ArrayAttr(op.attributes["permutation"])]
    new = TileTransposeOp.build(vector=op.operands[0], permutation=perm, result_types=[op.result.type],
                                loc=op.location).op
    for k, v in _wg_attrs(op).items():
        new.attributes[k] = v
    _replace(op, new.result)
    return True


def _broadcast(op):
    rt = ir.VectorType(op.result.type)
    src = op.operands[0]
    if rt.rank != 2 or not isinstance(src.type, ir.VectorType):
        return False
    st = ir.VectorType(src.type)
    if st.rank == 1:  # vector<N> -> vector<MxN>: a row broadcast along dimension 0
        src = _shape_cast(src, [1, st.shape[0]], rt.element_type, op.location)
        dim = 0
    elif st.rank == 2:
        dim = 0 if st.shape[0] == 1 else 1
    else:
        return False
    new = TileBroadcastOp.build(vector=src, broadcast_dims=[dim], result_types=[rt], loc=op.location).op
    for k, v in _wg_attrs(op).items():
        new.attributes[k] = v
    _replace(op, new.result)
    return True


def _multi_reduction(op, ctx):
    st = ir.VectorType(op.operands[0].type)
    dims = [int(x) for x in ir.DenseI64ArrayAttr(op.attributes["reduction_dims"])]
    if st.rank != 2 or len(dims) != 1 or not isinstance(op.result.type, ir.VectorType):
        return False
    kind = str(op.attributes["kind"]).split("<")[-1].rstrip(">").strip()
    elt = st.element_type
    is_float = not isinstance(elt, ir.IntegerType)
    combine = _ACC_COMBINE.get(kind, (None, None))[0 if is_float else 1]
    if combine is None:
        ctx.error(op, f"vector.multi_reduction <{kind}> on {elt} elements has no XeTile form")
        return False
    d = dims[0]
    rt = ir.VectorType(op.result.type)
    red_shape = [1, st.shape[1]] if d == 0 else [st.shape[0], 1]
    red = TileReduceOp.build(kind=kind, vector=op.operands[0], reduction_dims=[d],
                             result_types=[_vec(red_shape, elt)], loc=op.location).op
    for k, v in _wg_attrs(op).items():
        red.attributes[k] = v
    red_t = _vec(red_shape, elt)
    casts = [u.owner for u in op.result.uses]
    acc_2d = _splat_like(op.operands[1], red_t, op.location)
    if casts and acc_2d is not None and all(c.name == "vector.shape_cast" and c.result.type == red_t for c in casts):
        # the result only goes back to the 2D reduced shape: combine there (no 1D round trip)
        comb = ir.Operation.create(combine, results=[red_t], operands=[red.result, acc_2d], loc=op.location)
        for c in casts:
            _replace(c, comb.result)
        op.erase()
        return True
    flat = _shape_cast(red.result, list(rt.shape), elt, op.location)
    acc = ir.Operation.create(combine, results=[rt], operands=[flat, op.operands[1]], loc=op.location)
    _replace(op, acc.result)
    return True


def _splat_like(value, vtype, loc):
    """A splat `arith.constant` of `value`'s splat value with type `vtype`, or None when `value`
    is not a splat constant."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    dense = ir.DenseElementsAttr(owner.attributes["value"])
    if not dense.is_splat:
        return None
    attr = ir.DenseElementsAttr.get_splat(vtype, dense.get_splat_value())
    return ir.Operation.create("arith.constant", results=[vtype], attributes={"value": attr}, loc=loc).result


def _expand_reduction_size(op):
    """tile_reduce with reduction_size: shape_cast to [size, n] / [n, size], reduce, cast back."""
    r = TileReduceOp(op)
    size = r.reduction_size or 0
    if size <= 0:
        return False
    st, rt = ir.VectorType(op.operands[0].type), ir.VectorType(op.result.type)
    d = r.reduction_dims[0]
    n = 1
    for x in rt.shape:
        n *= x
    view = [size, n] if d == 0 else [n, size]
    elt = st.element_type
    src = _shape_cast(op.operands[0], view, elt, op.location)
    red = TileReduceOp.build(kind=r.kind, vector=src, reduction_dims=[d],
                             result_types=[_vec([1, n] if d == 0 else [n, 1], elt)], loc=op.location).op
    _replace(op, _shape_cast(red.result, list(rt.shape), elt, op.location))
    return True


def _shape_cast_chain(op, bypassed):
    """shape_cast(shape_cast(x)) -> shape_cast(x) (or x); a 2D [1, N] <-> [N, 1] cast -> tile_transpose."""
    src = op.operands[0]
    owner = src.owner
    if not isinstance(owner, ir.Block) and owner.name == "vector.shape_cast":
        bypassed.append(owner)
        src = owner.operands[0]
    if src.type == op.result.type:
        _replace(op, src)
        return True
    st, rt = ir.VectorType(src.type), ir.VectorType(op.result.type)
    if st.rank == 2 and rt.rank == 2 and list(st.shape) == list(rt.shape)[::-1] and 1 in list(st.shape):
        new = TileTransposeOp.build(vector=src, permutation=[1, 0], result_types=[rt], loc=op.location).op
        for k, v in _wg_attrs(op).items():
            new.attributes[k] = v
        _replace(op, new.result)
        return True
    if src is not op.operands[0]:
        op.operands[0] = src
    return False


def vector_ops_to_xetile(root, ctx) -> bool:
    """The first step of IMEX's canonicalization, in place. False if an op had no XeTile form."""
    ops = [o for o in walk(root) if o.name in (
        "vector.transpose", "vector.broadcast", "vector.multi_reduction", "xetile.tile_reduce")]
    for op in ops:
        with ir.InsertionPoint(op), op.location:
            if op.name == "vector.transpose":
                _transpose(op)
            elif op.name == "vector.broadcast":
                _broadcast(op)
            elif op.name == "vector.multi_reduction":
                _multi_reduction(op, ctx)
            elif op.name == "xetile.tile_reduce":
                _expand_reduction_size(op)
    # shape casts last (the steps above add some); an intermediate cast left unused goes
    bypassed = []
    for op in [o for o in walk(root) if o.name == "vector.shape_cast"]:
        with ir.InsertionPoint(op), op.location:
            _shape_cast_chain(op, bypassed)
    unique = []
    for op in bypassed:
        if not any(op == u for u in unique):
            unique.append(op)
    for op in reversed(unique):
        if not list(op.result.uses):
            op.erase()
    return not ctx.failed


@register_pass("xetile-canonicalization",
               "IMEX's XeTile canonicalization (IMEX's pass name; xe-gemm-to-xegpu runs it so that IMEX "
               "programs lower too): 2D vector.transpose/broadcast/multi_reduction to XeTile ops, reduction_size "
               "expanded, `map` read as wg_map; then xetile-canonicalize with its defaults",
               options=[Option("vector-ops-only", bool, False,
                               "only turn vector ops into XeTile ops (before xetile-wg-to-sg)")])
def xetile_canonicalization(module_op, options, ctx):
    root = module_op.operation if hasattr(module_op, "operation") else module_op
    flatten_batched_init_tiles(root)  # before xetile-wg-to-sg too (it distributes 2D bases)
    if not vector_ops_to_xetile(root, ctx):
        return False
    if options["vector-ops-only"]:
        return True
    defaults = {"normalize-order": True, "fold": True, "hoist-init-tile": True, "remove-dead-tiles": True}
    return xetile_canonicalize(module_op, type(options)(defaults), ctx)


# -- xetile-init-duplicate ------------------------------------------------------------------------

_SECOND_USE = ("xetile.store_tile", "xetile.prefetch_tile", "xetile.atomic_rmw_tile")


def _tile_uses(value, seen=None) -> set:
    """Access kinds reaching a tile value: directly, through update_tile_offset and scf.for."""
    seen = set() if seen is None else seen
    kinds = set()
    for use in value.uses:
        user = use.owner
        name = user.name
        if name in ("xetile.load_tile", "xetile.load_gather"):
            kinds.add("load")
        elif name in ("xetile.store_tile", "xetile.store_scatter"):
            kinds.add("store")
        elif name == "xetile.prefetch_tile":
            kinds.add("prefetch")
        elif name == "xetile.atomic_rmw_tile":
            kinds.add("atomic")
        elif name == "xetile.update_tile_offset" and use.operand_number == 0:
            if user not in seen:
                seen.add(user)
                kinds |= _tile_uses(user.result, seen)
        elif name == "scf.for" and use.operand_number >= 3:
            arg = user.regions[0].blocks[0].arguments[use.operand_number - 3 + 1]
            kinds |= _tile_uses(arg, seen)
    return kinds


def _needs_duplicate(kinds) -> bool:
    return "load" in kinds and bool(kinds & {"store", "prefetch", "atomic"}) or {"atomic", "store"} <= kinds


@register_pass("xetile-init-duplicate",
               "IMEX's xetile-init-duplicate: clone an init_tile used for loads and also for stores, prefetches "
               "or atomics (or atomics and stores); store/prefetch/atomic users take the clone")
def xetile_init_duplicate(module_op, options, ctx):
    root = module_op.operation if hasattr(module_op, "operation") else module_op
    inits = [o for o in walk(root) if o.name == "xetile.init_tile"]
    for op in inits:
        if not _needs_duplicate(_tile_uses(op.result)):
            continue
        with ir.InsertionPoint(op):
            clone = op.clone()  # placed right before the original
        value = op.result
        for use in list(value.uses):
            user = use.owner
            if user.name in _SECOND_USE:
                user.operands[use.operand_number] = clone.result
            elif user.name == "scf.for":
                idx = [i for i, v in enumerate(user.operands) if v == value]
                if len(idx) > 1 and idx[0] == use.operand_number:
                    user.operands[idx[0]] = clone.result
        if not list(clone.result.uses):
            clone.erase()
    return True


# -- xetile-blockop-fallback ------------------------------------------------------------------------

@register_pass("xetile-blockop-fallback",
               "IMEX's xetile-blockop-fallback: here a no-op, since convert-xetile-to-xegpu itself lowers block "
               "accesses the hardware cannot execute to scattered messages (with a remark per tile)",
               options=[Option("device", str, "pvc", "GPU (IMEX option; the conversion's arch= decides)")])
def xetile_blockop_fallback(module_op, options, ctx):
    return True


register_pipeline(
    "imex-xetile-to-xegpu",
    "IMEX-style XeTile (work-group or subgroup) to VC-mode XeGPU: vector ops to XeTile, xetile-wg-to-sg, "
    "xetile-canonicalization, xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse",
    "builtin.module(xetile-canonicalization{vector-ops-only=true}, xetile-wg-to-sg, "
    "xetile-canonicalization, xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse)")
