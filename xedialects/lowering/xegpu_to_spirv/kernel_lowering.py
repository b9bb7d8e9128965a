"""Lowering of one VC-mode XeGPU gpu.func into a SIMT gpu.func that upstream MLIR can convert to
SPIR-V (used by the `convert-xegpu-to-spirv` pass, see xegpu_to_spirv.py and docs/spirv.md).

The new function has the kernel ABI of the SPIR-V entry point (buffers are `!spirv.ptr<T,
CrossWorkgroup>`, integer scalars i64, bf16 stored as i16, dynamic memref sizes appended as i64
arguments) and contains only scalar arith/index/gpu/scf ops plus `spirv.*` ops and
`spirv.FunctionCall`s of imported builtins. Every subgroup vector becomes per-lane registers
(`spirv_lanes.DVal`, layouts from `spirv_layout`); descriptors become their offsets. Shared local
memory (`memref.alloc` in memory space 3, workgroup attributions) becomes Workgroup-storage
`spirv.GlobalVariable`s placed in the gpu.module, which the upstream conversion moves into the
spirv.module.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
from mlir import ir
from mlir.dialects import arith, scf

from ...core.kinds import DYNAMIC
from ...passes.utils.ir_walk import attr_dict as _attr_dict, owner_op
from ...xegpu.attributes import TensorDescType
from . import spirv_builtins as bi
from .spirv_lanes import DVal, Lanes, LoweringError, bits_of, elt_name, is_float, storage_type
from .spirv_layout import LANES, Layout

_PTR = "!spirv.ptr<{}, CrossWorkgroup>"


@dataclass
class MemArg:
    """A buffer: pointer to its storage element, element type, shape and strides (ints or index
    Values)."""

    ptr: object
    elt: str
    shape: list
    strides: list

    @property
    def slm(self) -> bool:
        return _is_slm_ptr(self.ptr)


@dataclass
class NdPlan:
    ptr: object
    elt: str
    lead: object          # linear offset of the 2D view (leading memref dimensions)
    height: object
    width: object
    pitch: object
    block: tuple


@dataclass
class NdDesc:
    plan: NdPlan
    row: object
    col: object


@dataclass
class ScDesc:
    ptr: object
    elt: str
    chunk: int
    offs: DVal


@dataclass
class KernelInfo:
    """What the export needs to know about a kernel (stored as JSON on the spirv.module)."""

    name: str
    args: list = field(default_factory=list)
    workgroup_size: list | None = None
    subgroup_size: int = 16
    slm_bytes: int = 0
    named_barriers: int = 0
    builtins: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"name": self.name, "args": self.args, "workgroup_size": self.workgroup_size,
                "subgroup_size": self.subgroup_size, "slm_bytes": self.slm_bytes,
                "named_barriers": self.named_barriers}


def _i64():
    return ir.IntegerType.get_signless(64)


def _int_list(attr) -> list:
    return [int(x) for x in ir.DenseI64ArrayAttr(attr)] if attr is not None else []


def _mixed(op, operand_group, static_name):
    """Mixed static/dynamic index list of an xegpu op: ints and (old) Values."""
    static = _int_list(op.attributes[static_name]) if static_name in op.attributes else []
    dyn = list(operand_group)
    out, k = [], 0
    for s in static:
        if s == DYNAMIC:
            out.append(dyn[k])
            k += 1
        else:
            out.append(s)
    return out


def _segments(op):
    if "operandSegmentSizes" in op.attributes:
        return [int(x) for x in ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])]
    return None


def _groups(op):
    seg = _segments(op)
    ops = list(op.operands)
    out, k = [], 0
    for n in seg:
        out.append(ops[k:k + n])
        k += n
    return out


def _str_attr(op, name, default=None):
    if name not in op.attributes:
        return default
    return ir.StringAttr(op.attributes[name]).value


def _vshape(t):
    return tuple(ir.VectorType(t).shape)


def static_int(v):
    """The value of an int or of an index/integer Value defined by arith.constant, else None."""
    if isinstance(v, int):
        return v
    o = owner_op(v)
    if o is not None and o.name == "arith.constant" and isinstance(v.type, (ir.IndexType, ir.IntegerType)):
        return ir.IntegerAttr(o.attributes["value"]).value
    return None


def _is_constant(v) -> bool:
    """Whether a lowered value is a constant (arith.constant or spirv.Constant)."""
    o = owner_op(v)
    return o is not None and o.name in ("arith.constant", "spirv.Constant")


def _is_vec(t) -> bool:
    return str(t).startswith("vector<")


def _is_slm_ptr(ptr) -> bool:
    return str(ptr.type).endswith(", Workgroup>")


def _is_slm_space(space) -> bool:
    """Memory space of shared local memory: 3 or #gpu.address_space<workgroup>."""
    s = str(space) if space is not None else ""
    return s in ("3", "3 : i64", "3 : i32", "#gpu.address_space<workgroup>")


# XeGPU ops that have no mode attribute (barriers, fences)
_MODELESS = ("xegpu.alloc_nbarrier", "xegpu.create_nbarrier", "xegpu.nbarrier_arrive", "xegpu.nbarrier_wait",
             "xegpu.mfence", "xegpu.compile_hint")


