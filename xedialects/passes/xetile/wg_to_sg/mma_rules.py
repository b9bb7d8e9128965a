"""Distribution rule of tile_mma: the A/B/C maps are checked against the RFC derivation from
wg_map_c (every subgroup must hold the whole K extent of its rows of A and columns of B), then
each subgroup multiplies the matching pieces (1:N when it owns several subtiles of C). Mixed into
`WgToSg`."""
from __future__ import annotations

from ....xetile.ops import TileMmaOp
from .common import RFC_MMA, PassError, create_op, elt_type, short_map, vector_type, vshape
from .distribution import Layout


class MmaRules:
    """tile_mma: the A/B/C maps checked against the RFC derivation, matching pieces multiplied."""

    def _plan_mma(self, op):
        mma = TileMmaOp(op)
        sa, sb = vshape(mma.a), vshape(mma.b)
        if len(sa) != 2:
            raise PassError(op, "work-group tile_mma works on 2D vectors only")
        mc = self.la.of(op.results[0])
        if mc is None:
            raise PassError(op, "cannot tell how the work-group tile_mma is distributed: give it wg_map_c")
        la, lb = self.la.of(mma.a), self.la.of(mma.b)
        ma = Layout.of(sa, mma.wg_map_a) if mma.wg_map_a is not None else None
        mb = Layout.of(sb, mma.wg_map_b) if mma.wg_map_b is not None else None
        for nm, attr, prod, v in (("wg_map_a", ma, la, mma.a), ("wg_map_b", mb, lb, mma.b)):
            if attr is not None and prod is not None and attr != prod and not self._materializable(v):
                raise PassError(op, f"{nm} ({short_map(attr)}) does not match the map of the operand's producer "
                                    f"({short_map(prod)}); the producer's map must be consistent with the derived one")
        ea = ma or (la if not self._materializable(mma.a) else None)
        eb = mb or (lb if not self._materializable(mma.b) else None)
        K = sa[1]
        ka = ea.sg_data[1] if ea is not None else None
        kb = eb.sg_data[0] if eb is not None else None
        k = ka if ka is not None else kb if kb is not None else K
        want_a = Layout(sa, mc.sg_layout, (mc.sg_data[0], k))
        want_b = Layout(sb, mc.sg_layout, (k, mc.sg_data[1]))
        for nm, have, want in (("A", ea, want_a), ("B", eb, want_b)):
            if have is not None and have != want:
                raise PassError(op, f"the map of {nm} ({short_map(have)}) does not match the one derived from wg_map_c "
                                    f"({short_map(mc)}): expected {short_map(want)} ({RFC_MMA})")
        if ka is not None and kb is not None and ka != kb:
            raise PassError(op, f"sg_data for K differs between A ({ka}) and B ({kb}) ({RFC_MMA})")
        for nm, lay in (("A", want_a), ("B", want_b), ("C", mc)):
            self._check_layout(op, lay, f"tile_mma {nm} operand")
        # every subgroup must hold the whole K extent for its rows of A and columns of B
        if not (k == K or mc.sg_layout[1] == 1):
            raise PassError(op, f"tile_mma: with sg_data[1] = {k} < K = {K}, A's K dimension is split over the "
                                f"{mc.sg_layout[1]} subgroup columns of sg_layout {list(mc.sg_layout)}; each "
                                "subgroup needs the whole K extent (sg_data for K must equal K)")
        if not (k == K or mc.sg_layout[0] == 1):
            raise PassError(op, f"tile_mma: with sg_data[0] = {k} < K = {K}, B's K dimension is split over the "
                                f"{mc.sg_layout[0]} subgroup rows of sg_layout {list(mc.sg_layout)}; each "
                                "subgroup needs the whole K extent (sg_data for K must equal K)")
        return want_a, want_b, mc

    def h_mma(self, rb, op):
        if not self.wg_op(op):
            return None
        want_a, want_b, mc = self._plan_mma(op)
        mma = TileMmaOp(op)
        pa = self.pieces(mma.a, want_a)
        pb = self.pieces(mma.b, want_b)
        pc = self.pieces(mma.c, mc) if mma.c is not None else None
        ec = elt_type(op.results[0])
        tc = vector_type(mc.sg_data, ec)
        nm, nn = mc.rounds
        nka = want_a.rounds[1]
        nkb = want_b.rounds[0]
        nk = max(nka, nkb)
        out = []
        for i in range(nm):
            for j in range(nn):
                acc = pc[i * nn + j] if pc is not None else None
                for kk in range(nk):
                    a = pa[i * nka + min(kk, nka - 1)]
                    b = pb[min(kk, nkb - 1) * nn + j]
                    ops = [a, b] + ([acc] if acc is not None else [])
                    acc = create_op("xetile.tile_mma", ops, [tc]).results[0]
                out.append(acc)
        return [out]
