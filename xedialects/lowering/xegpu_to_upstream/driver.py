"""The export driver: prints the module with MLIR, replaces each line of our xegpu ops (and slices of
VNNI vectors) by its upstream translation and respells our types in the remaining text."""
from __future__ import annotations

import io
import re

from mlir import ir

from ...diagnostics import DiagnosticError, at
from .ops import ExportOpError, translate
from .ops import extract_strided_slice as _slice
from .types import ExportTypeError, flatten_vnni, rewrite_tdescs, vector_parts, vector_text

# the target upstream's layout passes need (they look the uArch up from the gpu.module's target)
TARGET = '#xevm.target<chip = "pvc">'
_OP_LINE = re.compile(r'^\s*(?:%[\w#:]+(?:, %[\w#:]+)* = )?(?:"xegpu\.|vector\.extract_strided_slice )')
_GPU_MODULE = re.compile(r"^(\s*gpu\.module @[\w$.]+) \{")


class _Exporter:
    """Names (consistent with the printed module) and upstream types of values; the VNNI types seen."""

    def __init__(self, module_op):
        self.state = ir.AsmState(module_op)
        self.vnni: dict[str, tuple[int, str]] = {}  # our generic vector type -> (axis, upstream text)

    def name(self, v) -> str:
        return v.get_name(self.state)

    def result(self, op) -> str:
        return op.results[0].get_name(self.state)

    def add_vnni(self, t: str, axis: int) -> None:
        shape, elt = vector_parts(t)
        flat = vector_text(flatten_vnni(shape, axis), elt)
        old = self.vnni.setdefault(t, (axis, flat))
        if old[0] != axis:
            raise ExportTypeError(f"{t} is packed along axis {old[0]} and {axis} in one module; not exported")

    def vnni_axis(self, t: str):
        return self.vnni[t][0] if t in self.vnni else None

    def type(self, t) -> str:
        text = str(t)
        if text in self.vnni:
            return self.vnni[text][1]
        return rewrite_tdescs(text) if "!xegpu." in text else text

    def rewrite(self, text: str) -> str:
        text = rewrite_tdescs(text)
        for ours, (_, flat) in self.vnni.items():
            text = text.replace(ours, flat)
        return text


def _fail(op, message: str):
    raise DiagnosticError([at(op.location, "error", f"convert-xegpu-to-upstream: {message}")])


def _targets(module_op, ex) -> list:
    """Ops whose printed line is replaced, in printed order: (op, is_slice)."""
    found = []

    def visit(op):
        if op.name.startswith("xegpu.") or op.name == "vector.extract_strided_slice":
            found.append(op)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    return found


def export_upstream(module, *, target: bool = True) -> str:
    """The text of `module` (our context, VC-mode XeGPU) in upstream MLIR's xegpu; gpu.modules without
    a target get `#xevm.target<chip = "pvc">` unless `target=False`. Raises DiagnosticError located at
    the first op (or type) that upstream xegpu cannot express."""
    module_op = module.operation if hasattr(module, "operation") else module
    ex = _Exporter(module_op)
    buf = io.StringIO()
    module_op.print(state=ex.state, file=buf)
    ops = _targets(module_op, ex)
    lines, out, k = buf.getvalue().splitlines(), [], 0
    for line in lines:
        if _OP_LINE.match(line):
            if k >= len(ops):
                raise DiagnosticError([at(module_op.location, "error", "convert-xegpu-to-upstream: printed "
                                          "ops and IR walk disagree (internal)")])
            op = ops[k]
            k += 1
            indent = line[:len(line) - len(line.lstrip())]
            try:
                if op.name == "vector.extract_strided_slice":
                    if ex.vnni_axis(str(op.operands[0].type)) is None:
                        out.append(ex.rewrite(line))
                        continue
                    text = _slice(op, ex)
                else:
                    text = translate(op, ex)
            except (ExportOpError, ExportTypeError) as e:
                _fail(op, str(e))
            out.append(indent + text)
            continue
        m = _GPU_MODULE.match(line)
        if target and m:
            line = f"{m.group(1)} [{TARGET}] {{"
        try:
            out.append(ex.rewrite(line))
        except ExportTypeError as e:
            raise DiagnosticError([at(module_op.location, "error", f"convert-xegpu-to-upstream: {e}")]) from None
    if k != len(ops):
        raise DiagnosticError([at(module_op.location, "error", "convert-xegpu-to-upstream: printed ops and "
                                  "IR walk disagree (internal)")])
    _check_vnni_users(module_op, ex)
    return "\n".join(out) + "\n"


_VNNI_USERS = {"xegpu.dpas", "vector.extract_strided_slice", "scf.for", "scf.yield", "xegpu.load_nd"}


def _check_vnni_users(module_op, ex) -> None:
    """A VNNI vector used by anything but dpas / slices / loop carries would change meaning: error."""
    if not ex.vnni:
        return

    def visit(op):
        if op.name in _VNNI_USERS:
            return ir.WalkResult.ADVANCE
        for v in list(op.operands) + list(op.results):
            if str(v.type) in ex.vnni:
                _fail(op, f"'{op.name}' on the VNNI vector {v.type} is not exported (upstream's vectors are "
                      "plain 2D; only xegpu.dpas, vector.extract_strided_slice and loop carries are rewritten)")
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
