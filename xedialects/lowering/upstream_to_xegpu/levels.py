"""Which level an upstream xegpu program is written at, and upstream's own passes that bring
work-group code (`#xegpu.layout<sg_layout = ...>`) down to subgroup level, run in the upstream context."""
from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from ...diagnostics import DiagnosticError, at, from_mlir

# upstream's passes, as its own integration tests lower work-group programs (LLVM 22)
WG_TO_SG = ("builtin.module(cse, xevm-attach-target{chip=pvc}, gpu.module(xegpu-wg-to-sg-distribute, cse, "
            "lower-affine, cse, xegpu-propagate-layout{layout-kind=inst}, xegpu-blocking, canonicalize, cse))")


@dataclass
class Level:
    workgroup: bool = False
    lane: bool = False
    lane_kernels: set = field(default_factory=set)   # (gpu.module, gpu.func) names of lane-level kernels
    # lane-level kernel -> descriptor types it loads transposed (their lanes hold rows: sg_map [16, 1])
    rows_types: dict = field(default_factory=dict)


def _walk(op, fn):
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                fn(child)
                _walk(child, fn)


def _names(op) -> list[str]:
    return [op.attributes[i].name for i in range(len(op.attributes))]


def classify(module_op, filename: str) -> Level:
    """Work-group level when any layout or descriptor carries sg_layout; lane level when an access's
    vector holds fewer elements than its descriptor's block (one lane's share)."""
    lvl = Level()

    def visit(op):
        for name in _names(op):
            if "sg_layout" in str(op.attributes[name]):
                lvl.workgroup = True
        for v in list(op.results) + list(op.operands):
            if "sg_layout" in str(v.type):
                lvl.workgroup = True
        lane = False
        if op.name in ("xegpu.load_nd", "xegpu.store_nd"):
            vec = op.results[0].type if op.name == "xegpu.load_nd" else op.operands[0].type
            td = op.operands[0 if op.name == "xegpu.load_nd" else 1].type
            lane = _count(str(vec)) < _td_count(str(td))
        elif op.name == "xegpu.dpas":
            lane = ir.VectorType(op.results[0].type).rank == 1
        elif op.name in ("xegpu.load", "xegpu.store"):  # per-lane offsets: an index or vector<1xindex>
            offsets = list(op.operands)[1 if op.name == "xegpu.load" else 2:][:1]
            lane = bool(offsets) and str(offsets[0].type) in ("index", "vector<1xindex>")
        if lane:
            lvl.lane = True
            k = kernel_key(op)
            if k is not None:
                lvl.lane_kernels.add(k)
                if op.name == "xegpu.load_nd" and "transpose" in op.attributes:
                    lvl.rows_types.setdefault(k, set()).add(str(op.operands[0].type))

    _walk(module_op, visit)
    return lvl


def kernel_key(op):
    """(gpu.module name, gpu.func name) of the kernel holding `op`, or None."""
    p = op.parent
    while p is not None and p.name != "gpu.func":
        p = p.parent
    if p is None or p.parent is None:
        return None
    return _sym(p.parent), _sym(p)


def _sym(op) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value if "sym_name" in op.attributes else ""


def _count(vec: str) -> int:
    from .types import vector_parts

    shape, _ = vector_parts(vec)
    n = 1
    for d in shape:
        n *= d
    return n


def _td_count(td: str) -> int:
    from .types import parse_tdesc

    t = parse_tdesc(td)
    n = t.array_length
    for d in t.shape:
        n *= d
    return n


def to_subgroup(ctx, module_op, filename: str) -> None:
    """Run upstream's work-group to subgroup distribution and blocking in the upstream context."""
    from mlir.passmanager import PassManager

    pm = PassManager.parse(WG_TO_SG, ctx)
    try:
        pm.run(module_op)
    except ir.MLIRError as e:
        diags = [from_mlir(d) for d in e.error_diagnostics] or [at(module_op.location, "error", str(e))]
        for d in diags:
            d.message = f"convert-upstream-xegpu: upstream's work-group to subgroup passes failed: {d.message}"
            if d.filename in (None, "-"):
                d.filename = filename
        raise DiagnosticError(diags) from None
