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


def vnni_pack(x: np.ndarray, axis: int, f: int) -> np.ndarray:
    """VNNI transform of the last two dimensions (R, C) of `x`: axis 0 -> (R/f, C, f) (f consecutive
    rows of a column together), axis 1 -> (R, C/f, f)."""
    *lead, R, C = x.shape
    if axis == 0:
        return x.reshape(*lead, R // f, f, C).swapaxes(-1, -2)
    return x.reshape(*lead, R, C // f, f)


def fragment_coords(shape, wi_layout, wi_data, transpose=False, vnni_axis=None, f: int = 1,
                    subgroup_size: int = SUBGROUP_SIZE):
    """(rows, cols), each (subgroup_size, n): the block coordinates of the elements of each
    work-item's fragment of a SIMT load_nd, in fragment order -- its sg_map share of the memory
    block (`lane_coords`), transposed in the work-item when `transpose`, then VNNI-packed along
    `vnni_axis` by `f` (the simulator's SIMT load_nd; the SPIR-V lowering's lane-level kernels)."""
    rows, cols = lane_coords(shape, wi_layout, wi_data, subgroup_size)
    if transpose:
        rows, cols = rows.transpose(0, 2, 1), cols.transpose(0, 2, 1)
    if vnni_axis is not None and f > 1:
        rows, cols = vnni_pack(rows, vnni_axis, f), vnni_pack(cols, vnni_axis, f)
    return rows.reshape(subgroup_size, -1), cols.reshape(subgroup_size, -1)