class KernelLowering:
    """Lower one gpu.func (VC-mode XeGPU) in place: a new gpu.func replaces it."""

    def __init__(self, func, target: str, declare):
        self.old = func
        self.target = target
        self.declare = declare        # callback: Builtin -> symbol name (declares it once)
        self.env: dict = {}
        self.info = KernelInfo(ir.StringAttr(func.attributes["sym_name"]).value)
        self.variables: dict = {}
        self.remarks: list = []
        self.slm: list = []           # names of the shared local memory variables

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
        for i, kind, d in extra:
            in_types.append(_i64())
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
        self.lanes = Lanes(entry, old.location)
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
            self.lower_ops(old_entry, entry)
            anchor.erase()
        old.erase()
        return new, self.info

    def abi_arg(self, i, t, in_types):
        """Append the ABI type of kernel argument i; returns its description."""
        ts = str(t)
        if isinstance(t, ir.MemRefType):
            m = ir.MemRefType(t)
            space = str(m.memory_space) if m.memory_space is not None else ""
            if space and space not in ("0", "1", "0 : i32", "1 : i32", "#gpu.address_space<global>"):
                raise LoweringError(self.old, f"kernel argument {i}: memref in memory space {space} is not "
                                              "supported (global buffers only)")
            elt = str(m.element_type)
            st = storage_type(elt)
            in_types.append(ir.Type.parse(_PTR.format(st)))
            shape = [None if s == DYNAMIC else s for s in m.shape]
            d = {"name": f"arg{i}", "kind": "buffer", "element_type": elt}
            if all(s is not None for s in shape):
                d["shape"] = shape
            self.info.args.append(d)
            return ("memref", m)
        if ts == "index" or (ts.startswith("i") and ts[1:].isdigit()):
            in_types.append(_i64())
            self.info.args.append({"name": f"arg{i}", "kind": "scalar", "element_type": "i64", "source_type": ts})
            return ("int", ts)
        if ts in ("f16", "f32", "f64", "bf16"):
            in_types.append(storage_type(ts))
            self.info.args.append({"name": f"arg{i}", "kind": "scalar", "element_type": ts})
            return ("float", ts)
        raise LoweringError(self.old, f"kernel argument {i} of type {ts} is not supported (buffers, integer and "
                                      "float scalars only)")

    def bind_arg(self, i, spec, arg, dims):
        kind, x = spec
        if kind == "memref":
            m = x
            shape = [dims[(i, "dim", d)] if s == DYNAMIC else s for d, s in enumerate(m.shape)]
            strides, _ = m.get_strides_and_offset()
            strides = [dims[(i, "stride", d)] if s == DYNAMIC else s for d, s in enumerate(strides)]
            return MemArg(arg, str(m.element_type), shape, strides)
        if kind == "int":
            if x == "index":
                return arith.IndexCastOp(ir.IndexType.get(), arg).result
            if x == "i64":
                return arg
            return arith.TruncIOp(ir.Type.parse(x), arg).result
        return arg

    # ---- walking --------------------------------------------------------------------------------
    def lower_ops(self, old_block, new_block):
        for op in list(old_block.operations):
            op = op.operation
            with op.location:
                try:
                    self.lower_op(op)
                except LoweringError:
                    raise
                except ir.MLIRError as e:
                    raise LoweringError(op, f"internal: {e}") from e

    def lower_op(self, op):
        name = op.name
        if name.startswith("xegpu.") and name not in _MODELESS and \
                not ("mode" in op.attributes and "vc" in str(op.attributes["mode"])):
            raise LoweringError(op, f"'{name}' is SIMT-mode XeGPU; convert-xegpu-to-spirv lowers VC-mode XeGPU "
                                    f"({{mode = vc}}, the output of convert-xetile-to-xegpu) and does its own "
                                    f"per-lane distribution: run it before xegpu-simt-distribute")
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
        if any(_is_vec(r.type) for r in op.results) or any(_is_vec(v.type) for v in op.operands):
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
        zero times and carries values is guarded: scf.if (lb < ub) { loop } else { inits }."""
        lb, ub, step, *inits = list(op.operands)
        specs, flat = [], []
        for v in inits:
            x = self.get(v)
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
                loop = self._lower_for(op, lb, ub, step, specs, flat)
                scf.YieldOp(list(loop.results))
            res = list(guard.results)
        else:
            loop = self._lower_for(op, lb, ub, step, specs, flat)
            res = list(loop.results)
        return self.unflatten_all(specs, res)

    def _lower_for(self, op, lb, ub, step, specs, flat):
        loop = scf.ForOp(self.scalar(lb), self.scalar(ub), self.scalar(step), flat)
        body = op.regions[0].blocks[0]
        self.env[body.arguments[0]] = loop.induction_variable
        for arg, x in zip(list(body.arguments)[1:], self.unflatten_all(specs, list(loop.inner_iter_args))):
            self.env[arg] = x
        with ir.InsertionPoint(loop.body):
            for child in list(body.operations):
                child = child.operation
                with child.location:
                    if child.name == "scf.yield":
                        out = []
                        for v, spec in zip(child.operands, specs):
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
        L = self.lanes
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
        gone = (tmp.then_block, tmp.else_block)
        L.shuffle_cache = {k: v for k, v in L.shuffle_cache.items()
                           if not (len(k) == 3 and isinstance(k[2], ir.Block) and any(k[2] == b for b in gone))}
        tmp.operation.erase()
        res = list(if_op.results)
        return self.unflatten_all(specs, res)

    @staticmethod
    def same_base(spec, y) -> bool:
        if spec[0] == "nd":
            a, b = spec[1], getattr(y, "plan", None)
            fields = ("ptr", "elt", "lead", "height", "width", "pitch", "block")
            return isinstance(y, NdDesc) and (a is b or all(_same(getattr(a, f), getattr(b, f)) for f in fields))
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

    # ---- memrefs --------------------------------------------------------------------------------
    def h_memref_dim(self, op):
        m = self.get(op.operands[0])
        if not isinstance(m, MemArg):
            raise LoweringError(op, "memref.dim of a buffer that is not a kernel argument")
        d = self.const_int(op.operands[1])
        if d is None:
            raise LoweringError(op, "memref.dim with a non-constant dimension")
        return [self.lanes.index(m.shape[d])]

    def h_memref_transpose(self, op):
        m = self.get(op.operands[0])
        perm = ir.AffineMapAttr(op.attributes["permutation"]).value
        idx = [ir.AffineDimExpr(r).position for r in perm.results]
        return [MemArg(m.ptr, m.elt, [m.shape[i] for i in idx], [m.strides[i] for i in idx])]

    def h_memref_cast(self, op):
        return [self.get(op.operands[0])]

    def h_memref_subview(self, op):
        """A view at a linear offset: a new base pointer with the view's sizes and strides."""
        m = self.get(op.operands[0])
        if not isinstance(m, MemArg) or m.shape is None:
            raise LoweringError(op, "memref.subview of a buffer that is not a kernel argument")
        _src, offs_o, sizes_o, strides_o = _groups(op)
        L = self.lanes
        offs = [self.idx_operand(x) for x in _mixed(op, offs_o, "static_offsets")]
        sizes = [self.idx_operand(x) for x in _mixed(op, sizes_o, "static_sizes")]
        steps = [self.idx_operand(x) for x in _mixed(op, strides_o, "static_strides")]
        lin = 0
        for o, st in zip(offs, m.strides):
            lin = L.add(lin, L.mul(o, st))
        strides = [L.mul(a, b) for a, b in zip(m.strides, steps)]
        rank = len(ir.MemRefType(op.results[0].type).shape)
        while len(sizes) > rank:
            drop = next((i for i, x in enumerate(sizes) if isinstance(x, int) and x == 1), None)
            if drop is None:
                raise LoweringError(op, "cannot tell the dropped dimensions of a rank-reducing subview")
            del sizes[drop], strides[drop]
        ptr = m.ptr if lin == 0 else self.elem_ptr(m.ptr, storage_type(m.elt), lin)
        return [MemArg(ptr, m.elt, sizes, strides)]

    def slm_buffer(self, t, op) -> MemArg:
        """A shared local memory buffer: a Workgroup-storage `spirv.GlobalVariable` (one per
        allocation, `__local T name[n]` in OpenCL C) placed in the gpu.module, which the upstream
        conversion moves into the spirv.module (and into the entry point's interface)."""
        if not isinstance(t, ir.MemRefType) or not _is_slm_space(ir.MemRefType(t).memory_space):
            raise LoweringError(op, f"'{t}': only shared local memory (memory space 3 / #gpu.address_space<workgroup>) "
                                    "can be allocated inside a kernel")
        m = ir.MemRefType(t)
        if any(d == DYNAMIC for d in m.shape):
            raise LoweringError(op, "shared local memory buffers need a static shape")
        try:
            strides, offset = m.get_strides_and_offset()
        except Exception:  # noqa: BLE001
            raise LoweringError(op, f"shared local memory layout {m.layout} is not strided") from None
        if offset == DYNAMIC or any(x == DYNAMIC for x in strides):
            raise LoweringError(op, "shared local memory buffers need static strides")
        elt = str(m.element_type)
        st = storage_type(elt)
        n = int(offset) + sum((d - 1) * x for d, x in zip(m.shape, strides)) + 1 if all(m.shape) else 1
        name = f"__xe_slm_{self.info.name}_{len(self.slm)}"
        arr = f"!spirv.ptr<!spirv.array<{n} x {st}>, Workgroup>"
        gm = self.old.parent
        with ir.InsertionPoint.at_block_begin(gm.regions[0].blocks[0]), self.old.location:
            ir.Operation.create("spirv.GlobalVariable", attributes={
                "sym_name": ir.StringAttr.get(name), "type": ir.TypeAttr.get(ir.Type.parse(arr))})
        with self.lanes._at_entry(), self.old.location:
            base = ir.Operation.create("spirv.mlir.addressof", results=[ir.Type.parse(arr)],
                                       attributes={"variable": ir.FlatSymbolRefAttr.get(name)}).results[0]
            ptr = ir.Operation.create("spirv.AccessChain", results=[ir.Type.parse(f"!spirv.ptr<{st}, Workgroup>")],
                                      operands=[base, self.lanes.i32(int(offset))]).results[0]
        self.slm.append(name)
        self.info.slm_bytes += n * max(1, bits_of(elt) // 8)
        return MemArg(ptr, elt, list(m.shape), list(strides))

    def h_memref_alloc(self, op):
        if len(op.operands):
            raise LoweringError(op, "shared local memory buffers need a static shape")
        return [self.slm_buffer(op.results[0].type, op)]

    def h_memref_alloca(self, op):
        raise LoweringError(op, "memref.alloca (private memory) is not supported by convert-xegpu-to-spirv")

    def h_memref_dealloc(self, op):
        m = self.get(op.operands[0])
        if not (isinstance(m, MemArg) and m.slm):
            raise LoweringError(op, "memref.dealloc of a buffer that was not allocated in the kernel")
        return []            # work-group memory lives as long as the work-group

    def memarg(self, v, op) -> MemArg:
        m = self.get(v)
        if not isinstance(m, MemArg) or m.shape is None:
            raise LoweringError(op, f"'{op.name}' of a buffer that is not a kernel argument (or a view of one)")
        return m

    def h_memref_expand_shape(self, op):
        """A view with more dimensions: each source dimension splits into its group (row-major)."""
        m = self.memarg(op.operands[0], op)
        L = self.lanes
        sizes = [self.idx_operand(x) for x in _mixed(op, list(op.operands)[1:], "static_output_shape")]
        strides = [1] * len(sizes)
        for src_d, group in enumerate(_reassociation(op)):
            st = m.strides[src_d]
            for d in reversed(group):
                strides[d] = st
                st = L.mul(st, sizes[d])
        return [MemArg(m.ptr, m.elt, sizes, strides)]

    def h_memref_collapse_shape(self, op):
        """A view with merged dimensions (each group is contiguous, as the verifier requires)."""
        m = self.memarg(op.operands[0], op)
        L = self.lanes
        sizes, strides = [], []
        for group in _reassociation(op):
            n = 1
            for d in group:
                n = L.mul(n, m.shape[d])
            sizes.append(n)
            strides.append(m.strides[group[-1]] if group else 1)
        return [MemArg(m.ptr, m.elt, sizes, strides)]

    def _elem_address(self, m: MemArg, indices, op):
        L = self.lanes
        lin = 0
        for i, st in zip(indices, m.strides):
            lin = L.add(lin, L.mul(self.idx_operand(i), st))
        return lin

    def h_memref_load(self, op):
        """A scalar load (the same address in every lane), e.g. a rank-0 scale buffer."""
        m = self.memarg(op.operands[0], op)
        st = storage_type(m.elt)
        p = self.elem_ptr(m.ptr, st, self._elem_address(m, list(op.operands)[1:], op))
        return [ir.Operation.create("spirv.Load", results=[st], operands=[p], attributes=self.mem_attrs(st)).results[0]]

    def h_memref_store(self, op):
        """A scalar store: every lane stores the same value to the same address."""
        v = self.scalar(op.operands[0], op)
        m = self.memarg(op.operands[1], op)
        st = storage_type(m.elt)
        p = self.elem_ptr(m.ptr, st, self._elem_address(m, list(op.operands)[2:], op))
        ir.Operation.create("spirv.Store", operands=[p, v], attributes=self.mem_attrs(st))
        return []

    def const_int(self, v):
        return static_int(v)

    def idx_operand(self, x):
        """An int or a mapped index Value for an entry of a mixed list."""
        if isinstance(x, int):
            return x
        c = self.const_int(x)
        return c if c is not None else self.scalar(x)

    # ---- constants and element-wise ops --------------------------------------------------------
    def h_arith_constant(self, op):
        t = op.results[0].type
        attr = op.attributes["value"]
        if not _is_vec(t):
            elt = str(t)
            if elt == "bf16":
                bits = int(np.array([ir.FloatAttr(attr).value], dtype=np.float32).view(np.uint32)[0])
                return [self.lanes.const(storage_type("bf16"), _bf16_bits(bits))]
            new = ir.Operation.create("arith.constant", results=[t], attributes={"value": attr})
            return [new.results[0]]
        shape, elt = _vshape(t), elt_name(t)
        dense = ir.DenseElementsAttr(attr)
        st = storage_type(elt)
        if dense.is_splat:
            a = dense.get_splat_value()
            v = self._scalar_const(elt, st, a)
            return [self.lanes.splat(shape, elt, v)]
        if is_float(elt):
            arr = np.array([float(x) for x in ir.DenseFPElementsAttr(attr)], dtype=np.float64)
            if elt == "bf16":
                f = arr.astype(np.float32)
                arr = np.array([_bf16_bits(int(u)) for u in f.view(np.uint32)], dtype=np.int64)
        else:
            arr = np.array([int(x) for x in ir.DenseIntElementsAttr(attr)], dtype=np.int64)
        arr = np.asarray(arr).reshape(-1)
        lay = Layout.canonical(shape)
        vals = []
        for s in range(lay.nslots):
            table = {ln: arr[e] for ln, e in lay.lane_elements(s).items()}
            if elt == "index" or (elt.startswith("i") and elt != "index") or elt == "bf16":
                tt = ir.IndexType.get() if elt == "index" else st
                vals.append(self.lanes.lane_table({k: int(v) for k, v in table.items()}, tt))
            else:
                full = [float(table.get(ln, 0.0)) for ln in range(LANES)]
                vals.append(self.lanes.vector_table(full, st))
        return [DVal(lay, vals, elt)]

    def _scalar_const(self, elt, st, a):
        if elt == "bf16":
            f = np.array([ir.FloatAttr(a).value], dtype=np.float32)
            return self.lanes.const(st, _bf16_bits(int(f.view(np.uint32)[0])))
        if is_float(elt):
            return self.lanes.const(st, ir.FloatAttr(a).value)
        if elt == "i1":
            return self.lanes.const(st, 1 if ir.BoolAttr(a).value else 0) if isinstance(a, ir.BoolAttr) else \
                self.lanes.const(st, ir.IntegerAttr(a).value & 1)
        return self.lanes.const(st, ir.IntegerAttr(a).value)

    def elementwise(self, op):
        """arith/math op on scalars or per register on vectors (bf16 computed in f32)."""
        res_types = [r.type for r in op.results]
        vec = any(_is_vec(t) for t in res_types) or any(_is_vec(v.type) for v in op.operands)
        if not vec:
            ops = [self.scalar(v, op) for v in op.operands]
            return self.scalar_op(op, ops, [elt_name(v) for v in op.operands], [str(t) for t in res_types])
        dvs = [self.get(v) if _is_vec(v.type) else None for v in op.operands]
        ref = next(d for d in dvs if d is not None)
        lay = ref.layout
        moved = [self.lanes.relayout(d, lay) if d is not None else None for d in dvs]
        outs = [[] for _ in res_types]
        for s in range(lay.nslots):
            regs = []
            for d, v in zip(moved, op.operands):
                regs.append(d.vals[s] if d is not None else self.scalar(v, op))
            if any(r is None for r in regs):
                for o in outs:
                    o.append(None)
                continue
            res = self.scalar_op(op, regs, [elt_name(v) for v in op.operands], [elt_name(t) for t in res_types])
            for o, r in zip(outs, res):
                o.append(r)
        return [DVal(lay, o, elt_name(t)) for o, t in zip(outs, res_types)]

    def scalar_op(self, op, regs, in_elts, out_elts):
        name = op.name
        L = self.lanes
        attrs = _attr_dict(op)
        if "bf16" not in in_elts and "bf16" not in out_elts:
            new = ir.Operation.create(name, results=[storage_type(e) for e in out_elts], operands=regs,
                                      attributes=attrs)
            return list(new.results)
        if name == "arith.extf":
            f = L.bf16_to_f32(regs[0])
            return [f if out_elts[0] == "f32" else arith.ExtFOp(storage_type(out_elts[0]), f).result]
        if name == "arith.truncf":
            x = regs[0] if in_elts[0] == "f32" else L.to_f32(regs[0], in_elts[0])
            return [L.f32_to_bf16(x)]
        if name == "arith.bitcast" or name == "arith.select":
            new = ir.Operation.create(name, results=[storage_type(e) for e in out_elts], operands=regs,
                                      attributes=attrs)
            return list(new.results)
        # compute in f32
        f_regs = [L.to_f32(r, e) if e == "bf16" else r for r, e in zip(regs, in_elts)]
        f_out = ["f32" if e == "bf16" else e for e in out_elts]
        new = ir.Operation.create(name, results=[storage_type(e) for e in f_out], operands=f_regs, attributes=attrs)
        return [L.f32_to_bf16(r) if e == "bf16" else r for r, e in zip(new.results, out_elts)]

    # ---- vector data movement --------------------------------------------------------------------
    def move(self, src: DVal, shape, src_index) -> DVal:
        lay = Layout.inherit(shape, src.layout, src_index)
        return self.lanes.materialize(src, lay, src_index)

    def h_vector_extract_strided_slice(self, op):
        src = self.dval(op.operands[0])
        offs = _int_list_attr(op.attributes["offsets"])
        sizes = _int_list_attr(op.attributes["sizes"])
        idx = np.arange(src.layout.size).reshape(src.shape)
        sl = tuple(slice(o, o + s) for o, s in zip(offs, sizes))
        sub = idx[sl]
        return [self.move(src, _vshape(op.results[0].type), sub)]

    def h_vector_shape_cast(self, op):
        src = self.dval(op.operands[0])
        return [self.move(src, _vshape(op.results[0].type), np.arange(src.layout.size))]

    def h_vector_transpose(self, op):
        src = self.dval(op.operands[0])
        perm = [int(x) for x in ir.DenseI64ArrayAttr(op.attributes["permutation"])]
        idx = np.arange(src.layout.size).reshape(src.shape).transpose(perm)
        return [self.move(src, _vshape(op.results[0].type), idx)]

    def h_vector_broadcast(self, op):
        shape = _vshape(op.results[0].type)
        elt = elt_name(op.results[0].type)
        x = self.get(op.operands[0])
        if isinstance(x, ir.Value):
            return [self.lanes.splat(shape, elt, x)]
        idx = np.arange(x.layout.size).reshape(x.shape)
        idx = idx.reshape((1,) * (len(shape) - idx.ndim) + idx.shape)
        return [self.move(x, shape, np.broadcast_to(idx, shape))]

    def h_vector_splat(self, op):
        return self.h_vector_broadcast(op)

    def _static_pos(self, op):
        if "static_position" not in op.attributes:
            raise LoweringError(op, f"'{op.name}' needs a static position")
        pos = _int_list(op.attributes["static_position"])
        if any(p == DYNAMIC for p in pos) or len(op.operands) > (2 if op.name == "vector.insert" else 1):
            raise LoweringError(op, f"'{op.name}' with a dynamic position is not supported")
        return pos

    def h_vector_extract(self, op):
        src = self.dval(op.operands[0])
        pos = self._static_pos(op)
        idx = np.arange(src.layout.size).reshape(src.shape)[tuple(pos)]
        if not _is_vec(op.results[0].type):
            return [self.lanes.uniform(src, int(idx))]
        return [self.move(src, _vshape(op.results[0].type), idx)]

    def h_vector_insert(self, op):
        dest = self.dval(op.operands[1])
        pos = self._static_pos(op)
        x = self.get(op.operands[0])
        region = np.arange(dest.layout.size).reshape(dest.shape)[tuple(pos)]
        if isinstance(x, ir.Value):
            x = self.lanes.splat((1,), dest.elt, x)
        return [self.insert_into(dest, x, np.asarray(region).reshape(-1))]

    def h_vector_insert_strided_slice(self, op):
        src = self.dval(op.operands[0])
        dest = self.dval(op.operands[1])
        offs = _int_list_attr(op.attributes["offsets"])
        lead = len(dest.shape) - len(src.shape)
        sl = tuple(slice(o, o + 1) if i < lead else slice(o, o + src.shape[i - lead]) for i, o in enumerate(offs))
        region = np.arange(dest.layout.size).reshape(dest.shape)[sl].reshape(-1)
        return [self.insert_into(dest, src, region)]

    def insert_into(self, dest: DVal, src: DVal, region) -> DVal:
        """`dest` with elements `region` (flat, in src element order) replaced by `src`."""
        L = self.lanes
        sub = Layout((len(region),), dest.layout.lanes.reshape(-1)[region], dest.layout.slots.reshape(-1)[region])
        flat_src = DVal(Layout((src.layout.size,), src.layout.lanes.reshape(-1), src.layout.slots.reshape(-1)),
                        src.vals, src.elt)
        moved = L.materialize(flat_src, sub)
        vals = list(dest.vals)
        for s in range(sub.nslots):
            lanes = list(sub.lane_elements(s))
            if not lanes:
                continue
            all_lanes = list(dest.layout.lane_elements(s)) if s < dest.layout.nslots else []
            if set(lanes) >= set(all_lanes) or vals[s] is None:
                vals[s] = moved.vals[s]
            else:
                vals[s] = arith.SelectOp(L.lane_in(lanes), moved.vals[s], vals[s]).result
        return DVal(dest.layout, vals, dest.elt)

    def h_vector_from_elements(self, op):
        shape = _vshape(op.results[0].type)
        elt = elt_name(op.results[0].type)
        regs = [self.scalar(v, op) for v in op.operands]
        lay = Layout.canonical(shape)
        vals = []
        for s in range(lay.nslots):
            by_val: dict = {}
            for ln, e in lay.lane_elements(s).items():
                by_val.setdefault(e, []).append(ln)
            items = list(by_val.items())
            v = regs[items[0][0]]
            for e, lanes in items[1:]:
                v = arith.SelectOp(self.lanes.lane_in(lanes), regs[e], v).result
            vals.append(v)
        return [DVal(lay, vals, elt)]

    # ---- reductions ------------------------------------------------------------------------------
    def h_vector_multi_reduction(self, op):
        src = self.dval(op.operands[0])
        acc = self.get(op.operands[1])
        dims = set(_int_list(op.attributes["reduction_dims"]))
        keep = [d for d in range(len(src.shape)) if d not in dims]
        idx = np.indices(src.shape)
        if keep:
            out_of = np.ravel_multi_index(tuple(idx[d] for d in keep), tuple(src.shape[d] for d in keep))
        else:
            out_of = np.zeros(src.shape, dtype=np.int64)
        return [self.reduce(op, _kind(op), src, out_of.reshape(-1), acc)]

    def h_vector_reduction(self, op):
        src = self.dval(op.operands[0])
        acc = self.scalar(op.operands[1], op) if len(op.operands) > 1 else None
        return [self.reduce(op, _kind(op), src, np.zeros(src.layout.size, dtype=np.int64), acc)]

    def reduce(self, op, kind, src: DVal, out_of, acc):
        """Reduce the elements of `src` into the output elements `out_of[e]` (flat, per source
        element) and combine each with `acc` (a DVal of the output shape, a scalar or None), as
        `combine(reduce(src), acc)`. Per output element, each lane first combines the registers that
        hold its elements (register ops); when the elements are spread over several lanes a
        subgroup reduction (`spirv.GroupNonUniform<Op> Reduce`, the lanes without elements
        contributing the identity) gives the value in every lane. A vector result takes the
        layout of `acc`; a scalar result is equal in every lane. bf16/f16 reduce in f32 (rounded
        once, as the simulator), integers narrower than 32 bits in i32, index in i64."""
        L = self.lanes
        elt = src.elt
        spec = _REDUCTIONS.get(kind)
        flt = is_float(elt)
        if spec is None or spec[0 if flt else 1] is None:
            raise LoweringError(op, f"reduction kind '{kind}' on {elt} is not supported by convert-xegpu-to-spirv")
        arith_name, group_name = spec[0 if flt else 1], spec[2 if flt else 3]
        ct, to_c, from_c = self.reduce_types(elt, kind)
        ident = L.const(ct, _reduction_identity(kind, ct))
        conv = {}

        def reg(s):
            if s not in conv:
                v = src.vals[s] if src.vals[s] is not None else L.zero(elt)
                conv[s] = to_c(v)
            return conv[s]

        def comb(a, b):
            if a is None:
                return b
            return ir.Operation.create(arith_name, results=[ct], operands=[a, b]).results[0]

        def subgroup(name, v):
            return ir.Operation.create(name, results=[v.type], operands=[v], attributes={
                "execution_scope": ir.Attribute.parse("#spirv.scope<Subgroup>"),
                "group_operation": ir.Attribute.parse("#spirv.group_operation<Reduce>")}).results[0]

        def group(v):
            r = subgroup(group_name, v)
            if kind in ("minimumf", "maximumf"):
                # GroupNonUniformFMin/FMax skip NaNs (minnum); these kinds propagate them
                i32 = ir.IntegerType.get_signless(32)
                nan = arith.ExtUIOp(i32, arith.CmpFOp(arith.CmpFPredicate.UNO, v, v).result).result
                anynan = arith.CmpIOp(arith.CmpIPredicate.ne, subgroup("spirv.GroupNonUniformUMax", nan),
                                      L.i32(0)).result
                r = arith.SelectOp(anynan, L.const(ct, float("nan")), r).result
            return r

        per: dict = {}            # output element -> {lane: [slots]}
        for e, (ln, sl) in enumerate(zip(src.layout.lanes.reshape(-1), src.layout.slots.reshape(-1))):
            per.setdefault(int(out_of[e]), {}).setdefault(int(ln), []).append(int(sl))

        def masked_partial(lanes_slots):
            """Lane l: the combination of its elements (the identity in lanes without any)."""
            by_slot: dict = {}
            for ln, sls in lanes_slots.items():
                for sl in sls:
                    by_slot.setdefault(sl, set()).add(ln)
            p = None
            for sl, lns in sorted(by_slot.items()):
                v = reg(sl)
                if len(lns) < LANES:
                    v = arith.SelectOp(L.lane_in(lns), v, ident).result
                p = comb(p, v)
            return p

        def full_reduce(lanes_slots):
            """The combination of all elements of one output, equal in every lane."""
            if len(lanes_slots) == 1:
                (ln, sls), = lanes_slots.items()
                p = None
                for sl in sls:
                    p = comb(p, reg(sl))
                return L.shuffle(p, ln)
            return group(masked_partial(lanes_slots))

        if not isinstance(acc, DVal):            # a scalar result
            r = full_reduce(per.get(0, {}))
            if acc is not None:
                r = comb(r, to_c(acc))
            return from_c(r)
        lay = acc.layout
        vals = []
        for t in range(lay.nslots):
            outs = lay.lane_elements(t)          # lane -> output element held in register t
            if not outs:
                vals.append(None)
                continue
            a = acc.vals[t] if acc.vals[t] is not None else L.zero(acc.elt)
            a = to_c(a)
            if all(set(per.get(o, {})) <= {ln} for ln, o in outs.items()):
                # every output element reduces within the lane that holds it: register ops only
                lists = {ln: per.get(o, {}).get(ln, []) for ln, o in outs.items()}
                r = None
                for k in range(max(len(x) for x in lists.values())):
                    table = {ln: x[k] for ln, x in lists.items() if k < len(x)}
                    r = comb(r, self._select_slots(table, set(outs), reg, ident))
                vals.append(from_c(comb(r, a) if r is not None else a))
                continue
            r = None
            for ln, o in sorted(outs.items()):
                g = full_reduce(per.get(o, {}))
                r = g if r is None else arith.SelectOp(L.lane_in([ln]), g, r).result
            vals.append(from_c(comb(r, a)))
        return DVal(lay, vals, elt)

    def _select_slots(self, table, lanes, reg, ident):
        """A register whose value in lane l is reg(table[l]) (the identity in `lanes` not in
        `table`; other lanes: anything)."""
        by_slot: dict = {}
        for ln, sl in table.items():
            by_slot.setdefault(sl, []).append(ln)
        groups = sorted(by_slot.items(), key=lambda kv: -len(kv[1]))
        v = reg(groups[0][0])
        for sl, lns in groups[1:]:
            v = arith.SelectOp(self.lanes.lane_in(lns), reg(sl), v).result
        missing = sorted(set(lanes) - set(table))
        if missing:
            v = arith.SelectOp(self.lanes.lane_in(missing), ident, v).result
        return v

    def reduce_types(self, elt, kind):
        """(compute type, to compute type, from compute type) of a reduction over `elt`."""
        L = self.lanes
        st = storage_type(elt)
        if is_float(elt):
            if elt in ("bf16", "f16"):
                return ir.F32Type.get(), (lambda v: L.to_f32(v, elt)), (lambda v: L.from_f32(v, elt))
            return st, (lambda v: v), (lambda v: v)
        if elt == "index":
            i64 = _i64()
            return (i64, lambda v: arith.IndexCastOp(i64, v).result,
                    lambda v: arith.IndexCastOp(ir.IndexType.get(), v).result)
        bits = bits_of(elt)
        if bits >= 32:
            return st, (lambda v: v), (lambda v: v)
        i32 = ir.IntegerType.get_signless(32)
        ext = arith.ExtUIOp if kind in ("minui", "maxui") else arith.ExtSIOp
        return i32, (lambda v: ext(i32, v).result), (lambda v: arith.TruncIOp(st, v).result)

    # ---- tensor descriptors ----------------------------------------------------------------------
    @staticmethod
    def check_scope(op, td, m: MemArg):
        if (td.memory_scope == "slm") != m.slm:
            where = "shared local memory" if m.slm else "global memory"
            raise LoweringError(op, f"descriptor with memory_scope = {td.memory_scope or 'global'} on a buffer "
                                    f"in {where}")

    def source_ptr(self, src_val, elt, op):
        x = self.get(src_val)
        if isinstance(x, MemArg):
            return x
        if isinstance(x, ir.Value) and str(x.type) == "i64":
            ptr_t = ir.Type.parse(_PTR.format(storage_type(elt)))
            p = ir.Operation.create("spirv.ConvertUToPtr", results=[ptr_t], operands=[x]).results[0]
            return MemArg(p, elt, None, None)
        raise LoweringError(op, "tensor_desc source must be a kernel buffer argument or an i64 address")

    def h_xegpu_create_nd_tdesc(self, op):
        src, offs_o, shape_o, strides_o = _groups(op)
        td = TensorDescType(op.results[0].type)
        elt = str(td.element_type)
        m = self.source_ptr(src[0], elt, op)
        self.check_scope(op, td, m)
        offs = [self.idx_operand(x) for x in _mixed(op, offs_o, "static_offsets")]
        shape = [self.idx_operand(x) for x in _mixed(op, shape_o, "static_shape")]
        strides = [self.idx_operand(x) for x in _mixed(op, strides_o, "static_strides")]
        if not shape:
            if m.shape is None:
                raise LoweringError(op, "a descriptor on an address needs the base shape and strides")
            shape, strides = list(m.shape), list(m.strides)
        if len(td.shape) != 2:
            raise LoweringError(op, "only 2D nd descriptors are supported by convert-xegpu-to-spirv")
        if strides[-1] != 1:
            raise LoweringError(op, "the innermost stride of an nd descriptor base must be 1")
        L = self.lanes
        lead = 0
        for o, s in zip(offs[:-2], strides[:-2]):
            lead = L.add(lead, L.mul(o, s))
        plan = NdPlan(m.ptr, elt, lead, shape[-2], shape[-1], strides[-2], tuple(td.shape))
        return [NdDesc(plan, L.index(offs[-2]), L.index(offs[-1]))]

    def h_xegpu_update_nd_offset(self, op):
        d = self.get(op.operands[0])
        offs = [self.idx_operand(x) for x in _mixed(op, list(op.operands)[1:], "static_offsets")]
        L = self.lanes

        def moved(x, by):           # static positions stay static (static_bounds folds their checks)
            sx, sb = static_int(x), static_int(by)
            return L.index(sx + sb if sx is not None and sb is not None else L.add(x, by))
        return [NdDesc(d.plan, moved(d.row, offs[0]), moved(d.col, offs[1]))]

    # element coordinates (memory row / column inside the block) of a load_nd result
    @staticmethod
    def load_coords(shape, vnni, transpose, f):
        idx = np.indices(shape)
        if len(shape) == 2:
            i, j = idx
            return (j, i) if transpose else (i, j)
        a, j, b = idx
        if transpose:                    # (mw/f, mh, f): logical (a*f+b, j) of the transposed block
            return j, a * f + b
        if vnni == 0:                    # (mh/f, mw, f)
            return a * f + b, j
        return a, j * f + b              # vnni_axis 1: (mh, mw/f, f)

    def h_xegpu_load_nd(self, op):
        d = self.get(op.operands[0])
        shape = _vshape(op.results[0].type)
        elt = d.plan.elt
        vnni = ir.IntegerAttr(op.attributes["vnni_axis"]).value if "vnni_axis" in op.attributes else None
        transpose = "transpose" in op.attributes
        f = max(1, 32 // bits_of(elt)) if vnni is not None else 1
        rows, cols = self.load_coords(shape, vnni, transpose, f)
        if self.target == "pvc" and not _is_slm_ptr(d.plan.ptr):
            blk = bi.block_read(bits_of(elt), d.plan.block[0], d.plan.block[1], vnni is not None, transpose)
            if blk is not None:
                return [self.block_read(d, blk, shape, rows, cols)]
        lane_dim = 1 if len(shape) >= 2 else 0
        lay = Layout.canonical(shape, lane_dim)
        return [self.gather_rows(d, lay, rows, cols)]

    def gather_rows(self, d: NdDesc, lay: Layout, rows, cols) -> DVal:
        """Per-lane loads of the block elements (zero outside the surface)."""
        L = self.lanes
        p = d.plan
        st = storage_type(p.elt)
        rows, cols = rows.reshape(-1), cols.reshape(-1)
        vals = []
        for s in range(lay.nslots):
            el = lay.lane_elements(s)
            if not el:
                vals.append(None)
                continue
            acc = self.slot_access(d, el, rows, cols)
            vals.append(L.zero(st) if acc is None else self.load_elem(p.ptr, st, *acc))
        return DVal(lay, vals, p.elt)

    def slot_access(self, d: NdDesc, el: dict, rows, cols):
        """(linear element index, i1 guard or None) of the block elements `el` (lane -> element,
        at block `rows` / `cols`) of one register slot; None when all are outside the surface."""
        L = self.lanes
        p = d.plan
        rt = {ln: int(rows[e]) for ln, e in el.items()}
        ct = {ln: int(cols[e]) for ln, e in el.items()}
        where = self.static_bounds(d, rt, ct)
        if where == "out":
            return None
        r = L.add(d.row, L.lane_table(rt))
        c = L.add(d.col, L.lane_table(ct))
        ok = self.in_bounds(p, r, c, el, where == "in")
        return L.add(p.lead, L.add(L.mul(r, p.pitch), c)), ok

    @staticmethod
    def static_bounds(d: NdDesc, rows: dict, cols: dict):
        """Where the elements of one slot (lane -> row / column in the block) lie when the block
        position and surface shape are static: "in" (all inside), "out" (all outside: the
        hardware reads zeros and drops stores) or None (decided at run time). Deciding here keeps
        constant-folded bounds checks out of the kernel (and their constant results visible)."""
        p = d.plan
        verdicts = []
        for base, table, limit in ((static_int(d.row), rows, static_int(p.height)),
                                   (static_int(d.col), cols, static_int(p.width))):
            if base is None or limit is None:
                verdicts.append(None)
                continue
            inside = [0 <= base + x < limit for x in table.values()]
            verdicts.append("in" if all(inside) else "out" if not any(inside) else None)
        if "out" in verdicts:
            return "out"
        return "in" if verdicts == ["in", "in"] else None

    def in_bounds(self, p: NdPlan, r, c, lanes, inside=False):
        """i1 per lane: the element is inside the surface (known when `inside`) and its lane one
        of `lanes`."""
        L = self.lanes
        ok = None if inside else arith.AndIOp(
            arith.CmpIOp(arith.CmpIPredicate.ult, L.index(r), L.index(p.height)).result,
            arith.CmpIOp(arith.CmpIPredicate.ult, L.index(c), L.index(p.width)).result).result
        if len(lanes) < LANES:
            ok = L.lane_in(lanes) if ok is None else arith.AndIOp(ok, L.lane_in(lanes)).result
        return ok

    def load_elem(self, ptr, st, lin, ok):
        """ptr[lin] where `ok`, else 0: a load under `scf.if`. (A clamped address and a select
        would also do, but the OpenCL CPU compiler then turns the lanes' consecutive addresses into
        scalarized gathers, which doubles its build time; the branch becomes a masked load.)"""
        L = self.lanes
        if ok is None:
            return ir.Operation.create("spirv.Load", results=[st], operands=[self.elem_ptr(ptr, st, lin)],
                                       attributes=self.mem_attrs(st)).results[0]
        if_op = scf.IfOp(ok, [st], has_else=True)
        with ir.InsertionPoint(if_op.then_block):
            p = self.elem_ptr(ptr, st, lin)
            scf.YieldOp([ir.Operation.create("spirv.Load", results=[st], operands=[p],
                                             attributes=self.mem_attrs(st)).results[0]])
        with ir.InsertionPoint(if_op.else_block):
            scf.YieldOp([L.zero(st)])
        return if_op.results[0]

    def elem_ptr(self, ptr, st, lin):
        return ir.Operation.create("spirv.PtrAccessChain", results=[ptr.type],
                                   operands=[ptr, self.lanes.to_i64(lin)]).results[0]

    def mem_attrs(self, st):
        nbytes = max(1, bits_of(str(st)) // 8) if str(st) != "index" else 8
        return {"memory_access": ir.Attribute.parse("#spirv.memory_access<Aligned>"),
                "alignment": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), nbytes)}

    def store_elem(self, ptr, st, lin, value, ok):
        if ok is None:
            ir.Operation.create("spirv.Store", operands=[self.elem_ptr(ptr, st, lin), value],
                                attributes=self.mem_attrs(st))
            return
        if_op = scf.IfOp(ok)
        with ir.InsertionPoint(if_op.then_block):
            p = self.elem_ptr(ptr, st, lin)
            ir.Operation.create("spirv.Store", operands=[p, value], attributes=self.mem_attrs(st))
            scf.YieldOp([])

    def h_xegpu_store_nd(self, op):
        v = self.dval(op.operands[0])
        d = self.get(op.operands[1])
        p = d.plan
        if self.target == "pvc" and not _is_slm_ptr(p.ptr):
            blk = bi.block_write(bits_of(p.elt), p.block[0], p.block[1])
            if blk is not None:
                self.block_write(d, blk, v)
                return []
        st = storage_type(p.elt)
        rows, cols = [a.reshape(-1) for a in np.indices(v.shape)]
        for s in range(v.layout.nslots):
            el = v.layout.lane_elements(s)
            if not el or v.vals[s] is None:
                continue
            acc = self.slot_access(d, el, rows, cols)
            if acc is not None:
                self.store_elem(p.ptr, st, acc[0], v.vals[s], acc[1])
        return []

    def h_xegpu_prefetch_nd(self, op):
        d = self.get(op.operands[0])
        p = d.plan
        if self.target != "pvc" or _is_slm_ptr(p.ptr):
            return []           # a cache hint: nothing to do without 2D block prefetches
        for coff, blk in bi.block_prefetch(bits_of(p.elt), p.block[0], p.block[1]):
            self.call_block(blk, d, coff, None)
        return []

    # ---- pvc 2D block builtins ------------------------------------------------------------------
    def variable(self, lane_type: str, n: int, use: str = "block"):
        """A per-lane `lane_type[n]` array (Function storage), one per (type, size, use)."""
        key = (lane_type, n, use)
        v = self.variables.get(key)
        if v is None:
            st = bi.spirv_type(lane_type)
            t = ir.Type.parse(f"!spirv.ptr<!spirv.array<{n} x {st}>, Function>")
            with ir.InsertionPoint.at_block_begin(self.new.regions[0].blocks[0]), self.old.location:
                v = ir.Operation.create("spirv.Variable", results=[t], attributes={
                    "storage_class": ir.Attribute.parse("#spirv.storage_class<Function>")}).results[0]
            self.variables[key] = v
        return v

    def var_elem(self, var, lane_type, i):
        st = bi.spirv_type(lane_type)
        pt = ir.Type.parse(f"!spirv.ptr<{st}, Function>")
        return ir.Operation.create("spirv.AccessChain", results=[pt],
                                   operands=[var, self.lanes.i32(i)]).results[0]

    def call_block(self, blk: bi.Block2D, d: NdDesc, coff: int, var):
        L = self.lanes
        p = d.plan
        nbytes = bits_of(p.elt) // 8
        base = p.ptr if p.lead == 0 else self.elem_ptr(p.ptr, storage_type(p.elt), p.lead)
        i8p = ir.Type.parse(_PTR.format("i8"))
        base = ir.Operation.create("spirv.Bitcast", results=[i8p], operands=[base]).results[0]
        width = L.to_i32(L.mul(p.width, nbytes))
        height = L.to_i32(p.height)
        pitch = L.to_i32(L.mul(p.pitch, nbytes))
        x = L.to_i32(L.add(d.col, coff))
        y = L.to_i32(d.row)
        coord = ir.Operation.create("vector.from_elements", results=[ir.VectorType.get([2], ir.IntegerType.get_signless(32))],
                                    operands=[x, y]).results[0]
        args = [base, width, height, pitch, coord]
        if var is not None:
            args.append(self.var_elem(var, blk.lane_type, 0))
        sym = self.declare(blk.builtin)
        ir.Operation.create("spirv.FunctionCall", operands=args,
                            attributes={"callee": ir.FlatSymbolRefAttr.get(sym)})

    def block_read(self, d: NdDesc, blk: bi.Block2D, shape, rows, cols) -> DVal:
        L = self.lanes
        elt = d.plan.elt
        lane, vi, part = blk.lane_of(rows, cols)
        lay = Layout(shape, lane, vi * blk.pack + part)
        n = blk.values_per_lane
        var = self.variable(blk.lane_type, n)
        self.call_block(blk, d, 0, var)
        lt = ir.Type.parse(bi.spirv_type(blk.lane_type))
        st = storage_type(elt)
        ebits = bits_of(elt)
        vals = [None] * lay.nslots
        for i in range(n):
            w = ir.Operation.create("spirv.Load", results=[lt], operands=[self.var_elem(var, blk.lane_type, i)]).results[0]
            for k in range(blk.pack):
                s = i * blk.pack + k
                if s >= lay.nslots:
                    continue
                x = w
                if blk.pack > 1:
                    if k:
                        x = arith.ShRUIOp(x, L.const(lt, k * ebits)).result
                    x = arith.TruncIOp(ir.IntegerType.get_signless(ebits), x).result
                if str(st) != str(x.type):
                    x = arith.BitcastOp(st, x).result
                vals[s] = x
        return DVal(lay, vals, elt)

    def block_write(self, d: NdDesc, blk: bi.Block2D, v: DVal):
        elt = d.plan.elt
        rows, cols = np.indices(v.shape)
        lane, vi, part = blk.lane_of(rows, cols)
        lay = Layout(v.shape, lane, vi * blk.pack + part)
        v = self.lanes.relayout(v, lay)
        n = blk.values_per_lane
        var = self.variable(blk.lane_type, n)
        lt = ir.Type.parse(bi.spirv_type(blk.lane_type))
        for i in range(n):
            x = v.vals[i] if v.vals[i] is not None else self.lanes.zero(elt)
            if str(x.type) != str(lt):
                x = arith.BitcastOp(lt, x).result
            ir.Operation.create("spirv.Store", operands=[self.var_elem(var, blk.lane_type, i), x])
        self.call_block(blk, d, 0, var)

    # ---- DPAS -----------------------------------------------------------------------------------
    def h_xegpu_dpas(self, op):
        a = self.dval(op.operands[0])
        b = self.dval(op.operands[1])
        acc = self.dval(op.operands[2]) if len(op.operands) > 2 else None
        rs = _vshape(op.results[0].type)
        er = elt_name(op.results[0].type)
        M, N = rs
        # logical (m, k) of A elements, (k, n) of B elements
        if len(a.shape) == 3:
            mm, aa, bb = np.indices(a.shape)
            a_mk = (mm, aa * a.shape[2] + bb)
        else:
            a_mk = tuple(np.indices(a.shape))
        if len(b.shape) == 3:
            aa, nn, bb = np.indices(b.shape)
            b_kn = (aa * b.shape[2] + bb, nn)
        else:
            b_kn = tuple(np.indices(b.shape))
        K = int(a_mk[1].max()) + 1
        # A, B as logical 2D values
        a2 = self.move(a, (M, K), _inverse_index((M, K), a_mk))
        b2 = self.move(b, (K, N), _inverse_index((K, N), b_kn))
        c_lay = Layout.canonical((M, N), 1)
        if acc is not None:
            c = self.lanes.relayout(acc, c_lay)
        else:
            c = DVal(c_lay, [None] * c_lay.nslots, er)
        if self.target == "pvc":
            out = self.dpas_builtin(a2, b2, c, M, N, K, er)
            if out is not None:
                return [out]
        return [self.dpas_expand(a2, b2, c, M, N, K, er)]

    def dpas_expand(self, a: DVal, b: DVal, c: DVal, M, N, K, er) -> DVal:
        """Subgroup multiply-add: lane n computes column n, products and sums in f32 (i32), in K
        order. Emitted as one `scf.for k` loop per 16 K values: lane n keeps its B column in a
        Function-storage array (indexed by k), A[m, k] comes from lane k by a shuffle with a
        dynamic lane. About 1/K of the code of the unrolled form -- the OpenCL compiler's build
        time follows the code size (and private arrays with dynamic indices vectorize; per-lane
        vectors with dynamic indices do not)."""
        L = self.lanes
        ea, eb = a.elt, b.elt
        integer = not is_float(ea)
        b_lay = Layout.from_table((K, N), lambda k, n: n, lambda k, n: k)
        bl = L.relayout(b, b_lay)
        acc_t = ir.IntegerType.get_signless(32) if integer else ir.F32Type.get()
        lane_type = "int" if integer else "float"

        def conv(v, e):
            if integer:
                if bits_of(str(v.type)) == 32:
                    return v
                return (arith.ExtUIOp if e.startswith("u") or e.startswith("ui") else arith.ExtSIOp)(acc_t, v).result
            x = L.to_f32(v, e)
            return L.round_tf32(x) if e in ("f32", "tf32") else x

        bcol = [conv(bl.vals[k], eb) if bl.vals[k] is not None else L.zero(acc_t) for k in range(K)]
        accs = []
        for m in range(M):
            v = c.vals[m]
            accs.append(L.zero(acc_t) if v is None else (v if integer else L.to_f32(v, c.elt)))
        kc = -(-K // LANES)
        a2 = L.relayout(a, Layout.canonical((M, K), 1))      # A[m, k] in lane k % 16, slot m * kc + k // 16
        i32 = ir.IntegerType.get_signless(32)
        var = self.variable(lane_type, LANES, "dpas_b")

        def mac(acc, m, ci, lane, bk):
            """acc + A[m, k] * B[k, n]: A from `lane` of chunk `ci` (a shuffle), B this lane's `bk`."""
            av = a2.vals[m * kc + ci]
            cv = conv(L.shuffle(av if av is not None else L.zero(ea), lane), ea)
            if integer:
                return arith.AddIOp(acc, arith.MulIOp(cv, bk).result).result
            return arith.AddFOp(acc, arith.MulFOp(cv, bk).result).result

        for ci in range(kc):
            n = min(LANES, K - ci * LANES)
            ks = range(ci * LANES, ci * LANES + n)
            if any(bl.vals[k] is None or _is_constant(bl.vals[k]) for k in ks):
                # constant B entries (e.g. rows a descriptor with a static shape never reaches) are
                # not stored into the array: Intel's OpenCL CPU compiler mis-compiles runs of
                # constant stores into a private array read with a dynamic index (the loop then
                # reads garbage). Such chunks are unrolled with a constant source lane per k.
                for k in ks:
                    accs = [mac(acc, m, ci, k % LANES, bcol[k]) for m, acc in enumerate(accs)]
                continue
            for k in range(n):
                ir.Operation.create("spirv.Store", operands=[self.var_elem(var, lane_type, k), bcol[ci * LANES + k]])
            loop = scf.ForOp(L.index(0), L.index(n), L.index(1), accs)
            with ir.InsertionPoint(loop.body):
                k32 = arith.IndexCastOp(i32, loop.induction_variable).result
                bk = ir.Operation.create("spirv.Load", results=[acc_t],
                                         operands=[self.var_elem(var, lane_type, k32)]).results[0]
                scf.YieldOp([mac(acc, m, ci, k32, bk) for m, acc in enumerate(loop.inner_iter_args)])
            accs = list(loop.results)
        return DVal(c.layout, [x if integer else L.from_f32(x, er) for x in accs], er)

    def dpas_builtin(self, a: DVal, b: DVal, c: DVal, M, N, K, er) -> DVal | None:
        L = self.lanes
        ea, eb = a.elt, b.elt
        acc_elt = "i32" if not is_float(ea) else "f32"
        pieces = []
        m0 = 0
        while m0 < M:
            m = next(x for x in (8, 4, 2, 1) if x <= M - m0)
            spec = bi.dpas_builtin(ea, eb, acc_elt, m)
            if spec is None or N != 16 or (ea in ("f32", "tf32") and m < 4):
                return None
            pieces.append((m0, m, spec))
            m0 += m
        kk = {"bf16": 16, "f16": 16}.get(ea, 8 if ea in ("f32", "tf32") else 32)
        if K != kk:
            return None
        # B: lane n, value i packs k = i*pack .. (i+1)*pack-1
        b_lay = Layout.from_table((K, N), lambda k, n: n, lambda k, n: k)
        bl = L.relayout(b, b_lay)
        b_vec = self.pack_values(bl.vals, pieces[0][2].b_pack, eb, pieces[0][2].b_type)
        out = [None] * M
        for m0, m, spec in pieces:
            sub_a = self.move(a, (m, K), np.arange(m0 * K, (m0 + m) * K))
            a_l, a_s = bi.dpas_a_lane(ea, *np.indices((m, K)))
            ap = L.relayout(sub_a, Layout((m, K), a_l, a_s))
            a_vec = self.pack_values(ap.vals, spec.a_pack, ea, spec.a_type)
            accs = []
            for i in range(m):
                v = c.vals[m0 + i]
                if v is None:
                    v = L.zero(storage_type(acc_elt))
                elif c.elt != acc_elt:
                    v = L.to_f32(v, c.elt)
                accs.append(v)
            c_vec = self.build_vec(accs, spec.c_type)
            sym = self.declare(spec.builtin)
            rt = ir.Type.parse(bi.spirv_type(spec.c_type))
            r = ir.Operation.create("spirv.FunctionCall", results=[rt], operands=[a_vec, b_vec, c_vec],
                                    attributes={"callee": ir.FlatSymbolRefAttr.get(sym)}).results[0]
            for i in range(m):
                x = r if m == 1 else ir.Operation.create(
                    "spirv.CompositeExtract", results=[storage_type(acc_elt)], operands=[r],
                    attributes={"indices": ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(32), i)])}
                ).results[0]
                out[m0 + i] = x if er == acc_elt else L.from_f32(x, er)
        return DVal(c.layout, out, er)

    def pack_values(self, regs, pack, elt, cl_type):
        """Per-lane registers packed `pack` to a value (little endian) as the OpenCL type."""
        L = self.lanes
        base, n = bi._split_vec(cl_type)
        lt = ir.Type.parse(bi.spirv_type(base))
        ebits = bits_of(elt) if elt not in ("tf32",) else 32
        vals = []
        for i in range(n):
            chunk = regs[i * pack:(i + 1) * pack]
            chunk = [x if x is not None else L.zero(elt) for x in chunk]
            if pack == 1:
                x = chunk[0] if len(chunk) else L.zero(lt)
                if str(x.type) != str(lt):
                    x = arith.BitcastOp(lt, x).result
                vals.append(x)
                continue
            wt = ir.IntegerType.get_signless(bits_of(str(lt)))
            acc = None
            for k, x in enumerate(chunk):
                if not isinstance(x.type, ir.IntegerType):
                    x = arith.BitcastOp(ir.IntegerType.get_signless(ebits), x).result
                w = arith.ExtUIOp(wt, x).result
                if k:
                    w = arith.ShLIOp(w, L.const(wt, k * ebits)).result
                acc = w if acc is None else arith.OrIOp(acc, w).result
            if str(acc.type) != str(lt):
                acc = arith.BitcastOp(lt, acc).result
            vals.append(acc)
        return self.build_vec(vals, cl_type)

    def build_vec(self, vals, cl_type):
        if len(vals) == 1:
            return vals[0]
        vt = ir.Type.parse(bi.spirv_type(cl_type))
        return ir.Operation.create("spirv.CompositeConstruct", results=[vt], operands=vals).results[0]

    # ---- scattered access -----------------------------------------------------------------------
    def h_xegpu_create_tdesc(self, op):
        td = TensorDescType(op.results[0].type)
        elt = str(td.element_type)
        m = self.source_ptr(op.operands[0], elt, op)
        self.check_scope(op, td, m)
        offs = self.dval(op.operands[1])
        offs = self.lanes.relayout(offs, Layout.canonical(offs.shape, 0))
        return [ScDesc(m.ptr, elt, td.chunk_size_per_lane, offs)]

    def h_xegpu_update_offset(self, op):
        d = self.get(op.operands[0])
        delta = self.lanes.relayout(self.dval(op.operands[1]), d.offs.layout)
        vals = [None if x is None else arith.AddIOp(x, y).result for x, y in zip(d.offs.vals, delta.vals)]
        return [ScDesc(d.ptr, d.elt, d.chunk, DVal(d.offs.layout, vals, "index"))]

    def scatter_slots(self, d: ScDesc, mask: DVal, shape, transpose=False):
        """For each register of a scattered value: (slot, lanes, address, mask value) -- lane i
        accesses offset[i] + c for chunk element c."""
        L = self.lanes
        n = d.offs.shape[0]
        lay = Layout.canonical(shape, 1 if transpose else 0)
        m = L.relayout(mask, Layout.canonical((n,), 0)) if mask is not None else None
        out = []
        idx = np.indices(shape)
        lane_i, chunk_c = (idx[1], idx[0]) if transpose else ((idx[0], idx[1]) if len(shape) == 2 else (idx[0], 0 * idx[0]))
        for s in range(lay.nslots):
            el = lay.lane_elements(s)
            if not el:
                out.append((s, el, None, None))
                continue
            es = list(el.values())
            i0 = int(lane_i.reshape(-1)[es[0]]) // LANES
            c = int(chunk_c.reshape(-1)[es[0]])
            addr = L.add(d.offs.vals[i0], c)
            mv = m.vals[i0] if m is not None else L.const(ir.IntegerType.get_signless(1), 1)
            if len(el) < LANES:
                mv = arith.AndIOp(mv, L.lane_in(el)).result
            out.append((s, el, addr, mv))
        return lay, out

    def h_xegpu_load_gather(self, op):
        d = self.get(op.operands[0])
        mask = self.dval(op.operands[1])
        shape = _vshape(op.results[0].type)
        lay, slots = self.scatter_slots(d, mask, shape, "transpose" in op.attributes)
        st = storage_type(d.elt)
        vals = [None if addr is None else self.load_elem(d.ptr, st, addr, mv) for _s, _el, addr, mv in slots]
        return [DVal(lay, vals, d.elt)]

    def h_xegpu_store_scatter(self, op):
        v = self.dval(op.operands[0])
        d = self.get(op.operands[1])
        mask = self.dval(op.operands[2])
        lay, slots = self.scatter_slots(d, mask, v.shape)
        v = self.lanes.relayout(v, lay)
        st = storage_type(d.elt)
        for s, _el, addr, mv in slots:
            if addr is not None and v.vals[s] is not None:
                self.store_elem(d.ptr, st, addr, v.vals[s], mv)
        return []

    def h_xegpu_prefetch(self, op):
        return []

    _ATOMICS = {"addi": "spirv.AtomicIAdd", "maxs": "spirv.AtomicSMax", "mins": "spirv.AtomicSMin",
                "maxu": "spirv.AtomicUMax", "minu": "spirv.AtomicUMin", "andi": "spirv.AtomicAnd",
                "ori": "spirv.AtomicOr", "assign": "spirv.AtomicExchange", "addf": "spirv.EXT.AtomicFAdd"}

    def h_xegpu_atomic_rmw(self, op):
        kind = _str_attr(op, "kind")
        v = self.dval(op.operands[0])
        d = self.get(op.operands[1])
        mask = self.dval(op.operands[2])
        spv = self._ATOMICS.get(kind)
        if spv is None:
            raise LoweringError(op, f"atomic_rmw kind {kind} has no single SPIR-V atomic instruction; supported: "
                                    f"{', '.join(sorted(self._ATOMICS))}")
        if kind == "addf" and d.elt != "f32":
            raise LoweringError(op, f"atomic addf on {d.elt}: only f32 float atomics are supported")
        lay, slots = self.scatter_slots(d, mask, v.shape)
        v = self.lanes.relayout(v, lay)
        st = storage_type(d.elt)
        olds = []
        for s, _el, addr, mv in slots:
            if addr is None or v.vals[s] is None:
                olds.append(None)
                continue
            if_op = scf.IfOp(mv, [st], has_else=True)
            with ir.InsertionPoint(if_op.then_block):
                p = self.elem_ptr(d.ptr, st, addr)
                scope = "Workgroup" if _is_slm_ptr(d.ptr) else "Device"
                attrs = {"memory_scope": ir.Attribute.parse(f"#spirv.scope<{scope}>"),
                         "semantics": ir.Attribute.parse("#spirv.memory_semantics<None>")}
                r = ir.Operation.create(spv, results=[st], operands=[p, v.vals[s]], attributes=attrs).results[0]
                scf.YieldOp([r])
            with ir.InsertionPoint(if_op.else_block):
                scf.YieldOp([self.lanes.zero(st)])
            olds.append(if_op.results[0])
        return [DVal(lay, olds, d.elt)]

    # ---- barriers, fences, hints -----------------------------------------------------------------
    def h_xegpu_alloc_nbarrier(self, op):
        n = self.const_int(op.operands[0])
        self.info.named_barriers = max(self.info.named_barriers, n if n is not None else 32)
        return []

    def h_xegpu_create_nbarrier(self, op):
        return [self.lanes.const(ir.IntegerType.get_signless(32), 0)]

    def _barrier(self, name, sem):
        attrs = {"execution_scope": ir.Attribute.parse("#spirv.scope<Workgroup>"),
                 "memory_scope": ir.Attribute.parse("#spirv.scope<Workgroup>"),
                 "memory_semantics": ir.Attribute.parse(f"#spirv.memory_semantics<{sem}>")}
        ir.Operation.create(name, attributes=attrs)

    def h_xegpu_nbarrier_arrive(self, op):
        if self.target == "pvc":
            self._barrier("spirv.INTEL.ControlBarrierArrive", "Release|WorkgroupMemory|CrossWorkgroupMemory")
        return []

    def h_xegpu_nbarrier_wait(self, op):
        if self.target == "pvc":
            self._barrier("spirv.INTEL.ControlBarrierWait", "Acquire|WorkgroupMemory|CrossWorkgroupMemory")
        else:
            self._barrier("spirv.ControlBarrier", "AcquireRelease|WorkgroupMemory|CrossWorkgroupMemory")
        return []

    def h_xegpu_mfence(self, op):
        kind = _str_attr(op, "memory_kind", "ugm")
        scope = _str_attr(op, "fence_scope", "group")
        sc = "Workgroup" if scope in ("group", "local") else "Device"
        mem = "WorkgroupMemory" if kind == "slm" else "CrossWorkgroupMemory"
        ir.Operation.create("spirv.MemoryBarrier", attributes={
            "memory_scope": ir.Attribute.parse(f"#spirv.scope<{sc}>"),
            "memory_semantics": ir.Attribute.parse(f"#spirv.memory_semantics<AcquireRelease|{mem}>")})
        return []

    def h_xegpu_compile_hint(self, op):
        return []

    def h_gpu_barrier(self, op):
        self._barrier("spirv.ControlBarrier", "AcquireRelease|WorkgroupMemory|CrossWorkgroupMemory")
        return []


