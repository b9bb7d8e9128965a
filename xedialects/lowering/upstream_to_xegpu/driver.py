"""The import driver: parse upstream xegpu in its own context, bring work-group code to subgroup level
with upstream's passes (or, where they fail or `distribute=xedialects`, translate it to work-group
XeTile for our xetile-wg-to-sg: wg_xetile), print the module and replace each xegpu op's line by its
translation in our syntax (respelling descriptor types elsewhere), then parse the text in our context."""
from __future__ import annotations

import io
import re

from mlir import ir

from ...diagnostics import Diagnostic, DiagnosticError, at, from_mlir
from ...passes.utils.ir_walk import walk
from . import imex_forms
from . import levels
from . import simt_ops
from . import wg_xetile
from .op_attrs import ImportOpError
from .sg_ops import Translator, translate
from .types import ImportTypeError, rewrite_tdescs
from .xevm_block2d import TABLE as XEVM_BLOCK2D

PASS_NAME = "convert-upstream-xegpu"
DISTRIBUTE_MODES = ("auto", "upstream", "xedialects")
# our work-group XeTile (the fallback's output) down to VC-mode XeGPU, as xe-gemm-to-xegpu's stages 2-4
OURS_WG_TO_XEGPU = "builtin.module(imex-xetile-to-xegpu)"
_TARGET_LINE = re.compile(r"^\s*(?:%[\w$.#:-]+(?:, %[\w$.#:-]+)* = )?"
                          r"(?:xegpu\.\w+|xevm\.[\w.]+|gpu\.(?:thread_id|global_id|lane_id)\b|vector\.extract )")
_ALIAS_DEF = re.compile(r"^([#!][\w$.-]+) = (.*)$")
_SCOPE_LINE = re.compile(r"^\s*(gpu\.module|gpu\.func|func\.func) @([\w$.-]+)")
_THREAD_OPS = ("gpu.thread_id", "gpu.global_id", "gpu.lane_id")
_XEVM_OPS = ("xevm.mma",) + tuple(XEVM_BLOCK2D)


def _fail(loc, message: str, filename: str | None = None):
    d = at(loc, "error", f"{PASS_NAME}: {message}")
    if filename and d.filename in (None, "-", "<unknown>"):
        d.filename = filename
    raise DiagnosticError([d])


def parse_upstream(text: str, filename: str = "-"):
    """(context, module op) of `text` parsed in a fresh context holding upstream's own dialects (its
    layouts checked first: layout_check)."""
    from ...syntax.parser_guards import check
    from .layout_check import check_layouts

    check(text, filename)
    text = check_layouts(text, filename)
    text = imex_forms.rewrite(text)
    ctx = ir.Context()
    with ctx, ir.Location.unknown():
        wrap = not re.search(r"^module\b", text, re.M)
        if wrap:  # an implicit module around top-level ops (after alias definitions), as mlir-opt does
            from ...syntax import _first_op_position

            pos, _ = _first_op_position(text)
            head = "module attributes {gpu.container_module} {" if "gpu.module" in text else "module {"
            text = text[:pos] + head + text[pos:] + "\n}"
        try:
            op = ir.Operation.parse(text, source_name=filename)
        except ir.MLIRError as e:
            raise DiagnosticError([from_mlir(d) for d in e.error_diagnostics]) from None
        op = op.operation
        if op.name != "builtin.module":
            wrapper = ir.Module.create(op.location)
            wrapper.body.append(op)
            op = wrapper.operation
            ctx._keep = wrapper
    return ctx, op


def _strip_layouts(ops) -> None:
    """Discardable `#xegpu.*` attributes (layouts) on non-xegpu ops and gpu.module targets: dropped."""
    for op in ops:
        if op.name == "gpu.module" and "targets" in op.attributes:
            del op.attributes["targets"]
        if op.name.startswith("xegpu."):
            continue
        attrs = op.attributes
        for name in [attrs[i].name for i in range(len(attrs)) if "#xegpu." in str(attrs[i].attr)]:
            del op.attributes[name]


def _kernel_of(op):
    p = op.parent
    while p is not None:
        if p.name in ("gpu.func", "func.func"):
            return p
        p = p.parent
    return None


