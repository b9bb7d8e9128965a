"""The export driver: prints the module with MLIR, replaces each line of our xegpu ops (and slices of
VNNI vectors) by its upstream translation and respells our types in the remaining text."""
from __future__ import annotations

import io
import re

from mlir import ir

from ...diagnostics import DiagnosticError, at
from ...passes.utils.ir_walk import walk
from .loops import rewrite_for, rewrite_yield
from .offsets import OffsetPlan
from .ops import ExportOpError, column_broadcast, gathered_column, gathered_column_broadcast, translate
from .ops import extract_strided_slice as _slice
from .types import ExportTypeError, flatten_vnni, rewrite_tdescs, vector_parts, vector_text, vnni_factor

FORMS = ("offsets", "descriptors")
# the target upstream's layout passes need (they look the uArch up from the gpu.module's target)
TARGET = '#xevm.target<chip = "pvc">'
_OP_LINE = re.compile(r'^\s*(?:%[\w#:]+(?:, %[\w#:]+)* = )?(?:"xegpu\.|vector\.extract_strided_slice |vector\.transpose |vector\.broadcast |scf\.for |scf\.yield |'
                      r'vector\.insert_strided_slice |arith\.select )')
_FUNC_LINE = re.compile(r"^\s*(?:func\.func|gpu\.func) ")
# a gpu.module line, with our discardable attributes (xe.arch) that upstream's text does not carry
_GPU_MODULE = re.compile(r"^(\s*gpu\.module @[\w$.]+)(?: attributes \{[^{}]*\})? \{")
_NAME = re.compile(r"%[\w$.-]+(?:#\d+)?")


class _Exporter:
    """Names (consistent with the printed module) and upstream types of values; the VNNI types seen."""

    def __init__(self, module_op):
        self.state = ir.AsmState(module_op)
        self.vnni: dict[str, tuple[int, str]] = {}  # our generic vector type -> (axis, upstream text)
        self.plan = None                             # OffsetPlan in the offsets form
        self.scope = 0                               # function # of the line being printed
        self.dropped: set = set()                    # (scope, result) of slices replaced by split loads
        self.scatter: dict = {}                      # scattered descriptor Value -> (1D source, its type,
        #                                              offsets, their type, lanes, chunk, element type)
        self.packs: set = set()                      # vector.transpose ops that build a VNNI B (_vnni_pack)
        self.columns: dict = {}                      # column block Value -> its scalar loads (ops._column)
        self.gcolumns: dict = {}                     # column of 1-lane gathers -> its rows (ops.gathered_column)
        self.gdrop: set = set()                      # results of the gathers / inserts such a column replaces
        self.n = 0

    def fresh(self) -> str:
        self.n += 1
        return f"%xs{self.n}"

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
        return self.rename(text)

    def rename(self, text: str) -> str:
        """Offsets form: names of folded updates, dropped loop carries and renumbered loop results."""
        if self.plan is None or not self.plan.alias:
            return text
        alias, sc = self.plan.alias, self.scope
        return _NAME.sub(lambda m: alias.get((sc, m.group(0)), m.group(0)), text)


def _fail(op, message: str):
    raise DiagnosticError([at(op.location, "error", f"convert-xegpu-to-upstream: {message}")])


def _targets(module_op) -> list:
    """Ops whose printed line is replaced or framed, in printed (pre-) order."""
    found = []

    def visit(op):
        if op.name.startswith("xegpu.") or op.name in ("vector.extract_strided_slice", "vector.transpose", "vector.broadcast",
                                                 "scf.for", "vector.insert_strided_slice", "arith.select"):
            found.append(op)
        elif op.name == "scf.yield" and len(op.operands):  # operand-less yields are not printed
            found.append(op)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    return found


