"""Which level an upstream xegpu program is written at, and upstream's own passes that bring
work-group code (`#xegpu.layout<sg_layout = ...>`) down to subgroup level, run in the upstream context."""
from __future__ import annotations

import re

from dataclasses import dataclass, field

from mlir import ir

from ...diagnostics import DiagnosticError, at, from_mlir
from .unit_dims import collapse_unit_dim_values

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


_XEVM_LANE = ("xevm.mma", "xevm.blockload2d", "xevm.blockstore2d", "xevm.blockprefetch2d", "xevm.blockload",
              "xevm.blockstore")
_MATRIX_DATA = {"xegpu.load_matrix": ("result", 0), "xegpu.store_matrix": ("operand", 0)}


def _matrix_lane(op):
    """Whether a load_matrix / store_matrix is lane level by its data's type: a scalar or 1D vector
    is one lane's share (True); a 2D vector carrying a `layout` attribute is subgroup (or work-group)
    level (False: upstream's distribution drops the layout); any other 2D vector (LLVM 22's own
    distribution gives a lane `vector<1x1xf32>` of a 1x16 block) cannot tell (None)."""
    kind, i = _MATRIX_DATA[op.name]
    t = (op.results if kind == "result" else op.operands)[i].type
    if not isinstance(t, ir.VectorType) or t.rank == 1:
        return True
    return False if "layout" in op.attributes else None


def classify(module_op, filename: str) -> Level:
    """Work-group level when any layout or descriptor carries sg_layout; a kernel is lane level when
    an access's vector holds fewer elements than its descriptor's block (one lane's share), a dpas
    is 1D, it has an xevm.mma or block op, a scattered access takes one offset per lane, or a matrix access
    moves a scalar or a 1D vector. A matrix access of a 2D vector without a layout follows the rest of its kernel; when
    nothing else in the kernel decides, it is a located error naming the op."""
    lvl = Level()
    decided: set = set()        # kernels some op places at subgroup or lane level
    undecided: dict = {}        # kernel -> its first matrix access whose level the type cannot tell

    def visit(op):
        for name in _names(op):
            if "sg_layout" in str(op.attributes[name]):
                lvl.workgroup = True
        for v in list(op.results) + list(op.operands):
            if "sg_layout" in str(v.type):
                lvl.workgroup = True
        lane = None
        if op.name in ("xegpu.load_nd", "xegpu.store_nd"):
            vec = op.results[0].type if op.name == "xegpu.load_nd" else op.operands[0].type
            td = op.operands[0 if op.name == "xegpu.load_nd" else 1].type
            lane = _count(str(vec)) < _td_count(str(td))
        elif op.name == "xegpu.dpas":
            lane = ir.VectorType(op.results[0].type).rank == 1
        elif op.name in _XEVM_LANE:  # per-lane operands only
            lane = True
        elif op.name in ("xegpu.load", "xegpu.store"):  # per-lane offsets: an index or vector<1xindex>
            offsets = list(op.operands)[1 if op.name == "xegpu.load" else 2:][:1]
            lane = bool(offsets) and str(offsets[0].type) in ("index", "vector<1xindex>")
        elif op.name in _MATRIX_DATA:
            lane = _matrix_lane(op)
            if lane is None:
                undecided.setdefault(kernel_key(op), op)
                return
        if lane is None:
            return
        k = kernel_key(op)
        decided.add(k)
        if lane:
            lvl.lane = True
            if k is not None:
                lvl.lane_kernels.add(k)
                if op.name == "xegpu.load_nd" and "transpose" in op.attributes:
                    lvl.rows_types.setdefault(k, set()).add(str(op.operands[0].type))

    _walk(module_op, visit)
    if not lvl.workgroup:
        for k, op in undecided.items():
            if k not in decided:
                kind, i = _MATRIX_DATA[op.name]
                t = (op.results if kind == "result" else op.operands)[i].type
                d = at(op.location, "error", f"convert-upstream-xegpu: '{op.name}' of {t}: its level cannot be "
                                             "told (a 2D vector without a layout is a subgroup block or one lane's "
                                             "share) and no other xegpu op of its kernel decides it; give the "
                                             "subgroup-level op its layout attribute, or a lane's data as a scalar "
                                             "or 1D vector")
                if d.filename in (None, "-", "<unknown>"):
                    d.filename = filename
                raise DiagnosticError([d])
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


_SG_FIELD = re.compile(r"\b(sg_layout|sg_data)\s*=\s*\[([\d,\s]*)\]")


def _sg_fields(layout: str) -> dict:
    return {m.group(1): [int(x) for x in m.group(2).split(",") if x.strip()] for m in _SG_FIELD.finditer(layout)}


def _replicated(layout, shape) -> bool:
    """Every subgroup of `layout` holds the whole `shape` (sg_data is the shape): its subgroup value
    is the work-group value."""
    return layout is not None and _sg_fields(str(layout)).get("sg_data") == list(shape)