def _bf16_bits(u32: int) -> int:
    """bf16 bit pattern (as a signed i16 value) of an f32 bit pattern, rounded to nearest even."""
    u32 &= 0xFFFFFFFF
    if (u32 & 0x7F800000) == 0x7F800000 and (u32 & 0x7FFFFF):
        r = (u32 >> 16) | 0x40
    else:
        r = ((u32 + 0x7FFF + ((u32 >> 16) & 1)) >> 16) & 0xFFFF
    return r - 0x10000 if r & 0x8000 else r


# kind: (float combine, integer combine, float subgroup reduction, integer subgroup reduction)
_REDUCTIONS = {
    "add": ("arith.addf", "arith.addi", "spirv.GroupNonUniformFAdd", "spirv.GroupNonUniformIAdd"),
    "mul": ("arith.mulf", "arith.muli", "spirv.GroupNonUniformFMul", "spirv.GroupNonUniformIMul"),
    "minnumf": ("arith.minnumf", None, "spirv.GroupNonUniformFMin", None),
    "maxnumf": ("arith.maxnumf", None, "spirv.GroupNonUniformFMax", None),
    "minimumf": ("arith.minimumf", None, "spirv.GroupNonUniformFMin", None),
    "maximumf": ("arith.maximumf", None, "spirv.GroupNonUniformFMax", None),
    "minsi": (None, "arith.minsi", None, "spirv.GroupNonUniformSMin"),
    "maxsi": (None, "arith.maxsi", None, "spirv.GroupNonUniformSMax"),
    "minui": (None, "arith.minui", None, "spirv.GroupNonUniformUMin"),
    "maxui": (None, "arith.maxui", None, "spirv.GroupNonUniformUMax"),
    "and": (None, "arith.andi", None, "spirv.GroupNonUniformBitwiseAnd"),
    "or": (None, "arith.ori", None, "spirv.GroupNonUniformBitwiseOr"),
    "xor": (None, "arith.xori", None, "spirv.GroupNonUniformBitwiseXor"),
}


