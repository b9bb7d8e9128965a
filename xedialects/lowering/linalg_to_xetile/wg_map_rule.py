"""The XeTile RFC's wg_map rule and text form (pipeline stage 1), shared by the GEMM planner
(`gemm_plan`) and its local k-slicing checks (`local_kslice`) so that neither imports the other,
and by the kernel writers (`gemm_kernel`, `gemm_epilogue`, `gemv`). A wg_map is a pair
(sg_layout, sg_data) of (rows, columns) pairs.
"""
from __future__ import annotations

__all__ = ["Pair", "WgMap", "wg_map_rule_error", "map_text"]

Pair = tuple[int, int]
WgMap = tuple[Pair, Pair]


def wg_map_rule_error(name: str, tile: Pair, layout: Pair, data: Pair) -> str | None:
    """rfc-xetile.md: 'For each dimension, the size of sg_layout multiplying sg_data must be
    divisible by the wg_tile size or vice versa.' Returns a message or None."""
    for i, dim in enumerate(("rows", "columns")):
        if layout[i] < 1 or data[i] < 1:
            return f"{name}: sg_layout and sg_data must be positive, got {list(layout)} and {list(data)}"
        cover = layout[i] * data[i]
        if cover % tile[i] and tile[i] % cover:
            return (f"{name}: sg_layout[{i}] x sg_data[{i}] = {layout[i]} x {data[i]} = {cover} neither divides "
                    f"nor is divisible by the tile's {dim} {tile[i]} (rfc-xetile wg_map rule)")
    return None


def map_text(m: WgMap) -> str:
    """`m` as the attribute's text: #xetile.wg_map<sg_layout = [r, c], sg_data = [m, n]>."""
    (l0, l1), (d0, d1) = m
    return f"#xetile.wg_map<sg_layout = [{l0}, {l1}], sg_data = [{d0}, {d1}]>"
