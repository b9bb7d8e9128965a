"""Index arithmetic of `xetile-wg-to-sg`: this subgroup's coordinates on the sg_layout grid (from
`gpu.subgroup_id`, placed row-major) and the offsets of its subtiles, built once at the function
entry and reused (offsets depend only on the subgroup id). Mixed into `WgToSg`."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .distribution import Layout


class SubgroupIndexing:
    """Index arithmetic of this subgroup's subtile offsets."""

    def _hoist(self):
        return ir.InsertionPoint(self.anchor)

    def const(self, v: int):
        c = self._consts.get(v)
        if c is None:
            with self._hoist(), self.func.location:
                c = arith.ConstantOp(ir.IndexType.get(), v).result
            self._consts[v] = c
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
                    got = arith.DivUIOp(self.sg, self.const(l1)).result
                else:
                    got = arith.RemUIOp(self.sg, self.const(l1)).result
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
                got = arith.MulIOp(cid, self.const(dd)).result
                if l * dd > t:
                    got = arith.RemUIOp(got, self.const(t)).result
        self._bases[key] = got
        return got

    def add(self, a, b, hoist=False):
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(a, int) and a == 0:
            return b
        if isinstance(b, int) and b == 0:
            return a
        if isinstance(a, int):  # constants on the right, as MLIR canonicalizes
            a, b = b, a
        if hoist:
            key = ("add", a, b)
            got = self._bases.get(key)
            if got is None:
                with self._hoist(), self.func.location:
                    got = arith.AddIOp(self._v(a), self._v(b)).result
                self._bases[key] = got
            return got
        return arith.AddIOp(self._v(a), self._v(b)).result

    def _v(self, x):
        return self.const(x) if isinstance(x, int) else x

    def piece_offsets(self, lay: Layout, k: int):
        """Offsets (ints or index values) of this subgroup's k-th subtile inside the work-group value."""
        n0, n1 = lay.rounds
        rr = (k // n1, k % n1)
        out = []
        for d in range(2):
            step = lay.sg_layout[d] * lay.sg_data[d]
            out.append(self.add(self.base(lay, d), rr[d] * step if step < lay.shape[d] else 0, hoist=True))
        return tuple(out)

    def sub(self, a, b: int):
        if b == 0:
            return a
        if isinstance(a, int):
            return a - b
        return arith.SubIOp(a, self.const(b)).result

    def _div(self, x, d):
        """x / d for a subtile offset (hoisted: offsets only depend on the subgroup id)."""
        if isinstance(x, int):
            return x // d
        if d == 1:
            return x
        key = ("div", x, d)
        got = self._bases.get(key)
        if got is None:
            with self._hoist(), self.func.location:
                got = arith.DivUIOp(x, self.const(d)).result
            self._bases[key] = got
        return got
