"""Work-item layouts of `xegpu-simt-distribute`: `SgMap` (an sg_map's wi_layout x wi_data) and
`Layout` (which subgroup elements each of the 16 work-items holds, in which order), with the
layouts of block loads and the default distribution of a block (docs/simt.md, "Layouts")."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....xegpu.distribution import lane_coords
from ....xegpu.ops import simt_shape
from .common import SG


@dataclass(frozen=True)
class SgMap:
    wl: tuple
    wd: tuple

    def t(self):
        return SgMap(self.wl[::-1], self.wd[::-1])

    def text(self):
        return f"wi_layout {list(self.wl)}, wi_data {list(self.wd)}"


class Layout:
    """The distribution of one VC vector value: `tbl[l, p]` is the row-major flat index (in the VC
    vector) of the p-th element work-item l holds; `lane_shape` the per-work-item vector shape.

    Two forms exist only between reductions (`Distributor.fwd_reduction`):
      "sparse"  a view of a slice (or reshaped slice) some work-items hold none or only part of: the
                fragment is the source's, unchanged; tbl is -1 at positions outside the slice.
      "partial" every work-item holds a fragment of the whole shape, and the value is the `kind`
                combination of the 16 fragments (per-work-item partial results of a reduction whose
                cross-work-item step is left to a reduction of the same kind that consumes it)."""

    def __init__(self, shape, tbl, lane_shape, form="gen", sgm=None, kind=None):
        self.shape = tuple(shape)
        self.tbl = tbl
        self.lane_shape = tuple(lane_shape)
        self.form = form
        self.sgm = sgm
        self.kind = kind

    def key(self):
        return (self.shape, self.tbl.tobytes(), self.lane_shape, self.form if self.special else None)

    @property
    def special(self) -> bool:
        """A form only reductions consume ("sparse", "partial")."""
        return self.form in ("sparse", "partial")

    def same(self, other) -> bool:
        if other is None or ((self.special or other.special) and (self.form, self.kind) != (other.form, other.kind)):
            return False
        return self.shape == other.shape and self.lane_shape == other.lane_shape and np.array_equal(self.tbl, other.tbl)

    def describe(self):
        if self.form == "uniform":
            return f"{list(self.shape)} held whole by every work-item"
        if self.form == "partial":
            return f"{list(self.shape)} as per-work-item partial <{self.kind}> results"
        if self.form == "sparse":
            return f"{list(self.shape)} held in part by some work-items (a view for reductions)"
        if self.sgm is not None:
            return f"{self.form} {list(self.shape)} with {self.sgm.text()}"
        return f"{list(self.shape)} (per work-item {list(self.lane_shape)})"

    @property
    def count(self) -> int:
        return int(self.tbl.shape[1])

    def with_lane_shape(self, lane_shape) -> "Layout":
        return Layout(self.shape, self.tbl, lane_shape, self.form, self.sgm, self.kind)

    @staticmethod
    def uniform(shape) -> "Layout":
        """Every work-item holds the whole vector (values that do not depend on the work-item:
        constants, kernel arguments and what is computed from them only)."""
        n = int(np.prod(shape))
        return Layout(shape, np.tile(np.arange(n, dtype=np.int64), (SG, 1)), tuple(shape), "uniform")

    @staticmethod
    def plain(shape, sgm: SgMap) -> "Layout":
        rows, cols = lane_coords(shape, sgm.wl, sgm.wd, SG)
        C = shape[1] if len(shape) == 2 else shape[0]
        tbl = (rows * C + cols).reshape(SG, -1) if len(shape) == 2 else cols.reshape(SG, -1)
        if len(shape) == 2:
            lane_shape = simt_shape_of(shape, sgm)
        else:
            lane_shape = (tbl.shape[1],)
        return Layout(shape, tbl, lane_shape, "plain" if len(shape) == 2 else "1d", sgm)

    @staticmethod
    def vnni(shape3, sgm: SgMap) -> "Layout":
        Rf, C, f = shape3
        R = Rf * f
        rows, cols = lane_coords((R, C), sgm.wl, sgm.wd, SG)
        Lh, Lw = rows.shape[1:]
        if Lh % f:
            raise ValueError(f"VNNI block {list(shape3)}: {sgm.text()} does not give each work-item whole "
                             f"groups of {f} rows")
        rows = rows.reshape(SG, Lh // f, f, Lw).swapaxes(-1, -2)
        cols = cols.reshape(SG, Lh // f, f, Lw).swapaxes(-1, -2)
        tbl = (((rows // f) * C + cols) * f + rows % f).reshape(SG, -1)
        return Layout(shape3, tbl, simt_shape_of((R, C), sgm, vnni=True), "vnni", sgm)

    @staticmethod
    def of(shape, form, sgm: SgMap) -> "Layout":
        if form == "vnni":
            return Layout.vnni(shape, sgm)
        return Layout.plain(shape, sgm)


def simt_shape_of(shape, sgm: SgMap, vnni=False, transpose=False):
    """The per-work-item shape the xegpu verifier expects for a block distributed by sgm."""
    class _M:
        wi_layout = sgm.wl
        wi_data = sgm.wd
    return tuple(simt_shape(shape, _M, vnni=vnni, transpose=transpose))


def load_layout(mshape, sgm: SgMap, rshape, transpose=False, f=1) -> Layout:
    """Result layout of a SIMT block load (as xedialects.sim executes it): each work-item reads the
    fragment `sgm` gives it of the memory block `mshape`, transposed in registers for
    transpose = [1, 0], then VNNI-packed (vnni_axis 0, f elements per 32 bits) when f > 1. With a
    32-bit transpose of sub-32-bit data (wi_data [1, f]) the work-item's f-element groups are the
    32-bit units the hardware transposes."""
    H, W = mshape
    rows, cols = lane_coords((H, W), sgm.wl, sgm.wd, SG)
    if transpose:
        r, c, C = cols.transpose(0, 2, 1), rows.transpose(0, 2, 1), H
    else:
        r, c, C = rows, cols, W
    if f > 1:
        a, b = r.shape[1:]
        if a % f:
            raise ValueError(f"{sgm.text()} does not give each work-item whole groups of {f} VNNI elements")
        r = r.reshape(SG, a // f, f, b).swapaxes(-1, -2)
        c = c.reshape(SG, a // f, f, b).swapaxes(-1, -2)
        flat = ((r // f) * C + c) * f + r % f
    else:
        flat = r * C + c
    lane_shape = simt_shape_of((H, W), sgm, vnni=f > 1, transpose=transpose)
    return Layout(tuple(rshape), flat.reshape(SG, -1), lane_shape, "gen", None)


def default_sgm(shape) -> SgMap:
    """[1, 16] x [1, 1] when 16 columns divide the block, else [16/g, g] x [1, 1]."""
    H, W = (1, shape[0]) if len(shape) == 1 else shape
    g = int(np.gcd(W, SG))
    ly = SG // g
    if len(shape) == 1 or H % ly:
        return SgMap((1, SG), (1, 1))
    return SgMap((ly, g), (1, 1))


def distributable(shape) -> bool:
    """True when the block's default sg_map spreads it evenly over the work-items."""
    sgm = default_sgm(shape)
    try:
        lane_coords(tuple(shape), sgm.wl, sgm.wd, SG)
    except ValueError:
        return False
    return True