def _expand_aliases(lines: list[str]) -> list[str]:
    """Alias definitions that mention xegpu are dropped and their uses written out."""
    defs, out = {}, []
    for line in lines:
        m = _ALIAS_DEF.match(line)
        if m and "xegpu." in m.group(2):
            defs[m.group(1)] = m.group(2)
            continue
        out.append(line)
    if not defs:
        return out
    pat = re.compile("|".join(re.escape(k) for k in sorted(defs, key=len, reverse=True)) + r"(?![\w$.-])")
    for _ in range(4):  # aliases may refer to aliases
        for k, v in defs.items():
            defs[k] = pat.sub(lambda m: defs[m.group(0)], v)
    return [pat.sub(lambda m: defs[m.group(0)], line) if "#" in line or "!" in line else line for line in out]


def _printed_lines(module_op):
    """`lines(ops)`: layouts of non-xegpu ops dropped, the module printed with its locations, xegpu
    aliases written out."""
    def lines(ops):
        _strip_layouts(ops)
        buf = io.StringIO()
        module_op.print(file=buf, enable_debug_info=True)
        return _expand_aliases(buf.getvalue().splitlines())
    return lines


def _ours_workgroup(text: str, filename: str) -> str:
    ctx, module_op = parse_upstream(text, filename)  # afresh: a failed upstream pass leaves its IR half done
    with ctx, ir.Location.unknown():
        return imex_forms.restore_hints(wg_xetile.to_xetile_text(module_op, filename, _printed_lines(module_op)))


def import_text(text: str, filename: str = "-", distribute: str = "auto"):
    """(our text, remarks, whether the text is work-group XeTile) of an upstream xegpu program.
    Work-group kernels: `upstream` -- upstream's distribution, its errors as they come; `xedialects`
    -- work-group XeTile (wg_xetile) for our xetile-wg-to-sg; `auto` -- upstream's, and ours when
    upstream's fails, with a remark quoting upstream's error."""
    if distribute not in DISTRIBUTE_MODES:
        raise ValueError(f"unknown distribute mode {distribute!r} (one of {', '.join(DISTRIBUTE_MODES)})")
    ctx, module_op = parse_upstream(text, filename)
    with ctx, ir.Location.unknown():
        workgroup = levels.classify(module_op, filename).workgroup
    if not workgroup or distribute == "upstream":
        return to_ours_text(text, filename), [], False
    if distribute == "xedialects":
        return _ours_workgroup(text, filename), [], True
    try:
        return to_ours_text(text, filename), [], False
    except DiagnosticError as e:
        first = e.diagnostics[0]
        if "upstream's work-group to subgroup passes failed" not in first.message:
            raise
    why = first.message.split("passes failed: ", 1)[-1].splitlines()[0]
    try:
        ours = _ours_workgroup(text, filename)
    except DiagnosticError as e:   # both failed: ours is the error, upstream's a note
        e.diagnostics[0].notes.append(Diagnostic("note", f"before that, upstream's xegpu-wg-to-sg-distribute: {why}",
                                                 first.filename, first.line, first.col))
        raise
    remark = Diagnostic("remark", f"{PASS_NAME}: upstream's xegpu-wg-to-sg-distribute failed ({why[:300]}); the "
                                  "work-group kernel was imported as work-group XeTile (wg_map from sg_layout / "
                                  "sg_data) and distributed by xetile-wg-to-sg", first.filename, first.line, first.col)
    return ours, [remark], True


def to_ours_text(text: str, filename: str = "-") -> str:
    """Our-syntax text of an upstream xegpu program (subgroup level: VC mode; lane level: SIMT mode)."""
    ctx, module_op = parse_upstream(text, filename)
    with ctx, ir.Location.unknown():
        level = levels.classify(module_op, filename)
        if level.workgroup:
            levels.to_subgroup(ctx, module_op, filename)
        ops = list(walk(module_op))
        for op in ops:
            if op.name.startswith("xevm.") and op.name not in _XEVM_OPS:
                _fail(op.location, f"'{op.name}' is not imported (the XeVM ops taken: "
                                   "docs/upstream-xegpu-reference.md, \"XeVM-level kernels\")", filename)
        _strip_layouts(ops)
        state = ir.AsmState(module_op)
        tr = Translator(module_op, state)
        targets = [op for op in ops if op.name.startswith("xegpu.") or op.name == "vector.extract"
                   or op.name in _XEVM_OPS or op.name in _THREAD_OPS]
        buf = io.StringIO()
        module_op.print(file=buf, enable_debug_info=True)  # same names as `state`; ops keep their locations
        lines = _expand_aliases(buf.getvalue().splitlines())
        out, k, depth_id, gmod = [], 0, 0, ""
        for line in lines:
            m = _SCOPE_LINE.match(line)
            if m:
                if m.group(1) == "gpu.module":
                    gmod = m.group(2)
                else:
                    tr.scope += 1
                    tr.simt = m.group(1) == "gpu.func" and (gmod, m.group(2)) in level.lane_kernels
                    tr.rows_types = frozenset(level.rows_types.get((gmod, m.group(2)), ()))
            s = line.strip()
            if s.endswith("{") or s.startswith("}") or s.startswith("^"):
                depth_id += 1
                tr.block = depth_id
            if _TARGET_LINE.match(line):
                if k >= len(targets):
                    _fail(module_op.location, "printed ops and IR walk disagree (internal)", filename)
                op = targets[k]
                k += 1
                indent = line[:len(line) - len(line.lstrip())]
                try:
                    loc = _loc_suffix(op)
                    out += [indent + _with_loc(x, loc) for x in _translate(op, tr, line)]
                except (ImportOpError, ImportTypeError) as e:
                    _fail(op.location, str(e), filename)
                continue
            try:
                out.append(rewrite_tdescs(line, tr.simt, tr.rows_types) if "!xegpu." in line else line)
            except ImportTypeError as e:
                _fail(module_op.location, str(e), filename)
        if k != len(targets):
            _fail(module_op.location, "printed ops and IR walk disagree (internal)", filename)
    return imex_forms.restore_hints("\n".join(out) + "\n")


