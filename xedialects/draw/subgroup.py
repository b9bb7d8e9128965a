"""The subgroup view: one subgroup's tiles split into hardware blocks -- its C tile (`sg_data`)
into DPAS accumulator blocks, its A and B tiles of one K step into the 2D block loads the kernel
issues (sizes, VNNI / transposed forms, from the lowered XeGPU) over the DPAS operand blocks, and
the cooperative prefetch: the work-group's A and B tiles cut into every subgroup's prefetch block,
subgroup 0's highlighted."""
from __future__ import annotations

from .common import fmt, gemm_line, header, owners
from .svg import MUTED, Svg, subgroup_colour

TILE_PX = 320
PREFETCH_PX = 256
PREFETCH_K = 104
LOAD = {"A": "#fdb462", "B": "#80b1d3"}
DPAS_FILL = {"A": "#fff3e0", "B": "#e8f1fa", "C": "#eaf5e4"}


def _grid_cells(svg, x, y, s, tile, block, cls, fill, label=None, width=0.8, dash=None, stroke="#333333"):
    rows, cols = int(-(-tile[0] // block[0])), int(-(-tile[1] // block[1]))
    for i in range(rows):
        for j in range(cols):
            h = min(block[0], tile[0] - i * block[0])
            w = min(block[1], tile[1] - j * block[1])
            px, py = x + j * block[1] * s, y + i * block[0] * s
            svg.rect(px, py, w * s, h * s, fill=fill, width=width, cls=cls, dash=dash, stroke=stroke,
                     tip=f"{cls} [{i}, {j}]: {h}x{w}")
            if label and w * s >= 30 and h * s >= 14:
                svg.text(px + w * s / 2, py + h * s / 2 + 4, label(i, j), size=10, anchor="middle")
    return rows * cols


def _operand(svg, x, y, s, tile, dblock, loads, role):
    """An operand tile: DPAS operand blocks (thin) under its 2D block loads (thick, coloured edge)."""
    svg.open_group(f"sg-{role.lower()}", f"{role} {fmt(tile)}")
    _grid_cells(svg, x, y, s, tile, dblock, f"dpas-{role.lower()}", DPAS_FILL[role], width=0.6, dash="3,2",
                stroke="#777777")
    svg.rect(x, y, tile[1] * s, tile[0] * s, stroke="#000000", width=1.5)
    for ld in loads:
        forms = (" VNNI" if ld.vnni else "") + (" T" if ld.transpose else "")
        _grid_cells(svg, x + 1.5, y + 1.5, s, (tile[0] - 3 / s, tile[1] - 3 / s), ld.logical,
                    f"load-{role.lower()}", "none", width=3, stroke=LOAD[role],
                    label=lambda i, j, ld=ld, forms=forms: f"{fmt(ld.shape)}{forms}")
    svg.close_group()


def _prefetch(svg, x, y, tile, pmap, nsg, name, pblock):
    """The work-group tile cut by the prefetch wg_map; subgroup 0's blocks in colour. The K side is
    drawn PREFETCH_K px wide, the other side PREFETCH_PX at most."""
    k_axis = 1 if name == "A" else 0
    sy = PREFETCH_K / tile[0] if k_axis == 0 else PREFETCH_PX / max(tile[0], 1)
    sx = PREFETCH_K / tile[1] if k_axis == 1 else PREFETCH_PX / max(tile[1], 1)
    svg.text(x, y - 22, f"{name} prefetch: work-group tile {fmt(tile)}", size=12, weight="bold")
    svg.text(x, y - 7, f"sg_layout {list(pmap[0])}, sg_data {list(pmap[1])}", size=12)
    svg.open_group(f"prefetch-{name.lower()}", name)
    for r, c, h, w, ids in owners(tile, pmap[0], pmap[1]):
        mine = 0 in ids
        svg.rect(x + c * sx, y + r * sy, w * sx, h * sy, fill=subgroup_colour(0, nsg) if mine else "#f4f4f4",
                 width=0.6, cls="prefetch", tip=f"{name}[{r}:{r + h}, {c}:{c + w}] prefetched by sg {ids}")
    svg.rect(x, y, tile[1] * sx, tile[0] * sy, stroke="#000000", width=1.5)
    svg.close_group()
    note = [f"sg 0 (coloured) prefetches {fmt(pmap[1])}"]
    if pblock:
        note.append(f"IR: {pblock.describe()} per K step")
    svg.paragraph(x, y + tile[0] * sy + 16, note, size=11, fill=MUTED)
    return y + tile[0] * sy + 44


def draw_subgroup(plan, facts, kernel: str) -> str:
    svg = Svg(f"@{kernel} subgroup view")
    y = header(svg, kernel, "subgroup view (one subgroup, one K step)", gemm_line(plan))
    sm, sn = plan.sg_data
    ks = plan.k_step
    dm, dn, dk = plan.dpas
    dm = min(dm, sm)
    s = TILE_PX / max(sm, sn, ks)
    ta, tb, tc = facts.dpas_types or (plan.a_type, plan.b_type, plan.acc_type)
    loads = {r: [b for b in facts.blocks if b.kind == "load" and b.role == r] for r in "AB"}
    pre = {r: next((b for b in facts.blocks if b.kind == "prefetch" and b.role == r), None) for r in "AB"}
    ax, cx = 24, 24 + ks * s + 36
    by = y + 24
    cy = by + ks * s + 36
    svg.text(cx, by - 8, f"B {ks}x{sn} {tb}", size=12, weight="bold")
    _operand(svg, cx, by, s, (ks, sn), (dk, dn), loads["B"], "B")
    svg.text(ax, cy - 8, f"A {sm}x{ks} {ta}", size=12, weight="bold")
    _operand(svg, ax, cy, s, (sm, ks), (dm, dk), loads["A"], "A")
    svg.open_group("sg-c", f"C {fmt(plan.sg_data)}")
    n_c = _grid_cells(svg, cx, cy, s, plan.sg_data, (dm, dn), "dpas-c", DPAS_FILL["C"], width=1,
                      label=lambda i, j: f"C{i},{j}")
    svg.rect(cx, cy, sn * s, sm * s, stroke="#000000", width=1.5)
    svg.close_group()
    svg.text(cx, cy + sm * s + 18, f"C subgroup tile {fmt(plan.sg_data)} {tc}: {n_c} DPAS blocks {dm}x{dn}",
             size=12, weight="bold")
    # legend
    lx, ly = cx + sn * s + 40, by
    svg.text(lx, ly, "legend", size=14, weight="bold")
    items = [(DPAS_FILL["C"], "#333333", None, f"DPAS C block {dm}x{dn} {tc} (accumulator)"),
             (DPAS_FILL["A"], "#777777", "3,2", f"DPAS A operand {dm}x{dk} {ta}"),
             (DPAS_FILL["B"], "#777777", "3,2", f"DPAS B operand {dk}x{dn} {tb}"),
             ("none", LOAD["A"], None, "2D block load of A"),
             ("none", LOAD["B"], None, "2D block load of B")]
    for i, (fill, stroke, dash, text) in enumerate(items):
        yy = ly + 14 + i * 22
        svg.rect(lx, yy, 26, 16, fill=fill, stroke=stroke, width=2.5 if fill == "none" else 1, dash=dash)
        svg.text(lx + 34, yy + 12, text, size=12)
    y = max(cy + sm * s + 50, ly + 14 + len(items) * 22 + 10)
    nsg = plan.num_subgroups
    y1 = _prefetch(svg, 24, y + 36, (plan.wg_tile[0], ks), plan.a_prefetch_map, nsg, "A", pre["A"])
    y2 = _prefetch(svg, 340, y + 36, (ks, plan.wg_tile[1]), plan.b_prefetch_map, nsg, "B", pre["B"])
    y = max(y1, y2) + 8
    lines = [f"per K step ({facts.mode.upper()}-mode XeGPU of @{kernel}): {facts.dpas_per_step} DPAS "
             f"{dm}x{dn}x{dk} ({ta} x {tb} -> {tc})"]
    lines += [f"{b.role}: {b.describe()}" for b in facts.blocks]
    lines.append(f"loads (plan): A {plan.a_load}; B {plan.b_load}")
    lines.append(f"prefetch distance {plan.prefetch_distance} K steps; registers per subgroup: C {plan.acc_bytes} B"
                 f" + A {plan.a_bytes} B + B {plan.b_bytes} B ({plan.grf_mode} GRF mode)")
    svg.text(16, y, "blocks", size=14, weight="bold")
    svg.paragraph(16, y + 18, lines, size=12, wrap=140)
    return svg.render()
