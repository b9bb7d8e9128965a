"""Simulator handlers for `xegpu.*` in VC mode (a batch element is a subgroup) and SIMT mode (a
work-item: ops compute the subgroup block and distribute it per lane by `sg_map`; SIMT `dpas`
reassembles A/B/C from the lanes). Descriptor memory access is in descriptors.py, the dpas
multiply-accumulate model in numerics.py; `xegpu.update_nd_offset` is handled in xetile.py.
"""
from __future__ import annotations

import numpy as np

from ..core import SUBGROUP_SIZE, ExecState, FuncCompiler, NBarState, OpInfo, SimError, handler
from ..memory import MemRef
from ...xegpu.distribution import fragment_coords, lane_coords, vnni_pack
from ..numerics import multiply_accumulate, operand
from ..typeinfo import SgMap, elem_bits, vnni_factor
from .descriptors import (NdDesc, ScatterDesc, addr_source, make_nd, mask_full, memref_source, nd_load, nd_store,
                          scatter_addr, scatter_check, scatter_load, scatter_store, select_field, trace_block)
from .memref_access import atomic_apply


# ----------------------------------------------------------------------------------------------
# mode checks


def _is_vc(o: OpInfo) -> bool:
    return o.str("mode") == "vc"


def _check_mode(c: FuncCompiler, o: OpInfo):
    vc = _is_vc(o)
    if vc and c.level == "simt":
        o.error("simulator: VC-mode xegpu op in a kernel that runs per work-item (it also uses SIMT-mode "
                "xegpu ops or lane/thread ids)")
    if c.level == "workgroup":
        o.error("simulator: xegpu ops in a kernel executed at work-group level (wg_map tiles)")
    return vc


# ----------------------------------------------------------------------------------------------
# nd descriptors: block load/store/prefetch


@handler("xegpu.create_nd_tdesc")
def _create_nd(c, o):
    _check_mode(c, o)
    seg = o.segments(4)
    while len(seg) < 4:
        seg.append([])
    src = seg[0][0]
    t = o.out_types[0]
    r = o.outs[0]
    if t.kind != "tdesc":
        o.error(f"create_nd_tdesc result must be a !xegpu.tensor_desc, got {t.text}")

    def f(env, st):
        env[r] = make_nd(st, o, t, env[src], seg[1], seg[2], seg[3], env)

    return f


def lane_tables(shape, sg: SgMap, what="sg_map"):
    """Per-lane element coordinates of a block distributed by sg_map: (rows, cols), each (16, Lh, Lw)."""
    try:
        return lane_coords(shape, sg.wi_layout, sg.wi_data, SUBGROUP_SIZE)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None


def _vnni(x: np.ndarray, axis: int, f: int) -> np.ndarray:
    """VNNI transform of (..., R, C): axis 0 -> (..., R/f, C, f); axis 1 -> (..., R, C/f, f)."""
    return vnni_pack(x, axis, f)


