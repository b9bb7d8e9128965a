"""The work-group view: C's work-group tile split into the subgroup tiles of `sg_layout` (each
`sg_data` cell labelled with its subgroup id), the A tile (left) and B tile (top) of one K step
with the subgroups their wg_maps give each block, the launch grid over the whole C coloured by the
dispatch order of the first wave (row-major or swizzle), and the plan's reasons as captions."""
from __future__ import annotations

from .common import fmt, gemm_line, header, ids_text, owners
from .svg import MUTED, Svg, ramp, subgroup_colour, text_on

TILE_PX = 384       # the longer side of C's work-group tile
MIN_K_PX = 24       # the K-step side of A and B is drawn to C's scale, but never thinner than this
GRID_PX = 300       # the longer side of the grid thumbnail
MAX_GRID = 128      # work-group rows / columns drawn at most


def _tile(svg, x, y, sx, sy, tile, wg_map, nsg, cls, name):
    layout, data = wg_map
    svg.open_group(cls, f"{name} {fmt(tile)}")
    for r, c, h, w, ids in owners(tile, layout, data):
        fill = subgroup_colour(ids[0], nsg) if len(ids) == 1 else "#eeeeee"
        px, py, pw, ph = x + c * sx, y + r * sy, w * sx, h * sy
        tip = f"{name}[{r}:{r + h}, {c}:{c + w}] -> {ids_text(ids)}"
        svg.rect(px, py, pw, ph, fill=fill, width=0.8, cls="cell", tip=tip)
        if pw >= 34 and ph >= 14:
            size = 11 if pw >= 44 else 9
            svg.text(px + pw / 2, py + ph / 2 + 4, ids_text(ids), size=size, anchor="middle", fill=text_on(fill))
    svg.rect(x, y, tile[1] * sx, tile[0] * sy, stroke="#000000", width=2)
    svg.close_group()


def dispatch_position(plan, i):
    """(M tile, N tile) of the i-th work-group launched, by the plan's group order."""
    gn, gm = plan.grid[0], plan.grid[1]
    if plan.group_order == "swizzle" and plan.group_size > 1:
        g = plan.group_size
        grp, local = divmod(i, g * gn)
        first = grp * g
        rows = max(1, min(g, gm - first))
        return first + local % rows, local // rows
    return divmod(i, gn)


