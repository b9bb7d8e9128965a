"""Import of upstream MLIR's `xegpu` (LLVM 22) into our RFC XeGPU, so xe-run simulates such programs.

Upstream's C++ `xegpu` and our dynamic one cannot share a context: the program is parsed in a fresh
upstream context (work-group code is brought to subgroup level there by upstream's own passes),
printed with each xegpu op replaced by its translation in our syntax, and parsed in our context.
Subgroup level becomes VC mode (docs/upstream-xegpu.md, "Import").

    from xedialects.lowering.upstream_to_xegpu import import_upstream, looks_upstream
    module = import_upstream(text, "prog.mlir")     # DiagnosticError at the first op not imported
"""
from .detect import looks_upstream, parse_program
from .driver import import_upstream, to_ours_text

__all__ = ["import_upstream", "looks_upstream", "parse_program", "to_ours_text"]
