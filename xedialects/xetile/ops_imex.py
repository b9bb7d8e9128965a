"""IMEX's XeTile spellings (the dialect as in intel/mlir-extensions before PR #1143), read as our ops.

Each IMEX op that means one of our ops is a *spelling* of it: its name and assembly format parse
into our op (and print in the RFC form), so verification, simulation and lowering are the op's
own. docs/imex-xetile.md has the table; IMEX attribute names map onto ours through `renames`.
`xedialects/dialects.py` imports this module after `ops.py`, as every dialect definition module.
"""
from __future__ import annotations

from .attributes import xetile
from .ops import (AtomicRmwTileOp, LoadGatherOp, StoreScatterOp, TileBroadcastOp, TileConvLayoutOp,
                  TileReduceOp, TileTransposeOp)

# IMEX puts the work-group map of a vector op's result in a discardable `map` attribute
_MAP = {"map": "wg_map"}

xetile.spelling("reduction", TileReduceOp,
                "`<` $kind `>` `,` $vector $reduction_dims attr-dict `:` type($vector) `->` type($result)",
                _MAP)
xetile.spelling("broadcast", TileBroadcastOp,
                "$vector $broadcast_dims attr-dict `:` type($vector) `->` type($result)",
                {**_MAP, "broadcast_dim": "broadcast_dims"})
xetile.spelling("transpose", TileTransposeOp,
                "$vector `,` $permutation attr-dict `:` type($vector) `->` type($result)", _MAP)
xetile.spelling("convert_layout", TileConvLayoutOp,
                "$vector attr-dict `:` type($vector)",
                {"wg_map_result": "wg_map"})
xetile.spelling("load", LoadGatherOp,
                "$tile `,` $mask attr-dict `:` type($tile) `,` type($mask) `->` type($result)")
xetile.spelling("store", StoreScatterOp,
                "$value `,` $tile `,` $mask attr-dict `:` type($value) `,` type($tile) `,` type($mask)")
xetile.spelling("atomic_rmw", AtomicRmwTileOp,
                "$kind $value `,` $tile attr-dict `:` type($value) `,` type($tile) `->` type($result)")