def _source_layout(op):
    """The work-group layout of a transpose's operand: `layout_operand_0`, else its producer's
    `layout_result_<n>` / `layout` (load_nd), else None."""
    if "layout_operand_0" in op.attributes:
        return op.attributes["layout_operand_0"]
    v = op.operands[0]
    owner = v.owner
    if not isinstance(owner, ir.OpView) and not isinstance(owner, ir.Operation):
        return None  # a block argument (loop carry): layout not at hand
    owner = owner.operation
    name = f"layout_result_{ir.OpResult(v).result_number}"
    for attr in (name, "layout"):
        if attr in owner.attributes:
            return owner.attributes[attr]
    return None


def replicated_transposes(module_op) -> int:
    """LLVM 22's xegpu-wg-to-sg-distribute cannot legalize a work-group `vector.transpose` (its
    transpose-of-layout check wants `order`, and a layout with `order` but no lane fields asserts when
    the pass drops sg_layout). When every subgroup holds the whole operand and the whole result
    (sg_data equal to the shapes, as IMEX's flash attention transposes its K slices), the subgroup
    transpose is the work-group transpose itself: its layouts are dropped, upstream's pass leaves it
    as is and layout propagation / blocking treat it at subgroup level. Returns how many."""
    n = 0

    def visit(op):
        nonlocal n
        if op.name != "vector.transpose" or "layout_result_0" not in op.attributes:
            return
        res = op.attributes["layout_result_0"]
        if "sg_layout" not in str(res):
            return
        src = _source_layout(op)
        if (_replicated(res, ir.VectorType(op.results[0].type).shape)
                and _replicated(src, ir.VectorType(op.operands[0].type).shape)):
            for a in ("layout_result_0", "layout_operand_0"):
                if a in op.attributes:
                    del op.attributes[a]
            n += 1

    _walk(module_op, visit)
    return n


_SLICE = re.compile(r"^#xegpu\.slice<(#xegpu\.layout<[^<>]*>), dims = \[([\d,\s]*)\]>$")


def _kept(fields: dict, dims) -> tuple:
    return tuple(tuple(v for i, v in enumerate(fields.get(k, [])) if i not in dims) for k in ("sg_layout", "sg_data"))


def reslice_unit_expansions(module_op) -> int:
    """LLVM 22 distributes a `vector.shape_cast` that adds unit dims (vector<128xf32> to
    vector<128x1xf32>) only when its operand's layout is a slice of exactly the result's layout; IMEX's
    flash attention feeds it a row reduction, sliced from the reduced tile's layout (sg_data [16, 16])
    where the result's is [16, 1]. When the two slices give every subgroup the same part (the same
    sg_layout / sg_data on the kept dims), an identity `math.copysign %x, %x` carrying the slice of
    the result's layout is put in between (floats; not one upstream folds before distributing it as
    elementwise): `drop_identities` removes it afterwards. Returns how many."""
    n = 0

    def visit(op):
        nonlocal n
        if op.name != "vector.shape_cast" or "layout_result_0" not in op.attributes:
            return
        res = str(op.attributes["layout_result_0"])
        src = _source_layout(op)
        m = _SLICE.match(str(src)) if src is not None else None
        if not res.startswith("#xegpu.layout<") or "sg_layout" not in res or m is None or m.group(1) == res:
            return
        dims = {int(x) for x in m.group(2).split(",") if x.strip()}
        src_t, res_t = ir.VectorType(op.operands[0].type), ir.VectorType(op.results[0].type)
        kept = [d for i, d in enumerate(res_t.shape) if i not in dims]
        if kept != list(src_t.shape) or any(res_t.shape[i] != 1 for i in dims if i < res_t.rank):
            return
        if _kept(_sg_fields(m.group(1)), dims) != _kept(_sg_fields(res), dims):
            return
        if not re.fullmatch(r"f\d+|bf16", str(src_t.element_type)):
            return
        layout = ir.Attribute.parse(f"#xegpu.slice<{res}, dims = [{m.group(2)}]>")
        v = op.operands[0]
        with ir.InsertionPoint(op):
            ident = ir.Operation.create("math.copysign", results=[src_t], operands=[v, v],
                                        attributes={"layout_result_0": layout}, loc=op.location)
        op.operands[0] = ident.results[0]
        n += 1

    _walk(module_op, visit)
    return n


def drop_identities(module_op) -> None:
    """`math.copysign %x, %x` (x itself) is replaced by x."""
    found = []

    def visit(op):
        if op.name == "math.copysign" and op.operands[0] == op.operands[1]:
            found.append(op)

    _walk(module_op, visit)
    for op in found:
        op.results[0].replace_all_uses_with(op.operands[0])
        op.erase()


def to_subgroup(ctx, module_op, filename: str) -> None:
    """Run upstream's work-group to subgroup distribution and blocking in the upstream context, after
    the rewrites of what LLVM 22's distribution cannot take as written (replicated transposes, unit-dim
    row values kept 1D, re-sliced unit-dim expansions); the identities they add are dropped after."""
    from mlir.passmanager import PassManager

    from .layout_check import check_array_length, check_dpas_layouts

    check_array_length(module_op, filename)
    check_dpas_layouts(module_op, filename)
    with ctx:
        replicated_transposes(module_op)
        collapse_unit_dim_values(module_op, filename)
        reslice_unit_expansions(module_op)
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
    with ctx:
        drop_identities(module_op)
