"""Per-lane data layouts for the XeGPU -> SPIR-V conversion (pure numpy, no IR).

A VC-mode XeGPU vector is the data of a whole subgroup of 16 lanes; a SPIR-V kernel is SIMT, so
each lane holds its share of the vector in scalar registers ("slots"). A `Layout` says, for every
element of a vector shape, which lane holds it and in which slot:

    lanes[e], slots[e]   for each element index e (numpy arrays of the vector's shape)
    inv[lane, slot]      the flat element index held there, or -1 (an unused register)

`Layout.canonical(shape, lane_dim)` distributes one dimension over the lanes (element e goes to
lane e[lane_dim] % 16; the other coordinates and e[lane_dim] // 16 enumerate the slots in
row-major order). Block loads produce canonical layouts with the memory column dimension on the
lanes (for an 8x16 block, lane l holds column l: the layout of the Intel DPAS and 2D block
builtins), VNNI blocks <K/f x N x f> put N on the lanes. Data movement (slices, shape casts,
transposes, broadcasts) never moves data between lanes by itself: `Layout.inherit` gives the
result the lanes of the source elements, so these ops cost nothing. Consumers that need a given
layout (DPAS operands, loop-carried values, element-wise operands) ask for a `plan` of the move,
which the converter emits as register selects and subgroup shuffles.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LANES = 16


class Layout:
    """Which lane and slot hold each element of a vector of `shape`."""

    def __init__(self, shape, lanes, slots):
        self.shape = tuple(int(s) for s in shape)
        self.lanes = np.asarray(lanes, dtype=np.int64).reshape(self.shape)
        self.slots = np.asarray(slots, dtype=np.int64).reshape(self.shape)
        self.nslots = int(self.slots.max()) + 1 if self.slots.size else 0
        inv = np.full((LANES, max(self.nslots, 1)), -1, dtype=np.int64)
        flat_l, flat_s = self.lanes.reshape(-1), self.slots.reshape(-1)
        if flat_l.size and (flat_l.min() < 0 or flat_l.max() >= LANES):
            raise ValueError("lane index out of range")
        inv[flat_l, flat_s] = np.arange(flat_l.size)
        if np.count_nonzero(inv >= 0) != flat_l.size:
            raise ValueError("two elements share one lane register")
        self.inv = inv
        self._key = (self.shape, flat_l.tobytes(), flat_s.tobytes())

    def __eq__(self, other):
        return isinstance(other, Layout) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return f"Layout({'x'.join(map(str, self.shape))}, {self.nslots} slots)"

    @property
    def size(self) -> int:
        return int(self.lanes.size)

    @staticmethod
    def canonical(shape, lane_dim: int = -1) -> "Layout":
        shape = tuple(int(s) for s in shape)
        if not shape:
            raise ValueError("a layout needs a vector shape")
        d = lane_dim % len(shape)
        idx = np.indices(shape)
        lanes = idx[d] % LANES
        red = list(shape)
        red[d] = -(-shape[d] // LANES)
        coords = [idx[i] if i != d else idx[i] // LANES for i in range(len(shape))]
        slots = np.ravel_multi_index(coords, red)
        return Layout(shape, lanes, slots)

    @staticmethod
    def from_table(shape, lane_of, slot_of) -> "Layout":
        """A layout given by two functions of the element coordinates (numpy index arrays)."""
        idx = np.indices(tuple(shape))
        return Layout(shape, lane_of(*idx), slot_of(*idx))

    @staticmethod
    def inherit(shape, src: "Layout", src_index) -> "Layout":
        """Result layout of a data movement op: element e of the result is source element
        src_index[e] (flat) and stays in its lane; each lane numbers its elements in result order."""
        src_index = np.asarray(src_index, dtype=np.int64).reshape(-1)
        lanes = src.lanes.reshape(-1)[src_index]
        slots = np.zeros_like(lanes)
        counters = np.zeros(LANES, dtype=np.int64)
        # keep the source slot order where the source registers are distinct
        src_slots = src.slots.reshape(-1)[src_index]
        order = np.lexsort((np.arange(lanes.size), src_slots))
        for e in order:
            ln = lanes[e]
            slots[e] = counters[ln]
            counters[ln] += 1
        return Layout(shape, lanes.reshape(shape), slots.reshape(shape))

    def lane_elements(self, slot: int):
        """{lane: flat element index} of one slot."""
        col = self.inv[:, slot]
        return {ln: int(col[ln]) for ln in range(LANES) if col[ln] >= 0}

    def coords(self, flat: int):
        return tuple(int(c) for c in np.unravel_index(flat, self.shape))


@dataclass
class Piece:
    """Part of a moved slot: the lanes `lanes` take source slot `src_slot` from the source lanes
    `src_lanes` (lane -> source lane); `local` when every lane reads itself (no shuffle)."""

    src_slot: int
    lanes: dict

    @property
    def local(self) -> bool:
        return all(ln == s for ln, s in self.lanes.items())


def plan_move(src: Layout, dst: Layout, src_index=None) -> list[list[Piece]]:
    """For each slot of `dst`, the pieces that assemble it from `src` registers. `src_index[e]`
    is the flat source element of destination element e (identity when None)."""
    if src_index is None:
        src_index = np.arange(dst.size)
    src_index = np.asarray(src_index, dtype=np.int64).reshape(-1)
    s_lanes, s_slots = src.lanes.reshape(-1), src.slots.reshape(-1)
    out = []
    for s in range(dst.nslots):
        groups: dict[int, dict] = {}
        for ln, e in dst.lane_elements(s).items():
            se = src_index[e]
            groups.setdefault(int(s_slots[se]), {})[ln] = int(s_lanes[se])
        out.append([Piece(k, v) for k, v in sorted(groups.items())])
    return out


def affine_fit(table: dict):
    """(a, b) with table[l] == a + b*l for every lane l in `table`, or None."""
    if not table:
        return 0, 0
    items = sorted(table.items())
    if len(items) == 1:
        return items[0][1], 0
    (l0, v0), (l1, v1) = items[0], items[1]
    if (v1 - v0) % (l1 - l0):
        return None
    b = (v1 - v0) // (l1 - l0)
    a = v0 - b * l0
    return (a, b) if all(v == a + b * ln for ln, v in items) else None


def lane_mask(lanes) -> int:
    """Bit mask (bit l set for lane l) of a set of lanes."""
    m = 0
    for ln in lanes:
        m |= 1 << int(ln)
    return m
