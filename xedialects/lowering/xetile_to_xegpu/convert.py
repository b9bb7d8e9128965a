"""Pass `convert-xetile-to-xegpu`: blocked subgroup XeTile (pipeline stage 3) to VC-mode XeGPU
(stage 4), one XeGPU op per hardware instruction.

* A tile becomes one `create_nd_tdesc` per hardware block ("nd" tiles) or, when the architecture
  cannot address it with 2D block messages (surface pitch/width/alignment, shared local memory,
  no legal block size), a pair of index values (row, column of its origin) from which every
  access builds masked scattered descriptors ("scatter" tiles). The hardware block is the tile's
  inner block, or the largest divisor of it that is legal for every access the tile sees
  (load, VNNI load, transposed load, store, prefetch) -- never an illegal XeGPU block.
* A blocked 4D vector becomes the row-major list of its 2D blocks (the 1:N `Rebuilder` value
  mapping, scf.for iter_args included). Blocks that feed operand B of `tile_mma` with a sub-32-bit
  type are VNNI blocks `<K/f x N x f>` (loaded with `vnni_axis = 0`); any other consumer converts
  in registers when it needs the other form.
* `tile_unpack`/`tile_pack` only re-block: slices (`vector.extract_strided_slice`) or assemblies
  (`vector.insert_strided_slice`) of the blocks, nothing when the blocks already agree.
* `tile_mma` becomes the grid of `xegpu.dpas` (M <= max repeat count, N = exec size, K per type,
  from the architecture table), chaining the accumulator over K; without C the first DPAS of each
  chain has no accumulator. Unblocked (stage 2) tiles and 2D tile_mma are accepted too: tiles then
  use the largest legal hardware blocks and tile_mma DPAS-sized blocks.
* Element-wise arith/math ops run per block; scalars broadcast per block; `tile_broadcast` of a row
  or column vector becomes one `vector.broadcast` per block.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, vector

from ...arch import ArchError, elem_bits, get_arch
from ...core.kinds import DYNAMIC
from ...core.typeinfo import memref_info, vector_info
from ...passes.utils.ir_walk import attr_dict as _attr_dict, functions as _functions, walk as _walk_ops
from ...passes.utils.rebuild import Rebuilder, RewriteError
from ...xegpu.attributes import TensorDescType
from ...xegpu.ops import (AtomicRmwOp, CreateNdTdescOp, CreateTdescOp, DpasOp, LoadGatherOp, LoadNdOp,
                         PrefetchNdOp, StoreNdOp, StoreScatterOp, UpdateNdOffsetOp)
from ...xetile.attributes import TileType
from ...xetile.ops import (AtomicRmwTileOp, InitTileOp, LoadGatherOp as XtLoadGatherOp, LoadTileOp,
                          StoreScatterOp as XtStoreScatterOp, TileBroadcastOp, TileMmaOp, TilePackOp, TileReduceOp,
                          TileTransposeOp, UpdateTileOffsetOp)

_PLAN_ATTR = "__xe_tile_plan"          # temporary op attributes of the conversion
_VNNI_ATTR = "__xe_load_vnni"
_FUSED_T_ATTR = "__xe_fused_transpose"   # a load_tile and the tile_transpose folded into it
GATHER_LANES = 16   # lanes of one scattered row piece (a SIMD16 message; PVC allows 1..32 lanes)


class ConversionError(Exception):
    def __init__(self, op, message):
        super().__init__(message)
        self.op = op
        self.message = message


# ------------------------------------------------------------------------------------------------
# small IR helpers


def _vt(shape, elt) -> ir.Type:
    return ir.VectorType.get(list(shape), _elt_type(elt))


def _elt_type(elt):
    if isinstance(elt, ir.Type):
        return elt
    return ir.Type.parse(elt)


def _vshape(v):
    return tuple(ir.VectorType(v.type).shape)


def _velt(v):
    return str(ir.VectorType(v.type).element_type)


def _is_vector(t) -> bool:
    return isinstance(t, ir.VectorType) or str(t).startswith("vector<")


def _zero_attr(elt: str):
    t = _elt_type(elt)
    if elt.startswith(("f", "bf", "tf")):
        return ir.FloatAttr.get(t, 0.0)
    return ir.IntegerAttr.get(t, 0)


def _splat(shape, elt, attr):
    vt = _vt(shape, elt)
    return arith.ConstantOp(vt, ir.DenseElementsAttr.get_splat(vt, attr)).result


def _divisors_desc(n):
    return [d for d in range(n, 0, -1) if n % d == 0]


def _opt(options, name, default):
    if options is None:
        return default
    if isinstance(options, dict):
        return options.get(name, options.get(name.replace("-", "_"), default))
    for n in (name, name.replace("-", "_")):
        if hasattr(options, n):
            return getattr(options, n)
    try:
        return options[name]
    except Exception:
        return default


# ------------------------------------------------------------------------------------------------
# vector grids: a logical 2D value as a row-major list of equal 2D blocks (VNNI blocks are 3D)


@dataclass
class Grid:
    shape: tuple          # logical (R, C)
    block: tuple          # logical (bm, bn)
    vnni: int             # 1 = plain blocks <bm x bn>; f > 1 = VNNI blocks <bm/f x bn x f>
    blocks: list
    elt: str = ""

    @property
    def dims(self):
        return self.shape[0] // self.block[0], self.shape[1] // self.block[1]

    def at(self, i, j):
        return self.blocks[i * self.dims[1] + j]


# ------------------------------------------------------------------------------------------------
# tile plans


@dataclass
class TilePlan:
    origin: object                  # the init_tile op
    elt: str
    shape: tuple                    # logical tile shape (R, C)
    block: tuple                    # logical inner block (tile shape when not blocked)
    blocked: bool
    order: tuple
    source: object = None           # source value of the tdescs (memref / i64), memory orientation
    mem_t: bool = False             # memory holds the tile transposed (order = [0, 1])
    nd_shape: list | None = None    # mixed base shape / strides passed to create_nd_tdesc (memory orientation)
    nd_strides: list | None = None
    log_shape: list | None = None   # logical base shape (ints / Values) -- bounds of scattered accesses
    log_strides: list | None = None  # logical element strides (ints / Values)
    scatter_source: object = None   # source value of scattered descriptors (logical view)
    slm: bool = False
    kinds: set = field(default_factory=set)
    mode: str = "nd"                # nd | scatter
    sub: tuple = (0, 0)             # logical hardware block (nd mode)
    why: str = ""                   # why scatter mode

    @property
    def bits(self):
        return elem_bits(self.elt)

    @property
    def sub_dims(self):
        return self.shape[0] // self.sub[0], self.shape[1] // self.sub[1]


class Converter:
    def __init__(self, func, arch, ctx, options=None):
        self.func = func
        self.arch = arch
        self.ctx = ctx
        self.options = options
        self.plans: dict = {}          # old tile value -> TilePlan
        self.op_plans: dict = {}       # plan id (op attribute) -> TilePlan
        self.errors: list = []
        self.slice_cache: dict = {}
        self.const_cache: dict = {}
        self.remarked: set = set()

    # ---- analysis -------------------------------------------------------------------------------
    def has_xetile(self) -> bool:
        return any(o.name.startswith("xetile.") for o in _walk_ops(self.func))

    def analyse(self) -> bool:
        for op in _walk_ops(self.func):
            if op.name.startswith("xetile.") and _is_work_group_level(op):
                self.errors.append((op, f"'{op.name}' is work-group level XeTile (wg_map); distribute it to "
                                        f"subgroups with xetile-wg-to-sg before convert-xetile-to-xegpu"))
                return False
        for op in _walk_ops(self.func):
            name = op.name
            if name == "xetile.init_tile":
                if TileType(op.results[0].type).scattered:
                    continue       # scattered tiles: load_gather / store_scatter use their offsets
                try:
                    plan = self.make_plan(op)
                except ConversionError as e:
                    self.errors.append((e.op, e.message))
                    continue
                self.plans[op.results[0]] = plan
            elif name == "xetile.update_tile_offset":
                p = self.plans.get(op.operands[0])
                if p is not None:
                    self.plans[op.results[0]] = p
            elif name == "scf.for":
                inits = list(op.operands)[3:]
                body = op.regions[0].blocks[0]
                for i, v in enumerate(inits):
                    p = self.plans.get(v)
                    if p is not None:
                        self.plans[body.arguments[i + 1]] = p
                        self.plans[op.results[i]] = p
        # kinds of access per plan, VNNI decisions per load
        for op in _walk_ops(self.func):
            name = op.name
            if name in ("xetile.load_tile", "xetile.store_tile", "xetile.prefetch_tile", "xetile.atomic_rmw_tile"):
                tile = op.operands[1] if name in ("xetile.store_tile", "xetile.atomic_rmw_tile") else op.operands[0]
                p = self.plans.get(tile)
                if p is None:
                    self.errors.append((op, f"'{name}' on a tile whose origin is not a visible xetile.init_tile "
                                            "(tiles may flow through scf.for iter_args only)"))
                    continue
                if name == "xetile.load_tile":
                    ld = LoadTileOp(op)
                    fused = self.fuse_transpose(op, p)
                    value = fused.results[0] if fused is not None else op.results[0]
                    vnni = p.bits < 32 and self.feeds_mma_b(value)
                    op.attributes[_VNNI_ATTR] = ir.BoolAttr.get(vnni)
                    transpose = (ld.transpose == (1, 0)) != p.mem_t
                    if fused is not None:
                        op.attributes[_FUSED_T_ATTR] = ir.UnitAttr.get()
                        fused.attributes[_FUSED_T_ATTR] = ir.UnitAttr.get()
                        transpose = not transpose
                    p.kinds.add(("load", vnni, transpose))
                    if ld.padding is not None and not _is_zero_padding(ld.padding):
                        p.kinds.add(("padding",))
                elif name == "xetile.store_tile":
                    p.kinds.add(("store", False, p.mem_t))
                elif name == "xetile.prefetch_tile":
                    p.kinds.add(("prefetch", False, False))
                else:
                    p.kinds.add(("atomic",))
        # plans by op: values get replaced and Python op objects re-created when scf.for loops are
        # rebuilt, so each xetile op carries the index of its plan in a temporary attribute
        plan_ids = {}
        for op in _walk_ops(self.func):
            p = None
            if op.name == "xetile.init_tile":
                p = self.plans.get(op.results[0])
            elif op.name.startswith("xetile."):
                p = next((self.plans[v] for v in op.operands if v in self.plans), None)
            if p is not None:
                pid = plan_ids.setdefault(id(p), len(plan_ids))
                self.op_plans[pid] = p
                op.attributes[_PLAN_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), pid)
        for p in {id(p): p for p in self.plans.values()}.values():
            self.choose_blocks(p)
        return not self.errors

    def fuse_transpose(self, op, p):
        """The tile_transpose [1, 0] that is the only user of load_tile `op` when the pair can be one
        load: a plain load (the tile is column-major in memory) or a transposed 2D block load
        (32/64-bit elements, or the VNNI-packed 32-bit transpose of a sub-32-bit B operand of
        tile_mma); else None and the transpose stays an in-register vector.transpose."""
        res = op.results[0]
        uses = list(res.uses)
        if len(uses) != 1 or len(vector_info(res)[0]) != 2:
            return None
        user = uses[0].owner
        user = user.operation if hasattr(user, "operation") else user
        if user.name != "xetile.tile_transpose" or "wg_map" in user.attributes \
                or tuple(TileTransposeOp(user).permutation) != (1, 0):
            return None
        need_t = (LoadTileOp(op).transpose == (1, 0)) == p.mem_t  # transposed in memory after fusing
        if not need_t or p.bits >= 32 or self.feeds_mma_b(user.results[0]):
            return user
        return None

    def feeds_mma_b(self, value) -> bool:
        """Does `value` reach operand B of a tile_mma through tile_unpack/tile_pack/scf.for/yield?"""
        seen = set()
        work = [value]
        while work:
            v = work.pop()
            if v in seen:
                continue
            seen.add(v)
            for use in v.uses:
                user = use.owner
                user = user.operation if hasattr(user, "operation") else user
                n = user.name
                if n in ("xetile.tile_unpack", "xetile.tile_pack"):
                    work.append(user.results[0])
                elif n == "xetile.tile_mma" and use.operand_number == 1:
                    return True
                elif n == "scf.for" and use.operand_number >= 3:
                    i = use.operand_number - 3
                    work.append(user.regions[0].blocks[0].arguments[i + 1])
                    work.append(user.results[i])
                elif n == "scf.yield":
                    parent = user.parent
                    if parent is not None and parent.name == "scf.for":
                        i = use.operand_number
                        work.append(parent.regions[0].blocks[0].arguments[i + 1])
                        work.append(parent.results[i])
        return False

    def make_plan(self, op) -> TilePlan:
        it = InitTileOp(op)
        tv = TileType(op.results[0].type)
        if tv.scattered:
            raise ConversionError(op, "scattered tiles are handled by load_gather/store_scatter only")
        shape = tuple(tv.shape)
        ib = tv.inner_blocks
        block = tuple(ib) if ib is not None else shape
        p = TilePlan(origin=op, elt=str(tv.element_type), shape=shape, block=block, blocked=ib is not None,
                     order=tuple(tv.order))
        p.slm = tv.memory_space == 3
        src = it.source
        mi = memref_view(src)
        sh_m = it.mixed("shape", "static_shape")
        st_m = it.mixed("strides", "static_strides")
        if mi is not None:
            mshape, _elt, mstrides, space = mi
            if space is not None and space.strip() in ("3", "3 : i32", "#gpu.address_space<workgroup>"):
                p.slm = True
        if sh_m:
            log_shape, log_strides = list(sh_m), list(st_m)
        elif mi is not None:
            log_shape = list(mshape)
            log_strides = list(mstrides) if mstrides is not None else None
        else:
            raise ConversionError(op, "init_tile on an address needs the base shape and strides")
        p.log_shape, p.log_strides = log_shape, log_strides
        p.scatter_source = src
        p.mem_t = p.order == (0, 1)
        # nd view in memory orientation
        if not p.mem_t:
            p.source = src
            if sh_m:
                p.nd_shape, p.nd_strides = list(sh_m), list(st_m)
            if log_strides is not None and log_strides[1] not in (1,) and not isinstance(log_strides[1], ir.Value):
                p.mode, p.why = "scatter", f"the base matrix is not row-major (strides {log_strides})"
        else:
            owner = src.owner if isinstance(src, ir.Value) else None
            owner = owner.operation if owner is not None and hasattr(owner, "operation") else owner
            if owner is not None and hasattr(owner, "name") and owner.name == "memref.transpose":
                p.source = owner.operands[0]
                if sh_m:
                    p.nd_shape = [sh_m[1], sh_m[0]]
                    p.nd_strides = [st_m[1], st_m[0]]
                inner = memref_view(p.source)
                if inner is None or inner[2] is None or inner[2][-1] != 1:
                    p.mode, p.why = "scatter", "the transposed view's base is not row-major"
            elif sh_m and (mi is None or _identity_layout(src)):
                p.source = src
                p.nd_shape = [sh_m[1], sh_m[0]]
                p.nd_strides = [st_m[1], st_m[0]]
            else:
                p.mode, p.why = "scatter", ("a column-major tile needs a memref.transpose view or explicit shape "
                                            "and strides to describe its row-major memory")
        if log_strides is None:
            raise ConversionError(op, f"cannot determine the strides of the base {src.type}")
        return p

    def choose_blocks(self, p: TilePlan) -> None:
        kinds = p.kinds
        if any(k[0] == "atomic" for k in kinds):
            p.mode, p.why = "scatter", "atomic read-modify-write is a scattered operation in XeGPU"
        if any(k[0] == "padding" for k in kinds):
            p.mode, p.why = "scatter", "2D block loads pad out-of-bounds elements with 0 only"
        if p.slm and p.mode == "nd":
            p.mode, p.why = "scatter", ("2D block messages move tiles between global memory and registers "
                                        "(xe-cute-architecture.md); shared local memory is accessed by scattered "
                                        "messages")
        if p.mode == "nd":
            ok, why = self.surface_ok(p)
            if not ok:
                p.mode, p.why = "scatter", why
        if p.mode == "nd":
            bh, bw = p.block
            cands = [(h, w) for h in _divisors_desc(bh) for w in _divisors_desc(bw)]
            cands.sort(key=lambda hw: (-(hw[0] * hw[1]), -hw[1]))
            reasons = []
            for h, w in cands:
                why = self.block_problem(p, h, w)
                if not why:
                    p.sub = (h, w)
                    break
                if (h, w) == p.block:
                    reasons.append(why)
            else:
                p.mode = "scatter"
                p.why = f"no legal 2D block divides the {bh}x{bw} block" + (f" ({reasons[0]})" if reasons else "")
            if p.mode == "nd" and p.sub != p.block and p.kinds and p.blocked:
                self.remark(p.origin, f"hardware blocks {p.sub[0]}x{p.sub[1]} for the {p.block[0]}x{p.block[1]} "
                                      f"inner block ({reasons[0] if reasons else 'not legal for every access'})")
        if p.mode == "scatter" and p.kinds - {("prefetch", False, False)}:
            self.remark(p.origin, f"tile {p.shape[0]}x{p.shape[1]}x{p.elt} is accessed with scattered "
                                  f"loads/stores: {p.why}")

    def surface_ok(self, p: TilePlan):
        """Static surface check (pitch, width, height in memory orientation). Dynamic values are a
        runtime contract of the 2D block path."""
        shape = p.nd_shape
        strides = p.nd_strides
        if shape is None:
            mi = memref_view(p.source)
            if mi is None:
                return True, ""
            shape, _e, strides, _s = mi
        eb = max(1, p.bits // 8)
        rows, cols = shape[0], shape[1]
        pitch = strides[0] if strides is not None else None
        if any(isinstance(x, ir.Value) or x is None for x in (rows, cols, pitch)):
            # partially dynamic: check what is known
            s = self.arch.surface
            if isinstance(pitch, int) and pitch is not None:
                pb = pitch * eb
                if pb % s.pitch_align or pb < s.min_pitch_bytes:
                    return False, f"pitch {pb} B (must be a multiple of {s.pitch_align} B and >= {s.min_pitch_bytes} B)"
            if isinstance(cols, int) and cols is not None:
                wb = cols * eb
                if wb < s.min_width_bytes or wb % s.width_align:
                    return False, f"surface width {wb} B (must be >= {s.min_width_bytes} B, multiple of {s.width_align} B)"
            return True, ""
        ok, why = self.arch.legal_surface(self.arch.surface.base_align, pitch * eb, cols * eb, rows)
        return ok, why

    def block_problem(self, p: TilePlan, h, w) -> str:
        """Empty string when an h x w logical block is legal for every access kind of the tile."""
        a = self.arch
        mh, mw = (w, h) if p.mem_t else (h, w)
        f = a.vnni_factor(p.elt) if p.bits < 32 else 1
        for k in sorted(p.kinds, key=str):
            kind = k[0]
            if kind == "load":
                _, vnni, transpose = k
                if transpose:
                    # memory block (mh, mw) loaded transposed
                    if p.bits >= 32:
                        ok, why = a.is_legal_block_load(mh, mw, p.elt, transpose=True)
                    elif vnni and mw % f == 0:
                        ok, why = a.is_legal_block_load(mh, mw * p.bits // 32, 4, transpose=True)
                    else:
                        ok, why = a.is_legal_block_load(mh, mw, p.elt)
                elif vnni:
                    ok, why = a.is_legal_block_load(mh, mw, p.elt, vnni=True)
                else:
                    ok, why = a.is_legal_block_load(mh, mw, p.elt)
            elif kind == "store":
                ok, why = a.is_legal_block_store(mh, mw, p.elt)
            elif kind == "prefetch":
                ok, why = a.is_legal_block_prefetch(mh, mw, p.elt)
            else:
                continue
            if not ok:
                return why
        if not p.kinds:
            ok, why = a.is_legal_block_load(mh, mw, p.elt)
            if not ok:
                return why
        return ""

    def remark(self, op, msg):
        key = (id(op), msg)
        if key in self.remarked:
            return
        self.remarked.add(key)
        if self.ctx is not None and hasattr(self.ctx, "remark"):
            self.ctx.remark(op, msg)

    # ---- constants ------------------------------------------------------------------------------
    def idx(self, v):
        """An index Value for an int or Value (constants are created once, at the function entry)."""
        if isinstance(v, ir.Value):
            return v
        key = ("index", int(v))
        c = self.const_cache.get(key)
        if c is None:
            entry = self.func.regions[0].blocks[0]
            with ir.InsertionPoint.at_block_begin(entry), self.func.location:
                c = arith.ConstantOp(ir.IndexType.get(), int(v)).result
            self.const_cache[key] = c
        return c

    @staticmethod
    def folded(v):
        """An int for index constants, else the value itself."""
        if isinstance(v, ir.Value):
            owner = v.owner
            if isinstance(owner, ir.OpView):
                owner = owner.operation
            if isinstance(owner, ir.Operation) and owner.name == "arith.constant" and str(v.type) == "index":
                return ir.IntegerAttr(owner.attributes["value"]).value
        return v

    def add(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(b, int) and b == 0:
            return a
        if isinstance(a, int) and a == 0:
            return b
        return arith.AddIOp(self.idx(a), self.idx(b)).result

    def mul(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if isinstance(b, int) and b == 1:
            return a
        if isinstance(a, int) and a == 1:
            return b
        return arith.MulIOp(self.idx(a), self.idx(b)).result

    # ---- block helpers --------------------------------------------------------------------------
    def vnni_f(self, elt):
        return self.arch.vnni_factor(elt) if elem_bits(elt) < 32 else 1

    def block_type(self, h, w, elt, f):
        return _vt((h // f, w, f) if f > 1 else (h, w), elt)

    def zero_block(self, h, w, elt, f):
        return _splat((h // f, w, f) if f > 1 else (h, w), elt, _zero_attr(elt))

    def to_vnni(self, v, f):
        (h, w), elt = _vshape(v), _velt(v)
        x = vector.shape_cast(_vt((h // f, f, w), elt), v)
        return vector.transpose(_vt((h // f, w, f), elt), x, [0, 2, 1])

    def to_plain(self, v, f):
        (hf, w, _), elt = _vshape(v), _velt(v)
        x = vector.transpose(_vt((hf, f, w), elt), v, [0, 2, 1])
        return vector.shape_cast(_vt((hf * f, w), elt), x)

    def as_form(self, v, have_f, want_f):
        if have_f == want_f:
            return v
        if have_f > 1:
            v = self.to_plain(v, have_f)
        if want_f > 1:
            v = self.to_vnni(v, want_f)
        return v

    def slice(self, v, f, r0, c0, h, w):
        """Logical sub-block [r0:r0+h, c0:c0+w] of block v (form f)."""
        shp = _vshape(v)
        bh, bw = (shp[0] * f, shp[1]) if f > 1 else shp
        if (r0, c0, h, w) == (0, 0, bh, bw):
            return v
        # reuse a slice only within the block that holds it (dominance)
        key = (v, f, r0, c0, h, w, ir.InsertionPoint.current.block)
        hit = self.slice_cache.get(key)
        if hit is not None:
            return hit
        elt = _velt(v)
        if f > 1:
            if r0 % f or h % f:
                v2 = self.to_plain(v, f)
                res = self.to_vnni(self.slice(v2, 1, r0, c0, h, w), f)
            else:
                res = vector.extract_strided_slice(_vt((h // f, w, f), elt), v, [r0 // f, c0, 0], [h // f, w, f],
                                                   [1, 1, 1])
        else:
            res = vector.extract_strided_slice(_vt((h, w), elt), v, [r0, c0], [h, w], [1, 1])
        self.slice_cache[key] = res
        return res

    def insert(self, piece, dest, f, r0, c0):
        if f > 1:
            return vector.insert_strided_slice(piece, dest, [r0 // f, c0, 0], [1, 1, 1])
        return vector.insert_strided_slice(piece, dest, [r0, c0], [1, 1])

    def grid_of(self, rb, old) -> Grid:
        """The grid of blocks an old (2D or blocked 4D) vector value is rebuilt as. The blocks are
        those of the producer (4D values may use smaller, hardware-sized blocks)."""
        vals = rb.map(old)
        shp, elt = vector_info(old)
        if len(shp) == 4:
            R, C = shp[0] * shp[2], shp[1] * shp[3]
        elif len(shp) == 2:
            R, C = shp
        else:
            raise ConversionError(_op_of(old), f"expected a 2D or blocked 4D vector, got {old.type}")
        b0 = _vshape(vals[0])
        if len(b0) == 4 and len(vals) == 1:
            # an unconverted blocked vector (e.g. a function argument): take its blocks apart
            gm, gn, bm, bn = b0
            blocks = [vector.extract(vals[0], [], [i, j]) for i in range(gm) for j in range(gn)]
            return Grid((R, C), (bm, bn), 1, blocks, elt)
        if len(b0) == 3:
            bm, bn, f = b0[0] * b0[2], b0[1], b0[2]
        elif len(b0) == 2:
            (bm, bn), f = b0, 1
        else:
            raise ConversionError(_op_of(old), f"internal: block {b0} for {old.type}")
        if R % bm or C % bn or len(vals) != (R // bm) * (C // bn):
            raise ConversionError(_op_of(old), f"internal: {len(vals)} blocks of {bm}x{bn} for {old.type}")
        return Grid((R, C), (bm, bn), f, list(vals), elt)

    def reblock(self, g: Grid, bm, bn, f=None) -> Grid:
        """The same logical value with blocks (bm, bn) in form f (default: g's form if possible)."""
        if f is None:
            f = g.vnni if (bm % max(g.vnni, 1) == 0) else 1
        if g.block == (bm, bn):
            return Grid(g.shape, g.block, f, [self.as_form(b, g.vnni, f) for b in g.blocks], g.elt)
        R, C = g.shape
        if R % bm or C % bn:
            raise ConversionError(None, f"cannot re-block {R}x{C} into {bm}x{bn} blocks")
        gbm, gbn = g.block
        out = []
        for I in range(R // bm):
            for J in range(C // bn):
                r0, c0 = I * bm, J * bn
                i0, j0 = r0 // gbm, c0 // gbn
                if (r0 % gbm) + bm <= gbm and (c0 % gbn) + bn <= gbn:
                    src = g.at(i0, j0)
                    if f != g.vnni and ((r0 % gbm) % max(f, 1) or bm % max(f, 1)):
                        src = self.as_form(src, g.vnni, 1)
                        piece = self.slice(src, 1, r0 % gbm, c0 % gbn, bm, bn)
                        out.append(self.as_form(piece, 1, f))
                    else:
                        piece = self.slice(src, g.vnni, r0 % gbm, c0 % gbn, bm, bn)
                        out.append(self.as_form(piece, g.vnni, f))
                    continue
                # assemble from several source blocks (in plain form)
                dest = self.zero_block(bm, bn, g.elt, 1)
                for i in range(r0 // gbm, (r0 + bm - 1) // gbm + 1):
                    for j in range(c0 // gbn, (c0 + bn - 1) // gbn + 1):
                        rs, re_ = max(r0, i * gbm), min(r0 + bm, (i + 1) * gbm)
                        cs, ce = max(c0, j * gbn), min(c0 + bn, (j + 1) * gbn)
                        src = self.as_form(g.at(i, j), g.vnni, 1)
                        piece = self.slice(src, 1, rs - i * gbm, cs - j * gbn, re_ - rs, ce - cs)
                        dest = self.insert(piece, dest, 1, rs - r0, cs - c0)
                out.append(self.as_form(dest, 1, f))
        return Grid(g.shape, (bm, bn), f, out, g.elt)

    # ---- tdesc helpers ---------------------------------------------------------------------------
    def tdesc_type(self, p: TilePlan, mh, mw):
        fields = {}
        if p.slm:
            fields["memory_scope"] = "slm"
        return TensorDescType.get([mh, mw], p.elt, **fields)

    def make_tdescs(self, p: TilePlan, offsets):
        r0, c0 = offsets
        sh, sw = p.sub
        gr, gc = p.sub_dims
        mh, mw = (sw, sh) if p.mem_t else (sh, sw)
        t = self.tdesc_type(p, mh, mw)
        out = []
        for i in range(gr):
            for j in range(gc):
                r, c = self.add(r0, i * sh), self.add(c0, j * sw)
                offs = [c, r] if p.mem_t else [r, c]
                kw = {}
                if p.nd_shape is not None:
                    kw["shape"] = p.nd_shape
                    kw["strides"] = p.nd_strides
                out.append(CreateNdTdescOp.build(source=p.source, offsets=offs, mode="vc", result_types=[t],
                                                 **kw).op.results[0])
        return out

    # ---- scattered helpers -----------------------------------------------------------------------
    def lane_iota(self, n):
        key = ("iota", n)
        if key not in self.const_cache:
            vt = _vt((n,), "index")
            attr = ir.DenseElementsAttr.get(__import__("numpy").arange(n, dtype="int64"), type=vt)
            self.const_cache[key] = attr
        attr = self.const_cache[key]
        return arith.ConstantOp(ir.VectorType.get([n], ir.IndexType.get()), attr).result

    def row_access(self, p: TilePlan, r0, c0, rr, cc, lanes):
        """(tdesc, mask) of the scattered access to logical row r0+rr, columns c0+cc .. +lanes."""
        idx_t = ir.IndexType.get()
        row = self.add(r0, rr)
        col0 = self.add(c0, cc)
        vt = ir.VectorType.get([lanes], idx_t)
        cols = arith.AddIOp(vector.broadcast(vt, self.idx(col0)), self.lane_iota(lanes)).result
        sr, sc = p.log_strides
        R, C = p.log_shape
        lin_r = self.mul(row, sr)
        lin_c = cols if (isinstance(sc, int) and sc == 1) else arith.MulIOp(cols, vector.broadcast(vt, self.idx(sc))).result
        lin = arith.AddIOp(vector.broadcast(vt, self.idx(lin_r)), lin_c).result
        row_ok = arith.CmpIOp(arith.CmpIPredicate.ult, self.idx(row), self.idx(R)).result
        col_ok = arith.CmpIOp(arith.CmpIPredicate.ult, cols, vector.broadcast(vt, self.idx(C))).result
        mask = arith.AndIOp(vector.broadcast(ir.VectorType.get([lanes], ir.IntegerType.get_signless(1)), row_ok),
                            col_ok).result
        fields = {"scattered": True}
        if p.slm:
            fields["memory_scope"] = "slm"
        tt = TensorDescType.get([lanes], p.elt, **fields)
        td = CreateTdescOp.build(source=p.scatter_source, offsets=lin, mode="vc", result_types=[tt]).op.results[0]
        return td, mask

    @staticmethod
    def lane_pieces(width):
        out, c = [], 0
        while c < width:
            n = next(x for x in (GATHER_LANES, 8, 4, 2, 1) if x <= width - c)
            out.append((c, n))
            c += n
        return out

    def scatter_load_block(self, p, r0, c0, h, w, pad_attr):
        elt = p.elt
        blk = self.zero_block(h, w, elt, 1) if pad_attr is None else _splat((h, w), elt, pad_attr)
        for rr in range(h):
            for cc, n in self.lane_pieces(w):
                td, mask = self.row_access(p, r0, c0, rr, cc, n)
                v = LoadGatherOp.build(tdesc=td, mask=mask, mode="vc", result_types=[_vt((n,), elt)]).op.results[0]
                padv = _splat((n,), elt, pad_attr if pad_attr is not None else _zero_attr(elt))
                v = arith.SelectOp(mask, v, padv).result
                blk = vector.insert_strided_slice(v, blk, [rr, cc], [1])
        return blk

    def scatter_rows(self, p, r0, c0, blk, fn):
        """Call fn(tdesc, mask, piece) for every row piece of plain block blk at logical (r0, c0)."""
        h, w = _vshape(blk)
        elt = _velt(blk)
        for rr in range(h):
            for cc, n in self.lane_pieces(w):
                td, mask = self.row_access(p, r0, c0, rr, cc, n)
                piece = vector.extract_strided_slice(_vt((1, n), elt), blk, [rr, cc], [1, n], [1, 1])
                piece = vector.shape_cast(_vt((n,), elt), piece)
                fn(td, mask, piece)

    # ---- handlers --------------------------------------------------------------------------------
    def handlers(self):
        return {
            "xetile.init_tile": self.h_init_tile,
            "xetile.update_tile_offset": self.h_update,
            "xetile.load_tile": self.h_load,
            "xetile.store_tile": self.h_store,
            "xetile.prefetch_tile": self.h_prefetch,
            "xetile.tile_unpack": self.h_unpack,
            "xetile.tile_pack": self.h_pack,
            "xetile.tile_mma": self.h_mma,
            "xetile.atomic_rmw_tile": self.h_atomic,
            "xetile.load_gather": self.h_load_gather,
            "xetile.store_scatter": self.h_store_scatter,
            "xetile.tile_transpose": self.h_transpose,
            "xetile.tile_broadcast": self.h_broadcast,
            "xetile.tile_reduce": self.h_reduce,
        }

    def plan(self, op, v=None) -> TilePlan:
        p = None
        if _PLAN_ATTR in op.attributes:
            p = self.op_plans.get(ir.IntegerAttr(op.attributes[_PLAN_ATTR]).value)
        if p is None:
            raise ConversionError(op, "tile of unknown origin")
        return p

    def h_init_tile(self, rb, op):
        tv = TileType(op.results[0].type)
        if tv.scattered:
            it = InitTileOp(op)
            return [[it.source, rb.one(it.indices)]]
        p = self.plan(op, op.results[0])
        offs = InitTileOp(op).mixed("offsets", "static_offsets")
        offs = [self.folded(rb.one(o)) if isinstance(o, ir.Value) else o for o in offs]
        if p.mode == "scatter":
            return [[self.idx(offs[0]), self.idx(offs[1])]]
        return [self.make_tdescs(p, offs)]

    def h_update(self, rb, op):
        p = self.plan(op, op.operands[0])
        u = UpdateTileOffsetOp(op)
        offs = [self.folded(rb.one(o)) if isinstance(o, ir.Value) else o for o in u.mixed("offsets", "static_offsets")]
        cur = rb.map(op.operands[0])
        if p.mode == "scatter":
            return [[self.idx(self.add(cur[0], offs[0])), self.idx(self.add(cur[1], offs[1]))]]
        moffs = [offs[1], offs[0]] if p.mem_t else offs
        out = []
        for d in cur:
            out.append(UpdateNdOffsetOp.build(tdesc=d, offsets=moffs, mode="vc",
                                              result_types=[d.type]).op.results[0])
        return [out]

    def h_load(self, rb, op):
        p = self.plan(op, op.operands[0])
        ld = LoadTileOp(op)
        vnni = _VNNI_ATTR in op.attributes and ir.BoolAttr(op.attributes[_VNNI_ATTR]).value
        f = self.vnni_f(p.elt) if vnni else 1
        # a fused tile_transpose user: this load produces the transposed value (passed through there)
        log_t = (ld.transpose == (1, 0)) != (_FUSED_T_ATTR in op.attributes)
        R, C = p.shape
        bh, bw = p.block
        res_shape, _ = vector_info(op.results[0])
        # the 2D blocks of the tile, each built from hardware sub-blocks
        tile_blocks = []
        cur = rb.map(op.operands[0])
        gi, gj = R // bh, C // bw
        if p.mode == "scatter":
            pad_attr = _padding_attr(ld.padding, p.elt)
            r0, c0 = cur
            for i in range(gi):
                for j in range(gj):
                    blk = self.scatter_load_block(p, self.add(r0, i * bh), self.add(c0, j * bw), bh, bw, pad_attr)
                    if log_t:
                        blk = vector.transpose(_vt((bw, bh), p.elt), blk, [1, 0])
                    tile_blocks.append(self.as_form(blk, 1, f))
        else:
            # one block per hardware block (grids need not use the inner block: consumers re-block)
            sh, sw = p.sub
            sgr, sgc = p.sub_dims
            need_t = log_t != p.mem_t
            subs = [self.load_sub(p, cur[k], need_t, f) for k in range(sgr * sgc)]
            if log_t:
                ordered = [subs[i * sgc + j] for j in range(sgc) for i in range(sgr)]
                return [Grid((C, R), (sw, sh), f, ordered, p.elt).blocks]
            return [Grid((R, C), (sh, sw), f, subs, p.elt).blocks]
        if log_t:
            # result block (J, I) is the transpose of tile block (I, J)
            ordered = [tile_blocks[i * gj + j] for j in range(gj) for i in range(gi)]
            g = Grid((C, R), (bw, bh), f, ordered, p.elt)
        else:
            g = Grid((R, C), (bh, bw), f, tile_blocks, p.elt)
        return [g.blocks]

    def load_sub(self, p: TilePlan, d, need_t, f):
        """Load one hardware block (memory orientation of its tdesc) as a logical block in form f."""
        mh, mw = TensorDescType(d.type).shape
        elt = p.elt
        if not need_t:
            if f > 1:
                return LoadNdOp.build(tdesc=d, mode="vc", vnni_axis=0,
                                      result_types=[_vt((mh // f, mw, f), elt)]).op.results[0]
            return LoadNdOp.build(tdesc=d, mode="vc", result_types=[_vt((mh, mw), elt)]).op.results[0]
        # the logical block is the transpose of the memory block
        if p.bits >= 32:
            return LoadNdOp.build(tdesc=d, mode="vc", transpose=(1, 0),
                                  result_types=[_vt((mw, mh), elt)]).op.results[0]
        if f > 1 and (mw * p.bits) % 32 == 0 and mw % f == 0:
            # 32-bit transpose of sub-32-bit data: the result is VNNI-packed (rfc-xetile-xegpu.md)
            return LoadNdOp.build(tdesc=d, mode="vc", transpose=(1, 0), vnni_axis=0,
                                  result_types=[_vt((mw // f, mh, f), elt)]).op.results[0]
        v = LoadNdOp.build(tdesc=d, mode="vc", result_types=[_vt((mh, mw), elt)]).op.results[0]
        v = vector.transpose(_vt((mw, mh), elt), v, [1, 0])
        return self.as_form(v, 1, f)

    def value_grid_for_tile(self, rb, p: TilePlan, old_value, blk):
        g = self.grid_of(rb, old_value)
        if g.shape != p.shape:
            raise ConversionError(old_value.owner, f"stored value {g.shape} does not match tile {p.shape}")
        return self.reblock(g, blk[0], blk[1], 1)

    def h_store(self, rb, op):
        p = self.plan(op, op.operands[1])
        cur = rb.map(op.operands[1])
        if p.mode == "scatter":
            g = self.value_grid_for_tile(rb, p, op.operands[0], p.block)
            r0, c0 = cur
            gi, gj = g.dims
            for i in range(gi):
                for j in range(gj):
                    def st(td, mask, piece):
                        StoreScatterOp.build(value=piece, tdesc=td, mask=mask, mode="vc")
                    self.scatter_rows(p, self.add(r0, i * p.block[0]), self.add(c0, j * p.block[1]), g.at(i, j), st)
            return []
        g = self.value_grid_for_tile(rb, p, op.operands[0], p.sub)
        for k, d in enumerate(cur):
            v = g.blocks[k]
            if p.mem_t:
                h, w = _vshape(v)
                v = vector.transpose(_vt((w, h), p.elt), v, [1, 0])
            StoreNdOp.build(value=v, tdesc=d, mode="vc")
        return []

    def h_prefetch(self, rb, op):
        p = self.plan(op, op.operands[0])
        if p.mode == "scatter":
            self.remark(op, f"prefetch of a tile without 2D block access dropped ({p.why})")
            return []
        for d in rb.map(op.operands[0]):
            PrefetchNdOp.build(tdesc=d, mode="vc", l1_hint="cached", l2_hint="cached")
        return []

    def h_atomic(self, rb, op):
        a = AtomicRmwTileOp(op)
        p = self.plan(op, op.operands[1])
        kind = a.kind
        if kind in ("addf", "mulf") and p.elt in ("bf16", "f16"):
            raise ConversionError(op, f"PVC has no {p.elt} atomic {kind} (rfc-xetile-xegpu.md: 'The BF16/FP16 matrix "
                                      "needs to be converted to FP32 to perform the reduction'); accumulate into an "
                                      "f32 tile (extf the value) instead")
        g = self.value_grid_for_tile(rb, p, op.operands[0], p.block)
        r0, c0 = rb.map(op.operands[1])
        olds = []
        gi, gj = g.dims
        for i in range(gi):
            for j in range(gj):
                blk = g.at(i, j)
                h, w = _vshape(blk)
                old_blk = self.zero_block(h, w, p.elt, 1)
                rows = []

                def at(td, mask, piece, rows=rows):
                    r = AtomicRmwOp.build(kind=kind, value=piece, tdesc=td, mask=mask, mode="vc",
                                          result_types=[piece.type]).op.results[0]
                    rows.append(r)
                self.scatter_rows(p, self.add(r0, i * p.block[0]), self.add(c0, j * p.block[1]), blk, at)
                k = 0
                for rr in range(h):
                    for cc, n in self.lane_pieces(w):
                        old_blk = vector.insert_strided_slice(rows[k], old_blk, [rr, cc], [1])
                        k += 1
                olds.append(old_blk)
        res = Grid(g.shape, p.block, 1, olds, p.elt)
        shp, _ = vector_info(op.results[0])
        if len(shp) == 4:
            res = self.reblock(res, shp[2], shp[3], 1)
        return [res.blocks]

    def h_unpack(self, rb, op):
        # the 2D value keeps the blocks of its source: nothing to emit
        return [list(rb.map(op.operands[0]))]

    def h_pack(self, rb, op):
        g = self.grid_of(rb, op.operands[0])
        ib = TilePackOp(op).inner_blocks
        return [self.reblock(g, ib[0], ib[1]).blocks]

    def h_transpose(self, rb, op):
        if _FUSED_T_ATTR in op.attributes:
            # its load_tile loaded the transposed value already (fuse_transpose)
            return [list(rb.map(op.operands[0]))]
        g = self.grid_of(rb, op.operands[0])
        shp, elt = vector_info(op.results[0])
        if len(shp) != 2:
            raise ConversionError(op, "tile_transpose of a blocked vector")
        gi, gj = g.dims
        bm, bn = g.block
        out = []
        for j in range(gj):
            for i in range(gi):
                b = self.as_form(g.at(i, j), g.vnni, 1)
                out.append(vector.transpose(_vt((bn, bm), elt), b, [1, 0]))
        return [out]

    def h_broadcast(self, rb, op):
        """tile_broadcast of a row (dims [0]) or column (dims [1]) vector: every result block is a
        vector.broadcast of the matching source piece (a 1 x bn row or a bm x 1 column)."""
        g = self.grid_of(rb, op.operands[0])
        dims = tuple(TileBroadcastOp(op).broadcast_dims)
        shp, elt = vector_info(op.results[0])
        if len(shp) == 4:
            (R, C), (bm, bn) = (shp[0] * shp[2], shp[1] * shp[3]), (shp[2], shp[3])
        else:
            R, C = shp
            bm = next(d for d in range(min(R, self.arch.dpas.max_repeat_count), 0, -1) if R % d == 0)
            bn = g.block[1] if 1 not in dims else C
        sbm, sbn = (1 if 0 in dims else bm), (1 if 1 in dims else bn)
        src = self.reblock(g, sbm, sbn, 1)
        out = []
        for i in range(R // bm):
            for j in range(C // bn):
                piece = src.at(0 if 0 in dims else i, 0 if 1 in dims else j)
                out.append(vector.broadcast(_vt((bm, bn), elt), piece))
        return [out]

    def h_reduce(self, rb, op):
        """tile_reduce over columns (dims [1], 4D [1, 3]), rows ([0] / [0, 2]) or both: per block row
        (column) a chain of `vector.multi_reduction` ops, each block's reduction accumulating onto
        the previous one (the first block starts from its own first column / row, so no identity
        value is needed); the result blocks are bm x 1 (1 x bn) pieces of the R x 1 (1 x C) result."""
        r = TileReduceOp(op)
        g = self.grid_of(rb, op.operands[0])
        g = self.reblock(g, *g.block, 1)   # plain (not VNNI) blocks
        src_shape, elt = vector_info(op.operands[0])
        dims = set(r.reduction_dims)
        if len(src_shape) == 4:
            dims = {d % 2 for d in dims}
        kind = ir.Attribute.parse(f"#vector.kind<{r.kind}>")
        bm, bn = g.block
        gm, gn = g.dims
        et = _elt_type(elt)

        def reduce_blocks(blocks, axis):
            """Reduce a list of (bm, bn) blocks along `axis` (1: columns, 0: rows) into one vector."""
            keep = bm if axis == 1 else bn
            first = blocks[0]
            if axis == 1:
                acc = vector.shape_cast(_vt((keep,), elt), self.slice(first, 1, 0, 0, bm, 1))
                rest = self.slice(first, 1, 0, 1, bm, bn - 1) if bn > 1 else None
            else:
                acc = vector.shape_cast(_vt((keep,), elt), self.slice(first, 1, 0, 0, 1, bn))
                rest = self.slice(first, 1, 1, 0, bm - 1, bn) if bm > 1 else None
            for blk in ([rest] if rest is not None else []) + blocks[1:]:
                acc = vector.multi_reduction(kind, blk, acc, [axis])
            return acc

        out = []
        if dims == {1}:
            for i in range(gm):
                v = reduce_blocks([g.at(i, j) for j in range(gn)], 1)
                out.append(vector.shape_cast(_vt((bm, 1), elt), v))
        elif dims == {0}:
            for j in range(gn):
                v = reduce_blocks([g.at(i, j) for i in range(gm)], 0)
                out.append(vector.shape_cast(_vt((1, bn), elt), v))
        elif dims == {0, 1}:
            rows = [reduce_blocks([g.at(i, j) for j in range(gn)], 1) for i in range(gm)]   # vector<bm> each
            acc = None
            for v in rows:
                acc = vector.reduction(et, kind, v, acc=acc) if acc is not None else vector.reduction(et, kind, v)
            out.append(vector.broadcast(_vt((1, 1), elt), acc))
        else:
            raise ConversionError(op, f"tile_reduce over dimensions {sorted(r.reduction_dims)} of {src_shape}")
        res_shape, _ = vector_info(op.results[0])
        if len(res_shape) == 4 and out:
            want = (res_shape[2], res_shape[3])
            have = _vshape(out[0])
            if tuple(have) != want:
                blk = Grid((res_shape[0] * want[0], res_shape[1] * want[1]), tuple(have), 1, out, elt)
                out = self.reblock(blk, *want, 1).blocks
        return [out]

    def h_mma(self, rb, op):
        m = TileMmaOp(op)
        sa, ea = vector_info(m.a)
        sb, eb = vector_info(m.b)
        sr, er = vector_info(op.results[0])
        try:
            max_m, n_d, k_d = self.arch.dpas_shape(ea, eb, er)
        except ArchError as e:
            raise ConversionError(op, str(e))
        ga = self.grid_of(rb, m.a)
        gb = self.grid_of(rb, m.b)
        gc = self.grid_of(rb, m.c) if m.c is not None else None
        if len(sa) == 2:
            # an unblocked (subgroup-level) tile_mma: DPAS-sized blocks
            (M, K), (_, N) = sa, sb
            bm = next((d for d in range(max_m, 0, -1) if M % d == 0), 1)
            bk, bn = k_d, n_d
            if K % k_d or N % n_d:
                raise ConversionError(op, f"tile_mma {M}x{K} x {K}x{N}: K must be a multiple of the DPAS K = {k_d} "
                                          f"and N of the DPAS N = {n_d} for {ea}")
            sa, sb = (M // bm, K // bk, bm, bk), (K // bk, N // bn, bk, bn)
        mb, kb, bm, bk = sa
        _, nb, _, bn = sb
        fb = self.vnni_f(eb)
        if bk % k_d:
            raise ConversionError(op, f"the K block {bk} is not a multiple of the DPAS K = {k_d} for {ea}")
        if bn % n_d:
            raise ConversionError(op, f"the N block {bn} is not a multiple of the DPAS N = {n_d}")
        dm = next(d for d in range(min(bm, max_m), 0, -1) if bm % d == 0)
        a_blocks = self.reblock(ga, bm, bk, 1)
        b_blocks = self.reblock(gb, bk, bn, fb)
        c_blocks = self.reblock(gc, bm, bn, 1) if gc is not None else None
        acc_t = _vt((dm, n_d), er)
        out = []
        for i in range(mb):
            for j in range(nb):
                cblk = c_blocks.at(i, j) if c_blocks is not None else None
                subs = {}
                for si in range(bm // dm):
                    for sj in range(bn // n_d):
                        acc = self.slice(cblk, 1, si * dm, sj * n_d, dm, n_d) if cblk is not None else None
                        for kk in range(kb):
                            ablk = a_blocks.at(i, kk)
                            bblk = b_blocks.at(kk, j)
                            for sk in range(bk // k_d):
                                a = self.slice(ablk, 1, si * dm, sk * k_d, dm, k_d)
                                b = self.slice(bblk, fb, sk * k_d, sj * n_d, k_d, n_d)
                                kw = {"acc": acc} if acc is not None else {}
                                acc = DpasOp.build(a=a, b=b, mode="vc", result_types=[acc_t], **kw).op.results[0]
                        subs[(si, sj)] = acc
                if len(subs) == 1:
                    out.append(subs[(0, 0)])
                    continue
                dest = self.zero_block(bm, bn, er, 1)
                for (si, sj), v in subs.items():
                    dest = self.insert(v, dest, 1, si * dm, sj * n_d)
                out.append(dest)
        return [out]

    def h_load_gather(self, rb, op):
        g = XtLoadGatherOp(op)
        src, indices = rb.map(g.tile)
        mask = rb.one(g.mask)
        shp, elt = vector_info(op.results[0])
        pad_attr = _padding_attr(g.padding, elt)
        return [[self._gather2d(src, indices, mask, shp, elt, TileType(g.tile.type), pad_attr)]]

    def _scatter_tdesc(self, src, offs, n, elt, tt):
        fields = {"scattered": True}
        if tt.memory_space == 3:
            fields["memory_scope"] = "slm"
        t = TensorDescType.get([n], elt, **fields)
        return CreateTdescOp.build(source=src, offsets=offs, mode="vc", result_types=[t]).op.results[0]

    def _row_slices(self, v, r, cc, n):
        elt = _velt(v)
        s = vector.extract_strided_slice(_vt((1, n), elt), v, [r, cc], [1, n], [1, 1])
        return vector.shape_cast(_vt((n,), elt), s)

    def _gather2d(self, src, indices, mask, shp, elt, tt, pad_attr):
        R, C = shp
        dest = self.zero_block(R, C, elt, 1)
        for r in range(R):
            for cc, n in self.lane_pieces(C):
                offs = self._row_slices(indices, r, cc, n)
                m = self._row_slices(mask, r, cc, n)
                td = self._scatter_tdesc(src, offs, n, elt, tt)
                v = LoadGatherOp.build(tdesc=td, mask=m, mode="vc", result_types=[_vt((n,), elt)]).op.results[0]
                padv = _splat((n,), elt, pad_attr if pad_attr is not None else _zero_attr(elt))
                v = arith.SelectOp(m, v, padv).result
                dest = vector.insert_strided_slice(v, dest, [r, cc], [1])
        return dest

    def h_store_scatter(self, rb, op):
        s = XtStoreScatterOp(op)
        src, indices = rb.map(s.tile)
        g = self.grid_of(rb, s.value)
        val = self.reblock(g, g.shape[0], g.shape[1], 1).blocks[0]
        mask = rb.one(s.mask)
        R, C = g.shape
        tt = TileType(s.tile.type)
        for r in range(R):
            for cc, n in self.lane_pieces(C):
                offs = self._row_slices(indices, r, cc, n)
                m = self._row_slices(mask, r, cc, n)
                td = self._scatter_tdesc(src, offs, n, g.elt, tt)
                StoreScatterOp.build(value=self._row_slices(val, r, cc, n), tdesc=td, mask=m, mode="vc")
        return []

    # ---- generic element-wise ops ----------------------------------------------------------------
    def elementwise(self, rb, op):
        """Per-block clone of an arith/math op (or a vector.broadcast of a scalar) on grids."""
        name = op.name
        results = list(op.results)
        if len(results) != 1:
            return None
        rt = results[0].type
        if not _is_vector(rt):
            return None
        shp, relt = vector_info(results[0])
        vec_operands = [v for v in op.operands if _is_vector(v.type)]
        changed = any(rb.is_changed(v) for v in vec_operands)
        if len(shp) != 4 and not changed:
            return None
        if name == "arith.constant":
            return [self.const_blocks(op, shp, relt)]
        if name in ("vector.broadcast", "vector.splat"):
            src = op.operands[0]
            if _is_vector(src.type):
                raise ConversionError(op, "vector.broadcast of a vector onto a blocked vector is not supported; "
                                          "use xetile.tile_broadcast")
            R, C, bm, bn = (shp[0] * shp[2], shp[1] * shp[3], shp[2], shp[3]) if len(shp) == 4 else (*shp, *shp)
            v = vector.broadcast(_vt((bm, bn), relt), rb.one(src))
            return [[v] * ((R // bm) * (C // bn))]
        if not (name.startswith("arith.") or name.startswith("math.")):
            raise ConversionError(op, f"'{name}' on a blocked vector is not supported by convert-xetile-to-xegpu")
        grids = {}
        ref = None
        for v in vec_operands:
            g = self.grid_of(rb, v)
            grids[v] = g
            if ref is None or (g.vnni == 1 and ref.vnni > 1):
                ref = g
        if ref is None:
            return None
        form = ref.vnni if all(g.vnni == ref.vnni for g in grids.values()) else 1
        aligned = {v: self.reblock(g, ref.block[0], ref.block[1], form) for v, g in grids.items()}
        n = len(ref.blocks)
        bm, bn = ref.block
        out = []
        attrs = _attr_dict(op)
        for k in range(n):
            operands = []
            for v in op.operands:
                operands.append(aligned[v].blocks[k] if v in aligned else rb.one(v))
            rtype = self.block_type(bm, bn, relt, form)
            new = ir.Operation.create(name, results=[rtype], operands=operands, attributes=attrs)
            out.append(new.results[0])
        return [out]

    def splat_accumulator(self, v):
        """A 2D splat constant starting a loop-carried value (e.g. a zero GEMM accumulator) as a
        grid of DPAS result blocks, so that the loop carries the blocks tile_mma produces."""
        op = _op_of(v)
        if op is None or op.name != "arith.constant":
            return None
        shp, elt = vector_info(v)
        dense = ir.DenseElementsAttr(op.attributes["value"])
        if len(shp) != 2 or not dense.is_splat:
            return None
        R, C = shp
        bm = next(d for d in range(min(R, self.arch.dpas.max_repeat_count), 0, -1) if R % d == 0)
        bn = self.arch.dpas.exec_size if C % self.arch.dpas.exec_size == 0 else C
        return [_splat((bm, bn), elt, dense.get_splat_value())] * ((R // bm) * (C // bn))

    def const_blocks(self, op, shp, elt):
        attr = op.attributes["value"]
        dense = ir.DenseElementsAttr(attr)
        if len(shp) == 4:
            gm, gn, bm, bn = shp
        else:
            gm, gn, bm, bn = 1, 1, shp[0], shp[1]
        if dense.is_splat:
            v = _splat((bm, bn), elt, dense.get_splat_value())
            return [v] * (gm * gn)
        if len(shp) == 2:
            return [op.results[0]]
        raise ConversionError(op, "non-splat constants of blocked vectors are not supported")

    # ---- driver ---------------------------------------------------------------------------------
    def run(self) -> bool:
        if not self.has_xetile():
            return True
        if not self.analyse():
            for o, msg in self.errors:
                self.ctx.error(o, msg)
            return False
        handlers = self.handlers()
        conv = self

        class _RB(Rebuilder):
            def process_op(self, op):
                h = self.handlers.get(op.name)
                if h is None and op.name not in ("scf.for", "scf.yield"):
                    with ir.InsertionPoint(op), op.location:
                        res = conv.elementwise(self, op)
                    if res is not None:
                        for old, new in zip(op.results, res):
                            self.set(old, new)
                        return True
                return super().process_op(op)

            # loop-carried grids: the yielded blocks follow the block shape and form of the init
            specs: list = []

            def _for(self, op):
                inits = list(op.operands)[3:]
                spec = []
                with ir.InsertionPoint(op), op.location:
                    for v in inits:
                        if _is_vector(v.type) and not self.is_changed(v):
                            blocks = conv.splat_accumulator(v)
                            if blocks is not None:
                                self.set(v, blocks)
                        if _is_vector(v.type) and self.is_changed(v):
                            g = conv.grid_of(self, v)
                            spec.append((g.block, g.vnni))
                        else:
                            spec.append(None)
                self.specs.append(spec)
                try:
                    return super()._for(op)
                finally:
                    self.specs.pop()

            def _yield(self, op):
                parent = op.parent
                parent = parent.operation if parent is not None and hasattr(parent, "operation") else parent
                if self.specs and parent is not None and parent.name == "scf.for":
                    spec = self.specs[-1]
                    with ir.InsertionPoint(op), op.location:
                        for v, sp in zip(op.operands, spec):
                            if sp is not None:
                                g = conv.grid_of(self, v)
                                if (g.block, g.vnni) != sp:
                                    self.set(v, conv.reblock(g, sp[0][0], sp[0][1], sp[1]).blocks)
                return super()._yield(op)

        rb = _RB(handlers)
        try:
            for region in self.func.regions:
                for block in region.blocks:
                    rb.process_block(block)
        except (ConversionError, RewriteError) as e:
            self.ctx.error(e.op if e.op is not None else self.func, e.message)
            return False
        left = [o for o in _walk_ops(self.func) if o.name.startswith("xetile.")]
        if left:
            self.ctx.error(left[0], f"'{left[0].name}' was not converted to XeGPU")
            return False
        return True


def _is_work_group_level(op) -> bool:
    """Does an XeTile op carry a work-group map (on an attribute or a tile type)?"""
    if any(n.startswith("wg_map") for n in _attr_dict(op)):
        return True
    vals = list(op.operands) + list(op.results)
    return any(str(v.type).startswith("!xetile.tile") and TileType(v.type).wg_map is not None for v in vals)


def memref_view(t):
    """(shape, elt, strides, memory space) of a memref type/value with None for dynamic entries.
    (`core.typeinfo.memref_info` reports no strides with these bindings.)"""
    mi = memref_info(t)
    if mi is None:
        return None
    shape, elt, strides, space = mi
    if strides is None:
        m = ir.MemRefType(t.type if isinstance(t, ir.Value) else t)
        try:
            st, _off = m.get_strides_and_offset()
            strides = tuple(None if s == DYNAMIC else s for s in st)
        except Exception:  # noqa: BLE001 - non-strided layouts
            strides = None
    return shape, elt, strides, space


def _op_of(v):
    o = v.owner
    if isinstance(o, ir.Block):
        return None
    return o.operation if hasattr(o, "operation") else o


def _identity_layout(v) -> bool:
    try:
        m = ir.MemRefType(v.type)
    except (ValueError, TypeError):
        return False
    return str(m.layout).startswith("affine_map<(d0, d1) -> (d0, d1)>")


def _is_zero_padding(text) -> bool:
    t = str(text).split(":")[0].strip()
    try:
        return float(t) == 0.0
    except ValueError:
        return False


def _padding_attr(text, elt):
    if text is None or _is_zero_padding(text):
        return None
    val = str(text).split(":")[0].strip()
    t = _elt_type(elt)
    if elt.startswith(("f", "bf", "tf")):
        return ir.FloatAttr.get(t, float(val))
    return ir.IntegerAttr.get(t, int(float(val)))


def convert_module(module_op, ctx, arch="pvc", options=None) -> bool:
    """Convert every function of `module_op` (returns False after reporting errors on `ctx`)."""
    a = get_arch(arch)
    ok = True
    for func in _functions(module_op):
        ok = Converter(func, a, ctx, options).run() and ok
    return ok


# ------------------------------------------------------------------------------------------------
# registration

from ...passes.registry import Option, register_pass, register_pipeline  # noqa: E402


@register_pass("convert-xetile-to-xegpu",
               "Lower blocked subgroup XeTile to VC-mode XeGPU (one op per hardware instruction)",
               options=[Option("arch", str, "pvc", "target architecture")])
def convert_xetile_to_xegpu(module_op, options, ctx):
    try:
        arch = get_arch(_opt(options, "arch", "pvc"))
    except ArchError as e:
        ctx.error(module_op, str(e))
        return False
    return convert_module(module_op, ctx, arch, options)


# pipeline.md stages 0-4 (tensor programs are bufferized first, a no-op on memrefs); the other
# passes are resolved by name when the pipeline runs
register_pipeline(
    "xe-gemm-to-xegpu",
    "linalg.matmul (tensors or memrefs) to VC-mode XeGPU (docs/pipeline.md stages 0-4: work-group "
    "XeTile, subgroup XeTile, canonical row-major tiles, blocked XeTile sized to the hardware, XeGPU)",
    "builtin.module(xe-bufferize, convert-linalg-to-xetile, xetile-wg-to-sg, xetile-canonicalize, "
    "xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse)")


