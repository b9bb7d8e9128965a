"""ger from linalg: an outer-product `linalg.generic` (C[i, j] = x[i] * y[j], optionally scaled by
host scalars and accumulated into C) recognised as such, planned with `memory_plan.plan_ger` (C's
traffic decides the tiles) and written by the element-wise kernel generator: x is loaded as an
M x 1 tile and y as a 1 x N tile per work-group tile and broadcast with `xetile.tile_broadcast`."""
from __future__ import annotations

import sys

from . import elementwise
from .gemm_epilogue import NotFusible, elementwise_form
from .memory_plan import plan_ger

_MULS = ("arith.mulf", "arith.muli")


def match_ger(op):
    """The element-wise form (gemm_epilogue.EwOp) of an outer-product generic, or NotFusible."""
    if op.name != "linalg.generic":
        raise NotFusible(f"'{op.name}' is not an outer product")
    ew = elementwise_form(op)
    kinds = [i.kind for i in ew.inputs]
    if "full" in kinds or kinds.count("col") != 1 or kinds.count("row") != 1:
        raise NotFusible("not an outer product (one column vector x and one row vector y expected)")
    args = list(ew.block.arguments)
    xa, ya = args[kinds.index("col")], args[kinds.index("row")]
    for bop in ew.block.operations:
        bop = bop.operation
        if bop.name in _MULS and len(bop.operands) == 2 and xa in list(bop.operands) and \
                ya in list(bop.operands) and xa != ya:
            return ew
    raise NotFusible("the body does not multiply x[i] by y[j]")


def is_ger(op) -> bool:
    try:
        match_ger(op)
    except NotFusible:
        return False
    return True


def consider(mb, op, index: int) -> None:
    """Plan and write the kernel of ger `op` into the MemoryBound collector `mb` (an unsupported
    operand is remarked on, as for element-wise ops)."""
    from .memory_bound import MbKernel

    try:
        ew = match_ger(op)
        (m, n), elt = elementwise.output_shape(ew)
    except NotFusible as e:
        mb.ctx.remark(op, f"not lowered to XeTile: {e}")
        return
    plan = plan_ger(m, n, elt, mb.hw, ew.reads_output)
    name = f"{mb.fname}_{index}"
    if mb.printing:
        print(f"// memory-bound plan for {op.name} at {op.location}\n{plan.describe()}", file=sys.stderr)
    io = elementwise.EwIO(ew)
    mb.kernels.append(MbKernel(op, ew, plan, name, io, elementwise.kernel_text(ew, plan, name, io), elementwise))
