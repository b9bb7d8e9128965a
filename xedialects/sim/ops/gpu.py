"""Simulator handlers for `gpu`: kernel launch and host-side memory ops (launch_func, memcpy,
memset, wait), kernel intrinsics (block/thread/global ids, grid/block dims, subgroup id and size,
lane id), `gpu.barrier` (with its divergence check), `gpu.shuffle`, `gpu.subgroup_reduce` and `gpu.printf` (its lines
kept in kernel_printf.py until the launch ends).
`gpu.alloc` / `gpu.dealloc` are handled with memref.alloc / memref.dealloc in memref.py.
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from ..core import SUBGROUP_SIZE, ExecState, FuncCompiler, OpInfo, SimError, enum_text, handler
from ..kernel_printf import record as record_printf
from ...printf_format import parse as parse_printf
from .elements import const_result, widen_half
from .memref_access import copy_view, memref_linear


# ----------------------------------------------------------------------------------------------
# host: launch and memory


@handler("gpu.launch_func")
def _launch_func(c: FuncCompiler, o: OpInfo):
    seg = o.segments()
    # asyncDependencies, gx, gy, gz, bx, by, bz, clusterX, clusterY, clusterZ, dynSMem, kernelOperands, asyncObject
    grid = [seg[1][0], seg[2][0], seg[3][0]]
    blk = [seg[4][0], seg[5][0], seg[6][0]]
    kargs = seg[11] if len(seg) > 11 else []
    kref = str(o.attr("kernel"))
    sim = c.sim
    loc = o.loc
    outs = o.outs

    def f(env, st):
        g = tuple(int(st.uniform(env[s], "grid size")) for s in grid)
        b = tuple(int(st.uniform(env[s], "block size")) for s in blk)
        sim.launch(loc, kref, g, b, [env[s] for s in kargs], st)
        for s in outs:
            env[s] = None

    return f


@handler("gpu.wait", "gpu.host_register", "gpu.host_unregister")
def _gpu_noop_host(c, o):
    outs = o.outs

    def f(env, st):
        for s in outs:
            env[s] = None

    return f


@handler("gpu.memcpy")
def _gmemcpy(c, o):
    ins = o.ins
    d, s = ins[-2], ins[-1]
    outs = o.outs

    def f(env, st):
        copy_view(st, env[d], env[s], "gpu.memcpy")
        for x in outs:
            env[x] = None

    return f


@handler("gpu.memset")
def _gmemset(c, o):
    d, v = o.ins[-2], o.ins[-1]
    outs = o.outs

    def f(env, st):
        m = env[d]
        shape = m.uniform_static()[1]
        lin = memref_linear(st, m, [np.zeros(1, np.int64)] * len(shape), "gpu.memset", shape)
        m.data[lin] = env[v].astype(m.dtype)[0]
        for x in outs:
            env[x] = None

    return f


# ----------------------------------------------------------------------------------------------
# kernel intrinsics


def _dim(o: OpInfo) -> int:
    return "xyz".index(enum_text(o.attr("dimension")))


@handler("gpu.block_id")
def _block_id(c, o):
    d, r = _dim(o), o.outs[0]

    def f(env, st):
        env[r] = st.block_id[d]

    return f


@handler("gpu.grid_dim")
def _grid_dim(c, o):
    d, r = _dim(o), o.outs[0]

    def f(env, st):
        env[r] = np.array([st.grid[d]], np.int64)

    return f


@handler("gpu.block_dim")
def _block_dim(c, o):
    d, r = _dim(o), o.outs[0]

    def f(env, st):
        env[r] = np.array([st.block[d]], np.int64)

    return f


@handler("gpu.subgroup_id")
def _sg_id(c, o):
    r = o.outs[0]
    if c.level == "workgroup":
        o.error("gpu.subgroup_id in a kernel executed at work-group level (its XeTile ops carry wg_map)")

    def f(env, st):
        env[r] = st.sg_id

    return f


@handler("gpu.num_subgroups")
def _num_sg(c, o):
    r = o.outs[0]

    def f(env, st):
        env[r] = np.array([st.sg_per_wg], np.int64)

    return f


@handler("gpu.subgroup_size")
def _sg_size(c, o):
    return const_result(c, o.outs[0], np.array([SUBGROUP_SIZE], np.int64))


@handler("gpu.lane_id")
def _lane_id(c, o):
    r = o.outs[0]

    def f(env, st):
        env[r] = st.lane

    return f


@handler("gpu.thread_id", "gpu.global_id")
def _thread_id(c, o):
    d, r = _dim(o), o.outs[0]
    glob = o.name == "gpu.global_id"

    def f(env, st):
        tx, ty, tz = st.block
        lid = st.local_id
        t = (lid % tx, (lid // tx) % ty, lid // (tx * ty))[d]
        if glob:
            t = st.block_id[d] * st.block[d] + t
        env[r] = t

    return f


@handler("gpu.barrier")
def _gpu_barrier(c, o):
    def f(env, st):
        if st.level == "host":
            raise SimError("gpu.barrier outside a kernel")
        m = st.mask
        if m is not None and st.level != "workgroup":
            per = st.B // st.nwg
            cnt = m.reshape(st.nwg, per).sum(axis=1)
            if st.level == "simt" and st.block[0] * st.block[1] * st.block[2] % SUBGROUP_SIZE:
                full = (st.local_id < st.block[0] * st.block[1] * st.block[2]).reshape(st.nwg, per).sum(axis=1)
            else:
                full = np.full(st.nwg, per)
            bad = np.nonzero((cnt != 0) & (cnt != full))[0]
            if bad.size:
                w = int(bad[0])
                raise SimError(f"gpu.barrier reached by only {int(cnt[w])} of {int(full[w])} "
                               f"{'work-items' if st.level == 'simt' else 'subgroups'} of work-group {int(st.wg_ids[w])} "
                               f"(divergent control flow: the barrier would deadlock)")
        st.barrier_count += 1
        if st.trace is not None:
            st.trace.barriers += 1

    return f


@handler("gpu.printf")
def _printf(c, o):
    types = [str(v.type) for v in o.operands]
    try:
        pieces = parse_printf(o.str("format"), types)
    except ValueError as e:
        o.error(str(e))
    ins, floats = o.ins, [t.startswith(("f", "bf")) for t in types]

    def f(env, st):
        record_printf(st, pieces, [env[s] for s in ins], floats)

    return f


@handler("vector.print", "gpu.dynamic_shared_memory")
def _noop(c, o):
    if o.name == "gpu.dynamic_shared_memory":
        o.error("simulator: gpu.dynamic_shared_memory is not supported")
    return None


# ----------------------------------------------------------------------------------------------
# subgroup operations


def _lanes(st: ExecState, x: np.ndarray) -> np.ndarray:
    """View a per-work-item value (B, ...) as (B/16, 16, ...)."""
    x = np.broadcast_to(x, (st.B,) + x.shape[1:])
    return x.reshape((st.B // SUBGROUP_SIZE, SUBGROUP_SIZE) + x.shape[1:])


@handler("gpu.shuffle")
def _shuffle(c, o):
    mode = enum_text(o.attr("mode"))
    val, off, width = o.ins
    r_val, r_ok = o.outs

    def f(env, st):
        if st.level != "simt":
            raise SimError("gpu.shuffle outside a SIMT kernel")
        v = _lanes(st, env[val])
        lane = st.lane.reshape(-1, SUBGROUP_SIZE)
        o_ = _lanes(st, np.asarray(env[off], np.int64))
        w = int(st.uniform(env[width], "shuffle width"))
        if mode == "xor":
            src = lane ^ o_
        elif mode == "down":
            src = lane + o_
        elif mode == "up":
            src = lane - o_
        else:
            src = o_
        ok = (src >= 0) & (src < w)
        src = np.where(ok, src, lane)
        res = np.take_along_axis(v, src.reshape(src.shape + (1,) * (v.ndim - 2)), axis=1)
        env[r_val] = res.reshape((st.B,) + v.shape[2:])
        env[r_ok] = ok.reshape(-1)

    return f


@handler("gpu.subgroup_reduce")
def _sg_reduce(c, o):
    kind = enum_text(o.attr("op"))
    red = {"add": np.add, "mul": np.multiply, "minsi": np.minimum, "maxsi": np.maximum, "minui": np.minimum,
           "maxui": np.maximum, "minnumf": np.fmin, "maxnumf": np.fmax, "minimumf": np.minimum,
           "maximumf": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[kind]
    val, r = o.ins[0], o.outs[0]
    dt = o.out_types[0].dtype
    size = o.attr("cluster_size")
    stride = o.attr("cluster_stride")
    size = ir.IntegerAttr(size).value if size is not None else SUBGROUP_SIZE
    stride = ir.IntegerAttr(stride).value if stride is not None else 1
    if size * stride > SUBGROUP_SIZE or SUBGROUP_SIZE % (size * stride):
        o.error(f"gpu.subgroup_reduce: clusters of {size} lanes with stride {stride} do not tile a "
                f"{SUBGROUP_SIZE}-lane subgroup")

    def f(env, st):
        v = _lanes(st, env[val])
        if st.mask is not None:  # inactive lanes do not contribute
            m = _lanes(st, st.mask).reshape(v.shape[:2] + (1,) * (v.ndim - 2))
            if kind in ("add", "xor", "or"):
                fill = np.zeros((), v.dtype)
            elif kind == "mul":
                fill = np.ones((), v.dtype)
            else:  # idempotent kinds: any active lane's value is neutral
                first = np.argmax(m.reshape(m.shape[0], -1), axis=1)
                fill = v[np.arange(v.shape[0]), first][:, None]
            v = np.where(m, v, fill)
        x = widen_half(v)
        if kind in ("minui", "maxui"):          # unsigned order on the integer bits
            x = x.view(np.dtype(f"u{x.dtype.itemsize}"))
        # lanes [subgroups, 16] -> [subgroups, 16 / (size * stride), size, stride]: clusters on axis 2
        g = x.reshape((x.shape[0], SUBGROUP_SIZE // (size * stride), size, stride) + x.shape[2:])
        s = np.broadcast_to(red.reduce(g, axis=2, keepdims=True), g.shape).reshape(x.shape)
        if kind in ("minui", "maxui"):
            s = s.view(v.dtype)
        env[r] = s.astype(dt).reshape((-1,) + x.shape[2:])

    return f
