"""Helpers shared by the views: which subgroups own a block of a work-group tile under a wg_map
(the rfc-xetile round-robin / wrap-around rule), id lists as short text, titles and captions."""
from __future__ import annotations

from .svg import MUTED, Svg


def owners(tile, layout, data):
    """Cells of `tile` under the wg_map (layout, data): (row, col, height, width, subgroup ids).
    Per dimension, block b belongs to the layout coordinates j with j % blocks == b % layout
    (round-robin when layout x data < tile, wrap-around -- replication -- when larger)."""
    nb = [max(1, -(-tile[i] // data[i])) for i in range(2)]
    out = []
    for b0 in range(nb[0]):
        for b1 in range(nb[1]):
            j0 = [j for j in range(layout[0]) if j % nb[0] == b0 % layout[0]]
            j1 = [j for j in range(layout[1]) if j % nb[1] == b1 % layout[1]]
            ids = sorted(a * layout[1] + b for a in j0 for b in j1)
            h = min(data[0], tile[0] - b0 * data[0])
            w = min(data[1], tile[1] - b1 * data[1])
            out.append((b0 * data[0], b1 * data[1], h, w, ids))
    return out


def ids_text(ids) -> str:
    """'sg 5', 'sg 0-3' or 'sg 0,4..28' for a sorted id list."""
    if len(ids) == 1:
        return f"sg {ids[0]}"
    step = ids[1] - ids[0]
    if all(b - a == step for a, b in zip(ids, ids[1:])):
        if step == 1:
            return f"sg {ids[0]}-{ids[-1]}"
        if len(ids) == 2:
            return f"sg {ids[0]},{ids[1]}"
        return f"sg {ids[0]},{ids[1]}..{ids[-1]}"
    return "sg " + ",".join(map(str, ids))


def fmt(p) -> str:
    return f"{p[0]}x{p[1]}"


def header(svg: Svg, kernel: str, view: str, subtitle: str) -> float:
    """Title and subtitle; returns the y below them."""
    svg.text(16, 28, f"@{kernel} - {view}", size=20, weight="bold", cls="title")
    svg.text(16, 50, subtitle, size=13, fill=MUTED, cls="subtitle")
    return 72


def gemm_line(plan) -> str:
    """The plan's one-line GEMM statement (first line of GemmPlan.describe)."""
    return plan.describe().splitlines()[0]