def _loc_suffix(op) -> str:
    """` loc(...)` of an upstream op, for the lines of its translation: diagnostics of the imported
    program (our verifier, later passes) point at the op in the user's file."""
    text = str(op.location)
    return f" {text}" if text.startswith("loc(") and "unknown" not in text else ""


_HAS_LOC = re.compile(r"\bloc\((?:#|\")")


def _with_loc(line: str, loc: str) -> str:
    return line if not loc or _HAS_LOC.search(line) or line.rstrip().endswith("{") else line + loc


def _translate(op, tr, line: str) -> list[str]:
    """Lines of one target op: SIMT-mode forms in lane-level kernels (thread ids kept), else VC;
    a `vector.extract` stays as printed unless a translation replaced it."""
    if op.name == "vector.extract":
        repl = tr.replace.get(op)
        return repl if repl is not None else [rewrite_tdescs(line.strip(), tr.simt)]
    if op.name in _THREAD_OPS:
        k = _kernel_of(op)
        if tr.simt or k is None or k.name != "gpu.func" or "VectorComputeFunctionINTEL" in k.attributes:
            # lane-level kernels, host code (gpu.launch bodies) and IMEX's VC kernels (threads are
            # subgroups; xe-run's normalize_vc_launches rewrites them) keep their thread ids
            return [line.strip()]
    if tr.simt:
        fn = simt_ops.TABLE.get(op.name)
        if fn is not None:
            try:
                return fn(op, tr)
            except ImportTypeError as e:
                raise ImportOpError(f"'{op.name}': {e}") from None
    return translate(op, tr)


def import_upstream(text: str, filename: str = "-", context=None, *, distribute: str = "auto", remarks=None):
    """Our module (VC-mode XeGPU in our context) of an upstream xegpu program; DiagnosticError (located
    in the input) at the first op or attribute our dialect cannot express. `distribute`: who brings
    work-group kernels to subgroup level (import_text). Remarks are appended to `remarks`, or printed
    to stderr when it is None."""
    import sys

    from ...passes import PassFailure, run
    from ...syntax import parse_source
    from . import isolate

    ours, notes, xetile = isolate.run(import_text, text, filename, distribute, filename=filename)
    before = [Diagnostic("note", d.message.split("; the work-group kernel")[0], d.filename, d.line, d.col)
              for d in notes]  # upstream's failure, for an error of ours
    ours_wg = f"{PASS_NAME}: our work-group distribution cannot take the kernel"
    try:
        module = parse_source(ours, f"{filename} (imported)", context)
    except DiagnosticError as e:
        what = (f"{ours_wg} (as work-group XeTile it does not verify)" if xetile else
                f"{PASS_NAME}: the translated program does not verify in our dialect (internal)")
        raise DiagnosticError([Diagnostic("error", what, filename, None, None,
                                          list(e.diagnostics) + before)]) from None
    if xetile:
        try:
            run(module, OURS_WG_TO_XEGPU, collector=[])
        except PassFailure as e:
            raise DiagnosticError([Diagnostic("error", ours_wg, filename, None, None,
                                              list(e.located) + before)]) from None
    if remarks is None:
        for d in notes:
            print(d.format(), file=sys.stderr)
    else:
        remarks.extend(notes)
    return module