def _line(op, line, ex) -> list[str]:
    """The upstream lines of one target op's printed line."""
    indent = line[:len(line) - len(line.lstrip())]
    if op.name == "scf.for":
        plan = ex.plan
        before, after = (plan.before.get(op, []), plan.after.get(op, [])) if plan else ([], [])
        if plan is not None and plan.dropped.get(op):
            renames = {}
            line = rewrite_for(line, plan.dropped[op], renames)
            plan.alias.update({(ex.scope, k): v for k, v in renames.items()})
        return [indent + x for x in before] + [ex.rewrite(line)] + [indent + "  " + x for x in after]
    if op.name == "scf.yield":
        parent = op.parent
        if ex.plan is not None and parent.name == "scf.for" and ex.plan.dropped.get(parent):
            line = rewrite_yield(line, ex.plan.dropped[parent])
        return [ex.rewrite(line)]
    if len(op.results) == 1 and op.results[0] in ex.gdrop:  # part of a gathered column (ops.gathered_column)
        return []
    if op.name in ("vector.insert_strided_slice", "arith.select"):
        return [ex.rewrite(line)]
    if op.name == "vector.broadcast":
        text = column_broadcast(op, ex) if ex.plan is not None else None
        if text is None and ex.plan is not None:
            text = gathered_column_broadcast(op, ex)
        return [ex.rewrite(line)] if text is None else [indent + ex.rename(x) for x in text.split("\n")]
    if op.name == "vector.transpose":
        return [indent + x for x in _vnni_pack(op, line, ex)]
    if op.name == "vector.extract_strided_slice":
        if (ex.scope, ex.result(op)) in ex.dropped:  # loaded by itself (ops._split_load)
            return []
        if ex.vnni_axis(str(op.operands[0].type)) is None:
            return [ex.rewrite(line)]
        return [indent + ex.rename(_slice(op, ex))]
    return _indented(line, translate(op, ex), ex)


def _indented(line: str, text: str, ex) -> list[str]:
    """The lines of `text` (an op's upstream translation) at the indentation of its printed `line`."""
    indent = line[:len(line) - len(line.lstrip())]
    return [indent + ex.rename(x) for x in text.split("\n")] if text else []


def _vnni_pack(op, line, ex) -> list[str]:
    """Our VNNI B built in registers (the scattered fallback): `vector.transpose %x, [0, 2, 1]` of
    `vector<K/v x v x N>` to `vector<K/v x N x v>`. Upstream's B is the plain `vector<K x N>`, which is
    the shape_cast of `%x` back to 2D; the VNNI type is flattened in its uses like a VNNI load's."""
    src, res = str(op.operands[0].type), str(op.result.type)
    perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    try:
        (a, v, n), elt = vector_parts(src)
    except (ExportTypeError, ValueError):
        return [ex.rewrite(line)]
    if perm != [0, 2, 1] or v != vnni_factor(elt) or v == 1 or res != vector_text([a, n, v], elt):
        return [ex.rewrite(line)]
    ex.add_vnni(res, 0)
    ex.packs.add(op)
    cast = op.operands[0].owner
    cast = getattr(cast, "operation", cast)
    if (ex.plan is not None and getattr(cast, "name", None) == "vector.shape_cast"
            and str(cast.operands[0].type) == vector_text([a * v, n], elt)):
        # offsets form: the plain block itself (upstream's layout propagation takes no 3D shape_cast)
        plain = ex.rename(ex.name(cast.operands[0]))
        ex.plan.alias[(ex.scope, ex.result(op))] = plain
        return []
    return [ex.rename(f"{ex.result(op)} = vector.shape_cast {ex.name(op.operands[0])} : {src} to "
                      f"{vector_text([a * v, n], elt)}")]


