"""Context factory: an MLIR context with the upstream dialects we use and our two IRDL dialects.

Upstream MLIR registers its own C++ `xegpu` dialect; loading it and our dynamic `xegpu` into one
context aborts the process. Contexts made here load only the upstream dialects listed in
`UPSTREAM_DIALECTS` at creation and register our dialects immediately, before any parse or pass can
pull in the upstream `xegpu`.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import irdl

UPSTREAM_DIALECTS = (
    "builtin", "func", "arith", "math", "index", "memref", "vector", "scf", "cf", "gpu", "linalg",
    "tensor", "bufferization", "affine", "spirv", "llvm", "ub", "irdl",
)


def _register_python_dialect_modules() -> None:
    """The bindings import `mlir.dialects.<namespace>` for every op/type of a namespace they see and
    do not cache a failed import; empty modules for our namespaces keep that lookup cheap."""
    import sys
    import types

    for ns in ("xetile", "xegpu"):
        name = f"mlir.dialects.{ns}"
        if name not in sys.modules:
            mod = types.ModuleType(name, f"Placeholder: the {ns} dialect is defined by xedialects.{ns}.")
            sys.modules[name] = mod


def make_context(*, allow_unregistered: bool = False) -> ir.Context:
    """A fresh context with upstream dialects loaded and `xetile`/`xegpu` registered from IRDL."""
    from .irdl_gen import irdl_module_text  # local import: definitions import ir lazily

    _register_python_dialect_modules()
    ctx = ir.Context(load_on_create_dialects=list(UPSTREAM_DIALECTS))
    ctx.allow_unregistered_dialects = allow_unregistered
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(irdl_module_text())
        irdl.load_dialects(module)
    return ctx
