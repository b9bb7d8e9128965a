"""Driver shared by our per-function XeTile passes: reads the `arch` option (arch_option.py: told,
else the module's recorded xe.arch, else pvc; a located failure for an unknown architecture) and runs one checker/rewriter object per gpu.func / func.func."""
from __future__ import annotations

from .arch_option import pass_arch, record_told_arch
from .ir_walk import functions


def run_per_function(module_op, options, ctx, make) -> bool:
    """`make(func, arch, options, ctx).run()` for every function; False if any failed."""
    arch = pass_arch(module_op, options, ctx)
    if arch is None:
        return False
    ok = True
    for func in functions(module_op):
        ok = make(func, arch, options, ctx).run() and ok
    record_told_arch(module_op, options, arch)
    return ok
