"""Source text that would abort upstream's parser, refused first with a located error.

LLVM 22 builds the body of a named linalg op while parsing it; for `linalg.batch_matmul` and
`linalg.batch_reduce_matmul` with `index` elements (inputs or output) its type conversion reaches
`llvm_unreachable("unsupported non numeric type")` and the whole process aborts (`linalg.matmul`
says "Cannot build binary Linalg operation" instead). Found by test_fuzz_cli.

    check(text, filename)      # DiagnosticError at the first op upstream's parser would abort on
"""
from __future__ import annotations

import re

from ..diagnostics import Diagnostic, DiagnosticError

_ABORTS_ON_INDEX = re.compile(r"\blinalg\.(batch_matmul|batch_reduce_matmul)\b")
_INDEX_ELT = re.compile(r"(?<=\dx)index\b|(?<=<)index\b")


def check(text: str, filename: str) -> None:
    if "linalg.batch_" not in text:
        return
    scan = re.sub(r"//[^\n]*", lambda c: " " * len(c.group(0)), text)
    for m in _ABORTS_ON_INDEX.finditer(scan):
        outs = scan.find("outs(", m.end())
        end = scan.find(")", outs) if outs >= 0 else -1
        span = scan[m.end():end if end >= 0 else m.end()]
        if _INDEX_ELT.search(span):
            line = scan.count("\n", 0, m.start()) + 1
            col = m.start() - (scan.rfind("\n", 0, m.start()) + 1) + 1
            raise DiagnosticError([Diagnostic(
                "error", f"'linalg.{m.group(1)}' on index elements: upstream MLIR (LLVM 22) cannot build its body for "
                         "index and aborts while parsing it; use an integer type such as i64", filename, line, col)])
