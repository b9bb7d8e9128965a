"""Simulator handlers for our dialects: XeTile (`xetile.*`, subgroup and work-group level, 2D and
blocked 4D forms) and XeGPU (`xegpu.*`, VC mode and SIMT mode with sg_map distribution).

Descriptors (tiles, nd/scattered tensor descriptors, named barriers) are small batched structs.
2D block accesses clip out-of-bounds elements (loads fill the padding value, stores drop them);
scattered and unchecked accesses outside the buffer are reported as errors.
"""
from __future__ import annotations

import numpy as np

from ..core import SUBGROUP_SIZE, ExecState, FuncCompiler, NBarState, OpInfo, SimError, handler
from ..memory import MemRef, SelectError
from ..numerics import multiply_accumulate, operand
from .vector import _reduce_fn, atomic_apply, check_active, scalar_value
from ..typeinfo import DYN, SgMap, TypeInfo, decode_wg_map_attr, elem_bits, vnni_factor

# ----------------------------------------------------------------------------------------------
# descriptors


def _sel(mask, a, b):
    if a is b:
        return a
    m = mask.reshape((-1,) + (1,) * (a.ndim - 1))
    return np.where(m, a, b)


class NdDesc:
    """A 2D (or N-D) block descriptor: xetile tile or xegpu nd tensor_desc."""

    __slots__ = ("buf", "data", "base", "shape", "strides", "offsets", "lo", "hi")

    def __init__(self, buf, data, base, shape, strides, offsets, lo, hi):
        self.buf, self.data = buf, data
        self.base, self.shape, self.strides, self.offsets, self.lo, self.hi = base, shape, strides, offsets, lo, hi

    def moved(self, delta):
        return NdDesc(self.buf, self.data, self.base, self.shape, self.strides, self.offsets + delta, self.lo, self.hi)

    def select(self, mask, other):
        if other.buf is not self.buf:
            raise SelectError("descriptors of different buffers selected per batch element")
        return NdDesc(self.buf, self.data, _sel(mask, self.base, other.base), _sel(mask, self.shape, other.shape),
                      _sel(mask, self.strides, other.strides), _sel(mask, self.offsets, other.offsets),
                      _sel(mask, self.lo, other.lo), _sel(mask, self.hi, other.hi))


class ScatterDesc:
    """Scattered descriptor: per-element (or per-lane chunk) element offsets from a base."""

    __slots__ = ("buf", "data", "base", "offs", "lo", "hi")

    def __init__(self, buf, data, base, offs, lo, hi):
        self.buf, self.data, self.base, self.offs, self.lo, self.hi = buf, data, base, offs, lo, hi

    def select(self, mask, other):
        if other.buf is not self.buf:
            raise SelectError("descriptors of different buffers selected per batch element")
        return ScatterDesc(self.buf, self.data, _sel(mask, self.base, other.base), _sel(mask, self.offs, other.offs),
                           _sel(mask, self.lo, other.lo), _sel(mask, self.hi, other.hi))


class NBarrier:
    __slots__ = ("id", "role", "producers", "consumers")

    def __init__(self, bid, role, producers, consumers):
        self.id, self.role, self.producers, self.consumers = bid, role, producers, consumers

    def select(self, mask, other):
        return NBarrier(_sel(mask, self.id, other.id), _sel(mask, self.role, other.role), self.producers,
                        self.consumers)


def _stack(cols):
    nb = max(x.shape[0] for x in cols)
    return np.stack([np.broadcast_to(np.asarray(x, np.int64).reshape(-1), (nb,)) for x in cols], axis=1)


def _mixed(o: OpInfo, name: str, dyn_slots, env, n_default=None):
    vals = o.ints(name, [])
    it = iter(dyn_slots)
    out = []
    for v in vals:
        if v == DYN:
            out.append(np.asarray(env[next(it)], np.int64).reshape(-1))
        else:
            out.append(np.array([v], np.int64))
    # tolerate absent static list with dynamic operands only
    if not vals and dyn_slots:
        out = [np.asarray(env[s], np.int64).reshape(-1) for s in dyn_slots]
    return out


