"""arith.maximumf / minimumf of a lowered kernel as upstream `arith-expand` writes them, before the
GPU-to-SPIR-V conversion (which would give `spirv.CL.fmax` plus a NaN test and select per operand):
an unordered compare and a select, then the right operand where it is NaN. IGC folds the NaN test of a
constant operand (a relu is a compare and a select). maxnumf / minnumf keep `spirv.CL.fmax` / `fmin`,
which IGC compiles to one instruction (upstream's pass would expand them too: longer; docs/igc.md
"Small kernels").
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from ...passes.utils.ir_walk import walk

# op -> predicate of "keep the left operand" (unordered: a NaN left operand is kept)
_PRED = {"arith.maximumf": arith.CmpFPredicate.UGT, "arith.minimumf": arith.CmpFPredicate.ULT}


def expand_float_minmax(func_op) -> None:
    """Rewrite every scalar arith.maximumf / minimumf in `func_op` (nested regions included)."""
    for op in [o for o in walk(func_op) if o.name in _PRED and not isinstance(o.results[0].type, ir.ShapedType)]:
        lhs, rhs = op.operands
        with ir.InsertionPoint(op), op.location:
            keep = arith.CmpFOp(_PRED[op.name], lhs, rhs).result
            pick = arith.SelectOp(keep, lhs, rhs).result
            nan = arith.CmpFOp(arith.CmpFPredicate.UNO, rhs, rhs).result
            out = arith.SelectOp(nan, rhs, pick).result
        op.results[0].replace_all_uses_with(out)
        op.erase()
