"""Block and scattered descriptors shared by the xetile and xegpu handlers, and their memory access.

`NdDesc` (an xetile tile or an xegpu nd tensor_desc) and `ScatterDesc` (per-element offsets) are
small batched structs on a memref or an i64 address (`memref_source` / `addr_source`); `make_nd`
builds the former. `nd_load` / `nd_store` run 2D (or N-D) block accesses, clipping out-of-bounds elements
when boundary checks are on (loads fill the padding value, stores drop them);
`scatter_load` / `scatter_store` run scattered accesses, where an unmasked element outside the
buffer is an error. `trace_block` counts block messages for the trace.
"""
from __future__ import annotations

import numpy as np

from ..core import SUBGROUP_SIZE, ExecState, OpInfo, SimError
from ..memory import MemRef, SelectError
from ..typeinfo import DYN, TypeInfo
from .memref_access import check_active


# ----------------------------------------------------------------------------------------------
# descriptors


def select_field(mask, a, b):
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
        return NdDesc(self.buf, self.data, select_field(mask, self.base, other.base), select_field(mask, self.shape, other.shape),
                      select_field(mask, self.strides, other.strides), select_field(mask, self.offsets, other.offsets),
                      select_field(mask, self.lo, other.lo), select_field(mask, self.hi, other.hi))


class ScatterDesc:
    """Scattered descriptor: per-element (or per-lane chunk) element offsets from a base."""

    __slots__ = ("buf", "data", "base", "offs", "lo", "hi")

    def __init__(self, buf, data, base, offs, lo, hi):
        self.buf, self.data, self.base, self.offs, self.lo, self.hi = buf, data, base, offs, lo, hi

    def select(self, mask, other):
        if other.buf is not self.buf:
            raise SelectError("descriptors of different buffers selected per batch element")
        return ScatterDesc(self.buf, self.data, select_field(mask, self.base, other.base), select_field(mask, self.offs, other.offs),
                           select_field(mask, self.lo, other.lo), select_field(mask, self.hi, other.hi))


# ----------------------------------------------------------------------------------------------
# construction


def stack_ints(cols):
    nb = max(x.shape[0] for x in cols)
    return np.stack([np.broadcast_to(np.asarray(x, np.int64).reshape(-1), (nb,)) for x in cols], axis=1)


def mixed_ints(o: OpInfo, name: str, dyn_slots, env, n_default=None):
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


def addr_source(st: ExecState, addr, dtype, what):
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


def memref_source(m: MemRef, dtype, what):
    if np.dtype(dtype).itemsize != m.dtype.itemsize:
        raise SimError(f"{what}: element type {np.dtype(dtype)} differs in size from the memref's {m.dtype}")
    return m.buf, m.buf.view_as(dtype), m.offset, m.lo, m.hi


def make_nd(st: ExecState, o: OpInfo, t: TypeInfo, src, off_slots, shape_slots, stride_slots, env) -> NdDesc:
    what = o.name
    rank = len(t.shape)
    offs = mixed_ints(o, "static_offsets", off_slots, env)
    if isinstance(src, MemRef):
        buf, data, base, lo, hi = memref_source(src, t.dtype, what)
        if shape_slots or o.ints("static_shape", []):
            shape = mixed_ints(o, "static_shape", shape_slots, env)
            strides = mixed_ints(o, "static_strides", stride_slots, env)
        else:
            shape = [src.sizes[:, d] for d in range(src.rank)]
            strides = [src.strides[:, d] for d in range(src.rank)]
            if t.kind == "tile" and t.order == (0, 1) and src.rank == 2:
                s0, s1 = strides[0], strides[1]
                if ((s1 == 1) & (s0 != 1) & (shape[0] > 1) & (shape[1] > 1)).any():
                    raise SimError("tile with order = [0, 1] needs a column-major memref (strides [1, N]); "
                                   "the memref is row-major")
    else:
        buf, data, base, lo, hi = addr_source(st, np.asarray(src, np.int64), t.dtype, what)
        shape = mixed_ints(o, "static_shape", shape_slots, env)
        strides = mixed_ints(o, "static_strides", stride_slots, env)
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
    return NdDesc(buf, data, np.asarray(base, np.int64).reshape(-1), stack_ints(shape[k:]), stack_ints(strides[k:]),
                  stack_ints(offs[k:]), np.asarray(lo, np.int64).reshape(-1), np.asarray(hi, np.int64).reshape(-1))


# ----------------------------------------------------------------------------------------------
# 2D block access


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
    if data.size == 0:      # an empty surface: every element is outside it
        return np.full(np.broadcast_shapes(lin.shape, np.shape(valid)), pad, data.dtype)
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


def trace_block(st, kind, nbytes):
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


# ----------------------------------------------------------------------------------------------
# scattered access


def scatter_addr(st, d: ScatterDesc, chunk: int, what: str):
    offs = d.offs
    lin = d.base.reshape((-1,) + (1,) * (offs.ndim - 1)) + offs
    if chunk > 1:
        lin = lin[..., None] + np.arange(chunk, dtype=np.int64)
    return lin


def scatter_check(st, d: ScatterDesc, lin, active_mask, what):
    ext = (1,) * (lin.ndim - 1)
    bad = (lin < d.lo.reshape((-1,) + ext)) | (lin >= d.hi.reshape((-1,) + ext))
    if active_mask is not None:
        bad = bad & active_mask
    if bad.any():
        check_active(st, bad, lambda b: f"{what}: unmasked scattered access outside the buffer '{d.buf.name}'")


def mask_full(mask, lin_shape):
    """Broadcast a lane mask (nb, *lanes) to the access shape (nb, *lanes[, chunk])."""
    m = np.asarray(mask, bool)
    while m.ndim < len(lin_shape):
        m = m[..., None]
    return np.broadcast_to(m, np.broadcast_shapes(m.shape, lin_shape))


def scatter_load(st, d: ScatterDesc, mask, chunk, pad, what):
    lin = scatter_addr(st, d, chunk, what)
    m = mask_full(mask, lin.shape)
    lin = np.broadcast_to(lin, m.shape)
    scatter_check(st, d, lin, m, what)
    safe = np.clip(np.where(m, lin, 0), 0, d.data.size - 1)
    return np.where(m, d.data[safe], np.asarray(pad, d.data.dtype))


def scatter_store(st, d: ScatterDesc, mask, chunk, val, what):
    lin = scatter_addr(st, d, chunk, what)
    m = mask_full(mask, lin.shape)
    shp = np.broadcast_shapes(m.shape, np.shape(val))
    m = np.broadcast_to(m, shp)
    lin = np.broadcast_to(lin, shp)
    if st.mask is not None:
        m = m & st.mask.reshape((-1,) + (1,) * (len(shp) - 1))
    scatter_check(st, d, lin, m, what)
    d.data[lin[m]] = np.broadcast_to(np.asarray(val).astype(d.data.dtype), shp)[m]
