"""Driver shared by our per-function XeTile passes: reads the `arch` option (a located failure for
an unknown architecture) and runs one checker/rewriter object per gpu.func / func.func."""
from __future__ import annotations

from ...arch import ArchError, get_arch
from .ir_walk import functions


def run_per_function(module_op, options, ctx, make) -> bool:
    """`make(func, arch, options, ctx).run()` for every function; False if any failed."""
    try:
        arch = get_arch(options["arch"])
    except ArchError as e:
        ctx.fail(str(e))
        return False
    ok = True
    for func in functions(module_op):
        ok = make(func, arch, options, ctx).run() and ok
    return ok
