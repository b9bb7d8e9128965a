"""Layouts of `xegpu.dpas` operands in `xegpu-simt-distribute`: the sg_maps of A, B and C (A in
the hardware's element order when it comes straight from a block load, else the packed 32-bit
order of rfc-xetile-xegpu.md; B VNNI-packed) and the check that operands arrive in them, but
for an A operand an element-wise chain computed in another layout, which is converted
(docs/simt.md, "The DPAS operand orders", "Layout conversions")."""
from __future__ import annotations

from .....arch import elem_bits
from ....utils.ir_walk import owner_op
from ..common import SG, SimtError, vec_elt, vec_shape
from ..layouts import Layout, SgMap


def dpas_sg_maps(arch, elt_a, elt_b, a_from_load: bool):
    """(A, B, C) sg_maps of a DPAS with element types elt_a x elt_b on `arch` (an XeArch); A
    straight from a block load (`a_from_load`) keeps the hardware's element order."""
    f = arch.vnni_factor(elt_b) if elem_bits(elt_b) < 32 else 1
    fa = arch.vnni_factor(elt_a) if elem_bits(elt_a) < 32 else 1
    if fa == 1:
        a = SgMap((2, 8), (1, 1))
    elif a_from_load:
        a = SgMap((1, SG), (1, 1))
    else:
        a = SgMap((2, 8), (1, fa))
    return a, SgMap((1, SG), (f, 1)), SgMap((1, SG), (1, 1))


class DpasLayouts:
    """Layout rules of DPAS operands and results."""

    def roles(self, elt_a, elt_b, elt_c, a_value=None):
        """sg_maps of the DPAS operands. A straight from a block load is in the hardware's
        element order ([1, 16] x [1, 1]: work-item i holds elements i, i+16, ... of the row-major
        block, xe-cute-architecture.md); an A fragment computed or carried in registers uses the
        32-bit packed order of rfc-xetile-xegpu.md (sg_map_a: [2, 8] x [1, 32/bits]), the layout
        the SIMT DPAS assumes for operands that do not come from a load."""
        # (a load whose fragments are reordered across work-items does not feed the DPAS directly)
        direct = a_value is not None and owner_op(a_value) is not None and \
            owner_op(a_value).name == "xegpu.load_nd" and a_value not in self.reorders
        return dpas_sg_maps(self.arch, elt_a, elt_b, direct)

    def fwd_dpas(self, op):
        """Every operand must arrive in its role's layout (`roles`); the result is in C's."""
        a, b = op.operands[0], op.operands[1]
        res = op.results[0]
        la, lb, lc = self.roles(vec_elt(a), vec_elt(b), vec_elt(res), a)
        need = [(a, Layout.plain(vec_shape(a), la) if len(vec_shape(a)) == 2 else Layout.vnni(vec_shape(a), la))]
        need.append((b, Layout.vnni(vec_shape(b), lb) if len(vec_shape(b)) == 3 else Layout.plain(vec_shape(b), lb)))
        if len(op.operands) > 2:
            need.append((op.operands[2], Layout.plain(vec_shape(op.operands[2]), lc)))
        for v, lay in need:
            have = self.lay_of(op, v)
            if v == a and not have.same(lay) and self.computed_a(a) and not have.special and \
                    not self.remat_able(a) and self.holds_all(have, lay.tbl):
                # an A operand computed in another layout (analysis/conversions): reordered across
                # the work-items into the order the instruction takes
                self.dpas_a_conv[res] = (have, lay)
                continue
            if not have.same(lay):
                raise SimtError(op, f"DPAS operand {v.get_name()} is distributed as {have.describe()}, the "
                                    f"instruction needs {lay.describe()}")
        self.set_lay(res, Layout.plain(vec_shape(res), lc))
