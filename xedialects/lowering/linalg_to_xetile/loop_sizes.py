"""Do a linalg op's operands agree on the size of each loop?

Upstream's linalg verifier does not compare a static size 0 with the other sizes of its loop, so
`linalg.matmul` of B `memref<48x96xbf16>` into C `memref<64x0xf32>` verifies: the CPU code then runs
the N loop 96 times and writes past C (heap corruption in xe-run --check), while an empty iteration
space would write nothing. Such an op is a located error naming the loop and both operands, in
convert-linalg-to-xetile (before a zero-sized op is removed) and before xe-run's CPU reference.

    message = inconsistent_sizes(op)     # None when every loop has one static size
"""
from __future__ import annotations

from mlir import ir


def inconsistent_sizes(op) -> str | None:
    """Why the static sizes of `op`'s operands disagree on one of its loops (None if they agree or
    `op` has no indexing maps)."""
    if "indexing_maps" not in op.attributes:
        return None
    try:
        maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    except (ValueError, TypeError):
        return None
    seen = {}                     # loop -> (size, operand index, type)
    for i, (v, amap) in enumerate(zip(op.operands, maps)):
        try:
            shape = ir.ShapedType(v.type).shape
        except (ValueError, TypeError):
            continue
        for d, e in zip(shape, amap.results):
            try:
                loop = ir.AffineDimExpr(e).position
            except (ValueError, TypeError):
                continue
            if ir.ShapedType.is_dynamic_size(d):
                continue
            if loop in seen and seen[loop][0] != d:
                size, j, t = seen[loop]
                return (f"'{op.name}': loop d{loop} has size {size} in operand {j} ({t}) but {d} in operand {i} "
                        f"({v.type}); the loops would run past the smaller operand (upstream's verifier does not "
                        "compare a size 0)")
            seen.setdefault(loop, (d, i, v.type))
    return None


def check_module(module_op):
    """DiagnosticError at the first linalg op of `module_op` whose operands disagree on a loop size."""
    from ...diagnostics import DiagnosticError, at
    from ...passes.utils.ir_walk import walk

    for op in walk(module_op):
        if op.name.startswith("linalg."):
            message = inconsistent_sizes(op)
            if message:
                raise DiagnosticError([at(op.location, "error", message)])
