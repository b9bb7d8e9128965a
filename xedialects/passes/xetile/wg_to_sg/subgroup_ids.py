"""Index arithmetic of `xetile-wg-to-sg`: this subgroup's coordinates on the sg_layout grid (from
`gpu.subgroup_id`, placed row-major) and the offsets of its subtiles, built once at the function
entry and reused (offsets depend only on the subgroup id). The folding arithmetic itself is
`passes.utils.index_arith`'s. Mixed into `WgToSg`."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from ...utils.index_arith import IndexArith
from .distribution import Layout


class SubgroupIndexing(IndexArith):
    """Index arithmetic of this subgroup's subtile offsets."""

    def _hoist(self):
        return ir.InsertionPoint(self.anchor)

    def index_constant(self, value: int) -> ir.Value:
        c = self._consts.get(value)
        if c is None:
            with self._hoist(), self.func.location:
                c = arith.ConstantOp(ir.IndexType.get(), value).result
            self._consts[value] = c
        return c

    def coord(self, sg_layout, d):
        """Row (d = 0) or column (d = 1) id of this subgroup on the sg_layout grid: subgroup ids are
        placed row-major, so row = sg / sg_layout[1] and column = sg % sg_layout[1]."""
        l0, l1 = key = tuple(sg_layout)
        got = self._coords.get((key, d))
        if got is None:
            with self._hoist(), self.func.location:
                if (l0 if d == 0 else l1) == 1:
                    got = 0
                elif (l1 if d == 0 else l0) == 1:
                    got = self.sg
                elif d == 0:
                    got = self.divui(self.sg, l1)
                else:
                    got = self.remui(self.sg, l1)
            self._coords[(key, d)] = got
        return got

    def base(self, lay: Layout, d: int):
        """Offset of this subgroup's first chunk along dimension d: (id * sg_data) mod size."""
        t, l, dd = lay.shape[d], lay.sg_layout[d], lay.sg_data[d]
        key = (tuple(lay.sg_layout), d, dd, t if l * dd > t else None)
        got = self._bases.get(key)
        if got is not None:
            return got
        cid = 0 if (dd == t or l == 1) else self.coord(lay.sg_layout, d)
        if isinstance(cid, int):
            got = 0
        else:
            with self._hoist(), self.func.location:
                got = self.mul(cid, dd)
                if l * dd > t:
                    got = self.remui(got, t)
        self._bases[key] = got
        return got

    def add(self, a, b, hoist=False):
        """a + b with a constant operand on the right, as MLIR canonicalizes; `hoist`: created once, at
        the function entry (offsets that depend only on the subgroup id)."""
        if isinstance(a, int) and not isinstance(b, int):
            a, b = b, a
        if not hoist:
            return super().add(a, b)
        key = ("add", a, b)
        got = self._bases.get(key)
        if got is None:
            with self._hoist(), self.func.location:
                got = super().add(a, b)
            self._bases[key] = got
        return got

    def piece_offsets(self, lay: Layout, k: int):
        """Offsets (ints or index values) of this subgroup's k-th subtile inside the work-group value."""
        n0, n1 = lay.rounds
        rr = (k // n1, k % n1)
        out = []
        for d in range(2):
            step = lay.sg_layout[d] * lay.sg_data[d]
            out.append(self.add(self.base(lay, d), rr[d] * step if step < lay.shape[d] else 0, hoist=True))
        return tuple(out)

    def _div(self, x, d):
        """x / d for a subtile offset (hoisted: offsets only depend on the subgroup id)."""
        key = ("div", x, d)
        got = self._bases.get(key)
        if got is None:
            with self._hoist(), self.func.location:
                got = self.divui(x, d)
            self._bases[key] = got
        return got
