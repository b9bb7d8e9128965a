"""Simulator core: compiles MLIR functions once into lists of Python closures and executes them.

Execution is lock-step and batched: every SSA value is a numpy array whose leading axis is either 1
(uniform over the batch) or B (one entry per batch element). On the host B = 1; in a kernel a batch
element is a subgroup (default), a work-group (work-group level XeTile with wg_map) or a work-item
(SIMT-mode XeGPU / thread_id kernels). Structured control flow (ops/scf.py) runs uniform branches
and loops directly and divergent ones under an activity mask (side effects honour the mask; values
are merged with per-batch selects). Op semantics live in the `ops/` package (one module per
dialect), whose handlers register here with `@handler("op.name")`.
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np
from mlir import ir

from .. import diagnostics
from ..diagnostics import DiagnosticError
from .kernel_printf import ordered_text, write_stdout
from .memory import MemRef, Memory, SelectError
from .trace import LaunchRecord, Trace
from .typeinfo import DYN, TypeInfo, parse_type

# name -> handler(c: FuncCompiler, o: OpInfo) -> closure(env, st) | None
HANDLERS: dict[str, Callable] = {}

SUBGROUP_SIZE = 16


def handler(*names):
    def deco(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn

    return deco


def fail(loc, msg, notes=None):
    raise DiagnosticError([diagnostics.at(loc, "error", msg, notes)])


class SimError(Exception):
    """Raised inside closures without location; converted with the op location by the runner."""


# ----------------------------------------------------------------------------------------------


class OpInfo:
    """Compile-time view of one operation: operand/result slots, decoded types, attributes."""

    def __init__(self, c: "FuncCompiler", op):
        op = op.operation
        self.op = op
        self.name = op.name
        self.loc = str(op.location)
        self.c = c
        self.operands = list(op.operands)
        self.results = list(op.results)
        self.ins = [c.slot(v) for v in self.operands]
        self.outs = [c.slot(v) for v in self.results]
        self.in_types = [self._type(v) for v in self.operands]
        self.out_types = [self._type(v) for v in self.results]
        self.attrs = op.attributes

    def _type(self, value):
        """The decoded type of `value`; a type the simulator does not model is a located error."""
        try:
            return parse_type(value.type)
        except ValueError as e:
            from .unsupported import unsupported_type_message

            fail(self.loc, unsupported_type_message(self.name, str(value.type), str(e)))

    # attributes -------------------------------------------------------------------------------
    def has(self, name) -> bool:
        return name in self.attrs

    def attr(self, name, default=None):
        return self.attrs[name] if name in self.attrs else default

    def ints(self, name, default=None) -> list | None:
        if name not in self.attrs:
            return default
        return attr_ints(self.attrs[name])

    def int(self, name, default=None):
        if name not in self.attrs:
            return default
        a = self.attrs[name]
        try:
            return ir.IntegerAttr(a).value
        except Exception:
            return int(str(a).split(":")[0].strip())

    def str(self, name, default=None):
        if name not in self.attrs:
            return default
        a = self.attrs[name]
        try:
            return ir.StringAttr(a).value
        except Exception:
            return enum_text(a)

    def segments(self, n: int | None = None) -> list[list[int]]:
        """Operand slots grouped by operandSegmentSizes."""
        if "operandSegmentSizes" in self.attrs:
            sizes = attr_ints(self.attrs["operandSegmentSizes"])
        elif n is not None:
            sizes = [len(self.ins)] + [0] * (n - 1)
        else:
            sizes = [len(self.ins)]
        out, i = [], 0
        for s in sizes:
            out.append(self.ins[i:i + s])
            i += s
        return out

    def error(self, msg):
        fail(self.loc, msg)

    def const(self, slot):
        return self.c.consts.get(slot)


def attr_ints(a) -> list:
    try:
        return list(ir.DenseI64ArrayAttr(a))
    except Exception:
        pass
    try:
        return list(ir.DenseI32ArrayAttr(a))
    except Exception:
        pass
    try:
        return [ir.IntegerAttr(x).value for x in ir.ArrayAttr(a)]
    except Exception:
        pass
    text = str(a)
    if text.startswith("array<"):
        body = text[text.find(":") + 1:-1] if ":" in text else ""
        return [int(x) for x in body.split(",") if x.strip()]
    if text.startswith("["):
        return [int(x.split(":")[0]) for x in text.strip("[]").split(",") if x.strip()]
    raise ValueError(f"not an integer list attribute: {text}")


def enum_text(a) -> str:
    """`#vector.kind<add>` → 'add'; `#gpu<dim x>` → 'x'; `"s"` → 's'."""
    t = str(a).strip()
    if t.startswith('"') and t.endswith('"'):
        return t[1:-1]
    if "<" in t and t.endswith(">"):
        inner = t[t.index("<") + 1:-1].strip()
        return inner.split()[-1] if " " in inner else inner
    return t


# ----------------------------------------------------------------------------------------------


class CompiledBlock:
    __slots__ = ("ops", "arg_slots", "term_slots", "term_name")

    def __init__(self, ops, arg_slots, term_name, term_slots):
        self.ops = ops
        self.arg_slots = arg_slots
        self.term_name = term_name
        self.term_slots = term_slots


def run_ops(ops, env, st):
    f = None
    try:
        for f in ops:
            f(env, st)
    except DiagnosticError:
        raise
    except SimError as e:
        fail(getattr(f, "_loc", "unknown"), str(e))
    except RecursionError:
        raise
    except Exception as e:  # internal error: report with the op location
        name = getattr(f, "_name", "?")
        fail(getattr(f, "_loc", "unknown"), f"simulator failure executing '{name}': {type(e).__name__}: {e}")


def run_block(blk: CompiledBlock, env, st):
    run_ops(blk.ops, env, st)
    return [env[s] for s in blk.term_slots]


class FuncCompiler:
    """Compiles one function body (host func.func or gpu.func) into closures."""

    def __init__(self, sim: "Simulator", level: str, trace: bool):
        self.sim = sim
        self.level = level  # host | subgroup | workgroup | simt
        self.trace = trace
        self.slots: dict = {}
        self.consts: dict[int, np.ndarray] = {}
        self.defs: dict[int, OpInfo] = {}

    def slot(self, v) -> int:
        s = self.slots.get(v)
        if s is None:
            s = len(self.slots)
            self.slots[v] = s
        return s

    @property
    def nslots(self):
        return len(self.slots)

    def compile_block(self, block) -> CompiledBlock:
        arg_slots = [self.slot(a) for a in block.arguments]
        ops = []
        term_name, term_slots = None, []
        op_list = list(block.operations)
        for i, op in enumerate(op_list):
            o = OpInfo(self, op)
            last = i == len(op_list) - 1
            if last and o.name in TERMINATORS:
                term_name, term_slots = o.name, o.ins
                continue
            for s in o.outs:
                self.defs[s] = o
            h = HANDLERS.get(o.name)
            if h is None:
                from .unsupported import unsupported_message

                o.error(unsupported_message(o.name))
            fn = h(self, o)
            if fn is None:
                continue
            if self.trace:
                fn = _traced(fn, o.name)
            fn._loc = o.loc
            fn._name = o.name
            ops.append(fn)
        return CompiledBlock(ops, arg_slots, term_name, term_slots)

    def compile_region(self, region) -> CompiledBlock:
        blocks = list(region.blocks)
        if len(blocks) != 1:
            fail(str(region.owner.location) if hasattr(region, "owner") else "unknown",
                 "simulator: only single-block regions (structured control flow) are supported")
        return self.compile_block(blocks[0])


TERMINATORS = {"scf.yield", "func.return", "gpu.return", "scf.condition", "gpu.yield", "memref.alloca_scope.return",
               "gpu.terminator", "affine.yield", "linalg.yield"}


def _traced(fn, name):
    def g(env, st):
        st.trace.count(name, st.active_count())
        fn(env, st)

    return g


# ----------------------------------------------------------------------------------------------


class ExecState:
    """Per-execution (host call or kernel launch) state shared by all closures."""

    def __init__(self, sim: "Simulator", level: str, B: int):
        self.sim = sim
        self.mem: Memory = sim.memory
        self.level = level
        self.B = B
        self.mask = None  # None (all active) or bool (B,)
        self.trace: Trace | None = sim.trace
        self.loop_cap = sim.loop_cap
        # kernel geometry (filled by launch)
        self.grid = (1, 1, 1)
        self.block = (1, 1, 1)
        self.nwg = 1
        self.sg_per_wg = 1
        self.wg = np.zeros(1, np.int64)       # per batch element: index of its work-group in this batch
        self.wg_ids = np.zeros(1, np.int64)   # linear work-group id of each work-group of this batch
        self.block_id = (np.zeros(1, np.int64),) * 3
        self.sg_id = None
        self.lane = None
        self.local_id = None
        self.kernel_name = None
        self.nbar = None
        self.slm_bytes = 0
        self.allocs = {}
        self.barrier_count = 0
        self.printed = []       # gpu.printf lines of this launch, written at its end (kernel_printf.py)
        self.printf_seq = 0

    def active_count(self) -> int:
        return self.B if self.mask is None else int(self.mask.sum())

    def active(self):
        """Boolean (B,) activity or None."""
        return self.mask

    def where_desc(self, b: int) -> str:
        """Human description of batch element b (for error messages)."""
        if self.level == "host":
            return "host"
        wg = int(self.wg_ids[self.wg[b] if self.wg.shape[0] > 1 else 0])
        gx, gy, _ = self.grid
        bid = (wg % gx, (wg // gx) % gy, wg // (gx * gy))
        s = f"work-group {bid}"
        if self.level == "subgroup":
            s += f", subgroup {int(self.sg_id[b])}"
        elif self.level == "simt":
            s += f", subgroup {int(self.sg_id[b])}, lane {int(self.lane[b])}"
        return s

    def uniform(self, v, what: str):
        """A Python int/float/bool for a value uniform over the active batch; SimError otherwise."""
        a = np.asarray(v)
        if a.ndim == 0:
            return a.item()
        if a.shape[0] == 1:
            return a[0].item()
        m = self.mask
        if m is not None:
            if not m.any():
                return a[0].item()
            a = a[m]
        first = a[0]
        if not (a == first).all():
            raise SimError(f"{what} is not uniform across the batch ({self.level} level): "
                           f"values range {a.min()}..{a.max()}")
        return first.item()

    def is_uniform(self, v) -> bool:
        a = np.asarray(v)
        if a.ndim == 0 or a.shape[0] == 1:
            return True
        m = self.mask
        if m is not None:
            if not m.any():
                return True
            a = a[m]
        return bool((a == a[0]).all())


def bselect(mask: np.ndarray, a, b):
    """Per-batch select between two SSA values (mask: bool (B,))."""
    if a is b:
        return a
    if isinstance(a, np.ndarray):
        m = mask.reshape((-1,) + (1,) * (a.ndim - 1))
        return np.where(m, a, b)
    if a is None:
        return b
    if hasattr(a, "select"):
        try:
            return a.select(mask, b)
        except SelectError as e:
            raise SimError(str(e))
    raise SimError(f"cannot merge values of kind {type(a).__name__} under divergent control flow")


# ----------------------------------------------------------------------------------------------


class CompiledFunc:
    def __init__(self, name, nslots, body: CompiledBlock, level, op, ret_types):
        self.name = name
        self.nslots = nslots
        self.body = body
        self.level = level
        self.op = op
        self.ret_types = ret_types
        self.num_inputs = len(body.arg_slots)
        self.wg_attr = 0


def module_arch(module, arch=None):
    """The hardware table a simulation of `module` uses: `arch` when given, else the architecture the
    module's kernels were lowered for (`xe.arch` on its gpu.modules, or the SPIR-V metadata's "arch";
    arch/recorded.py), else pvc. An unknown name is a DiagnosticError."""
    from ..arch import ArchError, get_arch
    from ..arch.recorded import recorded_arch

    if arch is None:
        arch = recorded_arch(module) or "pvc"
    try:
        return get_arch(arch)
    except ArchError as e:
        raise DiagnosticError([diagnostics.Diagnostic("error", f"simulator: {e}")]) from None


class Simulator:
    """Runs a module's functions. `arch` (a name or an XeArch) is the hardware whose limits apply
    (default: the one the module's kernels were lowered for, its `xe.arch`, else pvc); `slm_limit` overrides its
    shared local memory per work-group (bytes)."""

    def __init__(self, module, *, trace: bool = False, loop_cap: int = 1 << 22, arch=None,
                 slm_limit: int | None = None, strict_barriers: bool = True):
        self.module = module
        self.memory = Memory()
        self.trace = Trace() if trace else None
        self.trace_enabled = trace
        self.loop_cap = loop_cap
        self.arch = module_arch(module, arch)
        self.slm_limit = self.arch.slm_bytes_per_workgroup if slm_limit is None else slm_limit
        self.slm_limit_source = f"{self.arch.name} SLM per work-group" if slm_limit is None else "slm_limit"
        self.strict_barriers = strict_barriers
        self._compiled: dict = {}
        self._symbols: dict[str, object] = {}
        self._gpu_modules: dict[str, dict[str, object]] = {}
        self._globals: dict[str, object] = {}
        self._global_bufs: dict[str, object] = {}
        # launch hook: when set, `launcher(sim, loc, kernel_ref, kernel_op, grid, block, args)` runs
        # each gpu.launch_func instead of the simulator (e.g. runtime.opencl.Launcher)
        self.launcher = None
        # where kernels' gpu.printf output goes, once per launch (sim/parallel.py's workers collect it)
        self.printf_out = write_stdout
        self._index_symbols()

    def _index_symbols(self):
        body = self.module.body if hasattr(self.module, "body") else self.module.regions[0].blocks[0]
        for op in body.operations:
            op = op.operation
            name = _sym_name(op)
            if op.name == "gpu.module":
                funcs = {}
                for inner in op.regions[0].blocks[0].operations:
                    inner = inner.operation
                    n = _sym_name(inner)
                    if n is not None:
                        funcs[n] = inner
                        if inner.name == "memref.global":
                            self._globals[n] = inner
                self._gpu_modules[name] = funcs
            elif name is not None:
                self._symbols[name] = op
                if op.name == "memref.global":
                    self._globals[name] = op

    # ------------------------------------------------------------------------------------------
    def lookup_func(self, name: str, scope: dict | None = None):
        if scope is not None and name in scope:
            return scope[name]
        if name in self._symbols:
            return self._symbols[name]
        for funcs in self._gpu_modules.values():
            if name in funcs:
                return funcs[name]
        return None

    def compile_func(self, fop, level: str) -> CompiledFunc:
        key = (id(fop), _sym_name(fop), level, self.trace_enabled)
        cf = self._compiled.get(key)
        if cf is not None:
            return cf
        c = FuncCompiler(self, level, self.trace_enabled)
        body = c.compile_region(fop.regions[0])
        ftype = ir.FunctionType(ir.TypeAttr(fop.attributes["function_type"]).value)
        cf = CompiledFunc(_sym_name(fop), c.nslots, body, level, fop, [parse_type(t) for t in ftype.results])
        cf.num_inputs = len(ftype.inputs)
        cf.wg_attr = int(ir.IntegerAttr(fop.attributes["workgroup_attributions"]).value) \
            if "workgroup_attributions" in fop.attributes else 0
        self._compiled[key] = cf
        return cf

    def call(self, cf: CompiledFunc, args: list, st: ExecState):
        env = [None] * cf.nslots
        for s, a in zip(cf.body.arg_slots, args):
            env[s] = a
        return run_block(cf.body, env, st)

    # ------------------------------------------------------------------------------------------
    def run_entry(self, entry: str, args: list):
        fop = self._symbols.get(entry)
        if fop is None or fop.name != "func.func":
            raise DiagnosticError([diagnostics.Diagnostic("error", f"entry function '@{entry}' not found")])
        cf = self.compile_func(fop, "host")
        st = ExecState(self, "host", 1)
        with np.errstate(all="ignore"):
            return self.call(cf, args, st)

    # ------------------------------------------------------------------------------------------
    def kernel_level(self, kop) -> str:
        key = ("level", id(kop))
        lvl = self._compiled.get(key)
        if lvl is None:
            lvl = detect_level(kop)
            self._compiled[key] = lvl
        return lvl

    def launch(self, loc, kernel_ref: str, grid, block, args, host_st: ExecState):
        parts = [p.strip().lstrip("@") for p in kernel_ref.split("::")]
        if len(parts) == 2:
            mod = self._gpu_modules.get(parts[0])
            kop = mod.get(parts[1]) if mod else None
        else:
            kop = self.lookup_func(parts[-1])
        if kop is None:
            fail(loc, f"gpu.launch_func: kernel {kernel_ref} not found")
        level = self.kernel_level(kop)
        if min(grid) <= 0 or min(block) <= 0:
            fail(loc, f"gpu.launch_func: empty launch grid={grid} block={block}")
        if self.launcher is not None:
            self.launcher(self, loc, kernel_ref, kop, tuple(grid), tuple(block), list(args))
            return
        B, seconds = self.run_workgroups(loc, kernel_ref, kop, grid, block, args)
        if self.trace is not None:
            self.trace.launches.append(LaunchRecord(kernel_ref, tuple(grid), tuple(block), level, B, seconds))

    def run_workgroups(self, loc, kernel_ref: str, kop, grid, block, args, wg_ids=None):
        """Run the work-groups `wg_ids` (linear ids, x fastest; default all) of one launch as one
        batch; (batch size, seconds). Work-groups are independent, so any subset runs alone
        (sim/parallel.py splits launches this way)."""
        level = self.kernel_level(kop)
        gx, gy, gz = grid
        tx, ty, tz = block
        nwg_all = gx * gy * gz
        wg_ids = np.arange(nwg_all, dtype=np.int64) if wg_ids is None else np.asarray(wg_ids, np.int64)
        nwg = int(wg_ids.size)
        threads = tx * ty * tz
        vc = _is_vc_kernel(kop)  # IMEX's VC kernels: each thread of the launch is one subgroup
        sgpw = threads if vc else -(-threads // SUBGROUP_SIZE)
        if level == "subgroup":
            B = nwg * sgpw
        elif level == "workgroup":
            B = nwg
        else:
            B = nwg * sgpw * SUBGROUP_SIZE
        st = ExecState(self, level, B)
        st.grid, st.block, st.nwg, st.sg_per_wg = (gx, gy, gz), (tx, ty, tz), nwg, sgpw
        st.wg_ids = wg_ids
        st.kernel_name = kernel_ref
        idx = np.arange(B, dtype=np.int64)
        if level == "subgroup":
            st.wg = idx // sgpw
            st.sg_id = idx % sgpw
            if vc:
                st.local_id = st.sg_id  # gpu.thread_id names the subgroup
        elif level == "workgroup":
            st.wg = idx
            st.sg_id = None
        else:
            per = sgpw * SUBGROUP_SIZE
            st.wg = idx // per
            local = idx % per
            st.local_id = local
            st.sg_id = local // SUBGROUP_SIZE
            st.lane = local % SUBGROUP_SIZE
            if threads % SUBGROUP_SIZE:
                st.mask = local < threads
        w = wg_ids[st.wg]   # st.wg indexes this batch's work-groups (SLM regions, barriers); w is the id
        st.block_id = (w % gx, (w // gx) % gy, w // (gx * gy))
        cf = self.compile_func(kop, level)
        # workgroup / private attributions
        nin = cf.num_inputs
        extra = []
        arg_types = [parse_type(a.type) for a in kop.regions[0].blocks[0].arguments]
        for i in range(nin, len(arg_types)):
            t = arg_types[i]
            space = "slm" if i - nin < cf.wg_attr else "private"
            extra.append(alloc_in_kernel(st, t, space, loc, f"{_sym_name(kop)}.attr{i - nin}"))
        if len(args) != nin:
            fail(loc, f"gpu.launch_func: kernel expects {nin} arguments, got {len(args)}")
        t0 = time.perf_counter()
        try:
            with np.errstate(all="ignore"):
                self.call(cf, list(args) + extra, st)
        finally:            # what printed before an error is written too
            text = ordered_text(st)
            if text:
                self.printf_out(text)
        if st.nbar is not None:
            check_nbarrier_end(st, loc)
        return B, time.perf_counter() - t0


def _sym_name(op):
    if "sym_name" in op.attributes:
        return ir.StringAttr(op.attributes["sym_name"]).value
    return None


def _walk(op, fn):
    fn(op)
    for r in op.regions:
        for b in r.blocks:
            for o in b.operations:
                _walk(o.operation, fn)


_BARRIER_LIKE = {"xegpu.alloc_nbarrier", "xegpu.create_nbarrier", "xegpu.nbarrier_arrive", "xegpu.nbarrier_wait",
                 "xegpu.mfence", "xegpu.compile_hint", "xegpu.init_nbarrier"}


def _is_vc_kernel(kop) -> bool:
    """A `VectorComputeFunctionINTEL` gpu.func (IMEX's XeTile programs): one thread per subgroup."""
    return "VectorComputeFunctionINTEL" in kop.attributes


def detect_level(kop) -> str:
    """subgroup (default), workgroup (tiles/ops carrying wg_map) or simt (SIMT-mode XeGPU, lane ids)."""
    found = {"wg": False, "simt": False}
    vc = _is_vc_kernel(kop)

    def visit(op):
        name = op.name
        if vc and name in ("gpu.thread_id", "gpu.global_id"):
            pass  # a VC kernel's thread is a subgroup
        elif name in ("gpu.lane_id", "gpu.thread_id", "gpu.global_id", "gpu.shuffle", "gpu.subgroup_reduce"):
            found["simt"] = True
        elif name.startswith("xegpu.") and name not in _BARRIER_LIKE and "mode" not in op.attributes:
            found["simt"] = True
        if name.startswith("xetile."):
            if any(k in op.attributes for k in ("wg_map", "wg_map_a", "wg_map_b", "wg_map_c")):
                found["wg"] = True
            for v in list(op.operands) + list(op.results):
                if "wg_map<" in str(v.type):
                    found["wg"] = True

    _walk(kop, visit)
    if found["wg"] and found["simt"]:
        fail(str(kop.location), "simulator: kernel mixes work-group level XeTile (wg_map) with SIMT-mode code")
    if found["wg"]:
        return "workgroup"
    if found["simt"]:
        return "simt"
    return "subgroup"


# ----------------------------------------------------------------------------------------------
# Allocation helpers shared by memref.alloc and gpu.func attributions


def alloc_in_kernel(st: ExecState, t: TypeInfo, space: str, loc, name: str) -> MemRef:
    shape = t.shape
    if any(d == DYN for d in shape):
        fail(loc, "simulator: dynamic-size allocation inside a kernel is not supported")
    n = int(np.prod(shape)) if shape else 1
    if space == "slm" or t.memory_space == 3:
        nreg = st.nwg
        st.slm_bytes += n * t.dtype.itemsize
        if st.slm_bytes > st.sim.slm_limit:
            fail(loc, f"shared local memory overflow: {st.slm_bytes} bytes per work-group allocated "
                      f"(limit {st.sim.slm_limit}: {st.sim.slm_limit_source})")
        buf = st.mem.new(np.zeros(n * nreg, t.dtype), name, "slm", region=n)
        return st.mem.full_view(buf, shape, region_index=st.wg)
    # private: one region per batch element
    buf = st.mem.new(np.zeros(n * st.B, t.dtype), name, "private", region=n)
    return st.mem.full_view(buf, shape, region_index=np.arange(st.B, dtype=np.int64))


# ----------------------------------------------------------------------------------------------
# Named barrier bookkeeping (lock-step check)


class NBarState:
    def __init__(self, st: ExecState, nmax: int = 32):
        self.count = np.zeros(st.nwg, np.int64)  # allocated per work-group (max over subgroups)
        self.arrivals = np.zeros((st.nwg, nmax), np.int64)
        self.waits = np.zeros((st.B, nmax), np.int64)
        self.producers = {}  # barrier id -> num_producers
        self.nmax = nmax


def check_nbarrier_end(st: ExecState, loc):
    nb = st.nbar
    for bid, npro in nb.producers.items():
        if npro <= 0:
            continue
        arr = nb.arrivals[:, bid]
        bad = np.nonzero(arr % npro)[0]
        if bad.size:
            w = int(bad[0])
            fail(loc, f"named barrier {bid}: work-group {int(st.wg_ids[w])} ended with {int(arr[w] % npro)} of {npro} producer "
                      f"arrivals in an incomplete phase (arrive/wait mismatch)")
