"""How the export spells a constant offset of load_nd / store_nd / prefetch_nd: as an `arith.constant`
value, not a literal. Read by the op table (`ops`, `lane_blocks`) and the offsets form (`offsets`).
"""

# constant offsets as literals (`load_nd %t[0, %j]`)? Off: LLVM 22's xegpu-subgroup-distribute
# asserts (getMixedValues) on mixed literal/SSA offsets, so constants are arith.constant values
LITERAL_OFFSETS = False