def first_wave(plan) -> int:
    """Work-groups resident at once: Xe-cores x work-groups per Xe-core (the planner's wave)."""
    from ..arch import get_arch

    hw = get_arch(plan.arch)
    per_core = max(1, hw.threads_per_core(plan.grf_mode == "large") // max(1, plan.num_subgroups))
    return hw.xe_cores * per_core


def _grid(svg, x, y, plan):
    gn, gm = plan.grid[0], plan.grid[1]
    dm, dn = min(gm, MAX_GRID), min(gn, MAX_GRID)
    cell = max(2.0, min(24.0, GRID_PX / max(dm, dn)))
    wave = min(first_wave(plan), gm * gn)
    order = {}
    for i in range(wave):
        order[dispatch_position(plan, i)] = i
    svg.text(x, y - 8, f"grid over C: {gm} x {gn} work-groups (M x N)"
             + (f", z = {plan.grid[2]}" if plan.grid[2] > 1 else ""), size=13, weight="bold")
    svg.open_group("grid", f"{gm}x{gn}")
    for r in range(dm):
        for c in range(dn):
            i = order.get((r, c))
            fill = ramp(i / max(1, wave - 1)) if i is not None else "#f2f2f2"
            svg.rect(x + c * cell, y + r * cell, cell, cell, fill=fill, stroke="#ffffff", width=0.5, cls="wg",
                     tip=f"work-group (y={r}, x={c})" + (f": launched #{i}" if i is not None else ""))
            if i is not None and cell >= 22:
                svg.text(x + c * cell + cell / 2, y + r * cell + cell / 2 + 3.5, str(i), size=9, anchor="middle",
                         fill=text_on(fill))
    svg.close_group()
    ly = y + dm * cell + 18
    if dm < gm or dn < gn:
        svg.text(x, ly, f"(first {dm} x {dn} shown)", size=11, fill=MUTED)
        ly += 16
    order_txt = plan.group_order + (f", group_size {plan.group_size}" if plan.group_order == "swizzle" else "")
    svg.rect(x, ly - 10, 14, 12, fill=ramp(0.0))
    svg.rect(x + 14, ly - 10, 14, 12, fill=ramp(1.0))
    svg.text(x + 34, ly, f"first wave: {wave} work-groups, launch order {order_txt} (light -> dark)", size=12)
    svg.rect(x, ly + 8, 28, 12, fill="#f2f2f2")
    svg.text(x + 34, ly + 18, "later waves", size=12)
    return ly + 24


def text_width(text: str, size: float, bold: bool = False) -> float:
    """An upper estimate of a text's width in pixels (DejaVu Sans: ~0.6 em per character, bold ~0.66)."""
    return len(text) * size * (0.66 if bold else 0.6)


def draw_workgroup(plan, kernel: str) -> str:
    svg = Svg(f"@{kernel} work-group view")
    y = header(svg, kernel, "work-group view", gemm_line(plan))
    wm, wn = plan.wg_tile
    ks = plan.k_step
    s = TILE_PX / max(wm, wn)
    # A and B are drawn to C's scale (one element = s pixels along K too) unless that is too thin
    k_px = max(MIN_K_PX, ks * s)
    kpx = k_px / ks
    scaled = ks * s >= MIN_K_PX
    nsg = plan.num_subgroups
    a_label = f"A {wm}x{ks}"
    ax = 24
    cx = ax + max(k_px, text_width(a_label, 12, True)) + 24
    by = y + 20
    cy = by + k_px + 24
    svg.text(cx, by - 6, f"B tile {ks}x{wn} {plan.b_type} (one K step)" + (" - stored transposed" if plan.transpose_b
                                                                              else "")
             + ("" if scaled else " - K side not to scale"), size=12, weight="bold")
    _tile(svg, cx, by, s, kpx, (ks, wn), plan.b_wg_map, nsg, "b-tile", "B")
    svg.text(ax, cy - 6, a_label, size=12, weight="bold")
    _tile(svg, ax, cy, kpx, s, (wm, ks), plan.a_wg_map, nsg, "a-tile", "A")
    _tile(svg, cx, cy, s, s, plan.wg_tile, plan.c_wg_map, nsg, "c-tile", "C")
    bottom = cy + wm * s
    # the caption of C, left-aligned under it; the grid and its legend start right of both
    caption = (f"C work-group tile {fmt(plan.wg_tile)} {plan.c_type}: {nsg} subgroups as sg_layout "
               f"{fmt(plan.sg_layout)}, sg_data {fmt(plan.sg_data)}")
    svg.text(cx, bottom + 18, caption, size=12, weight="bold", cls="c-caption")
    gx = cx + max(wn * s, text_width(caption, 12, True)) + 48
    gy_end = _grid(svg, gx, cy, plan)
    y = max(bottom + 44, gy_end + 12)
    maps = [f"wg_map A: sg_layout {list(plan.a_wg_map[0])}, sg_data {list(plan.a_wg_map[1])} over {wm}x{ks}",
            f"wg_map B: sg_layout {list(plan.b_wg_map[0])}, sg_data {list(plan.b_wg_map[1])} over {ks}x{wn}",
            f"wg_map C: sg_layout {list(plan.c_wg_map[0])}, sg_data {list(plan.c_wg_map[1])} over {wm}x{wn}",
            f"{plan.wg_size} work-items per work-group (subgroup size {plan.subgroup_size}); k_step {ks}; "
            f"{plan.grf_mode} GRF mode; split-K {plan.split_k_mode} (k_slices {plan.k_slices})",
            "Cells shared by several subgroups (grey) are replicated: each of them loads the block."]
    svg.text(16, y, "maps", size=14, weight="bold")
    y = svg.paragraph(16, y + 18, maps, size=12)
    svg.text(16, y + 8, "plan reasons", size=14, weight="bold")
    svg.paragraph(16, y + 26, [f"- {r}" for r in plan.reasons], size=12, wrap=140)
    return svg.render()
