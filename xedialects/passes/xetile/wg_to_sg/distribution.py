"""Work-group to subgroup distribution math of `#xetile.wg_map` (rfc-xetile.md, "Workgroup Level
XeTile extension"), in plain Python: used by `xetile-wg-to-sg` and by the tests as the oracle.

The rule, per dimension d of a work-group tile of size T with sg_layout[d] = L and sg_data[d] = D:

* subgroups are placed on the sg_layout grid in row-major order of their linear id:
  coordinate (s // L1, s % L1) for a layout [L0, L1];
* the tile is cut into chunks of D elements, handed out to the L coordinates in order;
* round-robin, L*D < T: after the first round (L*D elements) the assignment continues with the
  first coordinate, so coordinate i owns the chunks at i*D + r*L*D for r in [0, T/(L*D));
* wrap-around, L*D >= T: the data is used up before every coordinate got a chunk; the assignment
  wraps to the start of the tile and the remaining coordinates share data: coordinate i owns the
  one chunk at (i*D) mod T.

A subgroup owns the cartesian product of its per-dimension chunks; its subtiles are listed
row-major over (round along dim 0, round along dim 1). Every subtile is sg_data-sized.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence


class Layout(NamedTuple):
    """A work-group value's shape together with its wg_map."""
    shape: tuple
    sg_layout: tuple
    sg_data: tuple

    @staticmethod
    def of(shape, wgm) -> "Layout":
        return Layout(tuple(shape), tuple(wgm.sg_layout), tuple(wgm.sg_data))

    @property
    def num_subgroups(self) -> int:
        return self.sg_layout[0] * self.sg_layout[1]

    @property
    def rounds(self) -> tuple:
        return tuple(num_rounds(t, l, d) for t, l, d in zip(self.shape, self.sg_layout, self.sg_data))

    @property
    def num_subtiles(self) -> int:
        r = self.rounds
        return r[0] * r[1]

    def offsets(self, sg_id: int) -> list:
        return subtile_offsets(self.shape, self.sg_layout, self.sg_data, sg_id)

    def map_text(self) -> str:
        return (f"#xetile.wg_map<sg_layout = [{self.sg_layout[0]}, {self.sg_layout[1]}], "
                f"sg_data = [{self.sg_data[0]}, {self.sg_data[1]}]>")

    def __str__(self):
        return f"{'x'.join(map(str, self.shape))} with {self.map_text()}"


def distribution_errors(shape: Sequence[int], sg_layout: Sequence[int], sg_data: Sequence[int],
                        what: str = "tile") -> list[str]:
    """Why a wg_map cannot distribute a tile of `shape` (empty when it can)."""
    if len(shape) != 2 or len(sg_layout) != 2 or len(sg_data) != 2:
        return [f"wg_map distributes 2D {what}s only, got shape {list(shape)}"]
    errs = []
    for d in range(2):
        t, l, dd = shape[d], sg_layout[d], sg_data[d]
        if l <= 0 or dd <= 0 or t <= 0:
            errs.append(f"sizes must be positive: {what} {list(shape)}, sg_layout {list(sg_layout)}, "
                        f"sg_data {list(sg_data)}")
            continue
        if t % (l * dd) and (l * dd) % t:
            errs.append(f"in dimension {d}, sg_layout*sg_data = {l}*{dd} = {l * dd} must divide the {what} "
                        f"size {t} or be divisible by it (RFC rule)")
        elif t % dd:
            errs.append(f"in dimension {d}, sg_data {dd} does not divide the {what} size {t}: a subgroup's data "
                        f"would not be a contiguous piece of the {what}")
    return errs


def num_rounds(t: int, l: int, d: int) -> int:
    """How many chunks each coordinate owns along one dimension (1 for wrap-around)."""
    return t // (l * d) if l * d < t else 1


def is_wrap(t: int, l: int, d: int) -> bool:
    return l * d > t


