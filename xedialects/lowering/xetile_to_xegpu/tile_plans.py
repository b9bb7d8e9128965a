"""Analysis of `convert-xetile-to-xegpu`: one `TilePlan` per tile (an init_tile, its
update_tile_offset chain and loop carries). `analyse` collects the accesses of each tile (loads with
their VNNI / transpose form, stores, prefetches, atomics, padding), fuses a load with the
tile_transpose that is its only user where one load can do both, and tags every XeTile op with
its plan (a temporary attribute, as ops are re-created when loops are rebuilt). `choose_blocks`
then picks nd mode with the largest hardware block legal for every access (`XeArch` tables), or
scatter mode with the reason (shared local memory, atomics, padding, illegal surfaces).
"""
from __future__ import annotations

from mlir import ir

from ...arch import XeArch
from ...core.kinds import DYNAMIC
from ...core.typeinfo import memref_info, vector_info
from ...passes.utils.ir_walk import attr_dict as _attr_dict, walk as _walk_ops
from ...core.memory_space import is_slm_space
from ...xetile.attributes import TileType
from ...xetile.ops import InitTileOp, LoadTileOp, TileTransposeOp
from .converter import Converter
from .ir_helpers import FUSED_T_ATTR, PLAN_ATTR, VNNI_ATTR, ConversionError, is_zero_padding
from .tile_plan import TilePlan
from .unsupported_forms import unsupported_form


def analyse(cv: Converter) -> bool:
    for op in _walk_ops(cv.func):
        if op.name.startswith("xetile.") and _is_work_group_level(op):
            cv.errors.append((op, f"'{op.name}' is work-group level XeTile (wg_map); distribute it to "
                                    f"subgroups with xetile-wg-to-sg before convert-xetile-to-xegpu"))
            return False
    for op in _walk_ops(cv.func):
        name = op.name
        if name == "xetile.init_tile":
            if TileType(op.results[0].type).scattered:
                continue       # scattered tiles: load_gather / store_scatter use their offsets
            why = unsupported_form(op)
            if why:
                cv.errors.append((op, why))
                continue
            try:
                plan = make_plan(op)
            except ConversionError as e:
                cv.errors.append((e.op, e.message))
                continue
            cv.plans[op.results[0]] = plan
        elif name == "xetile.update_tile_offset":
            p = cv.plans.get(op.operands[0])
            if p is not None:
                cv.plans[op.results[0]] = p
        elif name == "scf.for":
            inits = list(op.operands)[3:]
            body = op.regions[0].blocks[0]
            for i, v in enumerate(inits):
                p = cv.plans.get(v)
                if p is not None:
                    cv.plans[body.arguments[i + 1]] = p
                    cv.plans[op.results[i]] = p
    # kinds of access per plan, VNNI decisions per load
    for op in _walk_ops(cv.func):
        name = op.name
        if name in ("xetile.load_tile", "xetile.store_tile", "xetile.prefetch_tile", "xetile.atomic_rmw_tile"):
            tile = op.operands[1] if name in ("xetile.store_tile", "xetile.atomic_rmw_tile") else op.operands[0]
            if name == "xetile.atomic_rmw_tile" and TileType(tile.type).scattered:
                continue       # IMEX: atomics on a scattered tile (imex_forms)
            p = cv.plans.get(tile)
            if p is None:
                cv.errors.append((op, f"'{name}' on a tile whose origin is not a visible xetile.init_tile "
                                        "(tiles may flow through scf.for iter_args only)"))
                continue
            if name == "xetile.load_tile":
                ld = LoadTileOp(op)
                fused = fuse_transpose(op, p)
                value = fused.results[0] if fused is not None else op.results[0]
                vnni = p.bits < 32 and feeds_mma_b(value)
                op.attributes[VNNI_ATTR] = ir.BoolAttr.get(vnni)
                transpose = (ld.transpose == (1, 0)) != p.mem_t
                if fused is not None:
                    op.attributes[FUSED_T_ATTR] = ir.UnitAttr.get()
                    fused.attributes[FUSED_T_ATTR] = ir.UnitAttr.get()
                    transpose = not transpose
                p.kinds.add(("load", vnni, transpose))
                if ld.padding is not None and not is_zero_padding(ld.padding):
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
    for op in _walk_ops(cv.func):
        p = None
        if op.name == "xetile.init_tile":
            p = cv.plans.get(op.results[0])
        elif op.name.startswith("xetile."):
            p = next((cv.plans[v] for v in op.operands if v in cv.plans), None)
        if p is not None:
            pid = plan_ids.setdefault(id(p), len(plan_ids))
            cv.op_plans[pid] = p
            op.attributes[PLAN_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), pid)
    for p in {id(p): p for p in cv.plans.values()}.values():
        choose_blocks(cv, p)
    return not cv.errors


