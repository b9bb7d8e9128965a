"""The check that names the XeTile forms `convert-xetile-to-xegpu` does not take (an N-D batched
`init_tile`, which `xetile-canonicalize` rewrites to a 2D tile on a `memref.subview`; docs/imex-xetile.md).
Run by the analysis (`tile_plans`) before it plans a tile.
"""
from __future__ import annotations

from ...core.typeinfo import memref_info
from ...xetile.attributes import TileType
from ...xetile.ops import InitTileOp


def is_scattered_tile(value) -> bool:
    """A value of a scattered `!xetile.tile` type."""
    t = value.type
    return str(t).startswith("!xetile.tile") and TileType(t).scattered


def unsupported_form(op) -> str | None:
    """Why the conversion cannot take this xetile op as it is (None: it can)."""
    if op.name == "xetile.init_tile":
        mi = memref_info(InitTileOp(op).source)
        if mi is not None and len(mi[0]) > 2 and not is_scattered_tile(op.results[0]):
            return (f"init_tile on a rank-{len(mi[0])} memref (IMEX's batched form) is not lowered directly; "
                    "run xetile-canonicalize first (it takes a 2D memref.subview)")
    return None
