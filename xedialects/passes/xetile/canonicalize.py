"""`xetile-canonicalize`: clean up subgroup-level XeTile (the output of `xetile-wg-to-sg`) so that the
blocking stage and `convert-xetile-to-xegpu` see one canonical form (pipeline stage 3, first pass).

Four rewrites, each with an option to turn it off:

* `normalize-order`: a column-major tile (`order = [0, 1]`, e.g. an init_tile on a `memref.transpose`
  view, which the GEMM lowering uses for transposed operands) becomes a row-major tile of the
  transposed shape on the untransposed base: offsets (and explicit base shape/strides) swapped,
  `update_tile_offset` offsets swapped, every scf.for iter_arg / result / yield carrying it retyped.
  Each load_tile is followed by a `tile_transpose [1, 0]` (a load that was already transposed loses
  its `transpose` attribute instead), each store_tile / atomic_rmw_tile is preceded by one. The
  converter turns a load_tile whose only user is such a tile_transpose into a transposed 2D block
  load where the hardware has one (rfc-xetile.md appendix 1: "load BT as is and transpose it").
  A tile that cannot be normalized (its base is neither a `memref.transpose` view of a row-major
  memref nor described by explicit shape/strides, it is blocked or work-group level, or it flows
  through an op other than update_tile_offset / scf.for) is left as it is, with a remark.
* `fold`: `tile_pack(tile_unpack(x))` and `tile_unpack(tile_pack(x))` with the same inner_blocks
  become x; so do `tile_transpose(tile_transpose(x))` and identity transposes (ops without wg_map).
* `hoist-init-tile`: an init_tile inside an scf.for whose operands are all defined outside the loop
  moves in front of the loop (out of every enclosing loop it does not depend on).
* `remove-dead-tiles`: a tile that is never loaded, stored, prefetched or atomically updated (only
  advanced by update_tile_offset and carried by scf.for) is erased with its offset updates and
  its loop-carried values; a `memref.transpose` left without users goes too.

An IMEX batched init_tile (N offsets into an N-D memref) first becomes a 2D init_tile on a
rank-reducing `memref.subview` (batched_tiles.py).

They run in the order dead tiles, normalize-order, fold, hoist (nothing is reported about tiles that
are erased; the folds clean up transposes that normalization cancels). What could not be done is
reported with `ctx.remark` at the op (the pass never fails on valid IR).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import scf

from ...core.typeinfo import vector_info
from ...xetile.attributes import TileType
from ...xetile.ops import (AtomicRmwTileOp, InitTileOp, LoadTileOp, StoreTileOp, TilePackOp,
                          TileTransposeOp, TileUnpackOp, UpdateTileOffsetOp)
from ..registry import Option, register_pass
from .batched_tiles import flatten_batched_init_tiles
from ..utils.ir_walk import as_op as _op, attr_dict as _attr_dict, owner_op as _owner_op, walk as _walk

_ACCESS = ("xetile.load_tile", "xetile.store_tile", "xetile.prefetch_tile", "xetile.atomic_rmw_tile",
           "xetile.load_gather", "xetile.store_scatter")
_KEEP = object()
_TILE_OPERAND = {"xetile.load_tile": 0, "xetile.prefetch_tile": 0, "xetile.load_gather": 0,
                 "xetile.store_tile": 1, "xetile.atomic_rmw_tile": 1, "xetile.store_scatter": 1}


# ------------------------------------------------------------------------------------------------
# small helpers


def _is_tile(t) -> bool:
    return str(t).startswith("!xetile.tile")


def _users(v):
    for use in v.uses:
        yield _op(use.owner), use.operand_number


def _parent_op(op):
    return _op(op.parent)


def _for_body(op):
    return op.regions[0].blocks[0]


def _inside(value, loop) -> bool:
    """Is `value` defined inside (a region of) `loop`?"""
    owner = value.owner
    if isinstance(owner, ir.Block):
        op = _op(owner.owner)
        if op == loop:
            return True
    else:
        op = _op(owner)
    while op is not None:
        if op == loop:
            return True
        op = _parent_op(op)
    return False


def _is_swap_map(attr) -> bool:
    try:
        m = ir.AffineMapAttr(attr).value
        pos = [ir.AffineDimExpr(r).position for r in m.results]
    except (ValueError, TypeError):
        return False
    return pos == [1, 0]


def _row_major_memref(t) -> bool:
    try:
        m = ir.MemRefType(t)
        strides, _off = m.get_strides_and_offset()
    except Exception:  # noqa: BLE001 - non-strided layouts
        return False
    return len(strides) == 2 and strides[1] == 1


def _identity_layout(t) -> bool:
    try:
        m = ir.MemRefType(t)
    except (ValueError, TypeError):
        return False
    return str(m.layout).startswith("affine_map<(d0, d1) -> (d0, d1)>")


def _vec(shape, elt):
    return ir.VectorType.get(list(shape), elt)


def _transpose(v):
    """tile_transpose [1, 0] of a 2D vector value (inserted at the current insertion point)."""
    t = ir.VectorType(v.type)
    r, c = t.shape
    return TileTransposeOp.build(vector=v, permutation=[1, 0],
                                 result_types=[_vec((c, r), t.element_type)]).op.results[0]


# ------------------------------------------------------------------------------------------------
# tile webs: the tile values that must share one type (an init_tile, the update_tile_offset chain
# from it and the scf.for iter_args / results / yields carrying it)


class Web:
    def __init__(self):
        self.values: list = []
        self.inits: list = []       # init_tile ops
        self.updates: list = []     # update_tile_offset ops
        self.accesses: list = []    # (op, operand number) of load/store/prefetch/atomic/gather/scatter
        self.loop_values: list = []  # scf.for iter_args and results
        self.opaque: list = []      # (op, why): producers/users this pass does not understand

    @property
    def type(self):
        return self.values[0].type

    def first_op(self):
        if self.inits:
            return self.inits[0]
        return self.opaque[0][0] if self.opaque else None


def tile_webs(root) -> list:
    parent: dict = {}
    order: list = []

    def add(v):
        if v not in parent:
            parent[v] = v
            order.append(v)

    def find(v):
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    def union(a, b):
        add(a)
        add(b)
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra

    ops = list(_walk(root))
    for op in ops:
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    if _is_tile(arg.type):
                        add(arg)
        for r in op.results:
            if _is_tile(r.type):
                add(r)
        name = op.name
        if name == "xetile.update_tile_offset":
            union(op.operands[0], op.results[0])
        elif name == "scf.for":
            body = _for_body(op)
            for i, v in enumerate(list(op.operands)[3:]):
                if _is_tile(v.type):
                    union(v, body.arguments[i + 1])
                    union(v, op.results[i])
        elif name == "scf.yield":
            p = _parent_op(op)
            if p is not None and p.name == "scf.for":
                body = _for_body(p)
                for i, v in enumerate(op.operands):
                    if _is_tile(v.type):
                        union(v, body.arguments[i + 1])
    webs: dict = {}
    for v in order:
        webs.setdefault(find(v), Web()).values.append(v)
    for web in webs.values():
        for v in web.values:
            prod = _owner_op(v)
            if prod is None:
                blk_owner = _op(v.owner.owner)
                if blk_owner is not None and blk_owner.name == "scf.for" and ir.BlockArgument(v).arg_number >= 1:
                    web.loop_values.append(v)
                else:
                    web.opaque.append((blk_owner, f"it is a block argument of '{getattr(blk_owner, 'name', '?')}'"))
            elif prod.name == "xetile.init_tile":
                web.inits.append(prod)
            elif prod.name == "xetile.update_tile_offset":
                web.updates.append(prod)
            elif prod.name == "scf.for":
                web.loop_values.append(v)
            else:
                web.opaque.append((prod, f"it is produced by '{prod.name}'"))
            for user, n in _users(v):
                un = user.name
                if un == "xetile.update_tile_offset" and n == 0:
                    continue
                if un == "scf.for" and n >= 3:
                    continue
                if un == "scf.yield":
                    p = _parent_op(user)
                    if p is not None and p.name == "scf.for":
                        continue
                if un in _ACCESS and _TILE_OPERAND[un] == n:
                    web.accesses.append((user, n))
                    continue
                web.opaque.append((user, f"it is used by '{un}'"))
    return list(webs.values())


# ------------------------------------------------------------------------------------------------
# the pass


class Canonicalizer:
    def __init__(self, root, options, ctx):
        self.root = root
        self.options = options
        self.ctx = ctx
        self.changed = False

    def opt(self, name, default=True):
        try:
            return self.options[name]
        except (KeyError, TypeError):
            return default

    def remark(self, op, msg):
        if self.ctx is not None:
            self.ctx.remark(op, msg)

    def run(self) -> bool:
        flatten_batched_init_tiles(self.root)  # IMEX's N-D init_tile -> 2D tile on a memref.subview
        # dead tiles first: nothing is reported about tiles that go away
        if self.opt("remove-dead-tiles"):
            self.remove_dead_tiles()
        if self.opt("normalize-order"):
            self.normalize_order()
        if self.opt("fold"):
            self.fold()
        if self.opt("hoist-init-tile"):
            self.hoist()
        return True

    # ---- order = [0, 1] -> row-major + tile_transpose ------------------------------------------------
    def normalize_order(self):
        # program order of the original ops: each web rewrites its producers before their users
        # (ops of webs not rewritten yet stay alive, so their keys stay valid)
        pos = {o: i for i, o in enumerate(_walk(self.root))}
        for web in tile_webs(self.root):
            tv = TileType(web.type)
            if tv.scattered or tuple(tv.order) != (0, 1):
                continue
            why = self.normalize_problem(web, tv)
            if why:
                where = web.first_op() or _owner_op(web.values[0])
                self.remark(where, f"order = [0, 1] tile {tv.shape[0]}x{tv.shape[1]}x{tv.element_type} not "
                                   f"normalized to a row-major tile: {why}")
                continue
            self.rewrite_web(web, tv, pos)
            self.changed = True

    def normalize_problem(self, web, tv) -> str:
        if web.opaque:
            return web.opaque[0][1]
        if not web.inits:
            return "it has no visible init_tile"
        if tv.inner_blocks is not None:
            return ("it is already blocked (inner_blocks); run xetile-canonicalize before xetile-blocking")
        if tv.wg_map is not None:
            return "it is a work-group tile (wg_map); run xetile-wg-to-sg first"
        for op in web.inits:
            why = self.init_problem(op)
            if why:
                return why
        for op, _n in web.accesses:
            if op.name in ("xetile.load_gather", "xetile.store_scatter"):
                return f"it is accessed by '{op.name}'"
            vec = op.results[0] if op.name == "xetile.load_tile" else (
                op.operands[0] if op.name in ("xetile.store_tile", "xetile.atomic_rmw_tile") else None)
            if vec is not None and len(vector_info(vec)[0]) != 2:
                return f"'{op.name}' works on a {len(vector_info(vec)[0])}D vector"
        return ""

    @staticmethod
    def init_problem(op) -> str:
        it = InitTileOp(op)
        src = it.source
        explicit = len(it.static_shape) == 2
        prod = _owner_op(src) if isinstance(src, ir.Value) else None
        if prod is not None and prod.name == "memref.transpose":
            if not _is_swap_map(prod.attributes["permutation"]):
                return "its base is a memref.transpose that does not swap the two dimensions"
            if not _row_major_memref(prod.operands[0].type):
                return "the memref.transpose view's base is not row-major"
            return ""
        if explicit and (not str(src.type).startswith("memref") or _identity_layout(src.type)):
            return ""
        return ("its base is neither a memref.transpose view of a row-major memref nor described by "
                "explicit shape and strides")

    def rewrite_web(self, web, tv, pos):
        new_t = TileType(TileType(web.type).with_fields(order=(1, 0))).with_shape(tuple(tv.shape)[::-1])
        for v in web.loop_values:   # loop back-edges: retyped in place
            v.set_type(new_t)
        todo = sorted(web.inits + web.updates + [o for o, _ in web.accesses], key=lambda o: pos[o])
        views = []
        for op in todo:
            with ir.InsertionPoint(op), op.location:
                repl = self.rewrite_op(op, new_t, views)
            if repl is _KEEP:
                continue
            if repl is not None:
                op.results[0].replace_all_uses_with(repl)
            op.erase()
        _erase_unused(views)

    @staticmethod
    def rewrite_op(op, new_t, views):
        """The replacement of one op of a normalized web (None when it has no result); the old op
        is erased by the caller."""
        name = op.name
        if name == "xetile.init_tile":
            it = InitTileOp(op)
            src = it.source
            prod = _owner_op(src)
            kw = {}
            if prod is not None and prod.name == "memref.transpose":
                views.append(prod)
                src = prod.operands[0]
            if len(it.static_shape) == 2:
                kw["shape"] = it.mixed("shape", "static_shape")[::-1]
                kw["strides"] = it.mixed("strides", "static_strides")[::-1]
            new = InitTileOp.build(source=src, offsets=it.mixed("offsets", "static_offsets")[::-1],
                                   result_types=[new_t], **kw).op
            _copy_attrs(op, new)
            return new.results[0]
        if name == "xetile.update_tile_offset":
            offs = UpdateTileOffsetOp(op).mixed("offsets", "static_offsets")[::-1]
            new = UpdateTileOffsetOp.build(tile=op.operands[0], offsets=offs, result_types=[new_t]).op
            _copy_attrs(op, new)
            return new.results[0]
        if name == "xetile.load_tile":
            attrs = {k: a for k, a in _attr_dict(op).items() if k != "transpose"}   # padding, markers
            old_t = ir.VectorType(op.results[0].type)
            r, c = old_t.shape
            if LoadTileOp(op).transpose == (1, 0):
                # the transposed load of the column-major tile is the plain load of the row-major one
                new = LoadTileOp.build(tile=op.operands[0], result_types=[old_t]).op
            else:
                new = LoadTileOp.build(tile=op.operands[0], result_types=[_vec((c, r), old_t.element_type)]).op
            for k, a in attrs.items():
                new.attributes[k] = a
            return new.results[0] if LoadTileOp(op).transpose == (1, 0) else _transpose(new.results[0])
        if name == "xetile.store_tile":
            new = StoreTileOp.build(value=_transpose(op.operands[0]), tile=op.operands[1]).op
            _copy_attrs(op, new)
            return None
        if name == "xetile.atomic_rmw_tile":
            vt = _transpose(op.operands[0])
            new = AtomicRmwTileOp.build(kind=AtomicRmwTileOp(op).kind, value=vt, tile=op.operands[1],
                                        result_types=[vt.type]).op
            return _transpose(new.results[0])
        return _KEEP  # prefetch_tile: its operand is replaced or retyped already

    # ---- folds ----------------------------------------------------------------------------------------
    def fold(self):
        changed = True
        while changed:
            changed = False
            for op in list(_walk(self.root)):
                name = op.name
                if name not in ("xetile.tile_pack", "xetile.tile_unpack", "xetile.tile_transpose"):
                    continue
                repl = self.fold_one(op)
                if repl is None:
                    continue
                inner = _owner_op(op.operands[0])
                op.results[0].replace_all_uses_with(repl)
                op.erase()
                if inner is not None and inner.name.startswith("xetile.tile_") and \
                        not any(True for _ in inner.results[0].uses):
                    inner.erase()
                # `inner` dominates `op`: it was visited already, erasing it keeps the list valid
                changed = self.changed = True

    @staticmethod
    def fold_one(op):
        src = op.operands[0]
        res = op.results[0]
        name = op.name
        if name == "xetile.tile_transpose":
            if "wg_map" in op.attributes:
                return None
            perm = tuple(TileTransposeOp(op).permutation)
            if perm == (0, 1) and src.type == res.type:
                return src
            inner = _owner_op(src)
            if inner is None or inner.name != "xetile.tile_transpose" or "wg_map" in inner.attributes:
                return None
            if tuple(TileTransposeOp(inner).permutation) == (1, 0) and perm == (1, 0) \
                    and inner.operands[0].type == res.type:
                return inner.operands[0]
            return None
        inner = _owner_op(src)
        if name == "xetile.tile_pack":
            if inner is None or inner.name != "xetile.tile_unpack":
                return None
            same = tuple(TilePackOp(op).inner_blocks) == tuple(TileUnpackOp(inner).inner_blocks)
        else:
            if inner is None or inner.name != "xetile.tile_pack":
                return None
            same = tuple(TileUnpackOp(op).inner_blocks) == tuple(TilePackOp(inner).inner_blocks)
        if same and inner.operands[0].type == res.type:
            return inner.operands[0]
        return None

    # ---- loop-invariant init_tile -------------------------------------------------------------------
    def hoist(self):
        for op in list(_walk(self.root)):
            if op.name != "xetile.init_tile":
                continue
            while True:
                loop = _parent_op(op)
                if loop is None or loop.name != "scf.for":
                    break
                if any(_inside(v, loop) for v in op.operands):
                    break
                op.move_before(loop)
                self.changed = True

    # ---- dead tiles -------------------------------------------------------------------------------------
    def remove_dead_tiles(self):
        for web in tile_webs(self.root):
            if web.accesses or web.opaque:
                continue
            self.erase_web(web)
            self.changed = True

    def erase_web(self, web):
        """Erase a tile web nobody accesses: first drop its values from the scf.yields, then erase
        whatever has no users left (update_tile_offset ops, loop-carried values by rebuilding the
        scf.for, init_tile ops) until nothing of it remains."""
        drops: dict = {}            # scf.for -> iter_arg indices to drop
        for v in web.loop_values:
            if isinstance(v.owner, ir.Block):
                drops.setdefault(_op(v.owner.owner), set()).add(ir.BlockArgument(v).arg_number - 1)
            else:
                drops.setdefault(_owner_op(v), set()).add(ir.OpResult(v).result_number)
        for loop, idx in drops.items():
            term = _op(list(_for_body(loop).operations)[-1])
            with ir.InsertionPoint(term), term.location:
                scf.YieldOp([v for i, v in enumerate(term.operands) if i not in idx])
            term.erase()
        ops = list(web.updates) + list(web.inits)
        views = [p for p in (_owner_op(o.operands[0]) for o in web.inits)
                 if p is not None and p.name == "memref.transpose"]
        progress = True
        while progress and (ops or drops):
            progress = False
            for op in list(ops):
                if not _has_uses(op.results[0]):
                    ops.remove(op)
                    op.erase()
                    progress = True
            for loop, idx in list(drops.items()):
                args = _for_body(loop).arguments
                if any(_has_uses(args[i + 1]) or _has_uses(loop.results[i]) for i in idx):
                    continue
                del drops[loop]
                _rebuild_for_without(loop, idx)
                progress = True
        if ops or drops:  # cannot happen for a web without accesses and opaque uses
            raise RuntimeError("xetile-canonicalize: dead tile web could not be erased completely")
        _erase_unused(views)


def _has_uses(v) -> bool:
    return any(True for _ in v.uses)


def _erase_unused(ops):
    for op in ops:
        if all(not _has_uses(r) for r in op.results):
            op.erase()


def _rebuild_for_without(loop, idx):
    """Rebuild scf.for `loop` without the iter_args `idx` (their block arguments and results have no
    users; the terminator already yields only the kept values)."""
    lb, ub, step, *inits = list(loop.operands)
    keep = [i for i in range(len(inits)) if i not in idx]
    body = _for_body(loop)
    with ir.InsertionPoint(loop), loop.location:
        new = scf.ForOp(lb, ub, step, [inits[i] for i in keep])
    old_args = list(body.arguments)
    old_args[0].replace_all_uses_with(new.induction_variable)
    new_iter = list(new.inner_iter_args)
    for k, i in enumerate(keep):
        old_args[i + 1].replace_all_uses_with(new_iter[k])
    for child in list(body.operations):
        new.body.append(child.operation)
    for k, i in enumerate(keep):
        loop.results[i].replace_all_uses_with(new.results[k])
    _copy_attrs(loop, new.operation)
    loop.erase()


def _copy_attrs(old, new):
    """Copy the attributes of `old` that `new` does not have (discardable ones, e.g. markers)."""
    for name, attr in _attr_dict(old).items():
        if name not in new.attributes:
            new.attributes[name] = attr


@register_pass("xetile-canonicalize",
               "Canonicalize subgroup XeTile: row-major tiles with explicit tile_transpose, folded "
               "pack/unpack/transpose pairs, hoisted loop-invariant init_tile, no dead tiles (RFC-form input; "
               "xetile-canonicalization, which xe-gemm-to-xegpu runs, first turns IMEX's forms into RFC ones)",
               options=[Option("normalize-order", bool, True,
                               "rewrite order = [0, 1] tiles as row-major tiles of the transposed shape on the "
                               "untransposed base, with tile_transpose after loads / before stores"),
                        Option("fold", bool, True,
                               "fold tile_pack(tile_unpack(x)), tile_unpack(tile_pack(x)) with the same "
                               "inner_blocks and tile_transpose(tile_transpose(x)) to x"),
                        Option("hoist-init-tile", bool, True,
                               "move init_tile ops whose operands are defined outside an scf.for in front of it"),
                        Option("remove-dead-tiles", bool, True,
                               "erase tiles that are never loaded, stored, prefetched or atomically updated, "
                               "with their update_tile_offset chains and loop-carried values")])
def xetile_canonicalize(module_op, options, ctx):
    root = module_op.operation if hasattr(module_op, "operation") else module_op
    return Canonicalizer(root, options, ctx).run()
