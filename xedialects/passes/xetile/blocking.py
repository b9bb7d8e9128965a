"""`xetile-blocking`: subgroup XeTile (pipeline stage 2) to blocked XeTile sized to the hardware
(stage 3, rfc-xetile.md "Internal Operations to support gradual lowering").

Per `gpu.func`:
1. Tiles that share a type (init_tile, its update_tile_offset chain, scf.for carries) form a group
   (`tile_uses.TileGroups`). Each group gets `inner_blocks` from the architecture table: the
   largest block that divides the tile and is a legal 2D block message for *every* access of the
   group (load, VNNI load for the B operand of sub-32-bit types, store, prefetch), and -- when the
   loaded value feeds tile_mma -- a multiple of the DPAS block of that operand, so re-blocking for
   the matrix engine is pure slicing. Accumulator and store tiles take the DPAS C block itself when
   it is legal (no re-blocking at all around the K loop). Option `load-blocks=mma` makes operand
   tiles use the DPAS blocks too.
2. Vectors follow their tiles: load_tile yields the 4D form `[R/bm, C/bn, bm, bn]`, tile_mma works
   on DPAS blocks (A `[m, k]`, B `[k, n]`, C `[m, n]`, m = largest divisor of M up to the repeat
   count), element-wise arith/math ops keep the blocking of their operands, splat constants and
   scalar broadcasts are created directly in the blocking their users need, and scf.for carries
   (tiles and accumulators) are retyped consistently. Where a producer's blocking differs from what
   a consumer needs, `tile_unpack` + `tile_pack` re-block. `tile_broadcast` is created in the
   blocking its user needs (4D: `[R/bm, C/bn, bm, bn]` from a source blocked `[bm, 1]` or `[1, bn]`,
   broadcast over dims [1, 3] or [0, 2]) and `tile_reduce` reduces its source in that source's
   blocking (dims d and d + 2), as rfc-xetile.md's internal operations allow; ops that work on 2D
   vectors only (tile_transpose, vector ops) get unpacked operands.
3. What cannot be blocked stays 2D and is reported as a remark (convert-xetile-to-xegpu handles
   2D tiles by itself): column-major tiles (run xetile-canonicalize first), shared-local-memory
   and scattered tiles, atomics and non-zero padding (lowered to scattered messages), tiles without
   a legal block, tile_mma shapes that are not multiples of the DPAS block.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, vector

from ...arch import ArchError, elem_bits
from ...core.typeinfo import vector_info
from ...xetile.attributes import TileType
from ...xetile.ops import TileBroadcastOp, TileMmaOp, TilePackOp, TileReduceOp, TileUnpackOp
from ..registry import Option, register_pass
from ..utils.arch_option import arch_option
from ..utils.driver import run_per_function
from ..utils.ir_walk import owner_op, walk
from ..analysis.tile_uses import TileGroups, is_elementwise, is_vector

FLEX = "flex"   # a splat constant / scalar broadcast: materialized in whatever blocking its user needs


def divisors_desc(n: int) -> list:
    return [d for d in range(n, 0, -1) if n % d == 0]


def blocks_of(t):
    """(bm, bn) of a blocked 4D vector type, else None."""
    if not is_vector(t):
        return None
    s = ir.VectorType(t).shape
    return (s[2], s[3]) if len(s) == 4 else None


def shape2d(t):
    s = list(ir.VectorType(t).shape)
    return (s[0] * s[2], s[1] * s[3]) if len(s) == 4 else tuple(s)


def collapsed(blocks, dims):
    """The blocks of a 2D vector whose dimensions `dims` are reduced to (or broadcast from) size 1."""
    return tuple(1 if d in dims else b for d, b in enumerate(blocks))


def blocked_type(t, blocks):
    """The vector type of `t` (2D or 4D) in `blocks` (None: the 2D form)."""
    vt = ir.VectorType(t)
    r, c = shape2d(t)
    shape = [r, c] if blocks is None else [r // blocks[0], c // blocks[1], blocks[0], blocks[1]]
    return ir.VectorType.get(shape, vt.element_type)


def mma_blocks(arch, op):
    """{"A": (m, k), "B": (k, n), "C": (m, n)} for a 2D tile_mma, or (None, reason)."""
    m = TileMmaOp(op)
    (M, K), ea = vector_info(m.a)
    (K2, N), eb = vector_info(m.b)
    _, er = vector_info(op.results[0])
    try:
        max_m, n, k = arch.dpas_shape(ea, eb, er)
    except ArchError as e:
        return None, str(e)
    if K % k or N % n:
        return None, (f"tile_mma {M}x{K} x {K2}x{N} ({ea}): K must be a multiple of the DPAS K = {k} and N of "
                      f"the DPAS N = {n}")
    bm = next(d for d in divisors_desc(M) if d <= max_m)
    return {"A": (bm, k), "B": (k, n), "C": (bm, n)}, ""


class Blocker:
    def __init__(self, func, arch, options, ctx):
        self.func = func
        self.arch = arch
        self.ctx = ctx
        self.mma_mode = options["load-blocks"] == "mma"
        self.groups = TileGroups(func)
        self.mma: dict = {}          # tile_mma op -> operand blocks (None: stays 2D)
        self.tile_blocks: dict = {}  # group root -> (bm, bn) or None
        self.want: dict = {}         # vector value -> (bm, bn) | None | FLEX
        self.cache: dict = {}
        self.repacks = 0

    # -- 1. tiles ----------------------------------------------------------------------------
    def access_kinds(self, g):
        """[(kind, vnni)] of the accesses of group `g`."""
        bits = elem_bits(str(g.tile.element_type))
        kinds = set()
        for _op, uses in g.loads:
            kinds.add(("load", any(r == "B" for r, _ in uses) and bits < 32))
        if g.stores:
            kinds.add(("store", False))
        if g.prefetches:
            kinds.add(("prefetch", False))
        return sorted(kinds)

    def problem(self, g, h, w, kinds) -> str:
        elt = str(g.tile.element_type)
        for kind, vnni in kinds:
            if kind == "load":
                ok, why = self.arch.is_legal_block_load(h, w, elt, vnni=vnni)
            elif kind == "store":
                ok, why = self.arch.is_legal_block_store(h, w, elt)
            else:
                ok, why = self.arch.is_legal_block_prefetch(h, w, elt)
            if not ok:
                return why
        return ""

    def why_not_blocked(self, g) -> str:
        tv = g.tile
        if tv.scattered:
            return "scattered tiles are accessed element by element (load_gather/store_scatter)"
        if tv.memory_space == 3:
            return "shared local memory tiles are accessed with scattered messages, not 2D blocks"
        if tv.wg_map is not None:
            return "work-group tile (wg_map); run xetile-wg-to-sg first (blocking works on subgroup tiles)"
        if tuple(tv.order) == (0, 1):
            return "column-major tile (order = [0, 1]); run xetile-canonicalize first to make it row-major"
        if len(tv.shape) != 2:
            return f"tile of rank {len(tv.shape)}"
        if g.atomics:
            return "atomic_rmw_tile is lowered to scattered atomics"
        if g.padded:
            return "2D block loads pad out-of-bounds elements with 0 only; a non-zero padding needs scattered loads"
        if g.transposed:
            return "the loaded value is transposed (tile_transpose works on 2D vectors)"
        if any(self.mma.get(mma) is None for _op, uses in g.loads for _r, mma in uses):
            return "it feeds a tile_mma that stays unblocked"
        return ""

    def choose(self, g):
        """(blocks, reason): the inner blocks of group `g`, or (None, why not)."""
        tv = g.tile
        if tv.inner_blocks is not None:
            return tuple(tv.inner_blocks), ""
        why = self.why_not_blocked(g)
        if why:
            return None, why
        kinds = self.access_kinds(g)
        if not kinds:
            return None, ""
        R, C = tv.shape
        multiples = {self.mma[mma][role] for _op, uses in g.loads for role, mma in uses}
        exact = []
        if len(multiples) == 1:
            (mb,) = multiples
            roles = g.roles
            if self.mma_mode or "C" in roles or g.stores:
                exact = [mb]
        cands = [(h, w) for h in divisors_desc(R) for w in divisors_desc(C)]
        cands.sort(key=lambda hw: (-(hw[0] * hw[1]), -hw[1]))
        fits = [hw for hw in cands if all(hw[0] % m[0] == 0 and hw[1] % m[1] == 0 for m in multiples)]
        first_why = None
        for hw in exact + fits + cands:
            if R % hw[0] or C % hw[1]:
                continue
            why = self.problem(g, hw[0], hw[1], kinds)
            if not why:
                return hw, ""
            if first_why is None:
                first_why = why
        return None, f"no block of the {R}x{C} tile is a legal 2D block message for all its accesses ({first_why})"

    # -- 2. vectors --------------------------------------------------------------------------
    def producer_want(self, op, value):
        n = op.name
        if n == "xetile.load_tile":
            return self.tile_blocks.get(self.groups.of(op.operands[0]).root)
        if n == "xetile.tile_mma":
            b = self.mma.get(op)
            return b["C"] if b else None
        if n == "arith.constant" and is_vector(value.type) and len(ir.VectorType(value.type).shape) == 2:
            attr = op.attributes["value"]
            if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
                return FLEX
            return None
        if n in ("vector.broadcast", "vector.splat") and not is_vector(op.operands[0].type):
            return FLEX
        if n == "xetile.tile_broadcast" and "wg_map" not in op.attributes:
            return FLEX            # re-created in the blocking of each user (materialize)
        if n == "xetile.tile_reduce" and "wg_map" not in op.attributes:
            w = self.want.get(op.operands[0])
            if w in (None, FLEX) or len(ir.VectorType(op.operands[0].type).shape) != 2:
                return None
            dims = set(TileReduceOp(op).reduction_dims)
            return collapsed(w, dims)
        if is_elementwise(op):
            got = [self.want.get(v) for v in op.operands if is_vector(v.type)]
            blocked = [b for b in got if b not in (None, FLEX)]
            if blocked:
                return blocked[0]
            return FLEX if got and all(b == FLEX for b in got) else None
        return None

    def analyse(self):
        for _ in range(3):   # loop carries depend on their body: iterate to a fixpoint
            before = dict(self.want)
            for op in walk(self.func):
                if op.name == "scf.for":
                    body = op.regions[0].blocks[0]
                    yld = body.operations[len(body.operations) - 1]
                    for i, init in enumerate(list(op.operands)[3:]):
                        if not is_vector(init.type):
                            continue
                        w = self.want.get(init)
                        if w in (None, FLEX):
                            w2 = self.want.get(yld.operands[i])
                            w = w2 if w2 not in (None, FLEX) else w
                        w = None if w == FLEX else w
                        self.want[body.arguments[i + 1]] = w
                        self.want[op.results[i]] = w
                    continue
                for r in op.results:
                    if is_vector(r.type) and len(ir.VectorType(r.type).shape) == 2:
                        w = self.producer_want(op, r)
                        if w not in (None, FLEX):
                            R, C = ir.VectorType(r.type).shape
                            if R % w[0] or C % w[1]:
                                w = None
                        self.want[r] = w
            if self.want == before:
                break

    # -- 3. rewrite --------------------------------------------------------------------------
    def coerce(self, value, target, user):
        """`value` in blocking `target` (None = 2D), re-blocked before `user` if needed."""
        cur = blocks_of(value.type)
        if cur == target:
            return value
        prod = owner_op(value)
        if cur is None and target is not None and prod is not None and prod.name == "xetile.tile_unpack" \
                and blocks_of(prod.operands[0].type) == target:
            return prod.operands[0]          # tile_pack(tile_unpack(x)) with the same blocks is x
        key = (value, target, user.parent)
        if key in self.cache:
            return self.cache[key]
        with ir.InsertionPoint(user), user.location:
            prod = owner_op(value)
            new = self.materialize(prod, value, target, user) if cur is None and prod is not None else None
            if new is None:
                v = value
                if cur is not None:
                    v = TileUnpackOp.build(vector=v, inner_blocks=list(cur),
                                           result_types=[blocked_type(v.type, None)]).op.results[0]
                if target is not None:
                    v = TilePackOp.build(vector=v, inner_blocks=list(target),
                                         result_types=[blocked_type(v.type, target)]).op.results[0]
                self.repacks += 1
                new = v
        self.cache[key] = new
        return new

    def materialize(self, prod, value, target, user):
        """A splat constant / scalar broadcast / tile_broadcast re-created directly in `target`
        blocking, or None."""
        t = blocked_type(value.type, target)
        if prod.name == "xetile.tile_broadcast" and target is not None and "wg_map" not in prod.attributes:
            dims = sorted(TileBroadcastOp(prod).broadcast_dims)
            src = prod.operands[0]
            if len(ir.VectorType(src.type).shape) != 2:
                return None
            src = self.coerce(src, collapsed(target, dims), user)
            return TileBroadcastOp.build(vector=src, broadcast_dims=dims + [d + 2 for d in dims],
                                         result_types=[t]).op.results[0]
        if prod.name == "arith.constant":
            attr = prod.attributes["value"]
            if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
                return arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, attr.get_splat_value())).result
        if prod.name in ("vector.broadcast", "vector.splat") and not is_vector(prod.operands[0].type):
            return vector.broadcast(t, prod.operands[0])
        return None

    def retype(self, value, blocks):
        if blocks not in (None, FLEX) and blocks_of(value.type) != blocks:
            value.set_type(blocked_type(value.type, blocks))

    def rewrite(self):
        # decided before any retyping (a retyped operand makes shapes differ)
        self.elementwise = {op.results[0] for op in walk(self.func) if is_elementwise(op)}
        for g in self.groups:
            blocks = self.tile_blocks.get(g.root)
            if blocks is not None:
                for v in g.values:
                    if TileType(v.type).inner_blocks is None:
                        v.set_type(TileType(v.type).with_fields(inner_blocks=tuple(blocks)))
        for op in list(walk(self.func)):
            n = op.name
            if n == "scf.for":
                body = op.regions[0].blocks[0]
                for i in range(len(op.results)):
                    w = self.want.get(op.results[i])
                    self.retype(body.arguments[i + 1], w)
                    self.retype(op.results[i], w)
                    init = op.operands[3 + i]
                    if is_vector(init.type):
                        op.operands[3 + i] = self.coerce(init, blocks_of(op.results[i].type), op)
                continue
            if n == "scf.yield":
                parent = op.parent.operation if hasattr(op.parent, "operation") else op.parent
                if parent.name == "scf.for":
                    for i, v in enumerate(list(op.operands)):
                        if is_vector(v.type):
                            op.operands[i] = self.coerce(v, blocks_of(parent.results[i].type), op)
                    continue
            if n == "xetile.tile_mma" and self.mma.get(op):
                b = self.mma[op]
                for i, role in enumerate("ABC"[:len(op.operands)]):
                    op.operands[i] = self.coerce(op.operands[i], b[role], op)
                self.retype(op.results[0], b["C"])
                continue
            if n == "xetile.store_tile":
                tb = TileType(op.operands[1].type).inner_blocks
                op.operands[0] = self.coerce(op.operands[0], tuple(tb) if tb is not None else None, op)
                continue
            if n == "xetile.load_tile":
                self.retype(op.results[0], self.want.get(op.results[0]))
                continue
            if n == "xetile.tile_reduce" and self.want.get(op.results[0]) not in (None, FLEX) \
                    and blocks_of(op.operands[0].type) is not None:
                w = self.want[op.results[0]]
                src_blocks = blocks_of(op.operands[0].type)
                dims = sorted(TileReduceOp(op).reduction_dims)
                if collapsed(src_blocks, dims) == w:
                    op.attributes["reduction_dims"] = ir.DenseI64ArrayAttr.get(dims + [d + 2 for d in dims])
                    self.retype(op.results[0], w)
                    continue
            if op.results and op.results[0] in self.elementwise and self.want.get(op.results[0]) not in (None, FLEX):
                w = self.want[op.results[0]]
                for i, v in enumerate(list(op.operands)):
                    if is_vector(v.type):
                        op.operands[i] = self.coerce(v, w, op)
                for r in op.results:
                    self.retype(r, w)
                continue
            for i, v in enumerate(list(op.operands)):   # everything else works on 2D vectors
                if is_vector(v.type) and blocks_of(v.type) is not None:
                    op.operands[i] = self.coerce(v, None, op)
        for op in reversed(list(walk(self.func))):    # splat producers replaced by blocked copies
            if op.name in ("arith.constant", "vector.broadcast", "vector.splat", "xetile.tile_broadcast",
                           "xetile.tile_unpack", "xetile.tile_pack") \
                    and op.results \
                    and is_vector(op.results[0].type) and not list(op.results[0].uses):
                op.erase()

    # -- driver ------------------------------------------------------------------------------
    def run(self) -> bool:
        for op in walk(self.func):
            if op.name == "xetile.tile_mma":
                if len(vector_info(op.operands[0])[0]) != 2:
                    continue   # already blocked
                if any(n in op.attributes for n in ("wg_map_a", "wg_map_b", "wg_map_c")):
                    b, why = None, "work-group tile_mma (wg_map); run xetile-wg-to-sg first"
                else:
                    b, why = mma_blocks(self.arch, op)
                self.mma[op] = b
                if b is None:
                    self.ctx.remark(op, f"xetile-blocking: tile_mma left unblocked: {why}")
        for g in self.groups:
            blocks, why = self.choose(g)
            self.tile_blocks[g.root] = blocks
            if blocks is None and why:
                tv = g.tile
                self.ctx.remark(g.first_op, f"xetile-blocking: tile {'x'.join(map(str, tv.shape))}x"
                                            f"{tv.element_type} left unblocked: {why}")
        self.analyse()
        self.rewrite()
        return True


@register_pass("xetile-blocking",
               "Split subgroup tiles into hardware-sized inner blocks (blocked 4D XeTile) for 2D block "
               "messages and DPAS",
               options=[arch_option("its block-message and DPAS tables"),
                        Option("load-blocks", str, "largest",
                               "blocks of tiles that feed tile_mma: 'largest' legal 2D block load that is a "
                               "multiple of the DPAS block (fewest messages), or 'mma' (the DPAS block itself: "
                               "no re-blocking)", choices=("largest", "mma"))])
def xetile_blocking(module_op, options, ctx):
    return run_per_function(module_op, options, ctx, Blocker)
