"""Values and helpers shared by the modules that lower a VC-mode XeGPU kernel to SPIR-V
(`kernel_lowering.KernelLowering` and its per-op-family mixins `kernel_*.py`).

What a lowered XeGPU value becomes: a buffer (`MemArg`: pointer, shape, strides), a 2D block
descriptor (`NdDesc` = its surface `NdPlan` + row / column), a scattered descriptor (`ScDesc`,
per-lane offsets); vectors are `spirv_lanes.DVal`. `KernelInfo` is the kernel ABI stored for the
export. The functions read xegpu / memref op attributes and test types.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from ...core.kinds import DYNAMIC
from ...passes.utils.ir_walk import as_op, owner_op
from .spirv_lanes import DVal

CROSS_WORKGROUP_PTR = "!spirv.ptr<{}, CrossWorkgroup>"

# XeGPU ops that have no mode attribute (barriers, fences)
MODELESS = ("xegpu.alloc_nbarrier", "xegpu.create_nbarrier", "xegpu.nbarrier_arrive", "xegpu.nbarrier_wait",
            "xegpu.mfence", "xegpu.compile_hint", "xegpu.init_nbarrier")


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
        return is_slm_ptr(self.ptr)


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
    grf_mode: str = "default"             # register file IGC must give it: "default" | "large"
    grf_count: int | None = None          # GRFs per subgroup in that mode (arch table; None: portable)
    surface_tests: int = 0                # surfaces tested at the entry of a versioned body (0: one copy)

    def to_json(self) -> dict:
        d = {"name": self.name, "args": self.args, "workgroup_size": self.workgroup_size,
             "subgroup_size": self.subgroup_size, "slm_bytes": self.slm_bytes,
             "named_barriers": self.named_barriers, "grf_mode": self.grf_mode, "grf_count": self.grf_count}
        if self.surface_tests:
            d["surface_tests"] = self.surface_tests
        return d


def i64_type():
    return ir.IntegerType.get_signless(64)


def int_list(attr) -> list:
    return [int(x) for x in ir.DenseI64ArrayAttr(attr)] if attr is not None else []


def mixed_indices(op, operand_group, static_name):
    """Mixed static/dynamic index list of an xegpu op: ints and (old) Values."""
    static = int_list(op.attributes[static_name]) if static_name in op.attributes else []
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


def operand_groups(op):
    seg = _segments(op)
    ops = list(op.operands)
    out, k = [], 0
    for n in seg:
        out.append(ops[k:k + n])
        k += n
    return out


def str_attr(op, name, default=None):
    if name not in op.attributes:
        return default
    return ir.StringAttr(op.attributes[name]).value


def vector_shape(t):
    return tuple(ir.VectorType(t).shape)


def static_int(v):
    """The value of an int or of an index/integer Value defined by arith.constant, else None."""
    if isinstance(v, int):
        return v
    o = owner_op(v)
    if o is not None and o.name == "arith.constant" and isinstance(v.type, (ir.IndexType, ir.IntegerType)):
        return ir.IntegerAttr(o.attributes["value"]).value
    return None


_MAX_POW2 = 1 << 16


def known_pow2(v, depth: int = 16) -> int:
    """The largest power of two (up to 2^16) known to divide an int or an integer/index Value: from
    constants, sums, differences, products, left shifts and casts, and an scf.for induction variable
    (its lower bound's and step's); 1 when nothing is known (a block or subgroup id, a load)."""
    if isinstance(v, int):
        return _MAX_POW2 if v == 0 else min(v & -v, _MAX_POW2)
    if depth == 0:
        return 1
    o = owner_op(v)
    if o is None:
        parent = as_op(v.owner.owner)
        if parent is not None and parent.name == "scf.for" and ir.BlockArgument(v).arg_number == 0:
            lb, step = parent.operands[0], parent.operands[2]
            return min(known_pow2(lb, depth - 1), known_pow2(step, depth - 1))
        return 1
    if o.name == "arith.constant":
        c = static_int(v)
        return 1 if c is None else known_pow2(c)

    def of(i):                  # only the operands a rule reads are followed
        return known_pow2(o.operands[i], depth - 1)

    if o.name in ("arith.addi", "arith.subi"):
        return min(of(0), of(1))
    if o.name == "arith.muli":
        return min(of(0) * of(1), _MAX_POW2)
    shift = static_int(o.operands[1]) if o.name == "arith.shli" else None
    if shift is not None:
        return min(of(0) << shift, _MAX_POW2)
    if o.name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci"):
        return of(0)
    return 1


def is_vector_type(t) -> bool:
    return str(t).startswith("vector<")


def is_slm_ptr(ptr) -> bool:
    return str(ptr.type).endswith(", Workgroup>")
