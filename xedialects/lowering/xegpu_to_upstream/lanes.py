"""The lane-level export: our SIMT-mode XeGPU (after `xegpu-simt-distribute`) as upstream MLIR's
lane-level xegpu text -- what LLVM 22's `xegpu-subgroup-distribute` produces and
`convert-xegpu-to-xevm` consumes: descriptors without layouts, offsets on the accesses (the offsets
form, `offsets.py`), per-lane 1D vectors, per-lane scattered `xegpu.load` / `xegpu.store`
(`lane_ops.py`). Kernels get `intel_reqd_sub_group_size = 16` (upstream lowers `gpu.shuffle` only
with it).

    from xedialects.lowering.xegpu_to_upstream import export_upstream_lanes
    text = export_upstream_lanes(module)   # DiagnosticError at the first op not expressible
"""
from __future__ import annotations

import re

from mlir import ir

from ...passes.utils.ir_walk import walk
from .driver import _check_no_xetile, _export_lines, _Exporter, _fail, _indented, _line, _plan_offsets
from .lane_ops import TABLE, translate
from .types import rewrite_tdescs

_OP_LINE = re.compile(r'^\s*(?:%[\w#:]+(?:, %[\w#:]+)* = )?(?:"xegpu\.|scf\.for |scf\.yield )')
_KERNEL = re.compile(r"^(\s*gpu\.func @[\w$.]+\(.*\) kernel)( attributes \{)?(.*)$")
_TF32 = re.compile(r"(\d)xtf32\b")
SUBGROUP = "intel_reqd_sub_group_size = 16 : i32"
_SELECT = re.compile(r"^(\s*)(%[\w$.-]+) = arith\.select (%[\w$.#-]+), (%[\w$.#-]+), (%[\w$.#-]+) : "
                     r"vector<(?P<dims>(?:\d+x)+)(?P<elt>\w+)>$")


def f32_for_tf32(text: str) -> str:
    """tf32 buffers and vectors spelled f32 (same 32-bit storage; the DPAS reads them as tf32)."""
    return _TF32.sub(r"\1xf32", text)


class _LaneExporter(_Exporter):
    """Names, offsets plan and scattered sources as the subgroup export's, lane-level types; the
    upstream vector of each exported load_nd (lane_dpas: DPAS operands taken from it directly)."""

    def __init__(self, module_op):
        super().__init__(module_op)
        self.loads: dict = {}  # load_nd result Value -> (upstream vector name, its ids, our fragment's ids)

    def type(self, t) -> str:
        return self.type_text(str(t))

    def type_text(self, text: str) -> str:
        return f32_for_tf32(rewrite_tdescs(text, lanes=True) if "!xegpu." in text else text)

    def rewrite(self, text: str) -> str:
        return self.rename(f32_for_tf32(rewrite_tdescs(text, lanes=True)))


def _targets(module_op) -> list:
    found = []

    def visit(op):
        if op.name.startswith("xegpu.") or op.name == "scf.for" or (op.name == "scf.yield" and len(op.operands)):
            found.append(op)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    return found


def first_vc_op(module_op):
    """The first (pre-order) VC-mode xegpu op of the module, or None: the module is not yet distributed."""
    return next((op for op in walk(module_op) if op.name.startswith("xegpu.") and "mode" in op.attributes), None)


def _check_simt(module_op) -> None:
    bad = first_vc_op(module_op)
    if bad is not None:
        _fail(bad, f"'{bad.name}' in VC mode is not exported at lane level: distribute the kernel to lanes "
              "first (xegpu-simt-distribute; convert-xegpu-to-upstream{level=lane} does that on a copy)")


def _vector_select(line: str, ex) -> list[str]:
    """`arith.select` of vectors by a scalar i1 as a select by the broadcast condition (SPIR-V's
    OpSelect wants a condition of the result's vector size)."""
    m = _SELECT.match(line)
    if not m:
        return [line]
    ind, res, c, a, b = m.group(1, 2, 3, 4, 5)
    vt, mt = f"vector<{m['dims']}{m['elt']}>", f"vector<{m['dims']}i1>"
    cv = ex.fresh()
    return [f"{ind}{cv} = vector.broadcast {c} : i1 to {mt}", f"{ind}{res} = arith.select {cv}, {a}, {b} : {mt}, {vt}"]


_SHUFFLE = re.compile(r"^(\s*)(%[\w$.-]+), (%[\w$.-]+) = gpu\.shuffle\s+(\w+) (%[\w$.#-]+), (%[\w$.#-]+), "
                      r"(%[\w$.#-]+) : vector<(\d+)x(\w+)>$")


def _vector_shuffle(line: str, ex) -> list[str]:
    """`gpu.shuffle` of a vector (our SIMT reorders) as one shuffle per element: upstream's
    convert-gpu-to-llvm-spv lowers scalar shuffles only."""
    m = _SHUFFLE.match(line)
    if not m:
        return [line]
    ind, res, valid, mode, x, i, w, n, elt = m.groups()
    out, elems = [], []
    for k in range(int(n)):
        e, s, ok = ex.fresh(), ex.fresh(), ex.fresh()
        out += [f"{e} = vector.extract {x}[{k}] : {elt} from vector<{n}x{elt}>",
                f"{s}, {ok} = gpu.shuffle {mode} {e}, {i}, {w} : {elt}"]
        elems.append(s)
    out += [f"{res} = vector.from_elements {', '.join(elems)} : vector<{n}x{elt}>", f"{valid} = arith.constant true"]
    return [ind + x for x in out]


def _kernel_line(line: str) -> str:
    m = _KERNEL.match(line)
    if not m or SUBGROUP in line:
        return line
    if m.group(2):
        return f"{m.group(1)} attributes {{{SUBGROUP}, {m.group(3).lstrip()}"
    rest = m.group(3)
    return f"{m.group(1)} attributes {{{SUBGROUP}}}{rest}"


def export_upstream_lanes(module, *, target: bool = True) -> str:
    """The text of `module` (our context, SIMT-mode XeGPU) in upstream MLIR's lane-level xegpu.
    Raises DiagnosticError located at the first op that it cannot express."""
    module_op = module.operation if hasattr(module, "operation") else module
    _check_no_xetile(module_op)
    _check_simt(module_op)
    ex = _LaneExporter(module_op)
    _plan_offsets(ex, module_op, table=TABLE)
    out = _export_lines(module_op, ex, _targets(module_op), _OP_LINE, _op_lines, _other_lines, target)
    return "\n".join(out) + "\n"


def _op_lines(op, line, ex) -> list[str]:
    """Our xegpu ops by the lane-level translations (lane_ops), loops and slices as at subgroup level."""
    if op.name.startswith("xegpu."):
        return _indented(line, translate(op, ex), ex)
    return _line(op, line, ex)


def _other_lines(line, ex) -> list[str]:
    """Lane-level types; kernels with the subgroup size; vector selects and shuffles per element."""
    out = []
    for x in _vector_select(_kernel_line(ex.rewrite(line)), ex):
        out += _vector_shuffle(x, ex)
    return out
