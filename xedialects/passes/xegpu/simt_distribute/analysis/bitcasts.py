"""Layouts of `vector.bitcast` in `xegpu-simt-distribute` (docs/simt.md, "Bitcasts"). A bitcast
that changes the element width changes the element count along the innermost dimension: a
narrowing one (f32 -> f16) turns each element into r consecutive ones, a widening one
(f16 -> f32) joins s consecutive elements into one. It is a per-work-item bitcast when every
work-item's fragment holds whole, aligned groups of those elements, consecutive in its own
innermost dimension (always true for a narrowing bitcast); otherwise it is a located error."""
from __future__ import annotations

import numpy as np

from .....arch import elem_bits
from ..common import SG, SimtError, vec_elt, vec_shape
from ..fragment_index import uniform_positions
from ..layouts import Layout, SgMap


def bitcast_factor(src_elt, res_elt):
    """(r, s): a source element becomes r result elements (narrowing, s = 1), or s source elements
    become one result element (widening, r = 1)."""
    a, b = elem_bits(src_elt), elem_bits(res_elt)
    return (a // b, 1) if a >= b else (1, b // a)


def narrowed_table(tbl, r):
    """Result table of a narrowing bitcast: source element e at fragment position p becomes result
    elements r*e + k at positions r*p + k (k < r), the row-major order of both the subgroup vector
    and the work-item's fragment scaling alike along the innermost dimension."""
    return (tbl[:, :, None] * r + np.arange(r)[None, None, :]).reshape(tbl.shape[0], -1)


def widened_table(tbl, s, inner):
    """Result table of a widening bitcast joining s elements, or None when some work-item's
    fragment (innermost dimension `inner`) does not hold, at positions s*q .. s*q+s-1, the source
    elements s*m .. s*m+s-1 of one result element m."""
    if inner % s or tbl.shape[1] % s:
        return None
    groups = tbl.reshape(tbl.shape[0], -1, s)
    first = groups[:, :, :1]
    if (first % s != 0).any() or not (groups == first + np.arange(s)[None, None, :]).all():
        return None
    return first[:, :, 0] // s


def grouped_order(tbl, s):
    """Per work-item, its fragment rearranged so that the elements of each wider element are
    consecutive and aligned (groups in order of first appearance); None when a work-item lacks part
    of a group (the group's elements are spread over work-items)."""
    rows = []
    for lane in range(tbl.shape[0]):
        held = set(int(x) for x in tbl[lane])
        row, seen = [], set()
        for x in tbl[lane]:
            m = int(x) // s
            if m in seen:
                continue
            seen.add(m)
            grp = [m * s + k for k in range(s)]
            if not all(g in held for g in grp):
                return None
            row.extend(grp)
        rows.append(row)
    return np.array(rows, np.int64)


class BitcastLayouts:
    """Layout rules of vector.bitcast."""

    def bitcast_source_want(self, op):
        """What the source of a bitcast must hold for the layout its result's users want: the same
        sg_map with wi_data along the innermost dimension scaled by the width ratio (f16 users
        wanting wi_data [1, 2] -> f32 source wi_data [1, 1]); nothing when the wanted layout splits
        the elements of one source element over work-items."""
        src, res = op.operands[0], op.results[0]
        w = self.want.get(res)
        if w is None:
            return None
        form, sgm = w
        if form == "uniform":
            return w
        if form not in ("plain", "1d") or not isinstance(sgm, SgMap):
            return None
        r, s = bitcast_factor(vec_elt(src), vec_elt(res))
        wd = list(sgm.wd)
        if wd[-1] % r:
            return None
        wd[-1] = wd[-1] // r * s
        cand = SgMap(sgm.wl, tuple(wd))
        try:
            Layout.plain(vec_shape(src), cand)
        except ValueError:
            return None
        return form, cand

    def fwd_bitcast(self, op):
        """The result layout of a per-work-item bitcast of the source fragment (a work-item's
        elements rearranged in registers first when it holds whole groups in another order)."""
        src, res = op.operands[0], op.results[0]
        sl = self.lay_of(op, src)
        rshape = vec_shape(res)
        if sl.form == "uniform":
            self.set_lay(res, Layout.uniform(rshape))
            return
        if sl.special:
            raise SimtError(op, f"vector.bitcast of {src.get_name()}, {sl.describe()}")
        r, s = bitcast_factor(vec_elt(src), vec_elt(res))
        lane_shape = tuple(sl.lane_shape) or (1,)
        inner = lane_shape[-1]
        if r > 1:
            tbl = narrowed_table(sl.tbl, r)
            lshape = lane_shape[:-1] + (inner * r,)
        else:
            tbl = widened_table(sl.tbl, s, inner)
            if tbl is None:
                # (whole groups in another order, or across rows of the fragment: flattened first)
                grouped = sl.tbl if widened_table(sl.tbl, s, sl.count) is not None else grouped_order(sl.tbl, s)
                if grouped is None or uniform_positions(sl.tbl, grouped) is None:
                    lane = next((i for i in range(SG) if widened_table(sl.tbl[i:i + 1], s, inner) is None), 0)
                    shown = ", ".join(str(int(x)) for x in sl.tbl[lane][:2 * s])
                    raise SimtError(op, f"vector.bitcast joins {s} consecutive elements of the innermost dimension "
                                        f"into one, but the source is distributed as {sl.describe()}: work-item "
                                        f"{lane} holds elements {shown}, ... (row-major), not whole groups of {s} "
                                        "consecutive elements in its fragment (a cross-work-item reorder would be "
                                        "needed)")
                # whole groups in each work-item: rearranged in registers first
                pre = Layout(sl.shape, grouped, (grouped.shape[1],), "gen")
                self.bitcast_pre[res] = pre
                tbl = widened_table(grouped, s, grouped.shape[1])
                lane_shape, inner = pre.lane_shape, pre.lane_shape[-1]
            lshape = lane_shape[:-1] + (inner // s,)
        lay = Layout(rshape, tbl, lshape, "gen")
        # the same elements in the same order as the layout the users want (or an sg_map layout
        # of the result): use that one (the fragment is reshaped when rewritten)
        cands = [self.want_layout(res)]
        if sl.sgm is not None and len(rshape) == 2:
            wd = list(sl.sgm.wd)
            wd[-1] = wd[-1] * r // s if (wd[-1] * r) % s == 0 else 0
            if wd[-1]:
                try:
                    cands.append(Layout.plain(rshape, SgMap(sl.sgm.wl, tuple(wd))))
                except ValueError:
                    pass
        for cand in cands:
            if cand is not None and not cand.special and cand.tbl.shape == tbl.shape and \
                    np.array_equal(cand.tbl, tbl):
                lay = cand
                break
        self.set_lay(res, lay)
