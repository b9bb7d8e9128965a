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


def has_dialects(ctx: ir.Context) -> bool:
    """Whether `xetile`/`xegpu` of xedialects are loaded in `ctx` (a context of `make_context`, or one
    they were registered into by `register_dialects`)."""
    return ctx.is_registered_operation("xetile.init_tile")


def register_dialects(ctx: ir.Context) -> None:
    """Load the upstream dialects of `make_context` and register our `xetile`/`xegpu` into `ctx`, an
    existing context; ValueError if upstream MLIR's own `xegpu` is already loaded there (every plain
    `ir.Context()` loads it, and MLIR aborts when a second `xegpu` joins it)."""
    from .irdl_gen import irdl_module_text

    if has_dialects(ctx):
        return
    if ctx.is_registered_operation("xegpu.create_nd_tdesc"):
        raise ValueError(
            "this MLIR context has upstream MLIR's xegpu dialect loaded (every plain ir.Context() loads "
            "all upstream dialects), which cannot share a context with xedialects' xegpu; make the context "
            "with xedialects.make_context() (e.g. `with xedialects.make_context() as ctx:`)")
    _register_python_dialect_modules()
    for name in UPSTREAM_DIALECTS:
        ctx.dialects[name]
    with ctx, ir.Location.unknown():
        irdl.load_dialects(ir.Module.parse(irdl_module_text()))


def context_for(context: ir.Context | None = None) -> ir.Context:
    """The context to parse into, as upstream's `ir.Module.parse` picks it: `context` when given, else
    the enclosing `with ctx:` (our dialects registered into it when it has none yet), else a fresh
    `make_context()`."""
    if context is not None:
        return context
    current = ir.Context.current
    if current is None:
        return make_context()
    register_dialects(current)
    return current
