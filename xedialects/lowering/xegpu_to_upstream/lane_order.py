"""Per-lane element orders of the lane-level export: which element of a block (or of a DPAS operand
matrix) each of the 16 lanes holds in each slot of its vector, in our SIMT fragments (sg_map
round-robin, transposed / VNNI loads, the DPAS operand rules of docs/simt.md) and in upstream's
lane-level vectors (the 2D block IO and DPAS register order); and the text that reorders one into the
other (nothing, a `vector.shuffle` in the lane, or `gpu.shuffle idx` across lanes)."""
from __future__ import annotations

import numpy as np

from ...xegpu.distribution import lane_coords

LANES = 16


def _vnni(x: np.ndarray, axis: int, f: int) -> np.ndarray:
    """(16, R, C) -> our VNNI fragment order: axis 0 (16, R/f, C, f), axis 1 (16, R, C/f, f)."""
    n, r, c = x.shape
    if axis == 0:
        return x.reshape(n, r // f, f, c).swapaxes(-1, -2)
    return x.reshape(n, r, c // f, f)


def ours_coords(shape, layout, data, transpose=False, vnni_axis=None, f=1):
    """(rows, cols), each (16, n): the block coordinates of our SIMT fragment's slots (the order the
    simulator gives a load_nd result), for a block `shape` distributed by sg_map layout x data."""
    rows, cols = lane_coords(shape, layout, data, LANES)
    if transpose:  # matrix coordinates of the transposed block
        rows, cols = cols.transpose(0, 2, 1), rows.transpose(0, 2, 1)
    if vnni_axis is not None and f > 1:
        rows, cols = _vnni(rows, vnni_axis, f), _vnni(cols, vnni_axis, f)
    return rows.reshape(LANES, -1), cols.reshape(LANES, -1)


def ours_ids(shape, layout, data, transpose=False, vnni_axis=None, f=1) -> np.ndarray:
    """Our fragment's slots as row-major indices into the (transposed when `transpose`) block."""
    rows, cols = ours_coords(shape, layout, data, transpose, vnni_axis, f)
    width = shape[0] if transpose else (shape[-1] if len(shape) == 2 else shape[0])
    return rows * width + cols


def upstream_block_ids(shape, bits: int = 16) -> np.ndarray:
    """Upstream's lane-level vector of a 2D block access: the block row-major over the subgroup's
    registers, lane l holding elements l, l + 16, ... (`load_nd` plain or `packed`: for a 16-wide
    block both give lane l column l, rows in order). An 8-bit block 32 wide (tile_width 32 of 8-bit
    elements: a 16-bit register unit per lane and row, the DPAS A of i8, upstream's lane_data
    [1, 2]) gives lane l bytes 2l, 2l + 1 of every row instead."""
    n = int(np.prod(shape))
    if bits == 8 and len(shape) == 2 and shape[1] == 2 * LANES:
        pairs = np.arange(n).reshape(-1, LANES, 2)        # (row, lane, byte)
        return pairs.transpose(1, 0, 2).reshape(LANES, -1).copy()
    return np.arange(n).reshape(-1, LANES).T.copy()


def upstream_tf32_a_ids(m: int = 8, k: int = 8) -> np.ndarray:
    """The A operand of the tf32 DPAS builtin (`intel_sub_group_tf32_tf32_matrix_mad_k8`, float4 per
    lane): lane l holds row 2j + l / 8, column l % 8 in slot j (sg_map [2, 8] x [1, 1] on 8x8)."""
    return ours_ids((m, k), (2, 8), (1, 1))


class Reorder:
    """Emits the text that turns a per-lane 1D vector whose slots hold `src` ids into one holding
    `dst` ids (both (16, n) tables over the same elements). Lines are appended to `lines`; names come
    from `fresh()`."""

    def __init__(self, fresh, lines):
        self.fresh = fresh
        self.lines = lines
        self.lane = None

    def _lane(self) -> str:
        if self.lane is None:
            self.lane = self.fresh()
            self.lines.append(f"{self.lane} = gpu.lane_id")
        return self.lane

    def table(self, values, t: str) -> str:
        return self._table(values, t)

    def _table(self, values, t: str) -> str:
        """The lane's entry of a constant 16-entry table (`t` i32, index or i1)."""
        vals = [int(v) for v in values]
        if len(set(vals)) == 1:
            c = self.fresh()
            lit = ("true" if vals[0] else "false") if t == "i1" else str(vals[0])
            self.lines.append(f"{c} = arith.constant {lit} : {t}")
            return c
        body = ", ".join(("true" if v else "false") if t == "i1" else str(v) for v in vals)
        c, x = self.fresh(), self.fresh()
        self.lines += [f"{c} = arith.constant dense<[{body}]> : vector<{LANES}x{t}>",
                       f"{x} = vector.extract {c}[{self._lane()}] : {t} from vector<{LANES}x{t}>"]
        return x

    def run(self, name: str, src: np.ndarray, dst: np.ndarray, elt: str) -> str:
        """The name of the reordered vector<n x elt> (`name` itself when the orders agree)."""
        if src.shape == dst.shape and np.array_equal(src, dst):
            return name
        n_src = src.shape[1]
        holder = {}  # element id -> {lane: slot}
        for l in range(LANES):
            for q in range(n_src):
                holder.setdefault(int(src[l, q]), {}).setdefault(l, q)
        plan = []  # per dst slot: [(source lane, source slot)] per lane
        for p in range(dst.shape[1]):
            row = []
            for l in range(LANES):
                e = int(dst[l, p])
                if e not in holder:
                    raise ValueError(f"element {e} is not held by any lane")
                h = holder[e]
                row.append((l, h[l]) if l in h else min(h.items()))
            plan.append(row)
        src_t = f"vector<{n_src}x{elt}>"
        out_t = f"vector<{dst.shape[1]}x{elt}>"
        if all(sl == l for row in plan for l, (sl, _) in enumerate(row)) and \
                all(len({q for _, q in row}) == 1 for row in plan):  # the same slots in every lane
            out = self.fresh()
            idx = ", ".join(str(row[0][1]) for row in plan)
            self.lines.append(f"{out} = vector.shuffle {name}, {name} [{idx}] : {src_t}, {src_t}")
            return out
        elems = []
        for row in plan:
            by_slot = {}
            for l, (sl, q) in enumerate(row):
                by_slot.setdefault(q, []).append((l, sl))
            picked = []
            for q, lanes in sorted(by_slot.items()):
                x = self.fresh()
                self.lines.append(f"{x} = vector.extract {name}[{q}] : {elt} from {src_t}")
                if any(sl != l for l, sl in lanes):
                    srcs = [l for l in range(LANES)]
                    for l, sl in lanes:
                        srcs[l] = sl
                    idx, w, s, ok = self._table(srcs, "i32"), self.fresh(), self.fresh(), self.fresh()
                    self.lines += [f"{w} = arith.constant {LANES} : i32",
                                   f"{s}, {ok} = gpu.shuffle idx {x}, {idx}, {w} : {elt}"]
                    x = s
                picked.append((q, {l for l, _ in lanes}, x))
            val = picked[0][2]
            for q, lanes, x in picked[1:]:
                cond, sel = self._table([l in lanes for l in range(LANES)], "i1"), self.fresh()
                self.lines.append(f"{sel} = arith.select {cond}, {x}, {val} : {elt}")
                val = sel
            elems.append(val)
        out = self.fresh()
        self.lines.append(f"{out} = vector.from_elements {', '.join(elems)} : {out_t}")
        return out