def fuse_transpose(op, p):
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
    if not need_t or p.bits >= 32 or feeds_mma_b(user.results[0]):
        return user
    return None


def feeds_mma_b(value) -> bool:
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


def make_plan(op) -> TilePlan:
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
        mshape, _elt, mstrides, _space = mi
        if is_slm_space(ir.MemRefType(src.type if isinstance(src, ir.Value) else src).memory_space):
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


def choose_blocks(cv: Converter, p: TilePlan) -> None:
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
        ok, why = surface_ok(cv.arch, p)
        if not ok:
            p.mode, p.why = "scatter", why
    if p.mode == "nd":
        bh, bw = p.block
        cands = [(h, w) for h in _divisors_desc(bh) for w in _divisors_desc(bw)]
        cands.sort(key=lambda hw: (-(hw[0] * hw[1]), -hw[1]))
        reasons = []
        for h, w in cands:
            why = block_problem(cv.arch, p, h, w)
            if not why:
                p.sub = (h, w)
                break
            if (h, w) == p.block:
                reasons.append(why)
        else:
            p.mode = "scatter"
            p.why = f"no legal 2D block divides the {bh}x{bw} block" + (f" ({reasons[0]})" if reasons else "")
        if p.mode == "nd" and p.sub != p.block and p.kinds and p.blocked:
            cv.remark(p.origin, f"hardware blocks {p.sub[0]}x{p.sub[1]} for the {p.block[0]}x{p.block[1]} "
                                  f"inner block ({reasons[0] if reasons else 'not legal for every access'})")
    if p.mode == "scatter" and p.kinds - {("prefetch", False, False)}:
        cv.remark(p.origin, f"tile {p.shape[0]}x{p.shape[1]}x{p.elt} is accessed with scattered "
                              f"loads/stores: {p.why}")


def surface_ok(arch: XeArch, p: TilePlan):
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
        s = arch.surface
        if isinstance(pitch, int) and pitch is not None:
            pb = pitch * eb
            if pb % s.pitch_align or pb < s.min_pitch_bytes:
                return False, f"pitch {pb} B (must be a multiple of {s.pitch_align} B and >= {s.min_pitch_bytes} B)"
        if isinstance(cols, int) and cols is not None:
            wb = cols * eb
            if wb < s.min_width_bytes or wb % s.width_align:
                return False, f"surface width {wb} B (must be >= {s.min_width_bytes} B, multiple of {s.width_align} B)"
        return True, ""
    ok, why = arch.legal_surface(arch.surface.base_align, pitch * eb, cols * eb, rows)
    return ok, why


def block_problem(arch: XeArch, p: TilePlan, h, w) -> str:
    """Empty string when an h x w logical block is legal for every access kind of the tile."""
    a = arch
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


def _divisors_desc(n):
    return [d for d in range(n, 0, -1) if n % d == 0]


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


def _identity_layout(v) -> bool:
    try:
        m = ir.MemRefType(v.type)
    except (ValueError, TypeError):
        return False
    return str(m.layout).startswith("affine_map<(d0, d1) -> (d0, d1)>")