def export_upstream(module, *, form: str = "offsets", target: bool = True) -> str:
    """The text of `module` (our context, VC-mode XeGPU) in upstream MLIR's xegpu.

    form "offsets" (default, what upstream's subgroup distribution and XeVM lowering take): descriptors
    without offsets, offsets on load_nd/store_nd/prefetch_nd, no update_nd_offset; "descriptors":
    offsets in create_nd_tdesc and update_nd_offset as in our IR. gpu.modules without a target get
    `#xevm.target<chip = "pvc">` unless `target=False`. Raises DiagnosticError located at the first
    op (or type) that upstream xegpu cannot express."""
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r} (one of {', '.join(FORMS)})")
    module_op = module.operation if hasattr(module, "operation") else module
    _check_no_xetile(module_op)
    ex = _Exporter(module_op)
    if form == "offsets":
        _plan_offsets(ex, module_op)
    ops = _targets(module_op)
    if ex.plan is not None:
        for op in ops:
            if op.name == "vector.broadcast":
                gathered_column(op, ex)
    out = _export_lines(module_op, ex, ops, _OP_LINE, _line, lambda line, ex: [ex.rewrite(line)], target)
    _check_vnni_users(module_op, ex)
    return "\n".join(out) + "\n"


def _plan_offsets(ex, module_op, **kwargs) -> None:
    """The offsets form: `ex.plan` is the module's OffsetPlan(ex, **kwargs), its errors located."""
    ex.plan = OffsetPlan(ex, **kwargs)
    try:
        ex.plan.analyze(module_op)
    except ExportOpError as e:
        _fail(getattr(e, "op", None) or module_op, str(e))


def _export_lines(module_op, ex, ops, op_line, op_lines, other_lines, target: bool) -> list[str]:
    """The module printed with `ex`'s names, line by line in upstream form: a line matching `op_line`
    is the next op of `ops` (printed order) and becomes `op_lines(op, line, ex)`; any other line
    becomes `other_lines(line, ex)` (gpu.modules first given the target when `target`). Errors are
    located at the op, or the module."""
    buf = io.StringIO()
    module_op.print(state=ex.state, file=buf)
    out, k = [], 0
    for line in buf.getvalue().splitlines():
        if op_line.match(line):
            if k >= len(ops):
                _fail(module_op, "printed ops and IR walk disagree (internal)")
            op = ops[k]
            k += 1
            try:
                out += op_lines(op, line, ex)
            except (ExportOpError, ExportTypeError) as e:
                _fail(op, str(e))
            continue
        if _FUNC_LINE.match(line):
            ex.scope += 1
        m = _GPU_MODULE.match(line)
        if target and m:
            line = f"{m.group(1)} [{TARGET}] {{"
        try:
            out += other_lines(line, ex)
        except ExportTypeError as e:
            _fail(module_op, str(e))
    if k != len(ops):
        _fail(module_op, "printed ops and IR walk disagree (internal)")
    return out


_VNNI_USERS = {"xegpu.dpas", "vector.extract_strided_slice", "scf.for", "scf.yield", "xegpu.load_nd"}


def _check_vnni_users(module_op, ex) -> None:
    """A VNNI vector used by anything but dpas / slices / loop carries would change meaning: error."""
    if not ex.vnni:
        return

    bad = []

    def visit(op):
        if op.name not in _VNNI_USERS and op not in ex.packs:
            for v in list(op.operands) + list(op.results):
                if str(v.type) in ex.vnni:
                    bad.append((op, v.type))
                    return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    if bad:
        op, t = bad[0]
        _fail(op, f"'{op.name}' on the VNNI vector {t} is not exported (upstream's vectors are plain 2D; only "
              "xegpu.dpas, vector.extract_strided_slice and loop carries are rewritten)")


def _check_no_xetile(module_op) -> None:
    """XeTile has no upstream counterpart: export after lowering to XeGPU."""
    bad = next((op for op in walk(module_op) if op.name.startswith("xetile.")), None)
    if bad is not None:
        _fail(bad, f"'{bad.name}' is not exported: upstream MLIR has no xetile dialect; lower to XeGPU "
              "first (--xe-gemm-to-xegpu, or convert-xetile-to-xegpu)")
