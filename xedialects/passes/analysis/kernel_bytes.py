"""Global-memory bytes of one kernel launch (printed by `xe-kernel-report`).

The index arithmetic of an XeGPU kernel is evaluated with numpy over the whole launch at once:
one array axis per grid dimension, one for the subgroups of a work-group, one for the work-items
of a subgroup (SIMT kernels, `gpu.lane_id`) and one per `scf.for`.
Every block load/store and scattered gather/scatter/atomic then counts the elements inside its
memref's bounds (masked lanes and clipped block edges excluded). Where an index, a mask, a bound
or a trip count is not known the whole block is counted and the result is marked an upper bound.
`kernel_bytes(func, launch, arch) -> dict`; docs/perf-model.md "Memory-bound kernels".
"""
from __future__ import annotations

import math

import numpy as np
from mlir import ir

from ...arch import elem_bits
from ...core.typeinfo import memref_info, our_type, vector_info
from ..utils.ir_walk import walk
from .perf_model import _t

GRID_AXES = 5                       # block id x, y, z, subgroup id, lane (SIMT work-item)
LANE = 4
MAX_POINTS = 1 << 22                # evaluation points per band of work-groups (memory bound of the numpy arrays)
_CMP = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater, 5: np.greater_equal,
        6: np.less, 7: np.less_equal, 8: np.greater, 9: np.greater_equal}
_BIN = {"arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
        "arith.minsi": np.minimum, "arith.minui": np.minimum, "arith.maxsi": np.maximum,
        "arith.maxui": np.maximum, "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or,
        "arith.xori": np.bitwise_xor, "arith.shli": np.left_shift, "arith.shrui": np.right_shift,
        "arith.shrsi": np.right_shift}
_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi", "arith.trunci")
_VIEWS = ("memref.expand_shape", "memref.collapse_shape", "memref.cast", "memref.subview")
_READS = {"xegpu.load_nd": "read", "xegpu.load_gather": "read", "xegpu.store_nd": "write",
          "xegpu.store_scatter": "write", "xegpu.prefetch_nd": "prefetch", "xegpu.prefetch": "prefetch",
          "xegpu.atomic_rmw": "atomic"}


def _div(a, b, kind):
    b = np.where(b == 0, 1, b)
    if kind in ("arith.divui", "arith.floordivsi"):
        return np.floor_divide(a, b)
    if kind == "arith.divsi":
        q = np.floor_divide(np.abs(a), np.abs(b))
        return np.where((a < 0) ^ (b < 0), -q, q)
    if kind in ("arith.ceildivsi", "arith.ceildivui"):
        return -np.floor_divide(-a, b)
    return a - b * np.floor_divide(a, b) if kind == "arith.remui" else np.fmod(a, b)


class _Desc:
    """A tensor_desc: `base` (kernel argument index or None), `bounds` (the viewed memref's shape,
    None entries unknown), `offsets` (numpy arrays, or None when unknown), `block` shape,
    element bytes; scattered: `offsets` is one array of lane offsets, `per_lane` elements each."""

    def __init__(self, base, bounds, offsets, block, ebytes, scattered=False, per_lane=1):
        self.base, self.bounds, self.offsets, self.block = base, bounds, offsets, block
        self.ebytes, self.scattered, self.per_lane = ebytes, scattered, per_lane

    def moved(self, offsets):
        return _Desc(self.base, self.bounds, offsets, self.block, self.ebytes, self.scattered, self.per_lane)


