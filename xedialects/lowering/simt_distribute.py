"""Pass `xegpu-simt-distribute`: VC-mode XeGPU (pipeline stage 4) to SIMT mode (stage 5).

In VC mode a vector is the data of the whole subgroup; in SIMT mode every value is the fragment
of one work-item, and every tensor_desc says how its block is spread over the 16 work-items
(`sg_map`: `wi_layout` x `wi_data`, round-robin over the block, rfc-xetile-xegpu.md).

Layouts (per operand role, 16-bit example):
  DPAS A <8x16>, loaded     wi_layout [1, 16], wi_data [1, 1]  -> vector<8x1xbf16>
  DPAS A <8x16>, otherwise  wi_layout [2, 8],  wi_data [1, 2]  -> vector<4x2xbf16>   (packed 32-bit order)
  DPAS B <8x16x2>           wi_layout [1, 16], wi_data [2, 1]  -> vector<8x1x2xbf16> (VNNI: 4 for 8-bit)
  DPAS C <8x16xf32>         wi_layout [1, 16], wi_data [1, 1]  -> vector<8x1xf32>
  tf32 A <8x8xf32>          wi_layout [2, 8],  wi_data [1, 1]  -> vector<4x1xf32>
A SIMT DPAS takes A in the distribution of the block load that produced it (the hardware's element
order, xe-cute-architecture.md: work-item i holds elements i, i+16, ...); an A operand computed,
sliced or carried in registers is in the packed order of rfc-xetile-xegpu.md (sg_map_a), which is
what the SIMT DPAS assumes for such operands (xedialects.sim follows the same rule).
Other blocks get [1, 16] x [1, 1] when 16 columns divide them, else [16/g, g] x [1, 1].

The pass works in three steps:
1. DPAS A operands are given their own block loads: an A load larger than the DPAS block whose
   result only feeds DPAS A operands through `vector.extract_strided_slice` is split into
   DPAS-row-sized descriptors, so each A fragment comes straight from a block load in the
   hardware's element order (option split-a-loads; more, smaller load messages).
2. Layout analysis: requirements flow backwards from DPAS operands through slices, element-wise
   ops, VNNI conversions and loop-carried values to the loads, which fix the sg_map of each
   descriptor chain (create_nd_tdesc / update_nd_offset / scf.for); then every vector value gets a
   per-lane table (which subgroup elements each work-item holds, in which order).
3. Rewrite: descriptors get their sg_map, `mode = vc` disappears, vectors take their per-work-item
   shapes, and data movement (extract/insert_strided_slice, shape_cast, transpose) is rewritten on
   the fragments -- a strided slice when the fragment elements form a box, a `vector.shuffle`
   otherwise. Anything that would need data from another work-item is reported as an error.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, scf, vector

from ..arch import ArchError, elem_bits, get_arch
from ..core.kinds import DYNAMIC
from ..passes.rebuild import Rebuilder, RewriteError
from ..xegpu.attributes import TensorDescType
from ..xegpu.ops import (CreateNdTdescOp, DpasOp, LoadNdOp, PrefetchNdOp, StoreNdOp, UpdateNdOffsetOp,
                         simt_shape)

SG = 16  # work-items per subgroup
_SCATTERED = ("xegpu.create_tdesc", "xegpu.load_gather", "xegpu.store_scatter", "xegpu.atomic_rmw",
              "xegpu.update_offset", "xegpu.prefetch")
_SCATTERED_MSG = ("'{}' (scattered access) has no SIMT form here: the SIMT create_tdesc takes one offset per "
                  "work-item, which the xegpu verifier does not accept (it requires one offset per lane); keep "
                  "kernels with scattered accesses in VC mode")


class SimtError(Exception):
    def __init__(self, op, message):
        super().__init__(message)
        self.op = op
        self.message = message


def _walk(op):
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                yield child
                yield from _walk(child)


def _op(x):
    return x.operation if hasattr(x, "operation") and not isinstance(x, ir.Operation) else x


def _owner(v):
    o = v.owner
    if isinstance(o, ir.Block):
        return None
    return _op(o)


def _is_vec(v) -> bool:
    return isinstance(v.type, ir.VectorType) or str(v.type).startswith("vector<")


def _vshape(v):
    return tuple(ir.VectorType(v.type).shape)


def _velt(v):
    return str(ir.VectorType(v.type).element_type)


def _vt(shape, elt):
    et = elt if isinstance(elt, ir.Type) else ir.Type.parse(elt)
    return ir.VectorType.get(list(shape), et)


def _ints(attr):
    if attr is None:
        return None
    try:
        return [int(x) for x in ir.DenseI64ArrayAttr(attr)]
    except (ValueError, TypeError):
        return [ir.IntegerAttr(x).value for x in ir.ArrayAttr(attr)]


# ------------------------------------------------------------------------------------------------
# layouts


def lane_coords(shape, wl, wd):
    """(rows, cols), each (16, Lh, Lw): the block elements each work-item holds, round-robin."""
    if len(shape) == 1:
        H, W = 1, shape[0]
    else:
        H, W = shape
    ly, lx = wl
    dy, dx = wd
    if ly * lx != SG:
        raise ValueError(f"wi_layout {list(wl)} does not cover {SG} work-items")
    uy, ux = ly * dy, lx * dx
    if H % uy or W % ux:
        raise ValueError(f"block {list(shape)} is not divisible by wi_layout x wi_data ({uy}x{ux})")
    Lh, Lw = H // uy * dy, W // ux * dx
    lane = np.arange(SG).reshape(-1, 1, 1)
    i = np.arange(Lh).reshape(1, -1, 1)
    j = np.arange(Lw).reshape(1, 1, -1)
    rows = (i // dy) * uy + (lane // lx) * dy + i % dy
    cols = (j // dx) * ux + (lane % lx) * dx + j % dx
    rows, cols = np.broadcast_arrays(rows, cols)
    return rows.astype(np.int64), cols.astype(np.int64)


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
    vector) of the p-th element work-item l holds; `lane_shape` the per-work-item vector shape."""

    def __init__(self, shape, tbl, lane_shape, form="gen", sgm=None):
        self.shape = tuple(shape)
        self.tbl = tbl
        self.lane_shape = tuple(lane_shape)
        self.form = form
        self.sgm = sgm

    def key(self):
        return (self.shape, self.tbl.tobytes(), self.lane_shape)

    def same(self, other) -> bool:
        return other is not None and self.shape == other.shape and self.lane_shape == other.lane_shape and \
            np.array_equal(self.tbl, other.tbl)

    def describe(self):
        if self.sgm is not None:
            return f"{self.form} {list(self.shape)} with {self.sgm.text()}"
        return f"{list(self.shape)} (per work-item {list(self.lane_shape)})"

    @staticmethod
    def plain(shape, sgm: SgMap) -> "Layout":
        rows, cols = lane_coords(shape, sgm.wl, sgm.wd)
        C = shape[1] if len(shape) == 2 else shape[0]
        tbl = (rows * C + cols).reshape(SG, -1) if len(shape) == 2 else cols.reshape(SG, -1)
        if len(shape) == 2:
            lane_shape = _simt_shape(shape, sgm)
        else:
            lane_shape = (tbl.shape[1],)
        return Layout(shape, tbl, lane_shape, "plain" if len(shape) == 2 else "1d", sgm)

    @staticmethod
    def vnni(shape3, sgm: SgMap) -> "Layout":
        Rf, C, f = shape3
        R = Rf * f
        rows, cols = lane_coords((R, C), sgm.wl, sgm.wd)
        Lh, Lw = rows.shape[1:]
        if Lh % f:
            raise ValueError(f"VNNI block {list(shape3)}: {sgm.text()} does not give each work-item whole "
                             f"groups of {f} rows")
        rows = rows.reshape(SG, Lh // f, f, Lw).swapaxes(-1, -2)
        cols = cols.reshape(SG, Lh // f, f, Lw).swapaxes(-1, -2)
        tbl = (((rows // f) * C + cols) * f + rows % f).reshape(SG, -1)
        return Layout(shape3, tbl, _simt_shape((R, C), sgm, vnni=True), "vnni", sgm)

    @staticmethod
    def of(shape, form, sgm: SgMap) -> "Layout":
        if form == "vnni":
            return Layout.vnni(shape, sgm)
        return Layout.plain(shape, sgm)


def _simt_shape(shape, sgm: SgMap, vnni=False, transpose=False):
    """The per-work-item shape the xegpu verifier expects for a block distributed by sgm."""
    class _M:
        wi_layout = sgm.wl
        wi_data = sgm.wd
    return tuple(simt_shape(shape, _M, vnni=vnni, transpose=transpose))


def default_sgm(shape) -> SgMap:
    """[1, 16] x [1, 1] when 16 columns divide the block, else [16/g, g] x [1, 1]."""
    H, W = (1, shape[0]) if len(shape) == 1 else shape
    g = int(np.gcd(W, SG))
    ly = SG // g
    if len(shape) == 1 or H % ly:
        return SgMap((1, SG), (1, 1))
    return SgMap((ly, g), (1, 1))


def _uniform_positions(src_tbl, res_src_idx):
    """For every lane l and result position p, the position q with src_tbl[l, q] == res_src_idx[l, p];
    returns the (uniform) q per p, or None when it differs between work-items or is missing."""
    out = np.full(res_src_idx.shape, -1, np.int64)
    for lane in range(SG):
        pos = {int(x): q for q, x in enumerate(src_tbl[lane])}
        for p, x in enumerate(res_src_idx[lane]):
            q = pos.get(int(x))
            if q is None:
                return None
            out[lane, p] = q
    if not (out == out[0:1]).all():
        return None
    return out[0]


def _box(positions, src_shape, res_shape):
    """Offsets when `positions` (flat indices into a src_shape array, result row-major) form a box
    of shape res_shape in src_shape; else None."""
    if len(src_shape) != len(res_shape):
        return None
    n = int(np.prod(res_shape))
    if len(positions) != n:
        return None
    first = np.unravel_index(int(positions[0]), src_shape)
    grid = np.indices(res_shape).reshape(len(res_shape), -1)
    coords = tuple(grid[d] + first[d] for d in range(len(res_shape)))
    if any((coords[d] >= src_shape[d]).any() for d in range(len(res_shape))):
        return None
    flat = np.ravel_multi_index(coords, src_shape)
    if not np.array_equal(flat, positions):
        return None
    return [int(x) for x in first]


# ------------------------------------------------------------------------------------------------
# the pass


class Distributor:
    def __init__(self, func, arch, ctx, options=None):
        self.func = func
        self.arch = arch
        self.ctx = ctx
        self.options = options
        self.lay: dict = {}          # old vector value -> Layout
        self.want: dict = {}         # old vector value -> (form, SgMap) requirement
        self.chain_of: dict = {}     # tdesc value -> chain id
        self.chain_sgm: dict = {}    # chain id -> SgMap
        self.errors = []
        self._current = func

    # ---- helpers --------------------------------------------------------------------------------
    def is_vc(self) -> bool:
        return any(o.name.startswith("xegpu.") and "mode" in o.attributes for o in _walk(self.func))

    def roles(self, elt_a, elt_b, elt_c, a_value=None):
        """sg_maps of the DPAS operands. A straight from a block load is in the hardware's
        element order ([1, 16] x [1, 1]: work-item i holds elements i, i+16, ... of the row-major
        block, xe-cute-architecture.md); an A fragment computed or carried in registers uses the
        32-bit packed order of rfc-xetile-xegpu.md (sg_map_a: [2, 8] x [1, 32/bits]), the layout
        the SIMT DPAS assumes for operands that do not come from a load."""
        f = self.arch.vnni_factor(elt_b) if elem_bits(elt_b) < 32 else 1
        fa = self.arch.vnni_factor(elt_a) if elem_bits(elt_a) < 32 else 1
        direct = a_value is not None and _owner(a_value) is not None and _owner(a_value).name == "xegpu.load_nd"
        if fa == 1:
            a = SgMap((2, 8), (1, 1))
        elif direct:
            a = SgMap((1, SG), (1, 1))
        else:
            a = SgMap((2, 8), (1, fa))
        b = SgMap((1, SG), (f, 1))
        c = SgMap((1, SG), (1, 1))
        return a, b, c

    # ---- step 1: DPAS A loads -------------------------------------------------------------------
    def chains(self):
        """Union the tdesc values connected by update_nd_offset and scf.for iter_args."""
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

        for op in _walk(self.func):
            n = op.name
            if n == "xegpu.create_nd_tdesc":
                key(op.results[0])
            elif n == "xegpu.update_nd_offset":
                union(op.operands[0], op.results[0])
            elif n == "scf.for":
                body = op.regions[0].blocks[0]
                for i, v in enumerate(list(op.operands)[3:]):
                    if is_td(v):
                        union(v, body.arguments[i + 1])
                        union(v, op.results[i])
            elif n == "scf.yield":
                par = _op(op.parent)
                if par is not None and par.name == "scf.for":
                    body = par.regions[0].blocks[0]
                    for i, v in enumerate(op.operands):
                        if is_td(v):
                            union(v, body.arguments[i + 1])
        out = {}
        for v, k in ids.items():
            out[v] = find(k)
        return out

    def split_a_loads(self) -> None:
        """Give every DPAS A operand its own block load (see module doc)."""
        chain = self.chains()
        uses_by_chain = {}
        for op in _walk(self.func):
            if op.name.startswith("xegpu.") and op.name != "xegpu.create_nd_tdesc":
                for v in op.operands:
                    if v in chain:
                        uses_by_chain.setdefault(chain[v], []).append(op)
        split = {}   # chain -> rows per part
        for c, ops in uses_by_chain.items():
            loads = [o for o in ops if o.name == "xegpu.load_nd"]
            if not loads or any(o.name not in ("xegpu.update_nd_offset", "xegpu.prefetch_nd", "xegpu.load_nd")
                                for o in ops):
                continue
            if any("vnni_axis" in o.attributes or "transpose" in o.attributes for o in loads):
                continue
            m_rows = _a_operand_rows([o.results[0] for o in loads])
            R = _vshape(loads[0].results[0])[0]
            if m_rows is not None and R > m_rows and R % m_rows == 0:
                split[c] = m_rows
        if not split:
            return
        split_vals = {v: split[c] for v, c in chain.items() if c in split}
        me = self

        def h_create(rb, op):
            r = op.results[0]
            if r not in split_vals:
                return None
            m = split_vals[r]
            c = CreateNdTdescOp(op)
            offs = [rb.one(x) if isinstance(x, ir.Value) else x for x in c.mixed("offsets", "static_offsets")]
            sh = [rb.one(x) if isinstance(x, ir.Value) else x for x in c.mixed("shape", "static_shape")]
            st = [rb.one(x) if isinstance(x, ir.Value) else x for x in c.mixed("strides", "static_strides")]
            tv = TensorDescType(r.type)
            R, C = tv.shape
            t = TensorDescType.get([m, C], tv.element_type, **_tdesc_fields(tv))
            out = []
            for k in range(R // m):
                o = list(offs)
                o[-2] = me.add_idx(o[-2], k * m)
                kw = {"shape": sh, "strides": st} if sh else {}
                out.append(CreateNdTdescOp.build(source=rb.one(c.source), offsets=o, mode="vc",
                                                 result_types=[t], **kw).op.results[0])
            return [out]

        def h_update(rb, op):
            if op.operands[0] not in split_vals:
                return None
            u = UpdateNdOffsetOp(op)
            offs = [rb.one(x) if isinstance(x, ir.Value) else x for x in u.mixed("offsets", "static_offsets")]
            return [[UpdateNdOffsetOp.build(tdesc=d, offsets=offs, mode="vc", result_types=[d.type]).op.results[0]
                     for d in rb.map(op.operands[0])]]

        def h_load(rb, op):
            if op.operands[0] not in split_vals:
                return None
            out = []
            for d in rb.map(op.operands[0]):
                tv = TensorDescType(d.type)
                kw = {k: _str_attr(op, k) for k in ("l1_hint", "l2_hint", "l3_hint") if k in op.attributes}
                out.append(LoadNdOp.build(tdesc=d, mode="vc", result_types=[_vt(tv.shape, tv.element_type)],
                                          **kw).op.results[0])
            return [out]

        def h_prefetch(rb, op):
            if op.operands[0] not in split_vals:
                return None
            for d in rb.map(op.operands[0]):
                kw = {k: _str_attr(op, k) for k in ("l1_hint", "l2_hint", "l3_hint") if k in op.attributes}
                PrefetchNdOp.build(tdesc=d, mode="vc", **kw)
            return []

        def h_slice(rb, op):
            src = op.operands[0]
            parts = rb.map(src)
            if len(parts) == 1:
                return None
            offs = _ints(op.attributes["offsets"])
            m = _vshape(parts[0])[0]
            return [parts[offs[0] // m]]

        Rebuilder({"xegpu.create_nd_tdesc": h_create, "xegpu.update_nd_offset": h_update,
                   "xegpu.load_nd": h_load, "xegpu.prefetch_nd": h_prefetch,
                   "vector.extract_strided_slice": h_slice}).run(self.func)

    def add_idx(self, a, k):
        if k == 0:
            return a
        if isinstance(a, int):
            return a + k
        c = arith.ConstantOp(ir.IndexType.get(), k).result
        return arith.AddIOp(a, c).result

    # ---- step 2: layouts ------------------------------------------------------------------------
    def analyse(self) -> bool:
        for op in _walk(self.func):
            if op.name in _SCATTERED:
                self.errors.append((op, _SCATTERED_MSG.format(op.name)))
                return False
        self.chain_of = self.chains()
        self.backward()
        try:
            self.forward_block(self.func.regions[0].blocks[0])
        except SimtError as e:
            self.errors.append((e.op, e.message))
        except ValueError as e:   # a block the chosen layout cannot distribute
            self.errors.append((self._current, f"cannot distribute over {SG} work-items: {e}"))
        return not self.errors

    def desire(self, v, form, sgm) -> bool:
        if not _is_vec(v) or v in self.want:
            return False
        self.want[v] = (form, sgm)
        return True

    def backward(self):
        ops = list(_walk(self.func))
        for op in ops:
            if op.name == "xegpu.dpas":
                a, b = op.operands[0], op.operands[1]
                la, lb, lc = self.roles(_velt(a), _velt(b), _velt(op.results[0]), a)
                self.desire(a, "plain", la)
                self.desire(b, "vnni" if len(_vshape(b)) == 3 else "plain", lb)
                if len(op.operands) > 2:
                    self.desire(op.operands[2], "plain", lc)
                self.desire(op.results[0], "plain", lc)
        for op in ops:
            # stored blocks: the default distribution of the block (unless a DPAS fixed one)
            if op.name == "xegpu.store_nd" and len(_vshape(op.operands[0])) in (1, 2):
                shape = _vshape(op.operands[0])
                self.desire(op.operands[0], "plain" if len(shape) == 2 else "1d", default_sgm(shape))
        changed = True
        while changed:
            changed = False
            for op in reversed(ops):
                n = op.name
                res = list(op.results)
                if n == "scf.for":
                    body = op.regions[0].blocks[0]
                    y = list(body.operations)[-1].operation
                    for i, v in enumerate(list(op.operands)[3:]):
                        ws = [self.want.get(x) for x in (v, body.arguments[i + 1], op.results[i], y.operands[i])]
                        w = next((x for x in ws if x is not None), None)
                        if w is not None:
                            for x in (v, body.arguments[i + 1], op.results[i], y.operands[i]):
                                changed |= self.desire(x, *w)
                    continue
                if len(res) != 1 or res[0] not in self.want:
                    continue
                form, sgm = self.want[res[0]]
                if n == "vector.extract_strided_slice" or (n.startswith(("arith.", "math.")) and n != "arith.constant"):
                    for v in op.operands:
                        if _is_vec(v) and (n == "vector.extract_strided_slice" or _vshape(v) == _vshape(res[0])):
                            changed |= self.desire(v, form, sgm)
                elif n == "vector.insert_strided_slice":
                    changed |= self.desire(op.operands[1], form, sgm)
                    p = op.operands[0]
                    if len(_vshape(p)) == len(_vshape(res[0])):
                        changed |= self.desire(p, form, sgm)
                    elif len(_vshape(p)) == 1 and sgm.wl[0] == 1:
                        changed |= self.desire(p, "1d", SgMap((1, SG), (1, sgm.wd[1])))
                elif n == "vector.transpose":
                    perm = _ints(op.attributes["permutation"])
                    if perm == [1, 0]:
                        changed |= self.desire(op.operands[0], "plain", sgm.t())
                    elif perm == [0, 2, 1]:
                        changed |= self.desire(op.operands[0], "inter", sgm)
                elif n == "vector.shape_cast":
                    src = op.operands[0]
                    if form in ("inter", "vnni", "plain"):
                        f2 = "plain" if len(_vshape(src)) == 2 else ("vnni" if form == "plain" else "inter")
                        changed |= self.desire(src, f2, sgm)

    def chain_layout_sgm(self, op, tdesc, res_form=None, res_want=None):
        c = self.chain_of.get(tdesc)
        if c is None:
            raise SimtError(op, "tensor_desc of unknown origin")
        if c not in self.chain_sgm:
            shape = tuple(TensorDescType(tdesc.type).shape)
            sgm = None
            for cand in (res_want, default_sgm(shape)):
                if cand is None:
                    continue
                try:
                    lane_coords(shape, cand.wl, cand.wd)
                except ValueError:
                    continue
                sgm = cand
                break
            if sgm is None:
                raise SimtError(op, f"no sg_map distributes the {'x'.join(map(str, shape))} block over {SG} "
                                    "work-items")
            self.chain_sgm[c] = sgm
        return self.chain_sgm[c]

    def set_lay(self, v, lay: Layout):
        self.lay[v] = lay

    def lay_of(self, op, v) -> Layout:
        lay = self.lay.get(v)
        if lay is None:
            raise SimtError(op, f"no work-item layout for operand {v.get_name()} of '{op.name}'")
        return lay

    def want_layout(self, v, shape=None):
        w = self.want.get(v)
        shape = shape or _vshape(v)
        if w is None:
            return None
        form, sgm = w
        try:
            if form == "vnni" and len(shape) == 3:
                return Layout.vnni(shape, sgm)
            if len(shape) == 2 and form == "plain":
                return Layout.plain(shape, sgm)
            if len(shape) == 1 and form == "1d":
                return Layout.plain(shape, sgm)
        except ValueError:
            return None
        return None

    def free_layout(self, op, v) -> Layout:
        """Layout of a value whose producer does not fix one (constants, broadcasts)."""
        lay = self.want_layout(v)
        if lay is not None:
            return lay
        shape = _vshape(v)
        try:
            if len(shape) in (1, 2):
                return Layout.plain(shape, default_sgm(shape))
            if len(shape) == 3:
                return Layout.vnni(shape, SgMap((1, SG), (shape[2], 1)))
        except ValueError as e:
            raise SimtError(op, f"cannot distribute {v.type} over {SG} work-items: {e}")
        raise SimtError(op, f"cannot distribute {v.type} over {SG} work-items")

    def derive(self, op, res, src_lay: Layout, res_src_idx_fn):
        """Layout of `res` from a data-movement op: the elements each work-item holds follow the
        source. Prefers the wanted / sg_map layout of the result when it needs no cross-lane move."""
        shape = _vshape(res)
        cands = []
        wl = self.want_layout(res)
        if wl is not None:
            cands.append(wl)
        if src_lay.sgm is not None:
            for form in ("plain", "vnni", "1d"):
                try:
                    if form == "plain" and len(shape) == 2:
                        cands.append(Layout.plain(shape, src_lay.sgm))
                    elif form == "vnni" and len(shape) == 3:
                        cands.append(Layout.vnni(shape, src_lay.sgm))
                    elif form == "1d" and len(shape) == 1:
                        cands.append(Layout.plain(shape, SgMap((1, SG), (1, src_lay.sgm.wd[1]))))
                except ValueError:
                    pass
        for cand in cands:
            idx = res_src_idx_fn(cand.tbl)
            if idx is not None and _uniform_positions(src_lay.tbl, idx) is not None:
                return cand
        # generic: every work-item keeps its elements in source order
        return None

    def forward_block(self, block):
        for op in block.operations:
            self.forward_op(op.operation)

    def forward_op(self, op):
        self._current = op
        n = op.name
        if n in ("scf.yield", "gpu.return", "func.return"):
            return
        if n == "scf.for":
            body = op.regions[0].blocks[0]
            inits = list(op.operands)[3:]
            for i, v in enumerate(inits):
                if _is_vec(v):
                    self.set_lay(body.arguments[i + 1], self.lay_of(op, v))
            self.forward_block(body)
            y = list(body.operations)[-1].operation
            for i, v in enumerate(inits):
                if _is_vec(v):
                    ly = self.lay_of(y, y.operands[i])
                    if not ly.same(self.lay[v]):
                        raise SimtError(y, f"loop-carried value {i}: the yielded fragment layout "
                                           f"({ly.describe()}) differs from the initial one ({self.lay[v].describe()})")
                    self.set_lay(op.results[i], self.lay[v])
            return
        if n in ("scf.if", "scf.while"):
            if any(_is_vec(r) for r in op.results):
                raise SimtError(op, f"'{n}' carrying vectors is not supported by xegpu-simt-distribute")
            for region in op.regions:
                for b in region.blocks:
                    self.forward_block(b)
            return
        if n in _SCATTERED:
            raise SimtError(op, _SCATTERED_MSG.format(n))
        if n == "xegpu.load_nd":
            ld = LoadNdOp(op)
            res = op.results[0]
            rs = _vshape(res)
            w = self.want.get(res)
            if ld.transpose is not None:
                if ld.vnni_axis is not None and elem_bits(_velt(res)) < 32:
                    raise SimtError(op, "the SIMT form of a transposed VNNI (32-bit transpose) load is not supported: "
                                        "it distributes the memory block with wi_data [1, 2] (rfc-xetile-xegpu.md), "
                                        "which the xegpu verifier rejects (it requires wi_data[vnni_axis] = 2 on the "
                                        "memory block)")
                want_sgm = w[1].t() if w is not None else None
                sgm = self.chain_layout_sgm(op, op.operands[0], res_want=want_sgm)
                lay = self.transposed_layout(op, TensorDescType(op.operands[0].type).shape, sgm)
                # the same elements in the same order as an sg_map layout of the result: use that
                # (the load's own per-work-item shape is reshaped when rewritten)
                try:
                    canon = Layout.plain(rs, sgm.t())
                    if np.array_equal(canon.tbl, lay.tbl):
                        lay = canon
                except ValueError:
                    pass
            elif ld.vnni_axis == 1 and len(rs) == 3 and elem_bits(_velt(res)) < 32:
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
            self.set_lay(res, lay)
            return
        if n == "xegpu.store_nd":
            v, d = op.operands[0], op.operands[1]
            lv = self.lay_of(op, v)
            sgm = self.chain_layout_sgm(op, d, res_want=lv.sgm if lv.form in ("plain", "1d") else None)
            need = Layout.plain(_vshape(v), sgm)
            if not need.same(lv):
                raise SimtError(op, f"stored fragment layout {lv.describe()} differs from the descriptor's "
                                    f"{need.describe()} (a cross-work-item shuffle would be needed)")
            return
        if n in ("xegpu.prefetch_nd", "xegpu.update_nd_offset", "xegpu.create_nd_tdesc"):
            return
        if n == "xegpu.dpas":
            a, b = op.operands[0], op.operands[1]
            res = op.results[0]
            la, lb, lc = self.roles(_velt(a), _velt(b), _velt(res), a)
            need = [(a, Layout.plain(_vshape(a), la) if len(_vshape(a)) == 2 else Layout.vnni(_vshape(a), la))]
            need.append((b, Layout.vnni(_vshape(b), lb) if len(_vshape(b)) == 3 else Layout.plain(_vshape(b), lb)))
            if len(op.operands) > 2:
                need.append((op.operands[2], Layout.plain(_vshape(op.operands[2]), lc)))
            for v, lay in need:
                have = self.lay_of(op, v)
                if not have.same(lay):
                    raise SimtError(op, f"DPAS operand {v.get_name()} is distributed as {have.describe()}, the "
                                        f"instruction needs {lay.describe()}")
            self.set_lay(res, Layout.plain(_vshape(res), lc))
            return
        res = [r for r in op.results if _is_vec(r)]
        if not res and not any(_is_vec(v) for v in op.operands):
            for region in op.regions:
                for b in region.blocks:
                    self.forward_block(b)
            return
        if n == "arith.constant" or n in ("vector.broadcast", "vector.splat"):
            if n != "arith.constant" and _is_vec(op.operands[0]):
                raise SimtError(op, "vector.broadcast of a vector is not supported in SIMT distribution")
            if n == "arith.constant":
                d = ir.DenseElementsAttr(op.attributes["value"])
                if not d.is_splat:
                    raise SimtError(op, "non-splat vector constants are not supported in SIMT distribution")
            self.set_lay(res[0], self.free_layout(op, res[0]))
            return
        if n == "vector.extract_strided_slice":
            self.fwd_slice(op)
            return
        if n == "vector.insert_strided_slice":
            self.fwd_insert(op)
            return
        if n in ("vector.shape_cast", "vector.transpose"):
            self.fwd_move(op)
            return
        if n.startswith(("arith.", "math.")) and len(res) == 1:
            vops = [v for v in op.operands if _is_vec(v)]
            lays = [self.lay_of(op, v) for v in vops]
            ref = lays[0]
            for v, lay in zip(vops, lays):
                if _vshape(v) != _vshape(res[0]) or not lay.same(ref):
                    raise SimtError(op, f"operands of '{n}' are distributed differently ({ref.describe()} vs "
                                        f"{lay.describe()})")
            self.set_lay(res[0], Layout(ref.shape, ref.tbl, ref.lane_shape, ref.form, ref.sgm))
            return
        raise SimtError(op, f"'{n}' on subgroup vectors is not supported by xegpu-simt-distribute")

    def transposed_layout(self, op, mshape, sgm) -> Layout:
        """Result layout of a transposed block load: work-items hold the memory-block fragment of
        `sgm`, transposed in registers."""
        H, W = mshape
        rows, cols = lane_coords((H, W), sgm.wl, sgm.wd)
        # result element (c, r) of the (W, H) result; per work-item order transposed (Lw, Lh)
        tbl = (cols * H + rows).transpose(0, 2, 1).reshape(SG, -1)
        lane_shape = _simt_shape((H, W), sgm, transpose=True)
        return Layout((W, H), tbl, lane_shape, "gen", None)

    def fwd_slice(self, op):
        src, res = op.operands[0], op.results[0]
        sl = self.lay_of(op, src)
        offs = _ints(op.attributes["offsets"])
        sshape, rshape = _vshape(src), _vshape(res)

        def idx_fn(rtbl):
            coords = np.unravel_index(rtbl, rshape)
            sc = tuple(coords[d] + offs[d] for d in range(len(rshape)))
            return np.ravel_multi_index(sc, sshape)

        lay = self.derive(op, res, sl, idx_fn)
        if lay is None:
            lay = self.generic_subset(op, sl, res, idx_fn)
        self.set_lay(res, lay)

    def generic_subset(self, op, sl, res, idx_fn):
        """Result layout where each work-item keeps exactly its source elements that the result covers."""
        rshape = _vshape(res)
        n = int(np.prod(rshape))
        allr = np.arange(n)
        src_of = idx_fn(allr)
        inv = {int(s): r for r, s in enumerate(src_of)}
        rows = []
        for lane in range(SG):
            rows.append([inv[int(x)] for x in sl.tbl[lane] if int(x) in inv])
        if len({len(r) for r in rows}) != 1 or len(rows[0]) * SG != n:
            raise SimtError(op, f"'{op.name}' does not split evenly over the work-items ({sl.describe()})")
        tbl = np.array(rows, np.int64)
        return Layout(rshape, tbl, (tbl.shape[1],), "gen", None)

    def fwd_insert(self, op):
        piece, dest, res = op.operands[0], op.operands[1], op.results[0]
        ld = self.lay_of(op, dest)
        lp = self.lay_of(op, piece)
        offs = _ints(op.attributes["offsets"])
        dshape, pshape = _vshape(dest), _vshape(piece)
        # every piece element must live on the work-item that holds its destination position
        k = len(dshape) - len(pshape)
        pc = np.unravel_index(lp.tbl, pshape)
        full = [np.full(lp.tbl.shape, offs[d]) for d in range(k)] + [pc[d] + offs[k + d] for d in range(len(pshape))]
        didx = np.ravel_multi_index(tuple(full), dshape)
        if _uniform_positions(ld.tbl, didx) is None:
            raise SimtError(op, f"inserting a fragment distributed as {lp.describe()} into {ld.describe()} would "
                                "move data between work-items")
        self.set_lay(res, ld)

    def fwd_move(self, op):
        src, res = op.operands[0], op.results[0]
        sl = self.lay_of(op, src)
        sshape, rshape = _vshape(src), _vshape(res)
        if op.name == "vector.shape_cast":
            def idx_fn(rtbl):
                return rtbl
            src_idx_of_res = lambda tbl: tbl  # noqa: E731
        else:
            perm = _ints(op.attributes["permutation"])

            def idx_fn(rtbl):
                rc = np.unravel_index(rtbl, rshape)
                sc = [None] * len(perm)
                for d, p in enumerate(perm):
                    sc[p] = rc[d]
                return np.ravel_multi_index(tuple(sc), sshape)
            src_idx_of_res = idx_fn
        lay = self.derive(op, res, sl, idx_fn)
        if lay is None:
            # same elements per work-item, in source order
            n = int(np.prod(rshape))
            inv = np.empty(n, np.int64)
            inv[src_idx_of_res(np.arange(n))] = np.arange(n)
            tbl = inv[sl.tbl]
            lay = Layout(rshape, tbl, (tbl.shape[1],), "gen", None)
        self.set_lay(res, lay)

    # ---- step 3: rewrite ------------------------------------------------------------------------
    def lane_type(self, v, lay=None):
        lay = lay or self.lay[v]
        return _vt(lay.lane_shape, _velt(v))

    def new_tdesc_type(self, op, t):
        c = self.chain_of.get(t)
        sgm = self.chain_sgm.get(c)
        tv = TensorDescType(t.type)
        if sgm is None:
            sgm = default_sgm(tuple(tv.shape))
            self.chain_sgm[c] = sgm
        fields = _tdesc_fields(tv)
        fields["sg_map"] = {"wi_layout": tuple(sgm.wl), "wi_data": tuple(sgm.wd)}
        return TensorDescType.get(list(tv.shape), tv.element_type, **fields)

    def move(self, src_new, src_lay: Layout, res_lay: Layout, src_idx, elt):
        """Per-work-item rewrite of a data-movement op: result fragment element p comes from source
        fragment position q[p] (uniform over work-items)."""
        q = _uniform_positions(src_lay.tbl, src_idx)
        if q is None:
            raise SimtError(None, "data movement between work-items")
        rt = _vt(res_lay.lane_shape, elt)
        n_src = int(np.prod(src_lay.lane_shape))
        if np.array_equal(q, np.arange(n_src)) and len(q) == n_src:
            if tuple(src_lay.lane_shape) == tuple(res_lay.lane_shape):
                return src_new
            return vector.shape_cast(rt, src_new)
        off = _box(q, src_lay.lane_shape, res_lay.lane_shape)
        if off is not None:
            return vector.extract_strided_slice(rt, src_new, off, list(res_lay.lane_shape),
                                                [1] * len(off))
        flat_src = src_new
        if len(src_lay.lane_shape) != 1:
            flat_src = vector.shape_cast(_vt((n_src,), elt), src_new)
        sh = vector.shuffle(flat_src, flat_src, [int(x) for x in q])
        if len(res_lay.lane_shape) != 1:
            sh = vector.shape_cast(rt, sh)
        return sh

    def handlers(self):
        return {
            "xegpu.create_nd_tdesc": self.r_create,
            "xegpu.update_nd_offset": self.r_update,
            "xegpu.load_nd": self.r_load,
            "xegpu.store_nd": self.r_store,
            "xegpu.prefetch_nd": self.r_prefetch,
            "xegpu.dpas": self.r_dpas,
            "vector.extract_strided_slice": self.r_slice,
            "vector.insert_strided_slice": self.r_insert,
            "vector.shape_cast": self.r_move,
            "vector.transpose": self.r_move,
            "arith.constant": self.r_const,
            "vector.broadcast": self.r_broadcast,
            "vector.splat": self.r_broadcast,
        }

    def r_create(self, rb, op):
        c = CreateNdTdescOp(op)
        t = self.new_tdesc_type(op, op.results[0])
        offs = [rb.one(x) if isinstance(x, ir.Value) else x for x in c.mixed("offsets", "static_offsets")]
        sh = [rb.one(x) if isinstance(x, ir.Value) else x for x in c.mixed("shape", "static_shape")]
        st = [rb.one(x) if isinstance(x, ir.Value) else x for x in c.mixed("strides", "static_strides")]
        kw = {"shape": sh, "strides": st} if sh else {}
        return [CreateNdTdescOp.build(source=rb.one(c.source), offsets=offs, result_types=[t], **kw).op.results[0]]

    def r_update(self, rb, op):
        u = UpdateNdOffsetOp(op)
        d = rb.one(op.operands[0])
        offs = [rb.one(x) if isinstance(x, ir.Value) else x for x in u.mixed("offsets", "static_offsets")]
        return [UpdateNdOffsetOp.build(tdesc=d, offsets=offs, result_types=[d.type]).op.results[0]]

    def r_load(self, rb, op):
        ld = LoadNdOp(op)
        d = rb.one(op.operands[0])
        kw = {k: _str_attr(op, k) for k in ("l1_hint", "l2_hint", "l3_hint") if k in op.attributes}
        if ld.vnni_axis is not None:
            kw["vnni_axis"] = ld.vnni_axis
        if ld.transpose is not None:
            kw["transpose"] = tuple(ld.transpose)
        res = op.results[0]
        lay = self.lay[res]
        tv = TensorDescType(d.type)
        vnni = ld.vnni_axis is not None and elem_bits(_velt(res)) < 32
        native = _simt_shape(tuple(tv.shape), SgMap(tuple(tv.sg_map.wi_layout), tuple(tv.sg_map.wi_data)),
                             vnni=vnni, transpose=ld.transpose is not None)
        if tuple(native) == tuple(lay.lane_shape):
            return [LoadNdOp.build(tdesc=d, result_types=[self.lane_type(res)], **kw).op.results[0]]
        v = LoadNdOp.build(tdesc=d, result_types=[_vt(native, _velt(res))], **kw).op.results[0]
        return [vector.shape_cast(self.lane_type(res), v)]

    def r_store(self, rb, op):
        kw = {k: _str_attr(op, k) for k in ("l1_hint", "l2_hint", "l3_hint") if k in op.attributes}
        StoreNdOp.build(value=rb.one(op.operands[0]), tdesc=rb.one(op.operands[1]), **kw)
        return []

    def r_prefetch(self, rb, op):
        kw = {k: _str_attr(op, k) for k in ("l1_hint", "l2_hint", "l3_hint") if k in op.attributes}
        PrefetchNdOp.build(tdesc=rb.one(op.operands[0]), **kw)
        return []

    def r_dpas(self, rb, op):
        kw = {}
        if len(op.operands) > 2:
            kw["acc"] = rb.one(op.operands[2])
        res = op.results[0]
        return [DpasOp.build(a=rb.one(op.operands[0]), b=rb.one(op.operands[1]),
                             result_types=[self.lane_type(res)], **kw).op.results[0]]

    def r_slice(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, rl = self.lay[src], self.lay[res]
        offs = _ints(op.attributes["offsets"])
        sshape, rshape = sl.shape, rl.shape
        coords = np.unravel_index(rl.tbl, rshape)
        idx = np.ravel_multi_index(tuple(coords[d] + offs[d] for d in range(len(rshape))), sshape)
        try:
            return [self.move(rb.one(src), sl, rl, idx, _velt(res))]
        except SimtError:
            raise SimtError(op, "extract_strided_slice would move data between work-items")

    def r_move(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, rl = self.lay[src], self.lay[res]
        sshape, rshape = sl.shape, rl.shape
        if op.name == "vector.shape_cast":
            idx = rl.tbl
        else:
            perm = _ints(op.attributes["permutation"])
            rc = np.unravel_index(rl.tbl, rshape)
            sc = [None] * len(perm)
            for d, p in enumerate(perm):
                sc[p] = rc[d]
            idx = np.ravel_multi_index(tuple(sc), sshape)
        try:
            return [self.move(rb.one(src), sl, rl, idx, _velt(res))]
        except SimtError:
            raise SimtError(op, f"'{op.name}' would move data between work-items")

    def r_insert(self, rb, op):
        piece, dest, res = op.operands[0], op.operands[1], op.results[0]
        lp, ldst = self.lay[piece], self.lay[dest]
        offs = _ints(op.attributes["offsets"])
        dshape, pshape = ldst.shape, lp.shape
        k = len(dshape) - len(pshape)
        pc = np.unravel_index(lp.tbl, pshape)
        full = [np.full(lp.tbl.shape, offs[d]) for d in range(k)] + [pc[d] + offs[k + d] for d in range(len(pshape))]
        didx = np.ravel_multi_index(tuple(full), dshape)
        q = _uniform_positions(ldst.tbl, didx)       # dest fragment position of each piece element
        if q is None:
            raise SimtError(op, "insert_strided_slice would move data between work-items")
        elt = _velt(res)
        pnew, dnew = rb.one(piece), rb.one(dest)
        off = _box(q, ldst.lane_shape, lp.lane_shape)
        if off is not None:
            return [vector.insert_strided_slice(pnew, dnew, off, [1] * len(lp.lane_shape))]
        nd = int(np.prod(ldst.lane_shape))
        npc = int(np.prod(lp.lane_shape))
        mask = list(range(nd))
        for p, pos in enumerate(q):
            mask[int(pos)] = nd + p
        fd = dnew if len(ldst.lane_shape) == 1 else vector.shape_cast(_vt((nd,), elt), dnew)
        fp = pnew if len(lp.lane_shape) == 1 else vector.shape_cast(_vt((npc,), elt), pnew)
        sh = vector.shuffle(fd, fp, mask)
        if len(ldst.lane_shape) != 1:
            sh = vector.shape_cast(_vt(ldst.lane_shape, elt), sh)
        return [sh]

    def r_const(self, rb, op):
        res = op.results[0]
        if not _is_vec(res):
            return None
        d = ir.DenseElementsAttr(op.attributes["value"])
        rt = self.lane_type(res)
        return [arith.ConstantOp(rt, ir.DenseElementsAttr.get_splat(rt, d.get_splat_value())).result]

    def r_broadcast(self, rb, op):
        res = op.results[0]
        return [vector.broadcast(self.lane_type(res), rb.one(op.operands[0]))]

    def r_generic(self, rb, op):
        """Element-wise arith/math op on fragments."""
        res = [r for r in op.results if _is_vec(r)]
        if not res:
            return None
        types = [self.lane_type(r) if _is_vec(r) else r.type for r in op.results]
        operands = [rb.one(v) for v in op.operands]
        attrs = _attr_dict(op)
        new = ir.Operation.create(op.name, results=types, operands=operands, attributes=attrs)
        return [new.results[i] for i in range(len(types))]

    def run(self) -> bool:
        if not self.is_vc():
            return True
        if _opt(self.options, "split-a-loads", True):
            try:
                self.split_a_loads()
            except (RewriteError, SimtError) as e:
                self.ctx.error(e.op if e.op is not None else self.func, e.message)
                return False
        if not self.analyse():
            for o, msg in self.errors:
                self.ctx.error(o if o is not None else self.func, msg)
            return False
        handlers = self.handlers()
        dist = self

        class _RB(Rebuilder):
            def process_op(self, op):
                n = op.name
                if n not in self.handlers and n not in ("scf.for", "scf.yield") and \
                        n.startswith(("arith.", "math.")) and any(_is_vec(r) for r in op.results):
                    with ir.InsertionPoint(op), op.location:
                        res = dist.r_generic(self, op)
                    for old, new in zip(op.results, res):
                        self.set(old, new)
                    return True
                return super().process_op(op)

            def _for(self, op):
                # Rebuilder._for, registering the layouts of the new block arguments and results
                lb, ub, step, *inits = list(op.operands)
                body = op.regions[0].blocks[0]
                if not any(self.is_changed(v) for v in op.operands):
                    self.process_block(body)
                    return False
                flat = [self.one(v) for v in inits]
                new = scf.ForOp(self.one(lb), self.one(ub), self.one(step), flat)
                old_args = list(body.arguments)
                old_args[0].replace_all_uses_with(new.induction_variable)
                for old_arg, new_arg in zip(old_args[1:], new.inner_iter_args):
                    if old_arg in dist.lay:
                        dist.lay[new_arg] = dist.lay[old_arg]
                    old_arg.replace_all_uses_with(new_arg)
                for child in list(body.operations):
                    new.body.append(child.operation)
                self.process_block(new.body)
                for old_res, new_res in zip(op.results, new.results):
                    if old_res in dist.lay:
                        dist.lay[new_res] = dist.lay[old_res]
                    old_res.replace_all_uses_with(new_res)
                return True

        rb = _RB(handlers)
        try:
            for region in self.func.regions:
                for block in region.blocks:
                    rb.process_block(block)
        except (SimtError, RewriteError) as e:
            self.ctx.error(e.op if e.op is not None else self.func, e.message)
            return False
        return True


def _a_operand_rows(loaded):
    """DPAS M when the loaded values (possibly carried through scf.for) reach the program only as
    full-width, M-row-aligned `extract_strided_slice`s that are DPAS A operands; else None."""
    values = list(loaded)
    seen = set(values)
    carried = []
    m_rows = None
    i = 0
    while i < len(values):
        v = values[i]
        i += 1
        R, C = _vshape(v)
        for use in v.uses:
            u = _op(use.owner)
            if u.name == "vector.extract_strided_slice":
                offs = _ints(u.attributes["offsets"])
                h, w = _vshape(u.results[0])
                if (offs[1], w) != (0, C) or (m_rows is not None and h != m_rows) or offs[0] % h:
                    return None
                m_rows = h
                for u2 in u.results[0].uses:
                    d = _op(u2.owner)
                    if d.name != "xegpu.dpas" or u2.operand_number != 0:
                        return None
            elif u.name == "scf.for" and use.operand_number >= 3:
                k = use.operand_number - 3
                nxt = [u.regions[0].blocks[0].arguments[k + 1], u.results[k]]
                carried.append((u, k))
            elif u.name == "scf.yield" and _op(u.parent) is not None and _op(u.parent).name == "scf.for":
                par = _op(u.parent)
                k = use.operand_number
                nxt = [par.regions[0].blocks[0].arguments[k + 1], par.results[k]]
                carried.append((par, k))
            else:
                return None
            if u.name in ("scf.for", "scf.yield"):
                for x in nxt:
                    if x not in seen:
                        seen.add(x)
                        values.append(x)
    if carried:
        # a loop-carried A fragment reaches the DPAS through a block argument anyway: splitting
        # its loads gains nothing (it is distributed in the packed A order instead)
        return None
    for loop, k in carried:
        init = list(loop.operands)[3 + k]
        y = list(loop.regions[0].blocks[0].operations)[-1].operation.operands[k]
        if init not in seen or y not in seen:
            return None
    return m_rows


def _str_attr(op, name):
    return ir.StringAttr(op.attributes[name]).value


def _tdesc_fields(tv):
    fields = {}
    if tv.memory_scope != "global":
        fields["memory_scope"] = tv.memory_scope
    if not tv.boundary_check:
        fields["boundary_check"] = False
    if tv.scattered:
        fields["scattered"] = True
    if tv.chunk_size_per_lane != 1:
        fields["chunk_size_per_lane"] = tv.chunk_size_per_lane
    return fields


def _opt(options, name, default):
    if options is None:
        return default
    if isinstance(options, dict):
        return options.get(name, options.get(name.replace("-", "_"), default))
    for n in (name, name.replace("-", "_")):
        if hasattr(options, n):
            return getattr(options, n)
    return default


def _functions(module_op):
    out = []

    def visit(op):
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    child = child.operation
                    if child.name in ("gpu.func", "func.func"):
                        out.append(child)
                    elif child.name in ("builtin.module", "gpu.module"):
                        visit(child)
    visit(module_op.operation if hasattr(module_op, "operation") else module_op)
    return out


def distribute_module(module_op, ctx, arch="pvc", options=None) -> bool:
    a = get_arch(arch)
    ok = True
    for func in _functions(module_op):
        ok = Distributor(func, a, ctx, options).run() and ok
    return ok


from ..passes.registry import Option, register_pass  # noqa: E402


@register_pass("xegpu-simt-distribute",
               "Distribute VC-mode XeGPU to SIMT mode: sg_map on descriptors, per-work-item vectors",
               options=[Option("arch", str, "pvc", "target architecture"),
                        Option("split-a-loads", bool, True,
                               "give each DPAS A operand its own block load (hardware A layout)")])
def xegpu_simt_distribute(module_op, options, ctx):
    try:
        arch = get_arch(_opt(options, "arch", "pvc"))
    except ArchError as e:
        ctx.error(module_op, str(e))
        return False
    return distribute_module(module_op, ctx, arch, options)


def _attr_dict(op) -> dict:
    """Name -> attribute of an op's attributes (iteration yields names or NamedAttributes)."""
    out = {}
    for a in op.attributes:
        if isinstance(a, str):
            out[a] = op.attributes[a]
        else:
            out[a.name] = a.attr
    return out
