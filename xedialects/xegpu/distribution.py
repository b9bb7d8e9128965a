"""The sg_map rule of rfc-xetile-xegpu.md in numbers: which elements of a block each work-item of
a subgroup holds (`wi_layout` x `wi_data`, round-robin over the block). Shared by the SIMT
distribution pass and the simulator, so both read an sg_map the same way."""
from __future__ import annotations

import numpy as np

SUBGROUP_SIZE = 16


def lane_coords(shape, wi_layout, wi_data, subgroup_size: int = SUBGROUP_SIZE):
    """(rows, cols), each (subgroup_size, Lh, Lw): the block coordinates of the elements each
    work-item holds, in its own order. A 1D block or 1D wi_layout/wi_data is one row. Raises
    ValueError when the layout does not cover the subgroup or does not divide the block."""
    H, W = (1, shape[0]) if len(shape) == 1 else shape
    ly, lx = wi_layout if len(wi_layout) == 2 else (1, wi_layout[0])
    dy, dx = wi_data if len(wi_data) == 2 else (1, wi_data[0])
    if ly * lx != subgroup_size:
        raise ValueError(f"wi_layout {list(wi_layout)} does not cover the {subgroup_size} work-items of a subgroup")
    uy, ux = ly * dy, lx * dx
    if H % uy or W % ux:
        raise ValueError(f"block {list(shape)} is not divisible by wi_layout x wi_data ({uy}x{ux})")
    Lh, Lw = H // uy * dy, W // ux * dx
    lane = np.arange(subgroup_size).reshape(-1, 1, 1)
    i = np.arange(Lh).reshape(1, -1, 1)
    j = np.arange(Lw).reshape(1, 1, -1)
    rows = (i // dy) * uy + (lane // lx) * dy + i % dy
    cols = (j // dx) * ux + (lane % lx) * dx + j % dx
    rows, cols = np.broadcast_arrays(rows, cols)
    return rows.astype(np.int64), cols.astype(np.int64)
