"""The element-wise arith op that combines two values the way each `vector.kind` reduction does,
for float and for integer elements (None where the kind does not apply). Read by the lowerings that
combine partial results element-wise before or after a reduction (xetile-to-xegpu's tile_reduce,
xegpu-simt-distribute's reductions)."""
from __future__ import annotations

# kind: (float op, integer op)
ARITH_COMBINE = {"add": ("arith.addf", "arith.addi"), "mul": ("arith.mulf", "arith.muli"),
                 "minimumf": ("arith.minimumf", None), "maximumf": ("arith.maximumf", None),
                 "minnumf": ("arith.minnumf", None), "maxnumf": ("arith.maxnumf", None),
                 "minsi": (None, "arith.minsi"), "maxsi": (None, "arith.maxsi"), "minui": (None, "arith.minui"),
                 "maxui": (None, "arith.maxui"), "and": (None, "arith.andi"), "or": (None, "arith.ori"),
                 "xor": (None, "arith.xori")}