def _kind(op) -> str:
    """The kind of a vector reduction (`#vector.kind<add>` -> "add")."""
    text = str(op.attributes["kind"])
    return text[text.index("<") + 1:text.rindex(">")] if "<" in text else text


def _reduction_identity(kind, t):
    """The identity of a reduction kind in type `t` (the value of lanes without elements)."""
    if isinstance(t, ir.IntegerType):
        w = ir.IntegerType(t).width
        return {"add": 0, "mul": 1, "minsi": (1 << (w - 1)) - 1, "maxsi": -(1 << (w - 1)), "minui": -1,
                "maxui": 0, "and": -1, "or": 0, "xor": 0}[kind]
    return {"add": 0.0, "mul": 1.0, "minnumf": float("inf"), "minimumf": float("inf"),
            "maxnumf": float("-inf"), "maximumf": float("-inf")}[kind]


def _int_list_attr(attr) -> list:
    try:
        return [int(x) for x in ir.DenseI64ArrayAttr(attr)]
    except (TypeError, ValueError):
        return [ir.IntegerAttr(a).value for a in ir.ArrayAttr(attr)]


def _same(x, y) -> bool:
    if isinstance(x, ir.Value) or isinstance(y, ir.Value):
        return isinstance(x, ir.Value) and isinstance(y, ir.Value) and x == y
    return x == y


def _reassociation(op) -> list:
    return [[ir.IntegerAttr(x).value for x in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])]


def _inverse_index(shape, coords):
    """src_index array over `shape`: the flat source element whose logical coordinates are e."""
    n = int(np.prod(shape))
    out = np.full(n, -1, dtype=np.int64)
    flat_dst = np.ravel_multi_index(tuple(c.reshape(-1) for c in coords), shape)
    out[flat_dst] = np.arange(flat_dst.size)
    if (out < 0).any():
        raise LoweringError(None, "internal: incomplete DPAS operand")
    return out.reshape(shape)


def abi_json(info: KernelInfo) -> str:
    return json.dumps(info.to_json(), sort_keys=True)