def _addr_source(st: ExecState, addr, dtype, what):
    """(buffer, data, base elements (nb,), lo, hi) of an i64 fake address."""
    buf, byte_off = st.mem.decode(addr)
    if buf is None:
        raise SimError(f"{what}: address does not point into a simulator buffer")
    isz = np.dtype(dtype).itemsize
    if (byte_off % isz).any():
        raise SimError(f"{what}: address not aligned to the element size {isz}")
    try:
        data = buf.view_as(dtype)
    except ValueError as e:
        raise SimError(f"{what}: {e}")
    base = byte_off // isz
    scale = buf.dtype.itemsize / isz
    region = int(buf.region * scale)
    if buf.space == "slm":
        reg0 = st.wg * region
    elif buf.space == "private":
        reg0 = np.arange(st.B, dtype=np.int64) * region
    else:
        reg0 = np.zeros(1, np.int64)
    return buf, data, base + reg0, reg0, reg0 + region


def _memref_source(m: MemRef, dtype, what):
    if np.dtype(dtype).itemsize != m.dtype.itemsize:
        raise SimError(f"{what}: element type {np.dtype(dtype)} differs in size from the memref's {m.dtype}")
    return m.buf, m.buf.view_as(dtype), m.offset, m.lo, m.hi


def make_nd(st: ExecState, o: OpInfo, t: TypeInfo, src, off_slots, shape_slots, stride_slots, env) -> NdDesc:
    what = o.name
    rank = len(t.shape)
    offs = _mixed(o, "static_offsets", off_slots, env)
    if isinstance(src, MemRef):
        buf, data, base, lo, hi = _memref_source(src, t.dtype, what)
        if shape_slots or o.ints("static_shape", []):
            shape = _mixed(o, "static_shape", shape_slots, env)
            strides = _mixed(o, "static_strides", stride_slots, env)
        else:
            shape = [src.sizes[:, d] for d in range(src.rank)]
            strides = [src.strides[:, d] for d in range(src.rank)]
            if t.kind == "tile" and t.order == (0, 1) and src.rank == 2:
                s0, s1 = strides[0], strides[1]
                if ((s1 == 1) & (s0 != 1) & (shape[0] > 1) & (shape[1] > 1)).any():
                    raise SimError("tile with order = [0, 1] needs a column-major memref (strides [1, N]); "
                                   "the memref is row-major")
    else:
        buf, data, base, lo, hi = _addr_source(st, np.asarray(src, np.int64), t.dtype, what)
        shape = _mixed(o, "static_shape", shape_slots, env)
        strides = _mixed(o, "static_strides", stride_slots, env)
        if not shape:
            if rank != 1:
                raise SimError(f"{what}: an address source needs shape and strides")
            shape = [np.array([1 << 62], np.int64)]
            strides = [np.array([1], np.int64)]
    if len(offs) != len(shape) or len(strides) != len(shape):
        raise SimError(f"{what}: {len(offs)} offsets for a rank-{len(shape)} base with {len(strides)} strides")
    if len(shape) < rank:
        raise SimError(f"{what}: rank-{rank} descriptor on a rank-{len(shape)} base")
    # descriptors of lower rank than the base address its innermost dims
    k = len(shape) - rank
    for d in range(k):
        base = base + offs[d] * strides[d]
    return NdDesc(buf, data, np.asarray(base, np.int64).reshape(-1), _stack(shape[k:]), _stack(strides[k:]),
                  _stack(offs[k:]), np.asarray(lo, np.int64).reshape(-1), np.asarray(hi, np.int64).reshape(-1))


_AR_CACHE = {}


def _ar(n, k, r):
    key = (n, k, r)
    a = _AR_CACHE.get(key)
    if a is None:
        a = np.arange(n, dtype=np.int64).reshape((1,) + (1,) * k + (n,) + (1,) * (r - k - 1))
        _AR_CACHE[key] = a
    return a


