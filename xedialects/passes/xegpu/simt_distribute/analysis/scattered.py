"""Layouts of scattered access in `xegpu-simt-distribute` (create_tdesc, load_gather,
store_scatter, atomic_rmw, update_offset, prefetch): the access layout of a scattered descriptor
chain (which lanes and chunk elements each work-item addresses) and the layouts of the values it
loads or stores (docs/simt.md, "Gathered blocks")."""
from __future__ import annotations

import numpy as np

from .....xegpu.attributes import TensorDescType
from ..common import SG, SimtError, vec_shape
from ..layouts import Layout, SgMap


class ScatteredLayouts:
    """Layout rules of scattered descriptors, gathers, scatters and atomics."""

    def scatter_info(self, tdesc):
        """(VC type, lanes, chunk) of a scattered descriptor chain (recorded from the VC types, so it
        also answers for descriptors already rewritten, e.g. loop arguments)."""
        c = self.chain_of.get(tdesc)
        info = self.sc_info.get(c)
        if info is None:
            tv = TensorDescType(tdesc.type)
            lanes, chunk = (tv.shape[0], tv.shape[1]) if len(tv.shape) == 2 else (tv.shape[0], 1)
            info = (tv, lanes, chunk)
            if c is not None:
                self.sc_info[c] = info
        return info

    @staticmethod
    def access_to_value(lanes, chunk, vshape):
        """Flat value index of each access element (lane i, chunk element k) = i * chunk + k; a value
        of shape [chunk, lanes] is the transposed (load_gather transpose = [1, 0]) form."""
        e = np.arange(lanes * chunk)
        if chunk > 1 and tuple(vshape) == (chunk, lanes) and chunk != lanes:
            return (e % chunk) * lanes + e // chunk
        return e

    def default_access(self, lanes, chunk) -> Layout:
        n_all = lanes * chunk
        if n_all % SG == 0:
            sgm = SgMap((1, SG), (1, chunk)) if chunk > 1 and (n_all // SG) % chunk == 0 else SgMap((1, SG), (1, 1))
            return Layout.plain((n_all,), sgm)
        if SG % n_all == 0:
            # fewer elements than work-items: work-item i takes element i mod n (duplicates agree)
            return Layout((n_all,), (np.arange(SG) % n_all).reshape(SG, 1), (1,), "gen")
        raise SimtError(None, f"{n_all} scattered elements cannot be spread evenly over {SG} work-items")

    def scatter_access(self, op, tdesc, cand: Layout | None) -> Layout:
        """The access layout of a scattered descriptor chain (which lanes' elements each work-item
        addresses): fixed by its first access, from `cand` (what the value's users or producer
        need), else the default."""
        c = self.chain_of.get(tdesc)
        if c is None:
            raise SimtError(op, "scattered tensor_desc of unknown origin (not created by xegpu.create_tdesc here)")
        if c in self.sc_lay:
            return self.sc_lay[c]
        tv, lanes, chunk = self.scatter_info(tdesc)
        acc = cand
        if acc is None:
            try:
                acc = self.default_access(lanes, chunk)
            except SimtError as e:
                raise SimtError(op, e.message)
        self.sc_lay[c] = Layout(acc.shape, acc.tbl, (acc.count,), acc.form, acc.sgm)
        return self.sc_lay[c]

    def value_layout(self, acc: Layout, lanes, chunk, vshape, like: Layout | None = None) -> Layout:
        a2v = self.access_to_value(lanes, chunk, vshape)
        if (acc.tbl < 0).any():
            # a store of a view some work-items hold none of: -1 where a work-item stores nothing
            return Layout(tuple(vshape), np.where(acc.tbl >= 0, a2v[np.maximum(acc.tbl, 0)], -1), acc.lane_shape,
                          "sparse")
        lay = Layout(tuple(vshape), a2v[acc.tbl], (acc.count,), "gen")
        if like is not None and like.same(lay):
            return like
        if len(vshape) == 1 and acc.sgm is not None:
            return Layout(lay.shape, lay.tbl, lay.lane_shape, "1d", acc.sgm)
        return lay

    def access_of_value(self, lay: Layout, lanes, chunk, vshape) -> Layout:
        a2v = self.access_to_value(lanes, chunk, vshape)
        v2a = np.empty_like(a2v)
        v2a[a2v] = np.arange(a2v.size)
        if lay.form == "sparse":
            return Layout((lanes * chunk,), np.where(lay.tbl >= 0, v2a[np.maximum(lay.tbl, 0)], -1), lay.lane_shape,
                          "sparse")
        return Layout((lanes * chunk,), v2a[lay.tbl], (lay.count,), "gen", lay.sgm if len(vshape) == 1 else None)

    def fwd_scattered(self, op):
        n = op.name
        if n in ("xegpu.create_tdesc", "xegpu.update_offset", "xegpu.prefetch"):
            return      # offsets / deltas follow the chain's access layout when rewritten
        if n == "xegpu.load_gather":
            d, res = op.operands[0], op.results[0]
            tv, lanes, chunk = self.scatter_info(d)
            want = self.want_layout(res)
            cand = None if want is None else self.access_of_value(want, lanes, chunk, vec_shape(res))
            acc = self.scatter_access(op, d, cand)
            self.set_lay(res, self.value_layout(acc, lanes, chunk, vec_shape(res), want))
            return
        # store_scatter / atomic_rmw: the stored values fix the chain's layout unless they can be
        # recomputed in any layout
        v, d = op.operands[0], op.operands[1]
        tv, lanes, chunk = self.scatter_info(d)
        lv = self.lay_of(op, v)
        cand = None if self.remat_able(v) else self.access_of_value(lv, lanes, chunk, vec_shape(v))
        acc = self.scatter_access(op, d, cand)
        if lv.form == "sparse" and not np.array_equal(acc.tbl, cand.tbl):
            raise SimtError(op, f"stored value {v.get_name()} is {lv.describe()}, but the scattered descriptor "
                                "addresses other elements per work-item (a cross-work-item shuffle would be needed)")
        need = self.value_layout(acc, lanes, chunk, vec_shape(v), lv)
        if not self.convertible(v, need):
            raise SimtError(op, f"stored fragment layout {lv.describe()} differs from the scattered descriptor's "
                                f"{need.describe()} (a cross-work-item shuffle would be needed)")
        if n == "xegpu.atomic_rmw":
            self.set_lay(op.results[0], need)
