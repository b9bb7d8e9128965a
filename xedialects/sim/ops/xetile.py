"""Simulator handlers for `xetile.*`: subgroup and work-group level (wg_map validated, not
distributed), 2D and blocked 4D forms, scattered tiles. `xetile.update_tile_offset` shares its
handler with `xegpu.update_nd_offset`; block memory access is in descriptors.py, the
multiply-accumulate model of `tile_mma` in numerics.py.
"""
from __future__ import annotations

import numpy as np

from ..core import FuncCompiler, OpInfo, SimError, handler
from ..memory import MemRef
from ..numerics import multiply_accumulate
from ..typeinfo import decode_wg_map_attr
from .descriptors import (NdDesc, ScatterDesc, addr_source, make_nd, memref_source, mixed_ints, nd_access, nd_load,
                          nd_store, scatter_addr, scatter_check, scatter_load, scatter_store, stack_ints,
                          trace_block)
from .elements import reduce_fn, scalar_value
from .memref_access import atomic_apply


# ----------------------------------------------------------------------------------------------
# helpers


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
# tiles and block access


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
                buf, data, base, lo, hi = memref_source(s, t.dtype, o.name)
            else:
                buf, data, base, lo, hi = addr_source(st, np.asarray(s, np.int64), t.dtype, o.name)
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
        delta = stack_ints(mixed_ints(o, "static_offsets", dyn, env))
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
        trace_block(st, "load", nbytes)

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
        trace_block(st, "store", nbytes)

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
        trace_block(st, "prefetch", nbytes)

    return f


# ----------------------------------------------------------------------------------------------
# compute


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
        red = reduce_fn(kind, None)
    except ValueError as e:
        o.error(str(e))
    dims = tuple(d + 1 for d in o.ints("reduction_dims"))
    s, r = o.ins[0], o.outs[0]
    rt = o.out_types[0]
    _check_wg_map(o, rt.shape, decode_wg_map_attr(o.attr("wg_map")))
    size = o.int("reduction_size", 0)
    if size > 0:  # IMEX: the row-major source viewed as [size, numel(result)] (dim 0) or
        # [numel(result), size] (dim 1), reduced along that dimension
        nres = int(np.prod(rt.shape))
        view = (size, nres) if dims == (1,) else (nres, size)

    def f(env, st):
        x = env[s]
        if size > 0:
            x = x.reshape((x.shape[0],) + view)
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


# ----------------------------------------------------------------------------------------------
# atomics and scattered access


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
        if isinstance(d, ScatterDesc):  # IMEX: atomic_rmw on a scattered tile, every element
            lin = scatter_addr(st, d, 1, "xetile.atomic_rmw_tile")
            lin = np.broadcast_to(lin, np.broadcast_shapes(lin.shape, v.shape))
            act = None if st.mask is None else st.mask.reshape((-1,) + (1,) * (lin.ndim - 1)) & np.ones(lin.shape, bool)
            scatter_check(st, d, lin, act, "xetile.atomic_rmw_tile")
            valid = None
        else:
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
