"""Lowering of one VC-mode XeGPU gpu.func into a SIMT gpu.func that upstream MLIR can convert to
SPIR-V (used by the `convert-xegpu-to-spirv` pass in convert.py, see docs/spirv.md).

The new function has the kernel ABI of the SPIR-V entry point (buffers are `!spirv.ptr<T,
CrossWorkgroup>`, integer scalars i64, bf16 stored as i16, dynamic memref sizes appended as i64
arguments) and contains only scalar arith/index/gpu/scf ops plus `spirv.*` ops and
`spirv.FunctionCall`s of imported builtins. Every subgroup vector becomes per-lane registers
(`spirv_lanes.DVal`, layouts from `spirv_layout`); descriptors become their offsets.

This module holds `KernelLowering`: the function skeleton (ABI arguments), the walk that
dispatches each op to its `h_<dialect>_<op>` method, and the structural ops (scf.for / scf.if
with loop-carried registers, gpu.return). The op families are mixins, one module each:
`kernel_memory` (memref views, shared local memory, element access), `kernel_block_io`
(create_nd_tdesc, load_nd / store_nd / prefetch_nd, bounds, pvc 2D block builtins),
`kernel_dpas`, `kernel_scattered` (gather / scatter / atomics), `kernel_vector` (constants,
element-wise and vector data movement), `kernel_reduction`, `kernel_sync` (barriers, fences), `kernel_printf`
(gpu.printf, by lane 0).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from ...core.kinds import DYNAMIC
from ...passes.utils.ir_walk import attr_dict as _attr_dict, owner_op
from ...core.memory_space import is_global_space
from .entry_bounds import entry_facts, lower_bound
from .kernel_block_io import BlockIOLowering, same_plan
from .kernel_dpas import DpasLowering
from .kernel_index import IndexLowering
from .kernel_memory import MemoryLowering
from .kernel_printf import PrintfLowering
from .kernel_reduction import ReductionLowering
from .kernel_scattered import ScatteredLowering
from .kernel_sync import SyncLowering
from .kernel_values import (CROSS_WORKGROUP_PTR, MODELESS, KernelInfo, MemArg, NdDesc, ScDesc, i64_type,
                            is_vector_type, mixed_indices, static_int)
from .kernel_vector import VectorLowering
from . import spirv_builtins as bi
from .spirv_lanes import DVal, Lanes, LoweringError, storage_type



class KernelLowering(MemoryLowering, BlockIOLowering, DpasLowering, ScatteredLowering, VectorLowering,
                     ReductionLowering, SyncLowering, IndexLowering, PrintfLowering):
    """Lower one gpu.func (VC-mode XeGPU) in place: a new gpu.func replaces it."""

    def __init__(self, func, target: str, declare, surface=None):
        self.old = func
        # target pvc: Intel DPAS / 2D block IO builtins and split barriers; portable: plain SPIR-V
        self.intel_builtins = target == "pvc"
        # the 2D block surface rules (arch.SurfaceRules of the target; pvc only)
        self.surface = surface
        self.declare = declare        # callback: Builtin -> symbol name (declares it once)
        self.env: dict = {}
        self.info = KernelInfo(ir.StringAttr(func.attributes["sym_name"]).value)
        self.variables: dict = {}
        self.remarks: list = []
        self.slm: list = []           # names of the shared local memory variables
        self.slm_allocs: dict = {}    # memref.alloc result -> MemArg (the body may be lowered twice)
        self.merged_loads: dict = {}  # load_nd result -> DVal already read by an earlier, wider builtin
        # while the fast copy of a surface-versioned body is lowered: its hoisted surface tests
        self.surface_versions: SurfaceVersions | None = None
        # while the slow copy of a surface-versioned body is lowered: guarded reads are per-lane only
        self.slow_copy = False
        # lane-level kernels (kernel_simt): every vector value is one work-item's own, in lane 0's registers
        self.lane_private = False

    # ---- entry --------------------------------------------------------------------------------
    def run(self):
        old = self.old
        ftype = ir.FunctionType(ir.TypeAttr(old.attributes["function_type"]).value)
        in_types, arg_specs = [], []
        for i, t in enumerate(ftype.inputs):
            arg_specs.append(self.abi_arg(i, t, in_types))
        extra = []
        for i, t in enumerate(ftype.inputs):
            if isinstance(t, ir.MemRefType):
                m = ir.MemRefType(t)
                for d, s in enumerate(m.shape):
                    if s == DYNAMIC:
                        extra.append((i, "dim", d))
                try:
                    strides, _off = m.get_strides_and_offset()
                except Exception:  # noqa: BLE001 - non-strided layouts
                    raise LoweringError(old, f"kernel argument {i}: memref layout {m.layout} is not strided")
                for d, s in enumerate(strides):
                    if s == DYNAMIC:
                        extra.append((i, "stride", d))
            elif arg_specs[i][0] == "pointer":
                extra.append((i, "offset", 0))     # bytes from the start of the buffer bound to it
        for i, kind, d in extra:
            in_types.append(i64_type())
            if kind == "offset":
                self.info.args.append({"name": f"arg{i}_offset", "kind": "scalar", "element_type": "i64",
                                       "offset_of": [i]})
                continue
            self.info.args.append({"name": f"arg{i}_{kind}{d}", "kind": "scalar", "element_type": "i64",
                                   kind + "_of": [i, d]})
        attrs = _attr_dict(old)
        new_type = ir.FunctionType.get(in_types, [])
        wg = None
        if "known_block_size" in attrs:
            wg = [int(x) for x in ir.DenseI32ArrayAttr(attrs["known_block_size"])]
        self.info.workgroup_size = wg
        sg = 16
        if "xe.subgroup_size" in attrs:
            sg = ir.IntegerAttr(attrs["xe.subgroup_size"]).value
        if sg != 16:
            raise LoweringError(old, f"subgroup size {sg}: the SPIR-V kernels run with subgroup size 16")
        wga = ir.IntegerAttr(attrs.pop("workgroup_attributions")).value if "workgroup_attributions" in attrs else 0
        attributions = list(old.regions[0].blocks[0].arguments)[len(ftype.inputs):]
        if len(attributions) != wga:
            raise LoweringError(old, "gpu.func private attributions are not supported by convert-xegpu-to-spirv "
                                     "(workgroup attributions are: shared local memory)")
        abi = f"workgroup_size = [{', '.join(map(str, wg))}], " if wg else ""
        attrs["function_type"] = ir.TypeAttr.get(new_type)
        attrs["spirv.entry_point_abi"] = ir.Attribute.parse(f"#spirv.entry_point_abi<{abi}subgroup_size = 16>")
        for k in ("xe.subgroup_size",):
            attrs.pop(k, None)
        with ir.InsertionPoint(old), old.location:
            new = ir.Operation.create("gpu.func", attributes=attrs, regions=1)
        entry = new.regions[0].blocks.append(*in_types)
        self.new = new
        bf16 = (lambda: self.declare(bi.BF16_CONVERT)) if self.intel_builtins else None
        self.lanes = Lanes(entry, old.location, bf16)
        old_entry = old.regions[0].blocks[0]
        with ir.InsertionPoint(entry), old.location:
            anchor = ir.Operation.create("arith.constant", results=[ir.IndexType.get()],
                                         attributes={"value": ir.IntegerAttr.get(ir.IndexType.get(), 0)})
            self.lanes.set_anchor(anchor)
            dims = {}
            for k, (i, kind, d) in enumerate(extra):
                dims[(i, kind, d)] = arith.IndexCastOp(ir.IndexType.get(), entry.arguments[len(ftype.inputs) + k]).result
            for i, (old_arg, spec) in enumerate(zip(old_entry.arguments, arg_specs)):
                self.env[old_arg] = self.bind_arg(i, spec, entry.arguments[i], dims)
            for a in attributions:
                self.env[a] = self.slm_buffer(a.type, old)
            self.lower_kernel_body(old_entry)
            anchor.erase()
        old.erase()
        return new, self.info

    def abi_arg(self, i, t, in_types):
        """Append the ABI type of kernel argument i; returns its description."""
        ts = str(t)
        if isinstance(t, ir.MemRefType):
            m = ir.MemRefType(t)
            if not is_global_space(m.memory_space):
                raise LoweringError(self.old, f"kernel argument {i}: memref in memory space {m.memory_space} is not "
                                              "supported (global buffers only)")
            elt = str(m.element_type)
            st = storage_type(elt)
            in_types.append(ir.Type.parse(CROSS_WORKGROUP_PTR.format(st)))
            shape = [None if s == DYNAMIC else s for s in m.shape]
            d = {"name": f"arg{i}", "kind": "buffer", "element_type": elt}
            if all(s is not None for s in shape):
                d["shape"] = shape
            strides = m.get_strides_and_offset()[0]
            if all(x != DYNAMIC for x in strides):
                d["strides"] = list(strides)     # the static strides the kernel was compiled for
            self.info.args.append(d)
            return ("memref", m)
        if ts == "index" or (ts.startswith("i") and ts[1:].isdigit()):
            in_types.append(i64_type())
            self.info.args.append({"name": f"arg{i}", "kind": "scalar", "element_type": "i64", "source_type": ts})
            return ("int", ts)
        if ts == "!llvm.ptr<1>":     # a raw global pointer (XeVM-level kernels): a buffer and a byte offset
            in_types.append(ir.Type.parse(CROSS_WORKGROUP_PTR.format("i8")))
            self.info.args.append({"name": f"arg{i}", "kind": "pointer", "element_type": "i8"})
            return ("pointer", ts)
        if ts in ("f16", "f32", "f64", "bf16"):
            in_types.append(storage_type(ts))
            self.info.args.append({"name": f"arg{i}", "kind": "scalar", "element_type": ts})
            return ("float", ts)
        raise LoweringError(self.old, f"kernel argument {i} of type {ts} is not supported (buffers, "
                                      "!llvm.ptr<1>, integer and float scalars only)")

    def bind_arg(self, i, spec, arg, dims):
        kind, x = spec
        if kind == "memref":
            m = x
            shape = [dims[(i, "dim", d)] if s == DYNAMIC else s for d, s in enumerate(m.shape)]
            strides, _ = m.get_strides_and_offset()
            strides = [dims[(i, "stride", d)] if s == DYNAMIC else s for d, s in enumerate(strides)]
            return MemArg(arg, str(m.element_type), shape, strides)
        if kind == "pointer":
            off = arith.IndexCastOp(i64_type(), dims[(i, "offset", 0)]).result
            return ir.Operation.create("spirv.PtrAccessChain", results=[arg.type], operands=[arg, off]).results[0]
        if kind == "int":
            if x == "index":
                return arith.IndexCastOp(ir.IndexType.get(), arg).result
            if x == "i64":
                return arg
            return arith.TruncIOp(ir.Type.parse(x), arg).result
        return arg

    # ---- surface versioning ---------------------------------------------------------------------
    def lower_kernel_body(self, old_entry):
        """Lower the kernel body; on target pvc, versioned on its 2D block surfaces when that pays.

        The body but its `gpu.return` is lowered first as the fast copy, into the then-branch of an
        `scf.if` at the function entry: there, a surface whose rules cannot be decided at compile
        time but whose fields come from values available at the entry (kernel arguments, their
        sizes, ids, pure arithmetic on them) gets its test built once before the `scf.if`
        (`BlockIOLowering.hoist_surface_test`) and its accesses are the unguarded builtins. When
        such tests exist, their conjunction becomes the condition and the body is lowered again,
        as without versioning (per-access tests and per-lane fallbacks) but with the reads of those
        surfaces per-lane only (`slow_copy`), into the else-branch.
        Otherwise the single copy is moved out of the `scf.if` (the output is as without
        versioning). docs/spirv.md, "Surfaces the lowering cannot prove valid"."""
        ops = [o.operation for o in old_entry.operations]
        tail = [ops.pop()] if ops and ops[-1].name == "gpu.return" else []
        if not (self.intel_builtins and self.surface is not None and ops):
            self.lower_list(ops + tail)
            return
        true = self.lanes.const(ir.IntegerType.get_signless(1), 1)
        ver = scf.IfOp(true, [], has_else=True)
        self.surface_versions = SurfaceVersions(ir.InsertionPoint(ver.operation))
        try:
            with ir.InsertionPoint(ver.then_block):
                self.lower_list(ops)
                scf.YieldOp([])
            sv = self.surface_versions
        finally:
            self.surface_versions = None
        if sv.conds:
            with sv.ip:
                cond = sv.conds[0]
                for c in sv.conds[1:]:
                    cond = arith.AndIOp(cond, c).result
            ver.operation.operands[0] = cond
            self.unguard_loops_run_once(sv)
            self.info.surface_tests = len(sv.conds)
            self.slow_copy = True
            try:
                with ir.InsertionPoint(ver.else_block):
                    self.lower_list(ops)
                    scf.YieldOp([])
            finally:
                self.slow_copy = False
        else:
            fast = [o.operation for o in ver.then_block.operations][:-1]
            for child in fast:
                child.move_before(ver.operation)
        self.forget_block_caches((ver.then_block, ver.else_block))
        if not sv.conds:
            ver.operation.erase()
        self.lower_list(tail)

    def unguard_loops_run_once(self, sv: SurfaceVersions):
        """In the fast copy, a guarded loop (lb < ub) whose upper bound the entry test proves at
        least lb + step (`entry_bounds`: e.g. K, the width of A, is at least 64 bytes) runs at least
        once: its guard becomes true and its upper bound max(ub, lb + step) -- the same value there,
        which tells IGC so. Otherwise IGC keeps the zero-trip path's accumulators beside the loop's
        and spills (epilogue alpha_beta_dynamic: 6.6 KB in the fast copy, docs/igc.md)."""
        facts = entry_facts(sv.plans, self.surface)
        for guard, loop, first_end in sv.guarded_loops:
            ub = loop.operation.operands[1]
            k = lower_bound(ub, facts, sv.hoisted)
            if k is None or k < first_end:
                continue
            with ir.InsertionPoint(guard.operation), guard.operation.location:
                loop.operation.operands[1] = arith.MaxSIOp(ub, self.lanes.index(first_end)).result
                guard.operation.operands[0] = self.lanes.const(ir.IntegerType.get_signless(1), 1)

    def forget_block_caches(self, blocks):
        """Drop the shuffles cached for `blocks` (moved or erased blocks must not be matched again)."""
        L = self.lanes
        L.shuffle_cache = {k: v for k, v in L.shuffle_cache.items()
                           if not (len(k) == 3 and isinstance(k[2], ir.Block) and any(k[2] == b for b in blocks))}

    # ---- walking --------------------------------------------------------------------------------
    def lower_list(self, ops):
        for op in ops:
            with op.location:
                try:
                    self.lower_op(op)
                except LoweringError:
                    raise
                except ir.MLIRError as e:
                    raise LoweringError(op, f"internal: {e}") from e

    def check_mode(self, op):
        """A SIMT-mode XeGPU op in a subgroup-level (VC-mode) kernel is an error (a kernel with no VC-mode
        XeGPU op is lowered by `kernel_simt.LaneKernelLowering`)."""
        name = op.name
        if name.startswith("xegpu.") and name not in MODELESS and \
                not ("mode" in op.attributes and "vc" in str(op.attributes["mode"])):
            raise LoweringError(op, f"'{name}' is SIMT-mode XeGPU in a kernel whose other XeGPU ops are VC mode: "
                                    "convert-xegpu-to-spirv lowers a kernel at one level (VC mode, the output of "
                                    "convert-xetile-to-xegpu, or SIMT mode, the output of xegpu-simt-distribute)")

    def lower_op(self, op):
        name = op.name
        self.check_mode(op)
        h = getattr(self, "h_" + name.replace(".", "_"), None)
        if h is not None:
            res = h(op)
            if res is not None:
                for old, new in zip(op.results, res):
                    self.env[old] = new
            return
        if name.startswith("xegpu."):
            raise LoweringError(op, f"'{name}' is not supported by convert-xegpu-to-spirv")
        if len(op.regions):
            raise LoweringError(op, f"'{name}' (an op with regions) is not supported by convert-xegpu-to-spirv; "
                                    "only scf.for and scf.if are")
        if name.startswith(("arith.", "math.")):
            self.env.update(zip(op.results, self.elementwise(op)))
            return
        if any(is_vector_type(r.type) for r in op.results) or any(is_vector_type(v.type) for v in op.operands):
            raise LoweringError(op, f"'{name}' on vectors is not supported by convert-xegpu-to-spirv")
        # scalar op of another dialect (gpu ids, index, ...): clone with mapped operands
        operands = [self.scalar(v, op) for v in op.operands]
        new = ir.Operation.create(name, results=[r.type for r in op.results], operands=operands,
                                  attributes=_attr_dict(op))
        self.env.update(zip(op.results, new.results))

    def get(self, v):
        try:
            return self.env[v]
        except KeyError:
            raise LoweringError(self.where(v), "value defined outside the kernel or by an unsupported op") from None

    def scalar(self, v, op=None):
        x = self.get(v)
        if not isinstance(x, ir.Value):
            raise LoweringError(op or self.old, f"expected a scalar operand, got {type(x).__name__}")
        return x

    def dval(self, v) -> DVal:
        x = self.get(v)
        if isinstance(x, DVal):
            return x
        raise LoweringError(self.where(v), "expected a vector value")

    def const_int(self, v):
        return static_int(v)

    def idx_operand(self, x):
        """An int or a mapped index Value for an entry of a mixed list."""
        if isinstance(x, int):
            return x
        c = self.const_int(x)
        return c if c is not None else self.scalar(x)

    def where(self, v):
        """The op to locate an error about `v` at: its defining op, else the op being lowered."""
        o = owner_op(v)
        return o if o is not None else self.old

    # ---- structural ops -------------------------------------------------------------------------
    def h_gpu_return(self, op):
        ir.Operation.create("gpu.return")
        return []

    def h_scf_for(self, op):
        """scf.for with its carried values flattened to scalars and vectors. Upstream scf-to-spirv
        returns a loop's results through variables written only by its body, so a loop that may run
        zero times and carries values is guarded: scf.if (lb < ub) { loop } else { inits }.

        A carried nd descriptor that every iteration moves by the same multiple of the step (the K
        loop's update_nd_offset chains) is not carried: its offsets are `init + (iv - lb) * move`
        inside the body; such a loop with static bounds that fit in 32 bits counts with an i32
        induction variable, so the K loop carries one integer (docs/igc.md "K loops")."""
        lb, ub, step, *inits = list(op.operands)
        body = op.regions[0].blocks[0]
        bounds = _narrow_bounds(self.const_int(lb), self.const_int(ub), self.const_int(step))
        cstep = self.const_int(step)
        xs = [self.get(v) for v in inits]
        moves = {}
        if cstep is not None and cstep > 0:
            yields = list(body.operations)[-1].operands
            for i, x in enumerate(xs):
                # with dynamic bounds, only descriptors the code after the loop does not use
                if isinstance(x, NdDesc) and (bounds is not None or not list(op.results[i].uses)):
                    mv = _descriptor_move(body.arguments[1 + i], yields[i], cstep)
                    if mv is not None:
                        moves[i] = mv
        if not moves:
            # the i32 IV pays off in block-IO streams (the K loop); elsewhere it can cost: IGC 2.40 spills
            # 5.9 KB in the fully unrolled gather loop of gemv vecmat-f32-100x70 with it, none without
            bounds = None
        specs, flat = [], []
        for i, x in enumerate(xs):
            if i in moves:
                specs.append(None)
                continue
            spec, vals = self.flatten(x)
            specs.append(spec)
            flat.extend(vals)
        clb, cub = self.const_int(lb), self.const_int(ub)
        guard = None
        if flat and not (clb is not None and cub is not None and clb < cub):
            cond = arith.CmpIOp(arith.CmpIPredicate.slt, self.scalar(lb), self.scalar(ub)).result
            guard = scf.IfOp(cond, [v.type for v in flat], has_else=True)
            with ir.InsertionPoint(guard.else_block):
                scf.YieldOp(flat)
            with ir.InsertionPoint(guard.then_block):
                loop = self._lower_for(op, lb, ub, step, specs, flat, bounds, xs, moves)
                scf.YieldOp(list(loop.results))
            res = list(guard.results)
            if self.surface_versions is not None and clb is not None and cstep is not None and cstep > 0:
                self.surface_versions.guarded_loops.append((guard, loop, clb + cstep))
        else:
            loop = self._lower_for(op, lb, ub, step, specs, flat, bounds, xs, moves)
            res = list(loop.results)
        out = self.unflatten_all([s for s in specs if s is not None], res)
        # after the loop: the induction variable has gone trips * step
        gone = 0 if bounds is None else max(0, -(-(bounds[1] - bounds[0]) // bounds[2])) * bounds[2]
        full = []
        for i, x in enumerate(xs):
            if i in moves:      # unused after a loop with dynamic bounds: its value there is moot
                full.append(self.moved(x, moves[i], gone) if bounds is not None else x)
            else:
                full.append(out.pop(0))
        return full

    def moved(self, d: NdDesc, move, n):
        """Descriptor `d` moved by `move` (rows, cols per unit of the induction variable) times `n`
        (an int or an index Value)."""
        L = self.lanes
        return NdDesc(d.plan, L.index(L.add(d.row, L.mul(n, move[0]))), L.index(L.add(d.col, L.mul(n, move[1]))))

    def _lower_for(self, op, lb, ub, step, specs, flat, bounds=None, xs=(), moves=None):
        moves = moves or {}
        if bounds is not None:
            L = self.lanes
            loop = scf.ForOp(L.i32(bounds[0]), L.i32(bounds[1]), L.i32(bounds[2]), flat)
        else:
            loop = scf.ForOp(self.scalar(lb), self.scalar(ub), self.scalar(step), flat)
        body = op.regions[0].blocks[0]
        carried = self.unflatten_all([s for s in specs if s is not None], list(loop.inner_iter_args))
        with ir.InsertionPoint(loop.body):
            if bounds is not None:
                iv = arith.IndexCastOp(ir.IndexType.get(), loop.induction_variable).result
                self.env[body.arguments[0]] = iv
                # how far the induction variable has gone: iv - lb (iv itself when lb = 0)
                done = arith.SubIOp(iv, self.lanes.index(bounds[0])).result if bounds[0] else iv
            else:
                iv = self.env[body.arguments[0]] = loop.induction_variable
                if moves:
                    done = iv if self.const_int(lb) == 0 else arith.SubIOp(iv, self.scalar(lb)).result
            for i, arg in enumerate(list(body.arguments)[1:]):
                if i in moves:
                    self.env[arg] = self.moved(xs[i], moves[i], done)
                else:
                    self.env[arg] = carried.pop(0)
            for child in list(body.operations):
                child = child.operation
                with child.location:
                    if child.name == "scf.yield":
                        out = []
                        for v, spec in zip(child.operands, specs):
                            if spec is not None:
                                out.extend(self.flatten(self.get(v), spec)[1])
                        scf.YieldOp(out)
                    else:
                        self.lower_op(child)
        return loop

    def lower_body(self, block):
        """Lower the ops of a region's block but its terminator; returns the terminator's operands
        (lowered values)."""
        ops = [o.operation for o in block.operations]
        for child in ops[:-1]:
            with child.location:
                self.lower_op(child)
        return [self.get(v) for v in ops[-1].operands] if ops else []

    def h_scf_if(self, op):
        """scf.if on a scalar (subgroup-uniform) condition. The branches are lowered first (into a
        result-less scf.if), their yielded values brought to the then-branch's structure, then
        moved into the final scf.if with the flattened result types."""
        cond = self.scalar(op.operands[0], op)
        has_else = len(op.regions[1].blocks) > 0
        tmp = scf.IfOp(cond, [], has_else=True)
        branches = [(op.regions[0].blocks[0], tmp.then_block)]
        if has_else:
            branches.append((op.regions[1].blocks[0], tmp.else_block))
        yields = []
        for old_block, new_block in branches:
            with ir.InsertionPoint(new_block):
                yields.append(self.lower_body(old_block))
        if not has_else:
            yields.append([])
        specs, flat = [], [[], []]
        for i, x in enumerate(yields[0]):
            with ir.InsertionPoint(tmp.then_block):
                spec, vals = self.flatten(x)
            with ir.InsertionPoint(tmp.else_block):
                y = yields[1][i]
                if spec[0] in ("nd", "sc") and not self.same_base(spec, y):
                    raise LoweringError(op, "the branches of scf.if yield descriptors on different buffers or "
                                            "with different shapes")
                _spec, other = self.flatten(y, spec)
            specs.append(spec)
            flat[0].extend(vals)
            flat[1].extend(other)
        if_op = scf.IfOp(cond, [v.type for v in flat[0]], has_else=bool(specs) or has_else)
        blocks = [if_op.then_block] + ([if_op.else_block] if bool(specs) or has_else else [])
        for src_block, dst_block, vals in zip((tmp.then_block, tmp.else_block), blocks, flat):
            with ir.InsertionPoint(dst_block):
                y = scf.YieldOp(vals)
            for child in list(src_block.operations):
                child.operation.move_before(y)
        # shuffles cached in the temporary blocks must not be reused elsewhere
        self.forget_block_caches((tmp.then_block, tmp.else_block))
        tmp.operation.erase()
        res = list(if_op.results)
        return self.unflatten_all(specs, res)

    @staticmethod
    def same_base(spec, y) -> bool:
        if spec[0] == "nd":
            a, b = spec[1], getattr(y, "plan", None)
            return isinstance(y, NdDesc) and same_plan(a, b)
        return isinstance(y, ScDesc) and y.ptr == spec[1].ptr and y.elt == spec[1].elt and y.chunk == spec[1].chunk

    def flatten(self, x, spec=None):
        """(spec, values) of a loop-carried value; with `spec`, converted to that structure."""
        if isinstance(x, DVal):
            lay = spec[1] if spec is not None else x.layout
            x = self.lanes.relayout(x, lay)
            vals = [v if v is not None else self.lanes.zero(x.elt) for v in x.vals]
            return ("dval", lay, x.elt), vals
        if isinstance(x, NdDesc):
            return ("nd", x.plan), [self.lanes.index(x.row), self.lanes.index(x.col)]
        if isinstance(x, ScDesc):
            lay = spec[1].offs.layout if spec is not None else x.offs.layout
            offs = self.lanes.relayout(x.offs, lay)
            return ("sc", x), [v if v is not None else self.lanes.index(0) for v in offs.vals]
        if isinstance(x, ir.Value):
            return ("scalar",), [x]
        raise LoweringError(self.old, f"cannot carry a {type(x).__name__} through scf.for")

    def unflatten_all(self, specs, flat):
        """Carried values back from the flattened results of a loop or scf.if."""
        k, out = 0, []
        for spec in specs:
            n = self.flat_size(spec)
            out.append(self.unflatten(spec, flat[k:k + n]))
            k += n
        return out

    @staticmethod
    def flat_size(spec):
        if spec[0] == "dval":
            return spec[1].nslots
        if spec[0] == "nd":
            return 2
        if spec[0] == "sc":
            return spec[1].offs.layout.nslots
        return 1

    @staticmethod
    def unflatten(spec, vals):
        if spec[0] == "dval":
            return DVal(spec[1], list(vals), spec[2])
        if spec[0] == "nd":
            return NdDesc(spec[1], vals[0], vals[1])
        if spec[0] == "sc":
            s = spec[1]
            return ScDesc(s.ptr, s.elt, s.chunk, DVal(s.offs.layout, list(vals), "index"))
        return vals[0]


class SurfaceVersions:
    """The surface tests of a versioned kernel body: `ip` the insertion point before its `scf.if`
    (the function entry), `plans` the distinct surfaces tested there (`NdPlan`s of entry values),
    `conds` their i1 tests, `hoisted` body values -> their copies at the entry, `guarded_loops` the
    fast copy's loops that may run zero times."""

    def __init__(self, ip):
        self.ip = ip
        self.plans: list = []
        self.conds: list = []
        self.hoisted: dict = {}
        # (scf.if guard, scf.for, lb + step) of each loop that may run zero times (scf_for)
        self.guarded_loops: list = []


def _narrow_bounds(lb, ub, step):
    """(lb, ub, step) of a loop that can count in i32 (static, step > 0, every value of the induction
    variable and ub + step inside int32), else None."""
    if lb is None or ub is None or step is None or step <= 0:
        return None
    lim = 2 ** 31
    if not (-lim <= lb and ub + step < lim and lb - step >= -lim):
        return None
    return lb, ub, step


def _descriptor_move(arg, yielded, step):
    """(rows, cols) a carried nd descriptor moves per iteration when the body yields `arg` moved by
    a chain of update_nd_offset with constant offsets that are multiples of `step`: per unit of the
    induction variable, so its offsets are `init + move * (iv - lb)`; else None."""
    rows = cols = 0
    v = yielded
    while v != arg:
        o = owner_op(v)
        if o is None or o.name != "xegpu.update_nd_offset":
            return None
        offs = [static_int(x) for x in mixed_indices(o, list(o.operands)[1:], "static_offsets")]
        if len(offs) != 2 or None in offs:
            return None
        rows, cols = rows + offs[0], cols + offs[1]
        v = o.operands[0]
    if rows % step or cols % step:
        return None
    return rows // step, cols // step