def dim_offsets(t: int, l: int, d: int, i: int) -> list:
    """Offsets (in elements) of the chunks owned by coordinate `i` along one dimension."""
    if l * d >= t:
        return [(i * d) % t]
    return [i * d + r * l * d for r in range(t // (l * d))]


def sg_coords(sg_id: int, sg_layout: Sequence[int]) -> tuple:
    """Row-major placement of a linear subgroup id on the sg_layout grid."""
    return sg_id // sg_layout[1], sg_id % sg_layout[1]


def subtile_offsets(shape: Sequence[int], sg_layout: Sequence[int], sg_data: Sequence[int],
                    sg_id: int) -> list:
    """Offsets [(row, col), ...] of the sg_data-sized subtiles subgroup `sg_id` owns, row-major
    over the rounds (the order of the subgroup values the pass produces)."""
    i, j = sg_coords(sg_id, sg_layout)
    rows = dim_offsets(shape[0], sg_layout[0], sg_data[0], i)
    cols = dim_offsets(shape[1], sg_layout[1], sg_data[1], j)
    return [(r, c) for r in rows for c in cols]


def owners(shape, sg_layout, sg_data) -> dict:
    """{(row, col) subtile offset: [subgroup ids owning it]} over the whole work-group."""
    out: dict = {}
    for s in range(sg_layout[0] * sg_layout[1]):
        for off in subtile_offsets(shape, sg_layout, sg_data, s):
            out.setdefault(off, []).append(s)
    return out


# -- static plans between two distributions (used by the pass to avoid SLM round trips) -----------

def _contains(outer_off, outer_size, inner_off, inner_size) -> bool:
    return all(o <= i and i + n <= o + m for o, m, i, n in zip(outer_off, outer_size, inner_off, inner_size))


def local_plan(src: Layout, dst: Layout, to_src=None):
    """When every subgroup already holds the data of each of its `dst` subtiles inside one of its
    own `src` subtiles, the same way for every subgroup, the plan [(src piece index, offset inside
    that piece), ...] per dst piece; else None (the data must move between subgroups).

    `to_src(off, size) -> (off, size)` maps a dst box to the source box it reads (identity by
    default; a transpose swaps, a broadcast collapses the broadcast dimensions)."""
    if src.num_subgroups != dst.num_subgroups:
        return None
    to_src = to_src or (lambda off, size: (off, size))
    plan = None
    for s in range(src.num_subgroups):
        so = src.offsets(s)
        cur = []
        for off in dst.offsets(s):
            box_off, box_size = to_src(off, dst.sg_data)
            hit = None
            for k, o in enumerate(so):
                if _contains(o, src.sg_data, box_off, box_size):
                    hit = (k, tuple(b - a for a, b in zip(o, box_off)))
                    break
            if hit is None:
                return None
            cur.append(hit)
        if plan is None:
            plan = cur
        elif plan != cur:
            return None
    return plan


def local_reduce_plan(src: Layout, dst: Layout, dims: Sequence[int]):
    """tile_reduce over `dims` without data exchange: per dst piece, the list of
    (src piece index, offset of the kept box inside it) whose reduced-dimension chunks cover the
    whole reduced extent exactly once, identical for every subgroup; else None."""
    if src.num_subgroups != dst.num_subgroups:
        return None
    plan = None
    for s in range(src.num_subgroups):
        so = src.offsets(s)
        cur = []
        for off in dst.offsets(s):
            picked, seen = [], set()
            for k, o in enumerate(so):
                ok = True
                for d in range(2):
                    if d in dims:
                        continue
                    if not (o[d] <= off[d] and off[d] + dst.sg_data[d] <= o[d] + src.sg_data[d]):
                        ok = False
                if not ok:
                    continue
                key = tuple(o[d] for d in dims)
                if key in seen:
                    continue
                seen.add(key)
                picked.append((k, tuple(0 if d in dims else off[d] - o[d] for d in range(2))))
            need = 1
            for d in dims:
                need *= src.shape[d] // src.sg_data[d]
            if len(picked) != need:
                return None
            cur.append(tuple(picked))
        if plan is None:
            plan = cur
        elif plan != cur:
            return None
    return plan
