"""Lower bounds of index values that the entry test of a surface-versioned kernel establishes in its
fast copy: a tested surface is at least `min_width_bytes` wide, `min_pitch_bytes` in pitch and one row
high, so a K loop bounded by the width of A runs at least once there (docs/igc.md "Dynamic shapes":
IGC keeps a loop that may run zero times with a second set of accumulators, and spills).
Sizes are memref sizes: non-negative, their byte counts far from wrapping 64 bits.
"""
from __future__ import annotations

from ...passes.utils.ir_walk import owner_op
from .kernel_values import static_int
from .spirv_lanes import bits_of


def entry_facts(plans, rules) -> dict:
    """{value: lower bound} of the width, pitch and height of each surface `plans` (NdPlans of entry
    values) when its rules hold (`rules`: the arch's SurfaceRules)."""
    facts = {}

    def at_least(x, n):
        if static_int(x) is None:
            facts[x] = max(facts.get(x, 0), n)

    for p in plans:
        nbytes = bits_of(p.elt) // 8
        at_least(p.width, -(-rules.min_width_bytes // nbytes))
        at_least(p.pitch, -(-rules.min_pitch_bytes // nbytes))
        at_least(p.height, 1)
    return facts


def lower_bound(x, facts: dict, hoisted: dict, depth: int = 12) -> int | None:
    """A lower bound of the index value `x` (a body value; `hoisted` maps body values to their entry
    copies, which `facts` name) from constants, `facts` and sums, products, quotients and maxima of
    non-negative values; None when unknown."""
    c = static_int(x)
    if c is not None:
        return c
    k = facts.get(hoisted.get(x, x))
    if k is not None or depth == 0:
        return k
    o = owner_op(x)
    if o is None:
        return None
    bounds = [lower_bound(v, facts, hoisted, depth - 1) for v in o.operands]
    known = [b for b in bounds if b is not None]
    if o.name in ("arith.maxsi", "arith.maxui"):
        return max(known) if known else None
    if len(known) != len(bounds) or any(b < 0 for b in known):
        return None
    if o.name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui"):
        return known[0]
    if o.name == "arith.addi":
        return known[0] + known[1]
    if o.name == "arith.muli":
        return known[0] * known[1]
    divisor = static_int(o.operands[1]) if len(o.operands) == 2 else None
    if divisor and divisor > 0:
        if o.name in ("arith.divui", "arith.divsi", "arith.floordivsi"):
            return known[0] // divisor
        if o.name in ("arith.ceildivui", "arith.ceildivsi"):
            return -(-known[0] // divisor)
    return None
