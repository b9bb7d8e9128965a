"""Simulator handlers for `vector`: broadcast, extract/insert (static and dynamic positions), strided
slices, shape casts, transposes, masks, contract (the multiply-accumulate model of numerics.py),
reductions, shuffles, and the memory ops load/store, maskedload/maskedstore and
transfer_read/transfer_write. (`vector.fma` is in math.py, `vector.print` in gpu.py.)
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from ..core import OpInfo, enum_text, handler
from ..memory import MemRef
from ..numerics import elem_name_of, multiply_accumulate
from ..typeinfo import DYN, TypeInfo
from .elements import combine_fn, const_result, reduce_fn, widen_half
from .memref_access import check_active, check_region, masked_write, memref_linear


def _bcast_to(x: np.ndarray, shape: tuple) -> np.ndarray:
    """Broadcast batched x (nb, *s) to (nb, *shape) aligning trailing dims."""
    nb = x.shape[0]
    s = x.shape[1:]
    k = len(shape) - len(s)
    x = x.reshape((nb,) + (1,) * k + s)
    return np.broadcast_to(x, (nb,) + tuple(shape))


@handler("vector.broadcast", "vector.splat")
def _vbroadcast(c, o):
    a, r = o.ins[0], o.outs[0]
    shape = o.out_types[0].shape

    def f(env, st):
        env[r] = _bcast_to(env[a], shape)

    return f


def _positions(o: OpInfo, static_name: str, dyn_slots):
    pos = o.ints(static_name, [])
    dyn = list(dyn_slots)
    out = []
    for p in pos:
        if p == DYN:
            s = dyn.pop(0)
            cv = o.const(s)
            out.append(("c", int(cv.reshape(-1)[0])) if cv is not None else ("d", s))
        else:
            out.append(("c", p))
    return out


def _index_tuple(env, pos, nb_hint):
    """Index tuple for x[(batch, *pos)]; dynamic per-batch positions use fancy indexing."""
    dyn = [env[s] for k, s in pos if k == "d"]
    if not dyn or all(d.shape[0] == 1 for d in dyn):
        return (slice(None),) + tuple(v if k == "c" else int(env[v][0]) for k, v in pos), False
    nb = max(d.shape[0] for d in dyn)
    bidx = np.arange(nb)
    return (bidx,) + tuple(np.full(nb, v) if k == "c" else np.broadcast_to(env[v], (nb,)) for k, v in pos), True


@handler("vector.extract")
def _vextract(c, o):
    src = o.ins[0]
    pos = _positions(o, "static_position", o.ins[1:])
    r = o.outs[0]
    rt = o.out_types[0]

    def f(env, st):
        x = env[src]
        idx, fancy = _index_tuple(env, pos, x.shape[0])
        if fancy and x.shape[0] == 1:
            x = np.broadcast_to(x, (idx[0].shape[0],) + x.shape[1:])
        v = x[idx]
        if rt.kind == "scalar":
            v = np.asarray(v).reshape(-1)
        env[r] = v

    return f


@handler("vector.insert")
def _vinsert(c, o):
    val, dst = o.ins[0], o.ins[1]
    pos = _positions(o, "static_position", o.ins[2:])
    r = o.outs[0]

    def f(env, st):
        x = env[dst]
        v = env[val]
        idx, fancy = _index_tuple(env, pos, x.shape[0])
        nb = max(x.shape[0], v.shape[0], idx[0].shape[0] if fancy else 1)
        out = np.array(np.broadcast_to(x, (nb,) + x.shape[1:]))
        if fancy:
            out[idx] = np.broadcast_to(v, (nb,) + v.shape[1:])
        else:
            out[idx] = v if v.shape[0] == nb else np.broadcast_to(v, (nb,) + v.shape[1:])
        env[r] = out

    return f


@handler("vector.extract_strided_slice")
def _vess(c, o):
    offs = o.ints("offsets")
    sizes = o.ints("sizes")
    strides = o.ints("strides", [1] * len(offs))
    src, r = o.ins[0], o.outs[0]
    sl = (slice(None),) + tuple(slice(a, a + n * s, s) for a, n, s in zip(offs, sizes, strides))

    def f(env, st):
        env[r] = env[src][sl]

    return f


@handler("vector.insert_strided_slice")
def _viss(c, o):
    offs = o.ints("offsets")
    strides = o.ints("strides", None)
    val, dst = o.ins
    r = o.outs[0]
    vshape = o.in_types[0].shape
    k = len(offs) - len(vshape)
    if strides is None:
        strides = [1] * len(vshape)
    sl = (slice(None),) + tuple(offs[:k]) + tuple(
        slice(a, a + n * s, s) for a, n, s in zip(offs[k:], vshape, strides))

    def f(env, st):
        x, v = env[dst], env[val]
        nb = max(x.shape[0], v.shape[0])
        out = np.array(np.broadcast_to(x, (nb,) + x.shape[1:]))
        out[sl] = v
        env[r] = out

    return f


@handler("vector.shape_cast")
def _vshape_cast(c, o):
    src, r = o.ins[0], o.outs[0]
    shape = o.out_types[0].shape

    def f(env, st):
        x = env[src]
        env[r] = x.reshape((x.shape[0],) + shape)

    return f


@handler("vector.transpose")
def _vtranspose(c, o):
    perm = [0] + [p + 1 for p in o.ints("permutation")]
    src, r = o.ins[0], o.outs[0]

    def f(env, st):
        env[r] = env[src].transpose(perm)

    return f


@handler("vector.step")
def _vstep(c, o):
    n = o.out_types[0].shape[0]
    return const_result(c, o.outs[0], np.arange(n, dtype=np.int64)[None])


@handler("vector.from_elements")
def _vfrom(c, o):
    ins, r = o.ins, o.outs[0]
    shape = o.out_types[0].shape
    dt = o.out_types[0].dtype

    def f(env, st):
        vals = [env[s] for s in ins]
        nb = max(v.shape[0] for v in vals)
        out = np.empty((nb, len(vals)), dt)
        for i, v in enumerate(vals):
            out[:, i] = v
        env[r] = out.reshape((nb,) + shape)

    return f


@handler("vector.to_elements")
def _vto(c, o):
    src, outs = o.ins[0], o.outs

    def f(env, st):
        x = env[src]
        flat = x.reshape(x.shape[0], -1)
        for i, s in enumerate(outs):
            env[s] = flat[:, i]

    return f


@handler("vector.constant_mask")
def _vcmask(c, o):
    t = o.out_types[0]
    sizes = o.ints("mask_dim_sizes")
    m = np.zeros(t.shape, bool)
    m[tuple(slice(0, s) for s in sizes)] = True
    return const_result(c, o.outs[0], m[None])


@handler("vector.create_mask")
def _vmask(c, o):
    t = o.out_types[0]
    ins, r = o.ins, o.outs[0]

    def f(env, st):
        bounds = [env[s] for s in ins]
        nb = max(b.shape[0] for b in bounds)
        m = np.ones((nb,) + t.shape, bool)
        for d, b in enumerate(bounds):
            ar = np.arange(t.shape[d]).reshape((1,) + (1,) * d + (-1,) + (1,) * (len(t.shape) - d - 1))
            m &= ar < b.reshape((-1,) + (1,) * len(t.shape))
        env[r] = m

    return f


@handler("vector.bitcast")
def _vbitcast(c, o):
    src, r = o.ins[0], o.outs[0]
    t = o.out_types[0]

    def f(env, st):
        x = np.ascontiguousarray(env[src])
        env[r] = x.view(t.dtype).reshape((x.shape[0],) + t.shape)

    return f


@handler("vector.contract")
def _vcontract(c, o):
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(o.attr("indexing_maps"))]
    kind = enum_text(o.attr("kind")) if o.has("kind") else "add"
    if kind != "add":
        o.error(f"simulator: vector.contract kind '{kind}' not supported")
    letters = "abcdefghijklmnopqrstuvwxyz"

    def sub(m):
        s = ""
        for e in m.results:
            if not isinstance(e, ir.AffineDimExpr):
                o.error("simulator: vector.contract with non-dimension indexing expressions")
            s += letters[e.position]
        return s

    sa, sb, sc = sub(maps[0]), sub(maps[1]), sub(maps[2])
    spec = f"...{sa},...{sb}->...{sc}"
    a, b, acc = o.ins[:3]
    r = o.outs[0]
    dt = o.out_types[0].dtype
    is_mm = len(sa) == 2 and len(sb) == 2 and len(sc) == 2 and sa[0] == sc[0] and sb[1] == sc[1] and sa[1] == sb[0]
    flops = 2
    shapes = {}
    for s_, t_ in ((sa, o.in_types[0]), (sb, o.in_types[1])):
        for ch, n in zip(s_, t_.shape):
            shapes[ch] = n
    for n in shapes.values():
        flops *= n

    def f(env, st):
        x, y = env[a], env[b]
        env[r] = multiply_accumulate(x, y, env[acc], dt, elem_name_of(x.dtype), elem_name_of(y.dtype),
                                     spec=None if is_mm else spec)
        if st.trace is not None:
            st.trace.mma_flops += flops * st.active_count()

    return f


@handler("vector.reduction")
def _vreduction(c, o):
    kind = enum_text(o.attr("kind"))
    red, comb = reduce_fn(kind, None), combine_fn(kind)
    src = o.ins[0]
    acc = o.ins[1] if len(o.ins) > 1 else None
    r = o.outs[0]
    dt = o.out_types[0].dtype

    def f(env, st):
        x = env[src]
        v = red(x, tuple(range(1, x.ndim)))
        if acc is not None:
            v = comb(v, widen_half(env[acc]))
        env[r] = np.asarray(v).astype(dt).reshape(-1)

    return f


@handler("vector.multi_reduction")
def _vmultired(c, o):
    kind = enum_text(o.attr("kind"))
    red, comb = reduce_fn(kind, None), combine_fn(kind)
    dims = tuple(d + 1 for d in o.ints("reduction_dims"))
    src, acc = o.ins[:2]
    r = o.outs[0]
    dt = o.out_types[0].dtype

    def f(env, st):
        x = env[src]
        v = comb(red(x, dims), widen_half(env[acc]))
        env[r] = np.asarray(v).astype(dt).reshape((x.shape[0],) + o.out_types[0].shape)

    return f


# ----------------------------------------------------------------------------------------------
# memory access


@handler("vector.load", "vector.maskedload")
def _vload(c, o):
    mslot = o.ins[0]
    vt = o.out_types[0]
    mt = o.in_types[0]
    nidx = mt.rank
    idx = o.ins[1:1 + nidx]
    mask_slot = o.ins[1 + nidx] if o.name == "vector.maskedload" else None
    pass_slot = o.ins[2 + nidx] if o.name == "vector.maskedload" else None
    r = o.outs[0]
    vshape = vt.shape

    def f(env, st):
        m = env[mslot]
        if mask_slot is None:
            lin = memref_linear(st, m, [env[s] for s in idx], o.name, vshape)
            check_region(st, m.lo, m.hi, lin, o.name)
            env[r] = m.data[lin]
        else:
            lin, valid = _block_lin_soft(m, [env[s] for s in idx], vshape)
            valid = valid & env[mask_slot]
            check_region(st, m.lo, m.hi, lin, o.name, valid)
            lin = np.where(valid, lin, m.lo.reshape((-1,) + (1,) * len(vshape)))
            env[r] = np.where(valid, m.data[lin], env[pass_slot])

    return f


@handler("vector.store", "vector.maskedstore")
def _vstore(c, o):
    if o.name == "vector.store":
        val, mslot = o.ins[0], o.ins[1]
        idx = o.ins[2:]
        mask_slot = None
        vshape = o.in_types[0].shape
    else:
        mslot = o.ins[0]
        nidx = o.in_types[0].rank
        idx = o.ins[1:1 + nidx]
        mask_slot, val = o.ins[1 + nidx], o.ins[2 + nidx]
        vshape = o.in_types[-1].shape

    def f(env, st):
        m = env[mslot]
        v = env[val].astype(m.dtype, copy=False)
        if mask_slot is None:
            lin = memref_linear(st, m, [env[s] for s in idx], o.name, vshape)
            check_region(st, m.lo, m.hi, lin, o.name)
            masked_write(st, m.data, lin, v)
        else:
            lin, valid = _block_lin_soft(m, [env[s] for s in idx], vshape)
            valid = valid & env[mask_slot]
            check_region(st, m.lo, m.hi, lin, o.name, valid)
            _write_valid(st, m.data, lin, v, valid)

    return f


def _write_valid(st, data, lin, v, valid):
    shape = np.broadcast_shapes(lin.shape, v.shape, valid.shape)
    if st.mask is not None:
        shape = np.broadcast_shapes(shape, (st.B,) + (1,) * (len(shape) - 1))
        valid = valid & st.mask.reshape((-1,) + (1,) * (len(shape) - 1))
    valid = np.broadcast_to(valid, shape)
    data[np.broadcast_to(lin, shape)[valid]] = np.broadcast_to(v, shape)[valid]


def _block_lin_soft(m: MemRef, idxs, vshape):
    """Linear indices and validity of a block access over the last dims (no error on OOB)."""
    rank = m.rank
    k = len(vshape)
    extra = (1,) * k
    lin = m.offset.reshape((-1,) + extra)
    valid = None
    for d, ix in enumerate(idxs):
        ix = np.asarray(ix, np.int64).reshape((-1,) + extra)
        if d >= rank - k:
            j = d - (rank - k)
            ix = ix + np.arange(vshape[j], dtype=np.int64).reshape((1,) + (1,) * j + (-1,) + (1,) * (k - j - 1))
        sz = m.sizes[:, d].reshape((-1,) + extra)
        v = (ix >= 0) & (ix < sz)
        valid = v if valid is None else valid & v
        lin = lin + ix * m.strides[:, d].reshape((-1,) + extra)
    return lin, valid


def _transfer_setup(o: OpInfo, mt: TypeInfo, vt: TypeInfo):
    pm = o.attr("permutation_map")
    rank = mt.rank
    if pm is None:
        exprs = [("d", rank - len(vt.shape) + j) for j in range(len(vt.shape))]
    else:
        amap = ir.AffineMapAttr(pm).value
        exprs = []
        for e in amap.results:
            if isinstance(e, ir.AffineDimExpr):
                exprs.append(("d", e.position))
            elif isinstance(e, ir.AffineConstantExpr) and e.value == 0:
                exprs.append(("b", None))
            else:
                o.error("simulator: unsupported transfer permutation map")
    in_bounds = None
    if o.has("in_bounds"):
        in_bounds = [str(x).startswith("true") for x in ir.ArrayAttr(o.attr("in_bounds"))]
    return exprs, in_bounds


def _transfer_index(m: MemRef, idxs, exprs, vshape):
    """(lin, valid) of a transfer op: vector dim j sweeps memref dim exprs[j]."""
    k = len(vshape)
    extra = (1,) * k
    rank = m.rank
    offs = {d: np.asarray(idxs[d], np.int64).reshape((-1,) + extra) for d in range(rank)}
    for j, (kind, d) in enumerate(exprs):
        if kind == "d":
            ar = np.arange(vshape[j], dtype=np.int64).reshape((1,) + (1,) * j + (-1,) + (1,) * (k - j - 1))
            offs[d] = offs[d] + ar
    lin = m.offset.reshape((-1,) + extra)
    valid = None
    for d in range(rank):
        ix = offs[d]
        sz = m.sizes[:, d].reshape((-1,) + extra)
        v = (ix >= 0) & (ix < sz)
        valid = v if valid is None else valid & v
        lin = lin + ix * m.strides[:, d].reshape((-1,) + extra)
    return lin, valid


@handler("vector.transfer_read")
def _tread(c, o):
    seg = o.segments()
    mslot = seg[0][0]
    idx = seg[1]
    pad = seg[2][0]
    mask = seg[3][0] if len(seg) > 3 and seg[3] else None
    mt, vt = o.in_types[0], o.out_types[0]
    if mt.kind != "memref":
        o.error("simulator: vector.transfer_read on tensors is not supported")
    exprs, in_bounds = _transfer_setup(o, mt, vt)
    r = o.outs[0]
    vshape = vt.shape

    def f(env, st):
        m = env[mslot]
        lin, valid = _transfer_index(m, [env[s] for s in idx], exprs, vshape)
        if in_bounds is not None and all(in_bounds):
            check_active(st, ~valid, lambda b: "vector.transfer_read: out-of-bounds access of an in_bounds transfer")
        if mask is not None:
            valid = valid & env[mask]
        check_region(st, m.lo, m.hi, lin, "vector.transfer_read", valid)
        lin2 = np.where(valid, lin, m.lo.reshape((-1,) + (1,) * len(vshape)))
        padv = env[pad].reshape((-1,) + (1,) * len(vshape))
        env[r] = np.where(valid, m.data[lin2], padv).astype(vt.dtype)

    return f


@handler("vector.transfer_write")
def _twrite(c, o):
    seg = o.segments()
    val = seg[0][0]
    mslot = seg[1][0]
    idx = seg[2]
    mask = seg[3][0] if len(seg) > 3 and seg[3] else None
    vt, mt = o.in_types[0], o.in_types[1]
    if mt.kind != "memref":
        o.error("simulator: vector.transfer_write on tensors is not supported")
    exprs, in_bounds = _transfer_setup(o, mt, vt)
    vshape = vt.shape

    def f(env, st):
        m = env[mslot]
        lin, valid = _transfer_index(m, [env[s] for s in idx], exprs, vshape)
        if in_bounds is not None and all(in_bounds):
            check_active(st, ~valid, lambda b: "vector.transfer_write: out-of-bounds access of an in_bounds transfer")
        if mask is not None:
            valid = valid & env[mask]
        check_region(st, m.lo, m.hi, lin, "vector.transfer_write", valid)
        _write_valid(st, m.data, lin, env[val].astype(m.dtype, copy=False), valid)

    return f


# ----------------------------------------------------------------------------------------------
# shuffles


@handler("vector.shuffle")
def _vshuffle(c, o):
    a, b = o.ins
    mask = o.ints("mask")
    r = o.outs[0]

    def f(env, st):
        x, y = env[a], env[b]
        if x.ndim == 1:
            x, y = x[:, None], y[:, None]
        nb = max(x.shape[0], y.shape[0])
        x = np.broadcast_to(x, (nb,) + x.shape[1:])
        y = np.broadcast_to(y, (nb,) + y.shape[1:])
        cat = np.concatenate([x, y], axis=1)
        env[r] = cat[:, mask]

    return f


@handler("vector.interleave")
def _vinterleave(c, o):
    a, b = o.ins
    r = o.outs[0]

    def f(env, st):
        x, y = env[a], env[b]
        nb = max(x.shape[0], y.shape[0])
        x = np.broadcast_to(x, (nb,) + x.shape[1:])
        y = np.broadcast_to(y, (nb,) + y.shape[1:])
        env[r] = np.stack([x, y], axis=-1).reshape(x.shape[:-1] + (2 * x.shape[-1],))

    return f


@handler("vector.deinterleave")
def _vdeinterleave(c, o):
    a = o.ins[0]
    r0, r1 = o.outs

    def f(env, st):
        x = env[a]
        env[r0] = x[..., 0::2]
        env[r1] = x[..., 1::2]

    return f
