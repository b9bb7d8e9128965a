"""Constant sizes read from the IR: the integer of an `arith.constant` value and each kernel's launch
sizes (grid, block) from its first `gpu.launch_func`. Read by `kernel_report` (and through it by the
model's `work_from_report`) and by the drawings.
"""
from __future__ import annotations

from mlir import ir

from ..utils.ir_walk import walk


def const_int(v):
    """The value of an SSA value defined by an integer `arith.constant` (None otherwise)."""
    owner = v.owner
    owner = owner.operation if hasattr(owner, "operation") and not isinstance(owner, ir.Block) else owner
    if isinstance(owner, ir.Operation) and owner.name == "arith.constant":
        try:
            return ir.IntegerAttr(owner.attributes["value"]).value
        except (ValueError, TypeError):
            return None
    return None


def launches(module) -> dict:
    """kernel name -> (grid, block) of the first `gpu.launch_func` with constant sizes."""
    op = module.operation if hasattr(module, "operation") else module
    out = {}
    for o in walk(op):
        if o.name != "gpu.launch_func":
            continue
        name = str(o.attributes["kernel"]).rsplit("@", 1)[-1].strip('"')
        try:
            seg = list(ir.DenseI32ArrayAttr(o.attributes["operandSegmentSizes"]))
        except (KeyError, ValueError, TypeError):
            continue
        start = seg[0]
        vals = [const_int(o.operands[start + i]) for i in range(6)]
        if None not in vals and name not in out:
            out[name] = (tuple(vals[:3]), tuple(vals[3:]))
    return out