class _Eval:
    def __init__(self, func, grid, sgs, args, lanes, first=(0, 0, 0), count=None):
        ops = list(walk(func))
        self.loops = [o for o in ops if o.name == "scf.for"]
        self.nax = GRID_AXES + len(self.loops)
        simt = any(o.name == "gpu.lane_id" for o in ops)
        self.grid, self.first = tuple(grid), first      # this evaluation covers work-groups first .. first + count
        self.sizes = list(count or grid) + [sgs, lanes if simt else 1] + [1] * len(self.loops)
        self.env = {}
        self.views = {a: (i, memref_info(a.type)) for i, a in enumerate(args)}
        self.accesses = []
        self.notes = {}                  # text -> 'upper' (bound), 'partial' (not all counted), 'info'

    # -- values ----------------------------------------------------------------------------------
    def axis(self, ax, values):
        shape = [1] * self.nax
        shape[ax] = len(values)
        return np.asarray(values, dtype=np.int64).reshape(shape)

    def scalar(self, v):
        return np.full((1,) * self.nax, v, dtype=np.int64)

    def get(self, v):
        return self.env.get(v)

    def vec_rank(self, a):
        return a.ndim - self.nax

    def constant(self, op):
        attr = op.attributes["value"]
        t = op.results[0].type
        vi = vector_info(t)
        try:
            if vi is None:
                res = self.scalar(ir.IntegerAttr(attr).value)
            else:
                d = ir.DenseIntElementsAttr(attr)
                if d.is_splat:
                    res = np.full((1,) * self.nax + vi[0], ir.IntegerAttr(d.get_splat_value()).value, dtype=np.int64)
                else:
                    res = np.array([d[i] for i in range(len(d))], dtype=np.int64).reshape((1,) * self.nax + vi[0])
        except (ValueError, TypeError):
            return None
        return res != 0 if (vi[1] if vi else str(t)) == "i1" else res

    def broadcast(self, op):
        src = self.get(op.operands[0])
        vi = vector_info(op.results[0].type)
        if src is None or vi is None:
            return None
        r = self.vec_rank(src)
        lead = src.shape[:self.nax]
        return src.reshape(lead + (1,) * (len(vi[0]) - r) + src.shape[self.nax:])

    def full_vec(self, a, shape):
        return np.broadcast_to(a, a.shape[:self.nax] + tuple(shape))

    # -- ops -------------------------------------------------------------------------------------
    def run_block(self, block, pred, enclosing, record):
        for op in block.operations:
            self.run_op(op.operation, pred, enclosing, record)

    def run_op(self, op, pred, enclosing, record):
        name, ops = op.name, op.operands
        res = None
        if name == "arith.constant":
            res = self.constant(op)
        elif name in _BIN or name.startswith(("arith.div", "arith.rem", "arith.ceildiv", "arith.floordiv")):
            a, b = self.get(ops[0]), self.get(ops[1])
            if a is not None and b is not None:
                res = _BIN[name](a, b) if name in _BIN else _div(a, b, name)
        elif name == "arith.cmpi":
            a, b = self.get(ops[0]), self.get(ops[1])
            if a is not None and b is not None:
                pr = ir.IntegerAttr(op.attributes["predicate"]).value
                if pr >= 6:                         # unsigned: a negative index compares as a huge one
                    a, b = a.astype(np.uint64), b.astype(np.uint64)
                res = _CMP[pr](a, b)
        elif name == "arith.select":
            c, a, b = (self.get(x) for x in ops)
            if c is not None and a is not None and b is not None:
                res = np.where(c, a, b)
        elif name in _CASTS:
            res = self.get(ops[0])
        elif name == "vector.broadcast":
            res = self.broadcast(op)
        elif name in ("gpu.block_id", "gpu.grid_dim"):
            ax = "xyz".index(str(op.attributes["dimension"]).strip(">")[-1])
            res = (self.axis(ax, range(self.first[ax], self.first[ax] + self.sizes[ax])) if name == "gpu.block_id"
                   else self.scalar(self.grid[ax]))
        elif name == "gpu.subgroup_id":
            res = self.axis(3, range(self.sizes[3]))
        elif name == "gpu.lane_id":
            res = self.axis(LANE, range(self.sizes[LANE]))
        elif name == "gpu.num_subgroups":
            res = self.scalar(self.sizes[3])
        elif name in _VIEWS and ops[0] in self.views:
            base = self.views[ops[0]][0]
            self.views[op.results[0]] = (base, memref_info(op.results[0].type))
        elif name == "xegpu.create_nd_tdesc":
            res = self.create_nd(op)
        elif name == "xegpu.create_tdesc":
            res = self.create_scattered(op)
        elif name in ("xegpu.update_nd_offset", "xegpu.update_offset"):
            res = self.update(op)
        elif name in _READS:
            if record:
                self.access(op, _READS[name], pred, enclosing)
        elif name in ("memref.load", "memref.store") and record:
            self.scalar_access(op, pred, enclosing)
        elif name == "scf.for":
            self.run_for(op, pred, enclosing, record)
            return
        elif name == "scf.if":
            c = self.get(ops[0])
            if c is None:
                self.notes["an scf.if condition is not known: both branches counted"] = "upper"
            for i, region in enumerate(op.regions):
                p = pred if c is None else (pred & c if i == 0 else pred & ~c)
                for b in region.blocks:
                    self.run_block(b, p, enclosing, record)
            return
        elif op.regions:
            self.notes[f"{name} is not evaluated: its accesses are not counted"] = "partial"
            return
        if res is not None and len(op.results) == 1:
            self.env[op.results[0]] = res

    def descriptor_source(self, op):
        """What the descriptor that `op` creates points into: "slm" (shared local memory), None
        (a buffer that is not tracked, or a view or descriptor type that is not known), or
        (the base buffer, its view info, the descriptor's type)."""
        src = op.operands[0]
        if _is_slm(src.type):
            return "slm"
        if src not in self.views:
            return None
        base, mi = self.views[src]
        tv = our_type(op.results[0].type)
        if mi is None or tv is None:
            return None
        return base, mi, tv

    def create_nd(self, op):
        from ...xegpu.ops import CreateNdTdescOp

        where = self.descriptor_source(op)
        if where is None or where == "slm":
            return where
        base, mi, tv = where
        c = CreateNdTdescOp(op)
        offs = [self.scalar(x) if isinstance(x, int) else self.get(x) for x in c.mixed("offsets", "static_offsets")]
        bounds = list(mi[0])
        if any(b is None for b in bounds):
            shp = c.mixed("shape", "static_shape")
            if len(shp) == len(bounds):
                for i, s in enumerate(shp):
                    val = s if isinstance(s, int) else self.get(s)
                    if bounds[i] is None and val is not None and np.size(val) == 1:
                        bounds[i] = int(np.asarray(val).ravel()[0])
        if any(o is None for o in offs):
            offs = None
        block = (1,) * (len(bounds) - len(tv.shape)) + tuple(tv.shape)
        return _Desc(base, tuple(bounds), offs, block, elem_bits(str(tv.element_type)) // 8)

    def create_scattered(self, op):
        where = self.descriptor_source(op)
        if where is None or where == "slm":
            return where
        base, mi, tv = where
        numel = None if any(s is None for s in mi[0]) else math.prod(mi[0])
        lanes = tv.shape[0]
        per_lane = math.prod(tv.shape[1:]) if len(tv.shape) > 1 else 1
        offs = self.get(op.operands[1])
        if "mode" not in op.attributes:     # SIMT: this work-item's offsets (the lane axis has the others)
            vi = vector_info(op.operands[1].type)
            lanes, per_lane = (vi[0][0] if vi else 1), 1
        if offs is not None and self.vec_rank(offs) == 0:
            offs = offs.reshape(offs.shape + (1,))
        if offs is not None:
            offs = self.full_vec(offs, (lanes,))
        return _Desc(base, (numel,), offs, (lanes,), elem_bits(str(tv.element_type)) // 8, True, per_lane)

    def update(self, op):
        d = self.get(op.operands[0])
        if not isinstance(d, _Desc):
            return d if d == "slm" else None
        if d.offsets is None:
            return d
        if d.scattered:
            delta = self.get(op.operands[1])
            return d.moved(None if delta is None else d.offsets + delta)
        from ...xegpu.ops import UpdateNdOffsetOp

        deltas = [self.scalar(x) if isinstance(x, int) else self.get(x)
                  for x in UpdateNdOffsetOp(op).mixed("offsets", "static_offsets")]
        if any(x is None for x in deltas):
            return d.moved(None)
        lead = len(d.offsets) - len(deltas)
        return d.moved(d.offsets[:lead] + [o + x for o, x in zip(d.offsets[lead:], deltas)])

    def run_for(self, op, pred, enclosing, record):
        ax = GRID_AXES + self.loops.index(op)
        lb, ub, step = (self.get(x) for x in op.operands[:3])
        body = op.regions[0].blocks[0]
        iv, iter_args = body.arguments[0], list(body.arguments)[1:]
        inits = list(op.operands)[3:]
        if lb is None or ub is None or step is None or np.any(step <= 0):
            trips, k, p = 1, self.axis(ax, [0]), pred
            self.notes["a loop's bounds are not known: its body is counted once"] = "partial"
            self.env[iv] = None
        else:
            trips = max(0, int(np.max(-np.floor_divide(lb - ub, step))))
            k = self.axis(ax, range(trips))
            ivv = lb + step * k
            self.env[iv] = ivv
            p = pred & (ivv < ub)
        self.sizes[ax] = max(1, trips)
        if trips == 0:
            return
        # pass 1: iter_args at their initial values, to find their per-iteration step
        for a, i in zip(iter_args, inits):
            self.env[a] = self.get(i)
        self.run_block(body, p, enclosing, False)
        yields = list(body.operations)[-1].operation.operands
        carried = []
        for a, i, y in zip(iter_args, inits, yields):
            carried.append(self.induction(self.get(i), self.get(y), ax, k))
        for a, (inside, _after) in zip(iter_args, carried):
            self.env[a] = inside
        self.run_block(body, p, enclosing + [ax], record)
        for r, (_inside, after) in zip(op.results, carried):
            self.env[r] = after

    def induction(self, init, y, ax, k):
        """(value inside the loop, value after it) of an iter_arg moving by a loop-invariant step."""
        trips = self.sizes[ax]
        if isinstance(init, _Desc) and isinstance(y, _Desc):
            if init.offsets is None or y.offsets is None:
                return init.moved(None), init.moved(None)
            steps = [b - a for a, b in zip(init.offsets, y.offsets)]
            if any(np.ndim(s) and s.shape[ax] != 1 for s in steps):
                return init.moved(None), init.moved(None)
            return (init.moved([a + k * s for a, s in zip(init.offsets, steps)]),
                    init.moved([a + trips * s for a, s in zip(init.offsets, steps)]))
        if isinstance(init, np.ndarray) and isinstance(y, np.ndarray) and init.shape == y.shape[:init.ndim]:
            s = y - init
            if s.shape[ax] == 1:
                return init + k * s, init + trips * s
        return None, None

    # -- accesses --------------------------------------------------------------------------------
    def scalar_access(self, op, pred, enclosing):
        """memref.load / memref.store of one element of a global memref (once per subgroup)."""
        src = op.operands[0] if op.name == "memref.load" else op.operands[1]
        if _is_slm(src.type) or src not in self.views or self.views[src][1] is None:
            return
        base, mi = self.views[src]
        idx = [self.get(x) for x in (op.operands[1:] if op.name == "memref.load" else op.operands[2:])]
        d = _Desc(base, tuple(mi[0]), None if any(i is None for i in idx) else idx, (1,) * len(mi[0]),
                  elem_bits(mi[1]) // 8)
        self.access(op, "read" if op.name == "memref.load" else "write", pred, enclosing, d)

    def access(self, op, kind, pred, enclosing, d=None):
        if d is None:
            d = self.get(op.operands[1] if kind in ("write", "atomic") else op.operands[0])
        if d == "slm":
            self.notes["SLM accesses are not global memory: not counted"] = "info"
            return
        if not isinstance(d, _Desc):
            self.notes[f"{op.name} on a descriptor not traced to a kernel argument: not counted"] = "partial"
            return
        exact = True
        if d.scattered:
            full = d.block[0] * d.per_lane
            mask = self.get(op.operands[2] if kind in ("write", "atomic") else op.operands[1]) \
                if kind != "prefetch" else None
            if mask is not None and self.vec_rank(mask) == 0:
                mask = mask.reshape(mask.shape + (1,))
            if d.offsets is None or d.bounds[0] is None:
                exact = False
                self.notes["lane offsets not known: every lane counted" if d.offsets is None else
                           "dynamic memref size: every lane counted"] = "upper"
                n = self.scalar(full) if mask is None else self.full_vec(mask, d.block).sum(axis=-1) * d.per_lane
                n = n.reshape(n.shape[:self.nax])
            else:
                per = np.clip(d.bounds[0] - d.offsets, 0, d.per_lane) * (d.offsets >= 0)
                if mask is not None:
                    per = per * self.full_vec(mask, d.block)
                elif kind != "prefetch":
                    exact = False
                    self.notes["a mask is not known: every in-bounds lane counted"] = "upper"
                n = per.sum(axis=-1)
        else:
            full = math.prod(d.block)
            if d.offsets is None or any(b is None for b in d.bounds) or \
                    any(self.vec_rank(o) for o in d.offsets):
                exact = False
                n = self.scalar(full)
                self.notes["block offsets not known (kernel arguments or untraced ops): whole blocks "
                           "counted" if d.offsets is None or any(self.vec_rank(o) for o in d.offsets)
                           else "dynamic memref shape: whole blocks counted"] = "upper"
            else:
                n = self.scalar(1)
                for o, b, s in zip(d.offsets, d.bounds, d.block):
                    n = n * np.clip(np.minimum(o + s, b) - np.maximum(o, 0), 0, s)
        n = n * pred
        if not d.scattered and n.shape[LANE] > 1:
            n = n.max(axis=LANE, keepdims=True)    # a block access is one per subgroup, not per work-item
        # multiply by the sizes of the launch / enclosing-loop axes the count does not vary along
        axes = [ax for ax in range(GRID_AXES) if d.scattered or ax != LANE] + enclosing
        total = int(n.sum())
        for ax in axes:
            if n.shape[ax] == 1:
                total *= self.sizes[ax]
        self.accesses.append({"kind": kind, "arg": d.base, "elems": total, "bytes": total * d.ebytes,
                              "exact": exact})


def _is_slm(t):
    mi = memref_info(t)
    return mi is not None and mi[3] is not None and (mi[3].split(":")[0].strip() == "3" or "workgroup" in mi[3])


def _arg_bytes(a):
    mi = memref_info(a.type)
    if mi is None or any(s is None for s in mi[0]) or _is_slm(a.type):
        return None
    return math.prod(mi[0]) * elem_bits(mi[1]) // 8


def _evaluate(func, grid, sgs, args, lanes):
    """Accesses and notes of the whole launch, evaluated a band of work-groups at a time so that
    no array exceeds MAX_POINTS (work-groups x subgroups x lanes x loop iterations)."""
    body = func.regions[0].blocks[0]

    def run(first, count):
        ev = _Eval(func, grid, sgs, args, lanes, first, count)
        ev.run_block(body, np.ones((1,) * ev.nax, dtype=bool), [], True)
        return ev

    probe = run((0, 0, 0), (1, 1, 1))           # one work-group: the loop trip counts
    per_wg = math.prod(probe.sizes[3:])
    if math.prod(grid) * per_wg <= MAX_POINTS:
        return run((0, 0, 0), grid)
    out = probe
    out.accesses, out.notes = [], {}
    rows = max(1, MAX_POINTS // (per_wg * grid[0]))    # grid rows (y) per band; x split when one row is too much
    cols = grid[0] if rows > 1 or per_wg * grid[0] <= MAX_POINTS else max(1, MAX_POINTS // per_wg)
    for z in range(grid[2]):
        for y in range(0, grid[1], rows):
            for x in range(0, grid[0], cols):
                ev = run((x, y, z), (min(cols, grid[0] - x), min(rows, grid[1] - y), 1))
                out.accesses += ev.accesses
                out.notes.update(ev.notes)
    return out


def kernel_bytes(func, launch, arch, launched: bool = False) -> dict:
    """Bytes one launch of the gpu.func `func` moves to and from global memory. `launch` =
    (grid, block) in work-items from `gpu.launch_func`, or None (one work-group of
    `known_block_size`, else of one subgroup; `launched`: a gpu.launch_func with a runtime grid exists)."""
    args = list(func.regions[0].blocks[0].arguments) if func.regions[0].blocks else []
    if launch is not None:
        grid, block = launch
        how = f"grid {'x'.join(map(str, grid))} from gpu.launch_func"
    else:
        grid = (1, 1, 1)
        try:
            block = tuple(int(x) for x in ir.DenseI32ArrayAttr(func.attributes["known_block_size"]))
        except (KeyError, ValueError, TypeError):
            block = (arch.subgroup_size, 1, 1)
        how = "the gpu.launch_func grid is not constant" if launched else "no gpu.launch_func"
    sgs = max(1, -(-math.prod(block) // arch.subgroup_size))
    try:
        with np.errstate(all="ignore"):
            ev = _evaluate(func, grid, sgs, args, arch.subgroup_size)
    except MemoryError:
        return {"counted": False, "why": "the launch is too large to evaluate"}
    except (ValueError, IndexError, TypeError) as e:   # index arithmetic of a form not traced
        return {"counted": False, "why": f"index arithmetic not traced: {e}"}
    out = {"counted": True, "launch": how, "whole_launch": launch is not None,
           "work_groups": math.prod(grid), "subgroups_per_wg": sgs,
           "read": 0, "write": 0, "prefetch": 0, "exact": set(ev.notes.values()) <= {"info"},
           "complete": "partial" not in ev.notes.values(),
           "upper_bound": "upper" in ev.notes.values(),
           "notes": {k: sorted(n for n, v in ev.notes.items() if v == k) for k in ("upper", "partial", "info")},
           "per_arg": {}}
    for a in ev.accesses:
        kinds = ("read", "write") if a["kind"] == "atomic" else (a["kind"],)
        for k in kinds:
            out[k] += a["bytes"]
            if k != "prefetch" and a["arg"] is not None:
                pa = out["per_arg"].setdefault(a["arg"], {"read": 0, "write": 0})
                pa[k] += a["bytes"]
    # HBM: each argument byte crosses HBM at most once per direction (re-reads hit L2)
    hbm_r = hbm_w = 0
    capped = too_big = False
    for i, pa in out["per_arg"].items():
        size = _arg_bytes(args[i])
        for k in ("read", "write"):
            moved = pa[k] if size is None else min(pa[k], size)
            if moved < pa[k]:
                capped = True
                too_big |= size > arch.l2_bytes      # its re-reads cannot all hit L2
            if k == "read":
                hbm_r += moved
            else:
                hbm_w += moved
    out["hbm_read"], out["hbm_write"] = hbm_r, hbm_w
    out["re_reads"] = capped
    out["hbm_lower_bound"] = too_big
    out["per_arg"] = {str(i): v for i, v in out["per_arg"].items()}
    return out


def bandwidth_bound(arch, nbytes: int) -> dict:
    """Seconds to move `nbytes` at the arch table's sustained HBM bandwidth (all stacks) and at its peak."""
    pf = arch.perf
    stacks = int(pf.stacks.value)
    sustained = pf.hbm_gbs_per_stack.value * stacks
    peak = arch.peak.mem_bandwidth_gbs
    return {"sustained_gbs": sustained, "stacks": stacks, "per_stack_gbs": pf.hbm_gbs_per_stack.value,
            "source": pf.hbm_gbs_per_stack.source, "time_s": nbytes / (sustained * 1e9),
            "peak_gbs": peak, "peak_time_s": nbytes / (peak * 1e9) if peak else None}


def format_bytes(gm: dict, arch) -> list[str]:
    """Report lines (indented for `format_report`) of a `kernel_bytes` result."""
    if not gm.get("counted"):
        return [f"  global memory: not counted ({gm.get('why', 'unknown')})"]
    head = (f"  global memory, one launch of {gm['work_groups']} work-group(s) x {gm['subgroups_per_wg']} "
            f"subgroup(s) ({gm['launch']}):" if gm["whole_launch"] else
            f"  global memory, one work-group of {gm['subgroups_per_wg']} subgroup(s) only ({gm['launch']}):")
    nt = gm["notes"]
    how = "exact" if gm["exact"] else "; ".join(
        (["an upper bound: " + "; ".join(nt["upper"])] if nt["upper"] else []) +
        (["incomplete: " + "; ".join(nt["partial"])] if nt["partial"] else []))
    acc = gm["read"] + gm["write"]
    pre = f"; prefetched {gm['prefetch']:,}" if gm["prefetch"] else ""
    lines = [head, f"    accessed: {acc:,} B (read {gm['read']:,}, write {gm['write']:,}{pre}) -- in-bounds "
                   f"elements of every block access and unmasked scattered lane of every subgroup; {how}"]
    hbm = gm["hbm_read"] + gm["hbm_write"]
    if arch.perf is not None:
        bw = bandwidth_bound(arch, hbm)
        peak = f"; {_t(bw['peak_time_s'])} at the {bw['peak_gbs']:g} GB/s peak" if bw["peak_time_s"] else ""
        lines.append(f"    HBM bytes: {hbm:,} (read {gm['hbm_read']:,}, write {gm['hbm_write']:,}) -> bandwidth bound "
                     f"{_t(bw['time_s'])} at {bw['sustained_gbs']:g} GB/s sustained ({bw['stacks']} stack(s) x "
                     f"{bw['per_stack_gbs']:g} GB/s) [{arch.name}]{peak}")
    else:
        lines.append(f"    HBM bytes: {hbm:,} (read {gm['hbm_read']:,}, write {gm['hbm_write']:,})")
    for n in nt["info"]:
        lines.append(f"    ({n})")
    if gm["re_reads"]:
        note = (f"each argument byte counted once per direction; re-reads of {acc - hbm:,} B assumed to hit L2")
        if gm["hbm_lower_bound"]:
            note += f" -- a lower bound: an argument read more than once exceeds the {arch.l2_bytes // 2**20} MB L2"
        lines.append(f"    ({note})")
    return lines