def nd_access(st: ExecState, d: NdDesc, rel: list, bshape: tuple, what: str, clip: bool):
    """Linear indices (nb', *bshape) and validity (or None = all valid) of a block access.
    rel[k]: relative index grid for dim k (broadcastable to (nb', *bshape)), or None for arange."""
    r = len(bshape)
    ext = (1,) * r
    lin = d.base.reshape((-1,) + ext)
    valid = None
    for k in range(r):
        o_k = d.offsets[:, k]
        sz_k = d.shape[:, k]
        g = rel[k] if rel is not None else None
        if g is None:
            g = _ar(bshape[k], k, r)
            gmin, gmax = 0, bshape[k] - 1
        else:
            gmin, gmax = int(g.min()), int(g.max())
        ix = o_k.reshape((-1,) + ext) + g
        lin = lin + ix * d.strides[:, k].reshape((-1,) + ext)
        if not ((o_k + gmin >= 0) & (o_k + gmax < sz_k)).all():
            v = (ix >= 0) & (ix < sz_k.reshape((-1,) + ext))
            valid = v if valid is None else (valid & v)
    if valid is not None and not clip:
        check_active(st, ~valid, lambda b: f"{what}: out-of-bounds block access with boundary_check = false "
                                           f"(offsets {list(d.offsets[min(b, d.offsets.shape[0] - 1)])}, "
                                           f"shape {list(d.shape[min(b, d.shape.shape[0] - 1)])})")
        valid = None if st.mask is None else valid
    # memory safety: accessed elements must lie inside the allocation
    lo = d.lo.reshape((-1,) + ext)
    hi = d.hi.reshape((-1,) + ext)
    if valid is None and (d.strides >= 0).all():
        first = lin[(slice(None),) + (0,) * r] if rel is None else lin.reshape(lin.shape[0], -1).min(axis=1)
        last = lin[(slice(None),) + (-1,) * r] if rel is None else lin.reshape(lin.shape[0], -1).max(axis=1)
        bad = (first < d.lo) | (last >= d.hi)
        if bad.any():
            bad_full = (lin < lo) | (lin >= hi)
            check_active(st, bad_full, lambda b: f"{what}: block access outside the allocated buffer "
                                                 f"'{d.buf.name}' (base shape/strides exceed the allocation)")
            valid = ~bad_full
    else:
        bad_full = (lin < lo) | (lin >= hi)
        if valid is not None:
            bad_full &= valid
        if bad_full.any():
            check_active(st, bad_full, lambda b: f"{what}: block access outside the allocated buffer "
                                                 f"'{d.buf.name}' (base shape/strides exceed the allocation)")
            valid = ~bad_full if valid is None else (valid & ~bad_full)
    return lin, valid


def _row_starts(d: NdDesc, bshape: tuple):
    """For a plain block (unit innermost stride, every element inside the surface and the
    allocation, non-negative strides): the linear index of each innermost row's first element,
    shaped (nb, *bshape[:-1]). None when the general `nd_access` path is needed."""
    r = len(bshape)
    data = d.data
    if r == 0 or data.ndim != 1 or data.strides[0] != data.itemsize or data.size < bshape[-1]:
        return None
    if (d.strides[:, r - 1] != 1).any() or (d.strides < 0).any():
        return None
    if not ((d.offsets >= 0) & (d.offsets + np.asarray(bshape, np.int64) <= d.shape)).all():
        return None
    ext = (1,) * (r - 1)
    start = d.base.reshape((-1,) + ext)
    for k in range(r - 1):
        start = start + (d.offsets[:, k].reshape((-1,) + ext) + _ar(bshape[k], k, r - 1)) \
            * d.strides[:, k].reshape((-1,) + ext)
    start = start + d.offsets[:, r - 1].reshape((-1,) + ext)
    flat = start.reshape(start.shape[0], -1)
    if ((flat[:, 0] < d.lo) | (flat[:, -1] + (bshape[-1] - 1) >= d.hi)).any():
        return None
    return start


def nd_load(st, d: NdDesc, rel, bshape, what, clip, pad=0):
    if rel is None:
        starts = _row_starts(d, bshape)
        if starts is not None:  # gather whole rows from a window view: much faster than per element
            data, n = d.data, bshape[-1]
            rows = np.lib.stride_tricks.as_strided(data, shape=(data.size - n + 1, n),
                                                   strides=(data.itemsize, data.itemsize), writeable=False)
            return rows[starts]
    lin, valid = nd_access(st, d, rel, bshape, what, clip)
    data = d.data
    if valid is None:
        return data[lin]
    safe = np.where(valid, lin, d.lo.reshape((-1,) + (1,) * len(bshape)))
    np.clip(safe, 0, data.size - 1, out=safe)
    return np.where(valid, data[safe], np.asarray(pad, data.dtype))


def nd_store(st, d: NdDesc, rel, bshape, val, what, clip):
    lin, valid = nd_access(st, d, rel, bshape, what, clip)
    data = d.data
    val = np.asarray(val)
    if val.dtype != data.dtype:
        val = val.astype(data.dtype)
    m = st.mask
    if valid is None and m is None:
        if val.shape != lin.shape:
            shp = np.broadcast_shapes(val.shape, lin.shape)
            val, lin = np.broadcast_to(val, shp), np.broadcast_to(lin, shp)
        data[lin] = val
        return
    shp = np.broadcast_shapes(val.shape, lin.shape)
    if m is not None:
        shp = np.broadcast_shapes(shp, (m.shape[0],) + (1,) * len(bshape))
    w = np.ones(shp, bool) if valid is None else np.broadcast_to(valid, shp)
    if m is not None:
        w = w & m.reshape((-1,) + (1,) * len(bshape))
    data[np.broadcast_to(lin, shp)[w]] = np.broadcast_to(val, shp)[w]


