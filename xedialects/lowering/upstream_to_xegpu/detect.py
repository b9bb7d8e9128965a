"""Is a program upstream MLIR xegpu (not our RFC dialect)? Spellings only upstream has decide; a
program that fails to parse in our context but parses in upstream's counts too."""
from __future__ import annotations

import re

_UPSTREAM_ONLY = re.compile(
    r"#xegpu\.(?:cache_hint|layout|slice|block_tdesc_attr|scatter_tdesc_attr|mem_desc|range)\b"
    r"|xegpu\.(?:load_nd|store_nd|prefetch_nd)\b[^\n:]*\]\s*(?:<\{|\{|:)"   # offsets on the access
    r"|xegpu\.create_nd_tdesc\s+%[\w$.-]+\s*:"                              # no offsets, no mode
    r"|xegpu\.(?:fence|convert_layout|load_matrix|store_matrix|create_mem_desc)\b"
    r"|#xevm\.target"
    r"|xevm\.(?:mma|blockload2d|blockstore2d|blockprefetch2d|memfence|blockload|blockstore|prefetch)\b")


def looks_upstream(text: str) -> bool:
    """True when `text` uses a spelling of upstream's xegpu that ours does not have."""
    return ("xegpu." in text or "xevm." in text) and _UPSTREAM_ONLY.search(_strip_comments(text)) is not None


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", text)


def parse_program(text: str, filename: str = "-", context=None):
    """Our module of `text`: upstream xegpu programs are imported, others parsed as usual."""
    from ... import parse
    from ...diagnostics import DiagnosticError
    from . import isolate
    from .driver import import_upstream

    if looks_upstream(text):
        return import_upstream(text, filename, context)
    try:
        return parse(text, filename, context)
    except DiagnosticError as ours:
        if "xegpu." not in text and "xevm." not in text:
            raise
        try:
            isolate.run(_parses_upstream, text, filename, filename=filename)
        except DiagnosticError:
            raise ours from None
        return import_upstream(text, filename, context)


def _parses_upstream(text: str, filename: str) -> bool:
    from .driver import parse_upstream

    parse_upstream(text, filename)
    return True
