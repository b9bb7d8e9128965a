"""Simulator handlers for `memref`: load/store, views (subview incl. rank reduction, cast,
reinterpret_cast, view, transpose, collapse/expand_shape, metadata), allocation on the host and in
kernels (SLM, private; also `gpu.alloc` / `gpu.dealloc`), copies, globals and atomic_rmw; the
address of a buffer (`extract_aligned_pointer_as_index`, and `llvm.ptrtoint` of a kernel's pointer); the
host's packed-byte view of i4 weights (`builtin.unrealized_conversion_cast`).

A memref value is a strided view (per-batch offset/sizes/strides) of a flat buffer (memory.py).
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from ...core.kinds import ATOMIC_RMW_KINDS
from ..core import ExecState, OpInfo, SimError, alloc_in_kernel, attr_ints, enum_text, handler
from ..i4_memrefs import pack_i4
from ..memory import MemRef
from ..typeinfo import DYN, TypeInfo
from .elements import const_result, dense_value
from .memref_access import atomic_apply, check_active, check_region, copy_view, masked_write, memref_linear


@handler("memref.load")
def _mload(c, o):
    mslot, idx = o.ins[0], o.ins[1:]
    r = o.outs[0]

    def f(env, st):
        m = env[mslot]
        lin = memref_linear(st, m, [env[s] for s in idx], "memref.load")
        if check_region(st, m.lo, m.hi, lin, "memref.load"):
            lin = np.clip(lin, 0, m.data.size - 1)
        env[r] = m.data[lin]

    return f


@handler("memref.store")
def _mstore(c, o):
    val, mslot, idx = o.ins[0], o.ins[1], o.ins[2:]

    def f(env, st):
        m = env[mslot]
        lin = memref_linear(st, m, [env[s] for s in idx], "memref.store")
        check_region(st, m.lo, m.hi, lin, "memref.store")
        masked_write(st, m.data, lin, env[val].astype(m.dtype, copy=False))

    return f


# ----------------------------------------------------------------------------------------------
# views


def _mixed(o: OpInfo, static_name: str, dyn_slots: list, env):
    """Per-batch int64 arrays (nb,) for a static/dynamic mixed list."""
    vals = o.ints(static_name)
    out = []
    it = iter(dyn_slots)
    for v in vals:
        if v == DYN:
            out.append(np.asarray(env[next(it)], np.int64).reshape(-1))
        else:
            out.append(np.array([v], np.int64))
    return out


def _stack(cols: list) -> np.ndarray:
    if not cols:
        return np.zeros((1, 0), np.int64)
    nb = max(x.shape[0] for x in cols)
    return np.stack([np.broadcast_to(x, (nb,)) for x in cols], axis=1)


@handler("memref.subview")
def _subview(c, o):
    seg = o.segments()
    src = seg[0][0]
    d_off, d_siz, d_str = seg[1], seg[2], seg[3]
    rt = o.out_types[0]
    st_t = o.in_types[0]
    r = o.outs[0]
    static_sizes = o.ints("static_sizes")
    # rank reduction: drop unit dims not present in the result
    keep = list(range(len(static_sizes)))
    if rt.rank < st_t.rank:
        keep = []
        j = 0
        ndrop = st_t.rank - rt.rank
        for d, s in enumerate(static_sizes):
            if j < rt.rank and s == rt.shape[j] and not (s == 1 and ndrop > 0 and
                                                          (st_t.rank - d - 1) >= (rt.rank - j)):
                keep.append(d)
                j += 1
            elif s == 1 and ndrop > 0:
                ndrop -= 1
            elif j < rt.rank:
                keep.append(d)
                j += 1
        if len(keep) != rt.rank:
            o.error("simulator: cannot infer rank-reduced subview dimensions")

    def f(env, st):
        m = env[src]
        offs = _mixed(o, "static_offsets", d_off, env)
        sizes = _mixed(o, "static_sizes", d_siz, env)
        strides = _mixed(o, "static_strides", d_str, env)
        off = m.offset
        new_strides = []
        for d in range(m.rank):
            off = off + offs[d] * m.strides[:, d]
            new_strides.append(strides[d] * m.strides[:, d])
            bad = (offs[d] < 0) | (offs[d] + (sizes[d] - 1) * strides[d] >= m.sizes[:, d])
            bad &= sizes[d] > 0
            if bad.any():
                check_active(st, bad, lambda b, d=d: f"memref.subview: slice [{int(offs[d][min(b, offs[d].shape[0]-1)])}, "
                                                      f"size {int(sizes[d][min(b, sizes[d].shape[0]-1)])}) exceeds dimension {d} "
                                                      f"of size {int(m.sizes[min(b, m.sizes.shape[0]-1), d])}")
        env[r] = m.with_(offset=np.asarray(off, np.int64), sizes=_stack([sizes[d] for d in keep]),
                         strides=_stack([new_strides[d] for d in keep]))

    return f


@handler("memref.dim")
def _mdim(c, o):
    src, di = o.ins
    r = o.outs[0]

    def f(env, st):
        m = env[src]
        d = env[di]
        if d.shape[0] == 1:
            env[r] = m.sizes[:, int(d[0])].copy()
        else:
            env[r] = m.sizes[np.arange(d.shape[0]) % m.sizes.shape[0], d]

    return f


@handler("memref.rank")
def _mrank(c, o):
    return const_result(c, o.outs[0], np.array([o.in_types[0].rank], np.int64))


@handler("memref.cast", "memref.memory_space_cast", "memref.assume_alignment")
def _mcast(c, o):
    src, r = o.ins[0], o.outs[0]

    def f(env, st):
        env[r] = env[src]

    return f


@handler("memref.reinterpret_cast")
def _mreinterpret(c, o):
    seg = o.segments()
    src = seg[0][0]
    d_off, d_siz, d_str = seg[1], seg[2], seg[3]
    r = o.outs[0]

    def f(env, st):
        m = env[src]
        off = _mixed(o, "static_offsets", d_off, env)[0]
        sizes = _mixed(o, "static_sizes", d_siz, env)
        strides = _mixed(o, "static_strides", d_str, env)
        # offsets are relative to the allocation's aligned base pointer
        env[r] = m.with_(offset=m.lo + off, sizes=_stack(sizes), strides=_stack(strides))

    return f


@handler("memref.view")
def _mview(c, o):
    """A 1-D byte buffer seen as a row-major memref of another element type at a byte shift."""
    src, shift, dyn = o.ins[0], o.ins[1], o.ins[2:]
    rt = o.out_types[0]
    isz = np.dtype(rt.dtype).itemsize
    r = o.outs[0]

    def f(env, st):
        m = env[src]
        it = iter(dyn)
        sizes = [np.asarray(env[next(it)], np.int64).reshape(-1) if d == DYN else np.array([d], np.int64)
                 for d in rt.shape]
        strides, acc = [], np.ones(1, np.int64)
        for n in reversed(sizes):
            strides.append(acc)
            acc = acc * n
        byte = m.offset * m.dtype.itemsize + np.asarray(env[shift], np.int64).reshape(-1)
        lo, hi = m.lo * m.dtype.itemsize, m.hi * m.dtype.itemsize
        if (byte % isz).any() or (lo % isz).any():
            raise SimError(f"memref.view: byte shift not a multiple of the {isz}-byte element type")
        env[r] = MemRef(m.buf, byte // isz, _stack(sizes), _stack(strides[::-1]), lo // isz, hi // isz, rt.dtype)

    return f


@handler("memref.collapse_shape")
def _mcollapse(c, o):
    groups = [attr_ints(g) for g in ir.ArrayAttr(o.attr("reassociation"))]
    src, r = o.ins[0], o.outs[0]

    def f(env, st):
        m = env[src]
        sizes, strides = [], []
        for g in groups:
            sz = m.sizes[:, g[0]].copy()
            for d in g[1:]:
                sz = sz * m.sizes[:, d]
            sizes.append(sz)
            strides.append(m.strides[:, g[-1]])
        env[r] = m.with_(sizes=_stack(sizes), strides=_stack(strides))

    return f


@handler("memref.expand_shape")
def _mexpand(c, o):
    groups = [attr_ints(g) for g in ir.ArrayAttr(o.attr("reassociation"))]
    src = o.ins[0]
    dyn = o.ins[1:]
    r = o.outs[0]

    def f(env, st):
        m = env[src]
        out_sizes = _mixed(o, "static_output_shape", dyn, env) if o.has("static_output_shape") else \
            [np.array([s], np.int64) for s in o.out_types[0].shape]
        nd = len(out_sizes)
        # A 0-D source has an empty reassociation: every result dim is a unit dim no group covers,
        # and its stride is 1 (what upstream gives memref<f32> -> memref<1x1xf32>).
        strides = [np.ones(1, np.int64)] * nd
        for gi, g in enumerate(groups):
            acc = m.strides[:, gi]
            for d in reversed(g):
                strides[d] = acc
                acc = acc * out_sizes[d]
        env[r] = m.with_(sizes=_stack(out_sizes), strides=_stack(strides))

    return f


@handler("llvm.ptrtoint")
def _ptrtoint(c, o):
    """A kernel's `!llvm.ptr` argument holds the simulator's address of its buffer (runtime/host/device.py):
    its integer is that address."""
    src, r = o.ins[0], o.outs[0]

    def f(env, st):
        env[r] = np.asarray(env[src], np.int64)

    return f


@handler("memref.extract_aligned_pointer_as_index")
def _mptr(c, o):
    src, r = o.ins[0], o.outs[0]

    def f(env, st):
        m = env[src]
        env[r] = np.array([m.buf.base_addr], np.int64)

    return f


@handler("memref.extract_strided_metadata")
def _mmeta(c, o):
    src = o.ins[0]
    outs = o.outs
    rank = o.in_types[0].rank

    def f(env, st):
        m = env[src]
        base = m.with_(offset=m.lo, sizes=np.zeros((1, 0), np.int64), strides=np.zeros((1, 0), np.int64))
        env[outs[0]] = base
        env[outs[1]] = m.offset - m.lo
        for d in range(rank):
            env[outs[2 + d]] = m.sizes[:, d].copy()
            env[outs[2 + rank + d]] = m.strides[:, d].copy()

    return f


@handler("memref.transpose")
def _mtranspose(c, o):
    amap = ir.AffineMapAttr(o.attr("permutation")).value
    perm = []
    for e in amap.results:
        if not isinstance(e, ir.AffineDimExpr):
            o.error("simulator: memref.transpose needs a permutation map")
        perm.append(e.position)
    src, r = o.ins[0], o.outs[0]

    def f(env, st):
        m = env[src]
        env[r] = m.with_(sizes=m.sizes[:, perm], strides=m.strides[:, perm])

    return f


# ----------------------------------------------------------------------------------------------
# allocation, copies, globals, atomics


def _host_alloc(st: ExecState, t: TypeInfo, dyn_vals, name):
    shape = []
    it = iter(dyn_vals)
    for d in t.shape:
        shape.append(int(st.uniform(next(it), "allocation size")) if d == DYN else d)
    n = int(np.prod(shape)) if shape else 1
    buf = st.mem.new(np.zeros(n, t.dtype), name)
    return st.mem.full_view(buf, tuple(shape))


@handler("memref.alloc", "memref.alloca", "gpu.alloc")
def _malloc(c, o):
    t = o.out_types[-1]
    r = o.outs[-1]
    if o.name == "gpu.alloc":
        seg = o.segments()
        dyn = seg[1] if len(seg) > 1 else []
        tok = o.outs[0] if len(o.outs) > 1 else None
    else:
        seg = o.segments()
        dyn = seg[0]
        tok = None
    level = c.level
    loc = o.loc
    name = f"{o.name}@{loc}"
    key = object()  # identifies this op's static allocation within a launch

    def f(env, st):
        if level == "host":
            env[r] = _host_alloc(st, t, [env[s] for s in dyn], name)
        else:
            # kernel allocations are static: one allocation per op and launch, reused when the
            # op executes again (e.g. inside a loop)
            m = st.allocs.get(key)
            if m is None:
                space = "slm" if t.memory_space == 3 else "private"
                if dyn:
                    raise SimError("dynamic-size allocation inside a kernel is not supported")
                m = st.allocs[key] = alloc_in_kernel(st, t, space, loc, name)
            env[r] = m
        if tok is not None:
            env[tok] = None

    return f


@handler("memref.dealloc", "gpu.dealloc")
def _mdealloc(c, o):
    outs = o.outs

    def f(env, st):
        for s in outs:
            env[s] = None

    return f


@handler("memref.copy")
def _mcopy(c, o):
    s, d = o.ins

    def f(env, st):
        copy_view(st, env[d], env[s], "memref.copy")

    return f


@handler("memref.global")
def _mglobal(c, o):
    return None


@handler("memref.get_global")
def _mget_global(c, o):
    name = str(o.attr("name")).lstrip("@")
    t = o.out_types[0]
    r = o.outs[0]
    sim = c.sim

    def f(env, st):
        v = sim._global_bufs.get(name)
        if v is None:
            gop = sim._globals.get(name)
            if gop is None:
                raise SimError(f"memref.get_global: @{name} not found")
            init = gop.attributes["initial_value"] if "initial_value" in gop.attributes else None
            if init is None or str(init) == "unit":
                data = np.zeros(t.shape, t.dtype)
            else:
                data = dense_value(init, t)
            buf = st.mem.new(data, f"global @{name}")
            v = sim._global_bufs[name] = st.mem.full_view(buf, t.shape)
        env[r] = v

    return f


@handler("memref.atomic_rmw")
def _matomic(c, o):
    a = o.attr("kind")      # arith::AtomicRMWKind: an integer in MLIR's generic form
    kind = ATOMIC_RMW_KINDS.get(ir.IntegerAttr(a).value, str(a)) if isinstance(a, ir.IntegerAttr) else enum_text(a)
    val, mslot = o.ins[0], o.ins[1]
    idx = o.ins[2:]
    r = o.outs[0]

    def f(env, st):
        m = env[mslot]
        lin = memref_linear(st, m, [env[s] for s in idx], "memref.atomic_rmw")
        check_region(st, m.lo, m.hi, lin, "memref.atomic_rmw")
        v = np.broadcast_to(env[val], np.broadcast_shapes(lin.shape, env[val].shape, (st.B,)))
        lin = np.broadcast_to(lin, v.shape)
        if st.mask is not None:
            mm = np.broadcast_to(st.mask, v.shape)
            old = np.zeros(v.shape, m.dtype)
            old[mm] = atomic_apply(m.data, lin[mm], v[mm], kind)
        else:
            old = atomic_apply(m.data, lin, v, kind)
        if st.trace is not None:
            st.trace.atomics += st.active_count()
        env[r] = old

    return f


@handler("builtin.unrealized_conversion_cast")
def _i4_as_bytes(c, o):
    """memref<K x N x i4> -> memref<K x N/2 x i8> on the host: the view of W4A16 weights a fused GEMM
    kernel takes (convert-linalg-to-xetile, dequant.py). The simulator holds i4 memrefs one value per
    byte; the cast packs them two per byte into a new buffer, the layout of upstream MLIR and of the device
    (i4_memrefs.py). Other casts are not simulated."""
    src_t, dst_t = o.in_types[0], o.out_types[0]
    src, r = o.ins[0], o.outs[0]
    if not (len(o.ins) == 1 and src_t.kind == dst_t.kind == "memref" and src_t.elem == "i4" and dst_t.elem == "i8"
            and src_t.shape[:-1] == dst_t.shape[:-1] and src_t.shape[-1] == 2 * dst_t.shape[-1] and c.level == "host"):
        raise SimError(f"builtin.unrealized_conversion_cast from {src_t.text} to {dst_t.text} is not simulated "
                       "(only the host's i4 -> packed i8 view of fused W4A16 weights)")
    name = f"{o.name}@{o.loc}"

    def f(env, st):
        m = env[src]
        buf = st.mem.new(pack_i4(m.to_numpy()), name)
        env[r] = st.mem.full_view(buf, tuple(dst_t.shape))

    return f