def _load_shape(shape, perm, vnni_axis, f):
    s = tuple(shape) if perm is None else tuple(shape[p] for p in perm)
    if vnni_axis is None:
        return s
    if len(s) != 2:
        raise ValueError("vnni_axis on a non-2D block")
    R, C = s
    return (R // f, C, f) if vnni_axis == 0 else (R, C // f, f)


@handler("xegpu.load_nd")
def _load_nd(c, o):
    vc = _check_mode(c, o)
    d, r = o.ins[0], o.outs[0]
    t, rt = o.in_types[0], o.out_types[0]
    perm = o.ints("transpose")
    vnni_axis = o.int("vnni_axis")
    f_ = vnni_factor(t.elem)
    if vnni_axis is not None and f_ == 1:
        vnni_axis = None  # 32-bit data: VNNI is the identity
    clip = t.boundary_check
    shape = t.shape
    nbytes = int(np.prod(shape)) * t.itemsize
    what = "xegpu.load_nd"
    if vc:
        try:
            exp = _load_shape(shape, perm, vnni_axis, f_)
        except ValueError as e:
            o.error(str(e))
        if exp != rt.shape:
            if int(np.prod(exp)) != int(np.prod(rt.shape)):
                o.error(f"load_nd result {rt.text} does not match the loaded block {list(exp)}")
        pperm = None if perm is None else [0] + [p + 1 for p in perm]

        def f(env, st):
            v = nd_load(st, env[d], None, shape, what, clip)
            if pperm is not None:
                v = v.transpose(pperm)
            if vnni_axis is not None:
                v = _vnni(v, vnni_axis, f_)
            if v.shape[1:] != rt.shape:
                v = v.reshape((v.shape[0],) + rt.shape)
            env[r] = v
            trace_block(st, "load", nbytes)

        return f
    # SIMT: each lane loads its fragment of the block (sg_map over the memory block)
    if t.sg_map is None:
        o.error("SIMT-mode load_nd needs a tensor_desc with sg_map")
    try:
        rows, cols = lane_tables(shape, t.sg_map)
    except ValueError as e:
        o.error(str(e))
    Lh, Lw = rows.shape[1:]
    lshape = _load_shape((Lh, Lw), perm, vnni_axis, f_)
    if int(np.prod(lshape)) != int(np.prod(rt.shape)):
        o.error(f"SIMT load_nd: per-work-item result {rt.text} does not hold the {Lh * Lw} elements "
                f"distributed by {t.sg_map}")
    two_d = len(shape) == 2

    def f(env, st):
        lane = st.lane
        rel = [rows[lane], cols[lane]] if two_d else [cols[lane][:, 0, :]]
        bsh = (Lh, Lw) if two_d else (Lw,)
        v = nd_load(st, env[d], rel, bsh, what, clip)
        v = v.reshape((v.shape[0], Lh, Lw))
        if perm is not None:
            v = v.transpose(0, 2, 1)
        if vnni_axis is not None:
            v = _vnni(v, vnni_axis, f_)
        env[r] = v.reshape((v.shape[0],) + rt.shape)
        trace_block(st, "load", nbytes)

    return f


@handler("xegpu.store_nd")
def _store_nd(c, o):
    vc = _check_mode(c, o)
    vslot, d = o.ins[:2]
    vt, t = o.in_types[0], o.in_types[1]
    clip = t.boundary_check
    shape = t.shape
    nbytes = int(np.prod(shape)) * t.itemsize
    what = "xegpu.store_nd"
    if vc:
        if int(np.prod(vt.shape)) != int(np.prod(shape)):
            o.error(f"store_nd value {vt.text} does not match the descriptor block {list(shape)}")

        def f(env, st):
            v = env[vslot]
            v = v.reshape((v.shape[0],) + tuple(shape))
            nd_store(st, env[d], None, shape, v, what, clip)
            trace_block(st, "store", nbytes)

        return f
    if t.sg_map is None:
        o.error("SIMT-mode store_nd needs a tensor_desc with sg_map")
    try:
        rows, cols = lane_tables(shape, t.sg_map)
    except ValueError as e:
        o.error(str(e))
    Lh, Lw = rows.shape[1:]
    if int(np.prod(vt.shape)) != Lh * Lw:
        o.error(f"SIMT store_nd: per-work-item value {vt.text} does not hold the {Lh * Lw} elements "
                f"distributed by {t.sg_map}")
    two_d = len(shape) == 2

    def f(env, st):
        lane = st.lane
        v = env[vslot]
        rel = [rows[lane], cols[lane]] if two_d else [cols[lane][:, 0, :]]
        bsh = (Lh, Lw) if two_d else (Lw,)
        nd_store(st, env[d], rel, bsh, v.reshape((v.shape[0],) + bsh), what, clip)
        trace_block(st, "store", nbytes)

    return f


@handler("xegpu.prefetch_nd")
def _prefetch_nd(c, o):
    _check_mode(c, o)
    t = o.in_types[0]
    d = o.ins[0]
    nbytes = int(np.prod(t.shape)) * t.itemsize

    def f(env, st):
        if not isinstance(env[d], NdDesc):
            raise SimError("prefetch_nd of a non-nd descriptor")
        trace_block(st, "prefetch", nbytes)

    return f


# ----------------------------------------------------------------------------------------------
# dpas


def _dpas_operand_2d(x: np.ndarray, which: str, shape_hint):
    """Bring a VC dpas operand to 2D: A (M,K) from (M,K/f,f); B (K,N) from (K/f,N,f)."""
    if which == "a":
        if x.ndim == 4:
            nb, M, Kf, f = x.shape
            return x.reshape(nb, M, Kf * f)
        return x
    if x.ndim == 4:
        nb, Kf, N, f = x.shape
        return x.swapaxes(2, 3).reshape(nb, Kf * f, N)
    return x


def _simt_layout_of(c: FuncCompiler, slot, default: tuple):
    """(sg_map, transpose, vnni_axis) of a SIMT dpas operand: from its defining load_nd if any."""
    d = c.defs.get(slot)
    if d is not None and d.name == "xegpu.load_nd" and d.in_types[0].sg_map is not None:
        t = d.in_types[0]
        va = d.int("vnni_axis")
        if va is not None and vnni_factor(t.elem) == 1:
            va = None
        return t.sg_map, d.ints("transpose"), va, t.shape
    return default


def _flat_coords(shape2d, layout):
    """(rows, cols) (16, n) of each lane's flattened fragment for a 2D operand."""
    sg, perm, va, mshape = layout[:4]
    try:
        rows, cols = fragment_coords(mshape, sg.wi_layout, sg.wi_data, perm is not None, va,
                                     vnni_factor_from_layout(layout))
    except ValueError as e:
        raise ValueError(f"sg_map: {e}") from None
    # matrix coordinates are of the transposed block
    return (cols, rows) if perm is not None else (rows, cols)


def vnni_factor_from_layout(layout):
    return layout[4] if len(layout) > 4 else 2


@handler("xegpu.dpas")
def _dpas(c, o):
    vc = _check_mode(c, o)
    a, b = o.ins[:2]
    acc = o.ins[2] if len(o.ins) > 2 else None
    at, bt, rt = o.in_types[0], o.in_types[1], o.out_types[0]
    r = o.outs[0]
    ea, eb = at.elem, bt.elem
    dt = rt.dtype
    if vc:
        As = at.shape if at.rank == 2 else (at.shape[0], at.shape[1] * at.shape[2])
        Bs = bt.shape if bt.rank == 2 else (bt.shape[0] * bt.shape[2], bt.shape[1])
        M, K = As
        K2, N = Bs
        if K != K2 or rt.shape != (M, N):
            o.error(f"dpas shapes do not agree: {at.text} x {bt.text} -> {rt.text}")
        if bt.rank == 2 and elem_bits(eb) < 32:
            o.error(f"dpas: the B operand of {eb} data must be in VNNI layout (vector<K/{vnni_factor(eb)}xNx"
                    f"{vnni_factor(eb)}>)")
        flops = 2 * M * N * K

        def a_matrix(v):
            return _dpas_operand_2d(v, "a", As)

        def b_matrix(v):
            return _dpas_operand_2d(v, "b", Bs)

        def f(env, st):
            A = operand(env[a], ea, dpas=True, view=(a_matrix, ("dpas-a", As)), remember=True)
            B = operand(env[b], eb, dpas=True, view=(b_matrix, ("dpas-b", Bs)), remember=True)
            env[r] = multiply_accumulate(A, B, env[acc] if acc is not None else None, dt)
            tr = st.trace
            if tr is not None:
                n = st.active_count()
                tr.dpas += n
                tr.dpas_flops += n * flops

        return f
    # SIMT: assemble the subgroup matrices from the lanes' fragments
    fa, fb = vnni_factor(ea), vnni_factor(eb)
    na, nb_, nc = int(np.prod(at.shape)), int(np.prod(bt.shape)), int(np.prod(rt.shape))
    N = SUBGROUP_SIZE  # C is M x 16: one column per lane
    M = nc
    K = na * SUBGROUP_SIZE // M
    if nb_ * SUBGROUP_SIZE != K * N:
        o.error(f"SIMT dpas: per-lane shapes {at.text}, {bt.text}, {rt.text} do not form an MxK x KxN product")
    lay_a = _simt_layout_of(c, a, (SgMap((2, 8), (1, fa)), None, None, (M, K)))
    lay_b = _simt_layout_of(c, b, (SgMap((1, 16), (fb, 1)), None, 0 if fb > 1 else None, (K, N)))
    lay_c_default = (SgMap((1, 16), (1, 1)), None, None, (M, N))
    lay_acc = _simt_layout_of(c, acc, lay_c_default) if acc is not None else lay_c_default
    try:
        ra, ca = _flat_coords((M, K), lay_a + (fa,))
        rb, cb = _flat_coords((K, N), lay_b + (fb,))
        rc, cc = _flat_coords((M, N), lay_c_default + (1,))
        racc, cacc = _flat_coords((M, N), lay_acc + (1,))
    except ValueError as e:
        o.error(f"SIMT dpas: {e}")
    flops = 2 * M * N * K

    def gather(x, rows, cols, shape):
        x = x.reshape(-1, SUBGROUP_SIZE, rows.shape[1])
        full = np.zeros((x.shape[0],) + shape, x.dtype)
        full[:, rows, cols] = x
        return full

    def f(env, st):
        # computed for every subgroup; lanes that are inactive only hold don't-care values
        B = st.B
        A = gather(np.broadcast_to(env[a], (B,) + at.shape), ra, ca, (M, K))
        Bm = gather(np.broadcast_to(env[b], (B,) + bt.shape), rb, cb, (K, N))
        C = gather(np.broadcast_to(env[acc], (B,) + rt.shape), racc, cacc, (M, N)) if acc is not None else None
        out = multiply_accumulate(A, Bm, C, dt, ea, eb, dpas=True)[:, rc, cc]  # (nsg, 16, n)
        env[r] = out.reshape((B,) + rt.shape)
        tr = st.trace
        if tr is not None:
            tr.dpas += B // SUBGROUP_SIZE
            tr.dpas_flops += (B // SUBGROUP_SIZE) * flops

    return f


# ----------------------------------------------------------------------------------------------
# scattered


def _simt_scatter_count(o: OpInfo, t):
    """Offsets (lanes) per work-item of a SIMT scattered descriptor: the sg_map spreads the lanes
    over the 16 work-items (each lane may carry a chunk of consecutive elements)."""
    if t.sg_map is None:
        o.error(f"SIMT-mode {o.name} needs a scattered tensor_desc with sg_map, got {t.text}")
    lanes = t.shape[0]
    if lanes % SUBGROUP_SIZE:
        o.error(f"SIMT-mode {o.name}: {lanes} lanes cannot be distributed over the {SUBGROUP_SIZE} work-items")
    return lanes // SUBGROUP_SIZE


def _count(t) -> int:
    return 1 if t.kind == "scalar" else int(np.prod(t.shape))


def _simt_shape_check(o: OpInfo, t, what: str, typ, per_wi: int):
    if _count(typ) != per_wi:
        o.error(f"SIMT-mode {o.name}: the {what} {typ.text} must hold this work-item's {per_wi} element(s) "
                f"({t.text} spreads {t.shape[0]} lanes{' x ' + str(t.chunk) if t.chunk > 1 else ''} over "
                f"{SUBGROUP_SIZE} work-items)")


@handler("xegpu.create_tdesc")
def _create_tdesc(c, o):
    vc = _check_mode(c, o)
    src, offs = o.ins[:2]
    t = o.out_types[0]
    r = o.outs[0]
    if not vc:
        k = _simt_scatter_count(o, t)
        _simt_shape_check(o, t, "offsets", o.in_types[1], k)

    def f(env, st):
        s = env[src]
        if isinstance(s, MemRef):
            buf, data, base, lo, hi = memref_source(s, t.dtype, o.name)
        else:
            buf, data, base, lo, hi = addr_source(st, np.asarray(s, np.int64), t.dtype, o.name)
        env[r] = ScatterDesc(buf, data, np.asarray(base).reshape(-1), np.asarray(env[offs], np.int64), lo, hi)

    return f


@handler("xegpu.update_offset")
def _xg_update_offset(c, o):
    vc = _check_mode(c, o)
    d, delta = o.ins[:2]
    r = o.outs[0]
    if not vc:
        _simt_shape_check(o, o.in_types[0], "delta", o.in_types[1], _simt_scatter_count(o, o.in_types[0]))

    def f(env, st):
        x = env[d]
        dv = np.asarray(env[delta], np.int64)
        offs = x.offs
        if offs.ndim != dv.ndim:        # uniform scalars (1,) against batched offsets
            dv = dv.reshape(dv.shape + (1,) * (offs.ndim - dv.ndim))
        env[r] = ScatterDesc(x.buf, x.data, x.base, offs + dv, x.lo, x.hi)

    return f


def _simt_access(o, t, mask_type, val_type, what):
    """Static checks of a SIMT scattered access: one mask bit per offset of the work-item, one value
    element per accessed element (offsets x chunk)."""
    k = _simt_scatter_count(o, t)
    _simt_shape_check(o, t, "mask", mask_type, k)
    _simt_shape_check(o, t, what, val_type, k * t.chunk)


def _simt_mask(mask, desc):
    """A work-item's mask bits paired with its offsets."""
    mask = np.asarray(mask, bool)
    if mask.ndim < desc.offs.ndim:
        mask = mask.reshape(mask.shape + (1,) * (desc.offs.ndim - mask.ndim))
    return mask


@handler("xegpu.load_gather")
def _xg_gather(c, o):
    vc = _check_mode(c, o)
    d, m = o.ins[:2]
    t, rt = o.in_types[0], o.out_types[0]
    chunk = t.chunk
    perm = o.ints("transpose")
    r = o.outs[0]
    nbytes = int(np.prod(t.shape)) * t.itemsize
    if not vc:
        _simt_access(o, t, o.in_types[1], rt, "result")
        if perm is not None:
            o.error("SIMT-mode load_gather: transpose applies to VC-mode chunked loads only")

    def f(env, st):
        desc = env[d]
        mask = env[m]
        if not vc:
            # this work-item's lanes: mask bits pair with its offsets
            mask = _simt_mask(mask, desc)
        v = scatter_load(st, desc, mask, chunk, 0, "xegpu.load_gather")
        if perm is not None and v.ndim == 3:
            v = v.transpose(0, 2, 1)
        env[r] = v.reshape((v.shape[0],) + rt.shape)
        if st.trace is not None:
            n = st.active_count() // (1 if vc else SUBGROUP_SIZE)
            st.trace.gathers += n
            st.trace.gather_bytes += n * nbytes

    return f


def _simt_value(val, desc, chunk):
    """A work-item's value(s) shaped like its addresses (offsets x chunk)."""
    val = np.asarray(val)
    tail = desc.offs.shape[1:] + ((chunk,) if chunk > 1 else ())
    return val.reshape((val.shape[0],) + tail)


@handler("xegpu.store_scatter")
def _xg_scatter(c, o):
    vc = _check_mode(c, o)
    v, d, m = o.ins[:3]
    vt, t = o.in_types[0], o.in_types[1]
    chunk = t.chunk
    nbytes = int(np.prod(t.shape)) * t.itemsize
    lanes = t.shape[0] if vc else None
    transposed = vc and chunk > 1 and vt.shape == (chunk, lanes) and vt.shape != tuple(t.shape)
    if not vc:
        _simt_access(o, t, o.in_types[2], vt, "stored value")

    def f(env, st):
        val = env[v]
        desc = env[d]
        mask = env[m]
        if transposed:
            val = val.transpose(0, 2, 1)
        if not vc:
            val = _simt_value(val, desc, chunk)
            mask = _simt_mask(mask, desc)
        scatter_store(st, desc, mask, chunk, val, "xegpu.store_scatter")
        if st.trace is not None:
            n = st.active_count() // (1 if vc else SUBGROUP_SIZE)
            st.trace.scatters += n
            st.trace.scatter_bytes += n * nbytes

    return f


@handler("xegpu.prefetch")
def _xg_prefetch(c, o):
    vc = _check_mode(c, o)
    d = o.ins[0]
    if not vc:
        _simt_scatter_count(o, o.in_types[0])

    def f(env, st):
        if not isinstance(env[d], ScatterDesc):
            raise SimError("xegpu.prefetch of a non-scattered descriptor")

    return f


@handler("xegpu.atomic_rmw")
def _xg_atomic(c, o):
    vc = _check_mode(c, o)
    kind = o.str("kind")
    v, d, m = o.ins[:3]
    t = o.in_types[1]
    rt = o.out_types[0] if o.outs else None
    r = o.outs[0] if o.outs else None
    chunk = t.chunk
    if not vc:
        _simt_access(o, t, o.in_types[2], o.in_types[0], "value")

    def f(env, st):
        desc = env[d]
        lin = scatter_addr(st, desc, chunk, "xegpu.atomic_rmw")
        mask = env[m]
        val = env[v]
        if not vc:
            val = _simt_value(val, desc, chunk)
            mask = _simt_mask(mask, desc)
        mm = mask_full(mask, lin.shape)
        shp = np.broadcast_shapes(mm.shape, np.shape(val), lin.shape, (st.B,) + (1,) * (lin.ndim - 1))
        mm = np.broadcast_to(mm, shp)
        if st.mask is not None:
            mm = mm & st.mask.reshape((-1,) + (1,) * (len(shp) - 1))
        lin = np.broadcast_to(lin, shp)
        scatter_check(st, desc, lin, mm, "xegpu.atomic_rmw")
        old = np.zeros(shp, desc.data.dtype)
        old[mm] = atomic_apply(desc.data, lin[mm], np.broadcast_to(val, shp)[mm].astype(desc.data.dtype), kind)
        if st.trace is not None:
            st.trace.atomics += st.active_count() // (1 if vc else SUBGROUP_SIZE)   # messages
        if r is not None:
            env[r] = old.reshape((old.shape[0],) + rt.shape) if not vc else old

    return f


# ----------------------------------------------------------------------------------------------
# named barriers and misc


class NBarrier:
    __slots__ = ("id", "role", "producers", "consumers")

    def __init__(self, bid, role, producers, consumers):
        self.id, self.role, self.producers, self.consumers = bid, role, producers, consumers

    def select(self, mask, other):
        return NBarrier(select_field(mask, self.id, other.id), select_field(mask, self.role, other.role), self.producers,
                        self.consumers)


def _nbar(st: ExecState) -> NBarState:
    if st.nbar is None:
        st.nbar = NBarState(st)
    return st.nbar


def _barrier_parties(st: ExecState, bar, roles):
    """(barrier state, acting leaders, barrier id per batch element, leaders whose role on `bar`
    is one of `roles`: 0 producer_consumer, 1 producer, 2 consumer)."""
    act = _leaders(st)
    role = np.broadcast_to(bar.role, (st.B,))
    return _nbar(st), act, np.broadcast_to(bar.id, (st.B,)), act & np.isin(role, roles)


def _leaders(st: ExecState):
    """Active batch elements that act for their subgroup (lane 0 in SIMT kernels)."""
    act = np.ones(st.B, bool) if st.mask is None else st.mask.copy()
    if st.lane is not None:
        act &= st.lane == 0
    return act


@handler("xegpu.alloc_nbarrier")
def _alloc_nbar(c, o):
    n = o.ins[0] if o.ins else None
    static = o.int("nbarrier_num", 0)  # IMEX / upstream form: `xegpu.alloc_nbarrier 1`

    def f(env, st):
        nb = _nbar(st)
        cnt = static if n is None else int(st.uniform(env[n], "nbarrier count"))
        if cnt > nb.nmax or cnt < 0:
            raise SimError(f"alloc_nbarrier: {cnt} named barriers requested (max {nb.nmax})")
        act = _leaders(st)
        np.maximum.at(nb.count, st.wg[act] if st.wg.shape[0] > 1 else np.zeros(int(act.sum()), np.int64), cnt)

    return f


@handler("xegpu.create_nbarrier", "xegpu.init_nbarrier")
def _create_nbar(c, o):
    # init_nbarrier (IMEX / upstream): every participant produces and consumes (role 0)
    init = o.name == "xegpu.init_nbarrier"
    i, role = o.ins[:2]
    npro = o.int("num_producers", 0)
    ncon = o.int("num_consumers", 0)
    r = o.outs[0]

    def f(env, st):
        nonlocal npro, ncon
        nb = _nbar(st)
        ids = np.asarray(env[i]).astype(np.int64)
        if init:
            npro = ncon = int(st.uniform(env[role], "init_nbarrier participant count"))
            if st.level == "workgroup":  # one batch element acts for all of its subgroups at once
                npro = ncon = 1
            roles = np.zeros_like(ids)
        else:
            roles = np.asarray(env[role]).astype(np.int64)
        act = _leaders(st)
        wg = np.broadcast_to(st.wg, (st.B,))
        idb = np.broadcast_to(ids, (st.B,))
        bad = act & ((idb < 0) | (idb >= nb.count[wg]))
        if bad.any():
            b = int(np.nonzero(bad)[0][0])
            raise SimError(f"create_nbarrier: barrier id {int(idb[b])} not allocated "
                           f"(alloc_nbarrier allocated {int(nb.count[wg[b]])}) in {st.where_desc(b)}")
        if ((roles < 0) | (roles > 2)).any():
            raise SimError("create_nbarrier: role must be 0 (producer_consumer), 1 (producer) or 2 (consumer)")
        for bid in np.unique(idb[act]):
            prev = nb.producers.get(int(bid))
            if prev is not None and prev != npro:
                raise SimError(f"named barrier {int(bid)} created with num_producers {npro} and {prev}")
            nb.producers[int(bid)] = npro
        env[r] = NBarrier(ids.reshape(-1), roles.reshape(-1), npro, ncon)

    return f


@handler("xegpu.nbarrier_arrive")
def _nbar_arrive(c, o):
    s = o.ins[0]

    def f(env, st):
        nb, act, ids, prod = _barrier_parties(st, env[s], (0, 1))
        wg = np.broadcast_to(st.wg, (st.B,))
        np.add.at(nb.arrivals, (wg[prod], ids[prod]), 1)
        if st.trace is not None:
            st.trace.nbarrier_arrives += int(act.sum())

    return f


@handler("xegpu.nbarrier_wait")
def _nbar_wait(c, o):
    s = o.ins[0]

    def f(env, st):
        bar = env[s]
        nb, act, ids, cons = _barrier_parties(st, bar, (0, 2))
        idx = np.nonzero(cons)[0]
        nb.waits[idx, ids[idx]] += 1
        wg = np.broadcast_to(st.wg, (st.B,))
        need = nb.waits[idx, ids[idx]] * max(bar.producers, 1)
        have = nb.arrivals[wg[idx], ids[idx]]
        bad = np.nonzero(have < need)[0]
        if bad.size:
            b = int(idx[bad[0]])
            raise SimError(f"nbarrier_wait on named barrier {int(ids[b])} would block forever: "
                           f"{int(have[bad[0]])} producer arrivals, phase needs {int(need[bad[0]])} "
                           f"(num_producers {bar.producers}) in {st.where_desc(b)} -- arrive/wait mismatch")
        if st.trace is not None:
            st.trace.nbarrier_waits += int(act.sum())

    return f


@handler("xegpu.mfence", "xegpu.compile_hint")
def _xg_noop(c, o):
    return None