def _trace_block(st, kind, nbytes):
    tr = st.trace
    if tr is None:
        return
    n = st.active_count()
    if st.level == "simt":
        n = n // SUBGROUP_SIZE
    if kind == "load":
        tr.block_loads += n
        tr.block_load_bytes += n * nbytes
    elif kind == "store":
        tr.block_stores += n
        tr.block_store_bytes += n * nbytes
    else:
        tr.prefetches += n
        tr.prefetch_bytes += n * nbytes


def _block(x, bm, bn):
    """(nb, M, N) -> (nb, M/bm, N/bn, bm, bn)."""
    nb, M, N = x.shape
    return x.reshape(nb, M // bm, bm, N // bn, bn).transpose(0, 1, 3, 2, 4)


def _unblock(x):
    nb, a, b, bm, bn = x.shape
    return x.transpose(0, 1, 3, 2, 4).reshape(nb, a * bm, b * bn)


def _pad_value(o: OpInfo, dtype):
    a = o.attr("padding")
    if a is None:
        return np.zeros((), dtype)
    return scalar_value(a, np.dtype(dtype))


def _check_wg_map(o: OpInfo, shape, wg, st=None):
    if wg is None:
        return
    if len(wg.sg_layout) != len(shape) or len(wg.sg_data) != len(shape):
        o.error(f"wg_map rank does not match the rank-{len(shape)} shape {list(shape)}")
    for i, n in enumerate(shape):
        unit = wg.sg_layout[i] * wg.sg_data[i]
        if n % unit and unit % n:
            o.error(f"wg_map sg_layout {list(wg.sg_layout)} x sg_data {list(wg.sg_data)} does not evenly "
                    f"distribute the {list(shape)} shape (dimension {i})")


def _require_not_simt(c: FuncCompiler, o: OpInfo):
    if c.level == "simt":
        o.error("simulator: xetile ops run at subgroup or work-group level, not in a SIMT (per work-item) kernel")


# ----------------------------------------------------------------------------------------------
# XeTile


@handler("xetile.init_tile")
def _init_tile(c: FuncCompiler, o: OpInfo):
    _require_not_simt(c, o)
    seg = o.segments(5)
    while len(seg) < 5:
        seg.append([])
    src = seg[0][0]
    offs, shp, strd, indices = seg[1], seg[2], seg[3], seg[4]
    t = o.out_types[0]
    r = o.outs[0]
    if t.kind != "tile":
        o.error(f"init_tile result must be a !xetile.tile, got {t.text}")
    _check_wg_map(o, t.shape, t.wg_map)
    wg = t.wg_map

    if indices or t.scattered:
        if not indices:
            o.error("scattered init_tile needs an indices vector")
        islot = indices[0]

        def f(env, st):
            s = env[src]
            if isinstance(s, MemRef):
                buf, data, base, lo, hi = _memref_source(s, t.dtype, o.name)
            else:
                buf, data, base, lo, hi = _addr_source(st, np.asarray(s, np.int64), t.dtype, o.name)
            env[r] = ScatterDesc(buf, data, np.asarray(base).reshape(-1), np.asarray(env[islot], np.int64), lo, hi)

        return f

    def f(env, st):
        if wg is not None and int(np.prod(wg.sg_layout)) > st.sg_per_wg:
            raise SimError(f"wg_map sg_layout {list(wg.sg_layout)} needs {int(np.prod(wg.sg_layout))} subgroups "
                           f"but the work-group has {st.sg_per_wg}")
        env[r] = make_nd(st, o, t, env[src], offs, shp, strd, env)

    return f


@handler("xetile.update_tile_offset", "xegpu.update_nd_offset")
def _update_offset(c, o):
    d = o.ins[0]
    dyn = o.ins[1:]
    r = o.outs[0]
    vec_delta = len(dyn) == 1 and o.in_types[1].kind == "vector"

    def f(env, st):
        desc = env[d]
        if isinstance(desc, ScatterDesc):
            delta = np.asarray(env[dyn[0]], np.int64) if dyn else np.zeros(1, np.int64)
            env[r] = ScatterDesc(desc.buf, desc.data, desc.base, desc.offs + delta, desc.lo, desc.hi)
            return
        if vec_delta:
            raise SimError("vector offsets on a non-scattered descriptor")
        delta = _stack(_mixed(o, "static_offsets", dyn, env))
        if delta.shape[1] != desc.offsets.shape[1]:
            raise SimError(f"{delta.shape[1]} offsets for a rank-{desc.offsets.shape[1]} descriptor")
        env[r] = desc.moved(delta)

    return f


@handler("xetile.load_tile")
def _load_tile(c, o):
    _require_not_simt(c, o)
    tslot, r = o.ins[0], o.outs[0]
    t, rt = o.in_types[0], o.out_types[0]
    pad = _pad_value(o, t.dtype)
    perm = o.ints("transpose")
    shape = t.shape
    nbytes = int(np.prod(shape)) * t.itemsize
    if t.scattered:
        o.error("load_tile on a scattered tile (use load_gather)")
    two = shape if perm is None else tuple(shape[p] for p in perm)
    if rt.rank == 4:
        bm, bn = rt.shape[2], rt.shape[3]
        if two[0] % bm or two[1] % bn or rt.shape[:2] != (two[0] // bm, two[1] // bn):
            o.error(f"load_tile result {rt.text} does not block the {list(two)} tile")
    elif rt.shape != two:
        o.error(f"load_tile result shape {list(rt.shape)} does not match {list(two)}")
    pperm = None if perm is None else [0] + [p + 1 for p in perm]

    def f(env, st):
        v = nd_load(st, env[tslot], None, shape, "xetile.load_tile", True, pad)
        if pperm is not None:
            v = v.transpose(pperm)
        if rt.rank == 4:
            v = _block(v, rt.shape[2], rt.shape[3])
        env[r] = v
        _trace_block(st, "load", nbytes)

    return f


@handler("xetile.store_tile")
def _store_tile(c, o):
    _require_not_simt(c, o)
    vslot, tslot = o.ins[:2]
    vt, t = o.in_types[0], o.in_types[1]
    shape = t.shape
    nbytes = int(np.prod(shape)) * t.itemsize
    if vt.rank == 4:
        if (vt.shape[0] * vt.shape[2], vt.shape[1] * vt.shape[3]) != tuple(shape):
            o.error(f"store_tile value {vt.text} does not match tile shape {list(shape)}")
    elif vt.shape != shape:
        o.error(f"store_tile value shape {list(vt.shape)} does not match tile shape {list(shape)}")

    def f(env, st):
        v = env[vslot]
        if v.ndim == 5:
            v = _unblock(v)
        nd_store(st, env[tslot], None, shape, v, "xetile.store_tile", True)
        _trace_block(st, "store", nbytes)

    return f


@handler("xetile.prefetch_tile")
def _prefetch_tile(c, o):
    _require_not_simt(c, o)
    t = o.in_types[0]
    tslot = o.ins[0]
    nbytes = int(np.prod(t.shape)) * t.itemsize

    def f(env, st):
        d = env[tslot]
        if not isinstance(d, (NdDesc, ScatterDesc)):
            raise SimError("prefetch_tile of a non-tile value")
        _trace_block(st, "prefetch", nbytes)

    return f


@handler("xetile.tile_mma")
def _tile_mma(c, o):
    a, b = o.ins[:2]
    acc = o.ins[2] if len(o.ins) > 2 else None
    at, bt, rt = o.in_types[0], o.in_types[1], o.out_types[0]
    r = o.outs[0]
    dt = rt.dtype
    four = at.rank == 4
    if four:
        Mb, Kb, bm, bk = at.shape
        Kb2, Nb, bk2, bn = bt.shape
        if (Kb, bk) != (Kb2, bk2):
            o.error(f"tile_mma blocked shapes do not agree: {at.text} x {bt.text}")
        M, K, N = Mb * bm, Kb * bk, Nb * bn
    else:
        M, K = at.shape
        K2, N = bt.shape
        if K != K2:
            o.error(f"tile_mma K mismatch: {at.text} x {bt.text}")
    for nm in ("wg_map_a", "wg_map_b", "wg_map_c"):
        shape = {"wg_map_a": (M, K), "wg_map_b": (K, N), "wg_map_c": (M, N)}[nm]
        _check_wg_map(o, shape, decode_wg_map_attr(o.attr(nm)))
    flops = 2 * M * N * K
    ea, eb = at.elem, bt.elem

    def f(env, st):
        x, y = env[a], env[b]
        if four:
            x, y = _unblock(x), _unblock(y)
        cv = None
        if acc is not None:
            cv = env[acc]
            if four:
                cv = _unblock(cv)
        p = multiply_accumulate(x, y, cv, dt, ea, eb)
        if four:
            p = _block(p, rt.shape[2], rt.shape[3])
        env[r] = p
        if st.trace is not None:
            st.trace.mma_flops += flops * st.active_count()

    return f


@handler("xetile.tile_transpose")
def _tile_transpose(c, o):
    perm = [0] + [p + 1 for p in o.ints("permutation")]
    s, r = o.ins[0], o.outs[0]
    _check_wg_map(o, o.out_types[0].shape, decode_wg_map_attr(o.attr("wg_map")))

    def f(env, st):
        env[r] = env[s].transpose(perm)

    return f


@handler("xetile.tile_reduce")
def _tile_reduce(c, o):
    kind = o.str("kind")
    try:
        red = _reduce_fn(kind, None)
    except ValueError as e:
        o.error(str(e))
    dims = tuple(d + 1 for d in o.ints("reduction_dims"))
    s, r = o.ins[0], o.outs[0]
    rt = o.out_types[0]
    _check_wg_map(o, rt.shape, decode_wg_map_attr(o.attr("wg_map")))

    def f(env, st):
        x = env[s]
        v = red(x, dims)
        env[r] = np.asarray(v).reshape((x.shape[0],) + rt.shape).astype(rt.dtype)

    return f


@handler("xetile.tile_broadcast")
def _tile_broadcast(c, o):
    s, r = o.ins[0], o.outs[0]
    rt = o.out_types[0]
    _check_wg_map(o, rt.shape, decode_wg_map_attr(o.attr("wg_map")))

    def f(env, st):
        x = env[s]
        env[r] = np.broadcast_to(x, (x.shape[0],) + rt.shape)

    return f


@handler("xetile.tile_pack")
def _tile_pack(c, o):
    bm, bn = o.ints("inner_blocks")
    s, r = o.ins[0], o.outs[0]

    def f(env, st):
        env[r] = _block(env[s], bm, bn)

    return f


@handler("xetile.tile_unpack")
def _tile_unpack(c, o):
    s, r = o.ins[0], o.outs[0]

    def f(env, st):
        env[r] = _unblock(env[s])

    return f


@handler("xetile.tile_conv_layout")
def _tile_conv(c, o):
    s, r = o.ins[0], o.outs[0]
    _check_wg_map(o, o.out_types[0].shape, decode_wg_map_attr(o.attr("wg_map")))

    def f(env, st):
        env[r] = env[s]

    return f


@handler("xetile.atomic_rmw_tile")
def _atomic_tile(c, o):
    _require_not_simt(c, o)
    kind = o.str("kind")
    vslot, tslot = o.ins[:2]
    t = o.in_types[1]
    vt = o.in_types[0]
    r = o.outs[0] if o.outs else None
    shape = t.shape

    def f(env, st):
        v = env[vslot]
        blocked = v.ndim == 5
        if blocked:
            v = _unblock(v)
        d = env[tslot]
        lin, valid = nd_access(st, d, None, shape, "xetile.atomic_rmw_tile", True)
        v = np.broadcast_to(v, np.broadcast_shapes(v.shape, lin.shape, (st.B,) + (1,) * len(shape)))
        lin = np.broadcast_to(lin, v.shape)
        w = np.ones(v.shape, bool) if valid is None else np.broadcast_to(valid, v.shape)
        if st.mask is not None:
            w = w & st.mask.reshape((-1, 1, 1))
        old = np.zeros(v.shape, d.data.dtype)
        old[w] = atomic_apply(d.data, lin[w], v[w].astype(d.data.dtype), kind)
        if st.trace is not None:
            st.trace.atomics += st.active_count()
        if r is not None:
            env[r] = _block(old, vt.shape[2], vt.shape[3]) if blocked else old

    return f


def _scatter_addr(st, d: ScatterDesc, chunk: int, what: str):
    offs = d.offs
    lin = d.base.reshape((-1,) + (1,) * (offs.ndim - 1)) + offs
    if chunk > 1:
        lin = lin[..., None] + np.arange(chunk, dtype=np.int64)
    return lin


def _scatter_check(st, d: ScatterDesc, lin, active_mask, what):
    ext = (1,) * (lin.ndim - 1)
    bad = (lin < d.lo.reshape((-1,) + ext)) | (lin >= d.hi.reshape((-1,) + ext))
    if active_mask is not None:
        bad = bad & active_mask
    if bad.any():
        check_active(st, bad, lambda b: f"{what}: unmasked scattered access outside the buffer '{d.buf.name}'")


def _mask_full(mask, lin_shape):
    """Broadcast a lane mask (nb, *lanes) to the access shape (nb, *lanes[, chunk])."""
    m = np.asarray(mask, bool)
    while m.ndim < len(lin_shape):
        m = m[..., None]
    return np.broadcast_to(m, np.broadcast_shapes(m.shape, lin_shape))


def scatter_load(st, d: ScatterDesc, mask, chunk, pad, what):
    lin = _scatter_addr(st, d, chunk, what)
    m = _mask_full(mask, lin.shape)
    lin = np.broadcast_to(lin, m.shape)
    _scatter_check(st, d, lin, m, what)
    safe = np.clip(np.where(m, lin, 0), 0, d.data.size - 1)
    return np.where(m, d.data[safe], np.asarray(pad, d.data.dtype))


def scatter_store(st, d: ScatterDesc, mask, chunk, val, what):
    lin = _scatter_addr(st, d, chunk, what)
    m = _mask_full(mask, lin.shape)
    shp = np.broadcast_shapes(m.shape, np.shape(val))
    m = np.broadcast_to(m, shp)
    lin = np.broadcast_to(lin, shp)
    if st.mask is not None:
        m = m & st.mask.reshape((-1,) + (1,) * (len(shp) - 1))
    _scatter_check(st, d, lin, m, what)
    d.data[lin[m]] = np.broadcast_to(np.asarray(val).astype(d.data.dtype), shp)[m]


@handler("xetile.load_gather")
def _xt_gather(c, o):
    _require_not_simt(c, o)
    tslot, mslot = o.ins[:2]
    t = o.in_types[0]
    pad = _pad_value(o, t.dtype)
    r = o.outs[0]
    nbytes = int(np.prod(t.shape)) * t.itemsize

    def f(env, st):
        env[r] = scatter_load(st, env[tslot], env[mslot], 1, pad, "xetile.load_gather")
        if st.trace is not None:
            st.trace.gathers += st.active_count()
            st.trace.gather_bytes += st.active_count() * nbytes

    return f


@handler("xetile.store_scatter")
def _xt_scatter(c, o):
    _require_not_simt(c, o)
    vslot, tslot, mslot = o.ins[:3]
    t = o.in_types[1]
    nbytes = int(np.prod(t.shape)) * t.itemsize

    def f(env, st):
        scatter_store(st, env[tslot], env[mslot], 1, env[vslot], "xetile.store_scatter")
        if st.trace is not None:
            st.trace.scatters += st.active_count()
            st.trace.scatter_bytes += st.active_count() * nbytes

    return f


# ----------------------------------------------------------------------------------------------
# XeGPU


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
    if len(shape) == 1:
        H, W = 1, shape[0]
        ly, lx = (sg.wi_layout if len(sg.wi_layout) == 2 else (1, sg.wi_layout[0]))
        dy, dx = (sg.wi_data if len(sg.wi_data) == 2 else (1, sg.wi_data[0]))
    else:
        H, W = shape
        ly, lx = sg.wi_layout
        dy, dx = sg.wi_data
    if ly * lx != SUBGROUP_SIZE:
        raise ValueError(f"{what}: wi_layout {list(sg.wi_layout)} does not cover the 16 lanes of a subgroup")
    uy, ux = ly * dy, lx * dx
    if H % uy or W % ux:
        raise ValueError(f"{what}: block {list(shape)} is not divisible by wi_layout x wi_data ({uy}x{ux})")
    Lh, Lw = H // uy * dy, W // ux * dx
    lane = np.arange(SUBGROUP_SIZE).reshape(-1, 1, 1)
    i = np.arange(Lh).reshape(1, -1, 1)
    j = np.arange(Lw).reshape(1, 1, -1)
    rows = (i // dy) * uy + (lane // lx) * dy + i % dy
    cols = (j // dx) * ux + (lane % lx) * dx + j % dx
    rows, cols = np.broadcast_arrays(rows, cols)
    return rows.astype(np.int64), cols.astype(np.int64)


def _vnni(x: np.ndarray, axis: int, f: int) -> np.ndarray:
    """VNNI transform of (..., R, C): axis 0 -> (..., R/f, C, f); axis 1 -> (..., R, C/f, f)."""
    *lead, R, C = x.shape
    if axis == 0:
        return x.reshape(*lead, R // f, f, C).swapaxes(-1, -2)
    return x.reshape(*lead, R, C // f, f)


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
            _trace_block(st, "load", nbytes)

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
        _trace_block(st, "load", nbytes)

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
            _trace_block(st, "store", nbytes)

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
        _trace_block(st, "store", nbytes)

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
        _trace_block(st, "prefetch", nbytes)

    return f


# --- dpas ------------------------------------------------------------------------------------


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
    rows, cols = lane_tables(mshape, sg)
    if perm is not None:  # matrix coordinates are of the transposed block
        rows, cols = cols.transpose(0, 2, 1), rows.transpose(0, 2, 1)
    if va is not None:
        f = vnni_factor_from_layout(layout)
        rows, cols = _vnni(rows, va, f), _vnni(cols, va, f)
    return rows.reshape(SUBGROUP_SIZE, -1), cols.reshape(SUBGROUP_SIZE, -1)


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


# --- scattered -------------------------------------------------------------------------------


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
            buf, data, base, lo, hi = _memref_source(s, t.dtype, o.name)
        else:
            buf, data, base, lo, hi = _addr_source(st, np.asarray(s, np.int64), t.dtype, o.name)
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
        lin = _scatter_addr(st, desc, chunk, "xegpu.atomic_rmw")
        mask = env[m]
        val = env[v]
        if not vc:
            val = _simt_value(val, desc, chunk)
            mask = _simt_mask(mask, desc)
        mm = _mask_full(mask, lin.shape)
        shp = np.broadcast_shapes(mm.shape, np.shape(val), lin.shape, (st.B,) + (1,) * (lin.ndim - 1))
        mm = np.broadcast_to(mm, shp)
        if st.mask is not None:
            mm = mm & st.mask.reshape((-1,) + (1,) * (len(shp) - 1))
        lin = np.broadcast_to(lin, shp)
        _scatter_check(st, desc, lin, mm, "xegpu.atomic_rmw")
        old = np.zeros(shp, desc.data.dtype)
        old[mm] = atomic_apply(desc.data, lin[mm], np.broadcast_to(val, shp)[mm].astype(desc.data.dtype), kind)
        if st.trace is not None:
            st.trace.atomics += st.active_count() // (1 if vc else SUBGROUP_SIZE)   # messages
        if r is not None:
            env[r] = old.reshape((old.shape[0],) + rt.shape) if not vc else old

    return f


# --- named barriers and misc -----------------------------------------------------------------


def _nbar(st: ExecState) -> NBarState:
    if st.nbar is None:
        st.nbar = NBarState(st)
    return st.nbar


def _leaders(st: ExecState):
    """Active batch elements that act for their subgroup (lane 0 in SIMT kernels)."""
    act = np.ones(st.B, bool) if st.mask is None else st.mask.copy()
    if st.lane is not None:
        act &= st.lane == 0
    return act


@handler("xegpu.alloc_nbarrier")
def _alloc_nbar(c, o):
    n = o.ins[0]

    def f(env, st):
        nb = _nbar(st)
        cnt = int(st.uniform(env[n], "nbarrier count"))
        if cnt > nb.nmax or cnt < 0:
            raise SimError(f"alloc_nbarrier: {cnt} named barriers requested (max {nb.nmax})")
        act = _leaders(st)
        np.maximum.at(nb.count, st.wg[act] if st.wg.shape[0] > 1 else np.zeros(int(act.sum()), np.int64), cnt)

    return f


@handler("xegpu.create_nbarrier")
def _create_nbar(c, o):
    i, role = o.ins[:2]
    npro = o.int("num_producers", 0)
    ncon = o.int("num_consumers", 0)
    r = o.outs[0]

    def f(env, st):
        nb = _nbar(st)
        ids = np.asarray(env[i]).astype(np.int64)
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
        nb = _nbar(st)
        bar = env[s]
        act = _leaders(st)
        role = np.broadcast_to(bar.role, (st.B,))
        ids = np.broadcast_to(bar.id, (st.B,))
        prod = act & ((role == 0) | (role == 1))
        wg = np.broadcast_to(st.wg, (st.B,))
        np.add.at(nb.arrivals, (wg[prod], ids[prod]), 1)
        if st.trace is not None:
            st.trace.nbarrier_arrives += int(act.sum())

    return f


@handler("xegpu.nbarrier_wait")
def _nbar_wait(c, o):
    s = o.ins[0]

    def f(env, st):
        nb = _nbar(st)
        bar = env[s]
        act = _leaders(st)
        role = np.broadcast_to(bar.role, (st.B,))
        ids = np.broadcast_to(bar.id, (st.B,))
        cons = act & ((role == 0) | (role == 2))
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
