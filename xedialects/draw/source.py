"""What the pictures show, read from the lowered IR of one kernel (`gpu.func` in XeGPU, VC or SIMT
mode): the K loop's 2D block messages per operand (shape, element type, VNNI / transposed form,
count per K step), its DPAS blocks, and the sg_maps of the DPAS operands (from the descriptors in
SIMT mode, else by the rule `xegpu-simt-distribute` applies). The work-group numbers come from the
GEMM plan recorded by convert-linalg-to-xetile (one source of truth: the planner)."""
from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from ..passes.analysis.kernel_report import _direct_ops, _tdesc_block, _vec, find_k_loop
from ..passes.utils.ir_walk import owner_op, walk

_PASS_THROUGH = ("vector.extract_strided_slice", "vector.shape_cast", "vector.extract", "vector.transpose",
                 "vector.shuffle", "vector.bitcast", "arith.extf", "arith.truncf")


@dataclass
class Block:
    """One kind of 2D block message in the K loop: `count` messages of a `shape` (tensor_desc,
    memory order) block of `elt` for operand `role` ("A", "B", "C" or "?")."""
    kind: str            # "load" | "prefetch" | "store"
    role: str
    shape: tuple
    elt: str
    vnni: bool = False
    transpose: bool = False
    count: int = 0

    @property
    def logical(self) -> tuple:
        """The block's shape in the operand's (row, column) view (transposed loads turn around)."""
        return tuple(self.shape[::-1]) if self.transpose else tuple(self.shape)

    def describe(self) -> str:
        forms = (["VNNI"] if self.vnni else []) + (["transposed"] if self.transpose else [])
        extra = f" ({', '.join(forms)})" if forms else ""
        return f"{self.count} x {self.kind} {self.shape[0]}x{self.shape[1]} {self.elt}{extra}"


@dataclass
class KernelFacts:
    name: str
    mode: str                                   # "vc" | "simt"
    k_step: int | None = None
    dpas_per_step: int = 0
    dpas_shapes: tuple | None = None            # (A shape, B shape, C shape) of one DPAS (VC: subgroup
                                                # blocks; SIMT: one work-item's fragments)
    dpas_types: tuple | None = None             # (A, B, C) element types
    a_from_load: bool = True
    blocks: list[Block] = field(default_factory=list)
    sg_maps: dict = field(default_factory=dict)  # role -> (wi_layout, wi_data), SIMT mode only


def kernel_name(func) -> str:
    return ir.StringAttr(func.attributes["sym_name"]).value


def _memref_origin(v, depth=0):
    """The kernel argument (its number) a descriptor or memref value comes from, following loop
    carries, update_nd_offset and memref views; None when unknown."""
    for _ in range(64):
        op = owner_op(v)
        if op is None:
            block = v.owner
            parent = block.owner
            parent = parent.operation if hasattr(parent, "operation") else parent
            n = ir.BlockArgument(v).arg_number
            if parent.name == "scf.for" and n >= 1:
                v = parent.operands[3 + n - 1]
                continue
            return n if parent.name == "gpu.func" else None
        if op.name.startswith(("xegpu.", "memref.")) and op.operands:
            v = op.operands[0]
            continue
        return None
    return None


def _load_feeding(v):
    """The xegpu.load_nd whose data `v` (a DPAS operand) is, through slices and casts; or None."""
    for _ in range(16):
        op = owner_op(v)
        if op is None:
            return None
        if op.name == "xegpu.load_nd":
            return op
        if op.name not in _PASS_THROUGH or not op.operands:
            return None
        v = op.operands[0]
    return None


def _sg_map(t):
    """(wi_layout, wi_data) of a SIMT tensor_desc type, or None."""
    from ..xegpu.attributes import TensorDescType

    try:
        sgm = TensorDescType(t).sg_map
    except TypeError:
        return None
    return None if sgm is None else (tuple(sgm.wi_layout), tuple(sgm.wi_data))


def read_kernel(func) -> KernelFacts:
    """Facts of one gpu.func (see the module docstring)."""
    ops = list(walk(func))
    simt = any(o.name.startswith("xegpu.") and "mode" not in o.attributes
               for o in ops if o.name in ("xegpu.load_nd", "xegpu.dpas", "xegpu.create_nd_tdesc"))
    facts = KernelFacts(kernel_name(func), "simt" if simt else "vc")
    loop = find_k_loop(ops)
    body = _direct_ops(loop) if loop is not None else ops
    if loop is not None:
        from ..passes.analysis.launch_sizes import const_int

        facts.k_step = const_int(loop.operands[2])
    dpas = [o for o in body if o.name == "xegpu.dpas"]
    facts.dpas_per_step = len(dpas)
    roles = {}
    if dpas:
        d = dpas[0]
        va, vb, vc = _vec(d.operands[0].type), _vec(d.operands[1].type), _vec(d.results[0].type)
        facts.dpas_shapes = (va[0], vb[0], vc[0])
        facts.dpas_types = (va[1], vb[1], vc[1])
        for role, idx in (("A", 0), ("B", 1)):
            for dd in dpas:
                ld = _load_feeding(dd.operands[idx])
                if ld is not None:
                    roles.setdefault(_memref_origin(ld.operands[0]), role)
                    if simt and role not in facts.sg_maps:
                        m = _sg_map(ld.operands[0].type)
                        if m is not None:
                            facts.sg_maps[role] = m
                elif role == "A":
                    facts.a_from_load = False
    for o in ops:
        if o.name == "xegpu.store_nd" and len(o.operands) > 1:
            roles.setdefault(_memref_origin(o.operands[1]), "C")
            if simt and "C" not in facts.sg_maps:
                m = _sg_map(o.operands[1].type)
                if m is not None:
                    facts.sg_maps["C"] = m
    kinds = {"xegpu.load_nd": "load", "xegpu.prefetch_nd": "prefetch"}
    seen: dict = {}
    for o in body:
        kind = kinds.get(o.name)
        if kind is None:
            continue
        td = _tdesc_block(o.operands[0].type)
        if td is None:
            continue
        role = roles.get(_memref_origin(o.operands[0]), "?")
        vnni = "vnni_axis" in o.attributes
        trans = "transpose" in o.attributes
        key = (kind, role, td[0], td[1], vnni, trans)
        if key not in seen:
            seen[key] = Block(kind, role, td[0], td[1], vnni, trans)
            facts.blocks.append(seen[key])
        seen[key].count += 1
    return facts
