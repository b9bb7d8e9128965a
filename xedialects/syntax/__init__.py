"""The syntax layer: parse readable/generic text into verified IR, print IR in readable syntax."""
from __future__ import annotations

import re

from mlir import ir

from .. import dialects as _dialects  # noqa: F401  (registers op/type definitions)
from ..context import context_for
from ..core.scanner import ScanError, line_col
from ..diagnostics import Diagnostic, DiagnosticError, from_mlir
from ..verifier import verify_module
from .convert import to_generic, to_pretty


def parse_source(text: str, filename: str = "-", context=None, *, collector=None, verify: bool = True):
    """Parse `text` (readable or generic) into an `ir.Module`; raise DiagnosticError on errors.

    The module lives in `context`, else in the enclosing `with ctx:` (as upstream's `ir.Module.parse`;
    our dialects are registered into it if it has none, ValueError if upstream's own xegpu is loaded
    there), else in a fresh `make_context()`. Semantic verification (the RFC rules) runs after MLIR's
    own structural verification; its warnings and remarks go to `collector` when one is given."""
    ctx = context_for(context)
    try:
        generic = to_generic(text)
    except ScanError as e:
        line, col = line_col(text, e.pos)
        raise DiagnosticError([Diagnostic("error", e.message, filename, line, col)]) from None
    from .parser_guards import check

    check(generic, filename)             # what would abort upstream's parser
    with ctx, ir.Location.unknown():
        module = _parse_module(generic, filename)
        if verify:
            diags = verify_module(module.operation)
            errors = [d for d in diags if d.severity == "error"]
            if collector is not None:
                collector.extend(d for d in diags if d.severity != "error")
            if errors:
                raise DiagnosticError(diags)
    return module


_WRAP = "module{"
_ALIAS_OR_SKIP = re.compile(r"\s*(//[^\n]*)?(\n|$)|\s*[#!][A-Za-z_][\w$.]*\s*=")


def _first_op_position(text: str) -> tuple[int, int]:
    """Offset and line of the first top-level operation (after comments and alias definitions),
    where an implicit `module {` is inserted."""
    pos, line = 0, 1
    while pos < len(text):
        m = _ALIAS_OR_SKIP.match(text, pos)
        if not m:
            return pos, line
        if m.group(2) is None:
            # an alias definition: skip its value up to the end of the line
            nl = text.find("\n", pos)
            nl = len(text) if nl < 0 else nl + 1
            line += 1
            pos = nl
            continue
        line += m.group(0).count("\n")
        pos = m.end()
    return pos, line


def _parse_module(generic: str, filename: str) -> ir.Module:
    """Parse with MLIR into an ir.Module (an implicit module wraps top-level ops, as in mlir-opt)."""
    try:
        op = ir.Operation.parse(generic, source_name=filename)
    except ir.MLIRError as e:
        diags = [from_mlir(d) for d in e.error_diagnostics]
        if not any("single top-level operation" in d.message for d in diags):
            from .unknown_loc import locate

            raise DiagnosticError(locate(diags, generic, filename)) from None
        pos, line = _first_op_position(generic)
        try:
            op = ir.Operation.parse(generic[:pos] + _WRAP + generic[pos:] + "\n}", source_name=filename)
        except ir.MLIRError as e2:
            diags = [from_mlir(d) for d in e2.error_diagnostics]
            for d in diags:
                if d.line == line and d.col and d.col > len(_WRAP):
                    d.col -= len(_WRAP)
            from .unknown_loc import locate

            raise DiagnosticError(locate(diags, generic, filename)) from None
    op = op.operation
    module = ir.Module.create(op.location)
    body = module.body
    if op.name == "builtin.module":
        for i in range(len(op.attributes)):
            named = op.attributes[i]
            module.operation.attributes[named.name] = named.attr
        children = list(op.regions[0].blocks[0].operations)
        for child in children:
            body.append(child.operation)
        op.erase()
    else:
        body.append(op)
    return module


def print_operation(op, *, generic: bool = False, debuginfo: bool = False) -> str:
    """Print an operation: MLIR prints it, then our ops/types/attributes become readable."""
    op = op.operation if hasattr(op, "operation") else op
    text = op.get_asm(print_generic_op_form=generic, enable_debug_info=debuginfo)
    return text if generic else to_pretty(text)
