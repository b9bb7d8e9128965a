"""Layouts of 2D block IO in `xegpu-simt-distribute`: descriptor chains (create_nd_tdesc,
update_nd_offset, loop-carried descriptors) and the sg_map each chain takes from its first access,
and the result layouts of block loads, VNNI and transposed loads (docs/simt.md, "Layouts",
"Transposed loads")."""
from __future__ import annotations

import numpy as np
from mlir import ir

from .....arch import elem_bits
from ....utils.ir_walk import as_op, walk
from .....xegpu.attributes import TensorDescType
from .....xegpu.ops import LoadNdOp
from ..common import SG, SimtError, vec_elt, vec_shape
from ..fragment_index import uniform_positions
from ..layouts import Layout, SgMap, default_sgm, lane_coords, load_layout


def descriptor_chains(func):
    """Union the tdesc values connected by update_nd_offset / update_offset and scf.for iter_args."""
    parent = {}

    def find(x):
        while parent[x] is not x and parent[x] != x:
            x = parent[x]
        return x

    ids = {}

    def key(v):
        if v not in ids:
            ids[v] = len(ids)
            parent[ids[v]] = ids[v]
        return ids[v]

    def union(a, b):
        ra, rb = find(key(a)), find(key(b))
        if ra != rb:
            parent[rb] = ra

    def is_td(v):
        return str(v.type).startswith("!xegpu.tensor_desc")

    for op in walk(func):
        n = op.name
        if n in ("xegpu.create_nd_tdesc", "xegpu.create_tdesc"):
            key(op.results[0])
        elif n in ("xegpu.update_nd_offset", "xegpu.update_offset"):
            union(op.operands[0], op.results[0])
        elif n == "scf.for":
            body = op.regions[0].blocks[0]
            for i, v in enumerate(list(op.operands)[3:]):
                if is_td(v):
                    union(v, body.arguments[i + 1])
                    union(v, op.results[i])
        elif n == "scf.yield":
            par = as_op(op.parent)
            if par is not None and par.name == "scf.for":
                body = par.regions[0].blocks[0]
                for i, v in enumerate(op.operands):
                    if is_td(v):
                        union(v, body.arguments[i + 1])
    out = {}
    for v, k in ids.items():
        out[v] = find(k)
    return out


def narrow_block(tdesc) -> bool:
    """True when no sg_map spreads the block of `tdesc` over the work-items (its element count is not
    a multiple of the subgroup size: a one-row block narrower than 16, a column of 8): its accesses
    become scattered ones, each work-item addressing the elements its fragment holds."""
    return int(np.prod(TensorDescType(tdesc.type).shape)) % SG != 0


