"""The work-item (SIMT) view: the DPAS blocks of A, B (VNNI) and C with every element coloured by
the work-item that holds it under the block's `sg_map` (`wi_layout` x `wi_data`, the rule of
`xedialects.xegpu.distribution.lane_coords`), as in the rfc-xetile-xegpu figures; `wi_data`
groups (VNNI pairs, packed 32-bit units) are outlined."""
from __future__ import annotations

from .common import gemm_line, header
from .svg import LANE_COLOURS, MUTED, Svg, text_on

CELL = 26


def sg_maps_for(plan, facts):
    """role -> (wi_layout, wi_data): the SIMT descriptors' maps when the IR is in SIMT mode, else
    the maps xegpu-simt-distribute gives the DPAS operands (one rule, shared with the pass)."""
    from ..arch import get_arch
    from ..passes.xegpu.simt_distribute.analysis.dpas import dpas_sg_maps

    ta, tb, _ = facts.dpas_types or (plan.a_type, plan.b_type, plan.acc_type)
    a, b, c = dpas_sg_maps(get_arch(plan.arch), ta, tb, facts.a_from_load)
    maps = {"A": (a.wl, a.wd), "B": (b.wl, b.wd), "C": (c.wl, c.wd)}
    maps.update(facts.sg_maps)
    return maps


def _block(svg, x, y, shape, sgm, name, elt, vnni):
    from ..xegpu.distribution import lane_coords

    (wl, wd) = sgm
    rows, cols = lane_coords(shape, wl, wd)
    lane = {}
    for wi in range(rows.shape[0]):
        for r, c in zip(rows[wi].ravel(), cols[wi].ravel()):
            lane[(int(r), int(c))] = wi
    per = (rows.shape[1] // wd[0], 1, wd[0]) if vnni else (rows.shape[1], rows.shape[2])
    title = (f"{name}: {shape[0]}x{shape[1]} {elt}" + (" (VNNI: pairs of rows packed in 32 bits)" if vnni else "")
             + f" - wi_layout {list(wl)}, wi_data {list(wd)}")
    svg.text(x, y - 8, title, size=12, weight="bold")
    svg.open_group(f"wi-{name.split()[0].lower()}", name)
    for (r, c), wi in sorted(lane.items()):
        fill = LANE_COLOURS[wi % len(LANE_COLOURS)]
        svg.rect(x + c * CELL, y + r * CELL, CELL, CELL, fill=fill, stroke="#ffffff", width=0.8, cls="wi",
                 tip=f"{name}[{r}, {c}] held by work-item {wi}")
        svg.text(x + c * CELL + CELL / 2, y + r * CELL + CELL / 2 + 4, str(wi), size=10, anchor="middle",
                 fill=text_on(fill))
    if wd != (1, 1):
        for r in range(0, shape[0], wd[0]):
            for c in range(0, shape[1], wd[1]):
                svg.rect(x + c * CELL, y + r * CELL, wd[1] * CELL, wd[0] * CELL, stroke="#222222", width=1.4)
    svg.rect(x, y, shape[1] * CELL, shape[0] * CELL, stroke="#000000", width=1.5)
    svg.close_group()
    svg.text(x, y + shape[0] * CELL + 16, f"per work-item: vector<{'x'.join(map(str, per))}x{elt}>"
             f" ({rows.shape[1] * rows.shape[2]} elements)", size=11, fill=MUTED)
    return y + shape[0] * CELL + 28


def draw_workitem(plan, facts, kernel: str) -> str:
    svg = Svg(f"@{kernel} work-item view")
    y = header(svg, kernel, "work-item view (SIMT, 16 work-items per subgroup)", gemm_line(plan))
    maps = sg_maps_for(plan, facts)
    ta, tb, tc = facts.dpas_types or (plan.a_type, plan.b_type, plan.acc_type)
    dm, dn, dk = plan.dpas
    dm = min(dm, plan.sg_data[0])
    vnni = maps["B"][1][0] > 1
    x0, top = 24, y + 24
    ya = _block(svg, x0, top, (dm, dk), maps["A"], "A (DPAS operand)", ta, False)
    yc = _block(svg, x0, ya + 24, (dm, dn), maps["C"], "C (DPAS accumulator)", tc, False)
    bx = x0 + max(dk, dn) * CELL + 48
    yb = _block(svg, bx, top, (dk, dn), maps["B"], "B (DPAS operand)", tb, vnni)
    # legend
    ly = max(yc, yb) + 12
    svg.text(16, ly, "work-items", size=14, weight="bold")
    for wi, colour in enumerate(LANE_COLOURS):
        lx = 16 + wi * 44
        svg.rect(lx, ly + 10, 40, 20, fill=colour, stroke="#333333", width=0.6, cls="legend")
        svg.text(lx + 20, ly + 24, f"WI {wi}", size=11, anchor="middle", fill=text_on(colour))
    lines = [f"sg_maps: A wi_layout {list(maps['A'][0])} wi_data {list(maps['A'][1])}; "
             f"B {list(maps['B'][0])} x {list(maps['B'][1])}; C {list(maps['C'][0])} x {list(maps['C'][1])}"
             + (" (from the SIMT descriptors)" if facts.sg_maps else " (the rule xegpu-simt-distribute applies)"),
             "An element's number is the work-item holding it; outlined groups are one work-item's wi_data unit."]
    svg.paragraph(16, ly + 52, lines, size=12, wrap=140)
    return svg.render()