def narrow_layout(shape) -> Layout:
    """The default layout of a narrow block: work-item l holds elements (l + 16 p) mod n (fewer
    elements than work-items: replicated, each element held by several)."""
    n = int(np.prod(shape))
    count = -(-n // SG)
    tbl = (np.arange(SG).reshape(SG, 1) + SG * np.arange(count).reshape(1, count)) % n
    lane_shape = (count,) if len(shape) == 1 else ((count, 1) if shape[1] == 1 else (1, count))
    return Layout(tuple(shape), tbl.astype(np.int64), lane_shape, "gen")


class BlockIOLayouts:
    """Layout rules of descriptor chains and block loads / stores."""

    def check_narrow(self, op, tdesc):
        """A narrow block's descriptor must come straight from its create_nd_tdesc (its accesses are
        rewritten to scattered ones addressed from the create's offsets)."""
        shape = tuple(TensorDescType(tdesc.type).shape)
        src = tdesc.owner
        src = None if isinstance(src, ir.Block) else as_op(src)
        if src is None or src.name != "xegpu.create_nd_tdesc":
            raise SimtError(op, f"no sg_map distributes the {'x'.join(map(str, shape))} block over {SG} work-items, "
                                "and its scattered form needs the descriptor straight from its create_nd_tdesc "
                                "(not moved by update_nd_offset or carried by a loop)")
        for u in src.results[0].uses:
            if as_op(u.owner).name not in ("xegpu.load_nd", "xegpu.store_nd", "xegpu.prefetch_nd"):
                raise SimtError(op, f"no sg_map distributes the {'x'.join(map(str, shape))} block over {SG} "
                                    f"work-items, and its scattered form cannot follow '{as_op(u.owner).name}'")
        if op.name == "xegpu.load_nd":
            ld = LoadNdOp(op)
            if ld.transpose is not None or (ld.vnni_axis is not None and len(vec_shape(op.results[0])) == 3):
                raise SimtError(op, f"no sg_map distributes the {'x'.join(map(str, shape))} block over {SG} "
                                    "work-items, and a transposed or VNNI load has no scattered form here")

    def narrow_store_layout(self, v) -> Layout:
        """Access layout of a narrow block store: the stored value's own (each work-item stores the
        elements it holds; an element held by several is stored by the first), the default narrow
        layout for values recomputable in any layout; a slice some work-items hold none of stays a
        view of its source's fragments (those work-items store nothing of it)."""
        lv = self.lay.get(v)
        if lv is not None and lv.form == "sparse":
            return lv       # a view of the source fragments: -1 where a work-item holds none
        if lv is None or lv.special or self.remat_able(v):
            return narrow_layout(vec_shape(v))
        return lv

    def chain_layout_sgm(self, op, tdesc, res_form=None, res_want=None, fallbacks=None, legal=None):
        """The sg_map of a descriptor chain: fixed by its first access, from `res_want` (what the
        loaded value's users need), else the first of `fallbacks` (default: the block's default
        distribution) that distributes the block and satisfies `legal`."""
        c = self.chain_of.get(tdesc)
        if c is None:
            raise SimtError(op, "tensor_desc of unknown origin")
        if c not in self.chain_sgm:
            shape = tuple(TensorDescType(tdesc.type).shape)
            sgm = None
            for cand in [res_want] + list(fallbacks if fallbacks is not None else [default_sgm(shape)]):
                if cand is None or (legal is not None and not legal(cand)):
                    continue
                try:
                    lane_coords(shape, cand.wl, cand.wd, SG)
                except ValueError:
                    continue
                sgm = cand
                break
            if sgm is None:
                raise SimtError(op, f"no sg_map distributes the {'x'.join(map(str, shape))} block over {SG} "
                                    "work-items")
            self.chain_sgm[c] = sgm
        return self.chain_sgm[c]

    def fwd_transposed_load(self, op, ld, res, w) -> Layout:
        """Layout of a transposed block load. The descriptor's sg_map distributes the memory block;
        each work-item transposes its fragment in registers (rfc-xetile-xegpu.md: `load_nd
        {transpose = [1, 0]} : tile<8x16xf32, #sg_map> into vector<1x8xf32>`). The sg_map is the
        transpose of the layout the result's users need (work-items along the memory rows whose
        data become their result columns: a DPAS B operand's column per work-item, as the
        hardware's transposing load delivers it). A 32-bit transpose of sub-32-bit data (VNNI
        result) reads whole 32-bit units: wi_data [1, f] on the memory block, the xegpu verifier's
        rule 'wi_data along the vnni_axis (of the transposed data) = f'. When no sg_map gives the
        result's users their layout, the loaded fragments are reordered across work-items
        (`reorder`)."""
        rs = vec_shape(res)
        mshape = tuple(TensorDescType(op.operands[0].type).shape)
        elt = vec_elt(res)
        f = self.arch.vnni_factor(elt) if ld.vnni_axis is not None and elem_bits(elt) < 32 else 1
        if f > 1 and (ld.vnni_axis != 0 or len(rs) != 3):
            raise SimtError(op, "the SIMT form of a transposed load with vnni_axis = 1 is not supported")
        want_sgm = w[1].t() if w is not None and w[0] in ("plain", "vnni") else None
        if f > 1:
            fallbacks = [SgMap((SG, 1), (1, f)), SgMap((SG // 2, 2), (1, f)), SgMap((4, 4), (1, f)),
                         SgMap((2, SG // 2), (1, f)), SgMap((1, SG), (1, f))]
            sgm = self.chain_layout_sgm(op, op.operands[0], res_want=want_sgm, fallbacks=fallbacks,
                                        legal=lambda s: s.wd[1] == f)
            if sgm.wd[1] != f:
                raise SimtError(op, f"a transposed VNNI (32-bit transpose) load needs wi_data [1, {f}] on the memory "
                                    f"block; the descriptor is distributed by {sgm.text()} for another use")
        else:
            sgm = self.chain_layout_sgm(op, op.operands[0], res_want=want_sgm)
        try:
            lay = load_layout(mshape, sgm, rs, transpose=True, f=f)
        except ValueError as e:
            raise SimtError(op, f"cannot distribute the transposed load over {SG} work-items: {e}")
        # the same elements in the same order as an sg_map layout of the result: use that (the
        # load's own per-work-item shape is reshaped when rewritten)
        try:
            canon = Layout.vnni(rs, sgm.t()) if f > 1 else Layout.plain(rs, sgm.t())
            if np.array_equal(canon.tbl, lay.tbl):
                lay = canon
        except ValueError:
            pass
        need = self.want_layout(res)
        if need is not None and not lay.same(need) and uniform_positions(lay.tbl, need.tbl) is None \
                and self.holds_all(lay, need.tbl):
            # the users need elements other work-items loaded: a subgroup reorder after the load
            if len(rs) == 2 and any(as_op(u.owner).name == "xegpu.dpas" and u.operand_number == 0 for u in res.uses):
                # a reordered DPAS A operand does not come straight from the load: packed A order
                fa = self.arch.vnni_factor(elt) if elem_bits(elt) < 32 else 1
                try:
                    need = Layout.plain(rs, SgMap((2, 8), (1, fa)))
                except ValueError:
                    return lay
            self.reorders[res] = (lay, need.tbl)
            return need
        return lay

    def fwd_load_nd(self, op):
        """A block load: its chain's sg_map (from what the result's users want) gives the result's
        layout; plain, VNNI (wi_data [f, 1]) and transposed loads; a reorder after the load when
        the users need elements other work-items loaded."""
        ld = LoadNdOp(op)
        res = op.results[0]
        rs = vec_shape(res)
        w = self.want.get(res)
        if narrow_block(op.operands[0]):
            self.check_narrow(op, op.operands[0])
            want = self.want_layout(res)
            self.set_lay(res, want if want is not None and not want.special else narrow_layout(rs))
            return
        if ld.transpose is not None:
            lay = self.fwd_transposed_load(op, ld, res, w)
        elif ld.vnni_axis == 1 and len(rs) == 3 and elem_bits(vec_elt(res)) < 32:
            raise SimtError(op, "the SIMT form of a load with vnni_axis = 1 is not supported")
        elif ld.vnni_axis is not None and len(rs) == 3:
            f = rs[2]
            want_sgm = w[1] if w is not None else SgMap((1, SG), (f, 1))
            sgm = self.chain_layout_sgm(op, op.operands[0], res_want=want_sgm)
            if sgm.wd[0] != f:
                raise SimtError(op, f"a VNNI load needs wi_data [{f}, 1]; the descriptor is distributed by "
                                    f"{sgm.text()} for another use")
            lay = Layout.vnni(rs, sgm)
        else:
            want_sgm = w[1] if (w is not None and w[0] in ("plain", "1d")) else None
            sgm = self.chain_layout_sgm(op, op.operands[0], res_want=want_sgm)
            lay = Layout.plain(rs, sgm)
            need = self.want_layout(res) if w is not None and w[0] in ("uniform", "tbl") else None
            if need is not None and not lay.same(need) and uniform_positions(lay.tbl, need.tbl) is None \
                    and self.holds_all(lay, need.tbl):
                # the users need elements other work-items loaded (a bias column every work-item
                # broadcasts along its rows): the loaded fragments are exchanged after the load
                self.reorders[res] = (lay, need.tbl)
                lay = need
        self.set_lay(res, lay)

    def fwd_store_nd(self, op):
        """A block store: the stored fragment must be in the chain's layout (or recomputable in it)."""
        v, d = op.operands[0], op.operands[1]
        lv = self.lay_of(op, v)
        if narrow_block(d):
            self.check_narrow(op, d)
            if lv.form == "partial":
                raise SimtError(op, f"stored value {v.get_name()} is {lv.describe()}")
            return
        sgm = self.chain_layout_sgm(op, d, res_want=lv.sgm if lv.form in ("plain", "1d") else None)
        need = Layout.plain(vec_shape(v), sgm)
        if not need.same(lv) and not self.convertible(v, need):
            raise SimtError(op, f"stored fragment layout {lv.describe()} differs from the descriptor's "
                                f"{need.describe()} (a cross-work-item shuffle would be needed)")
