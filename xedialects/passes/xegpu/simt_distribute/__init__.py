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
Transposed loads (transpose = [1, 0]): the sg_map distributes the memory block and each work-item
transposes its fragment, so the descriptor takes the transpose of the result's layout, e.g. for B
  B^T <16x16xbf16> VNNI     wi_layout [16, 1], wi_data [1, 2]  -> vector<8x1x2xbf16>  (32-bit transpose)
  B^T <16x8xf32>            wi_layout [16, 1], wi_data [1, 1]  -> vector<1x8xf32>
(each work-item reads the memory rows that are its B columns, as the hardware's transposing load
delivers them). No block load gives a transposed A in the packed A order (the lane grid would have
to be column-major): such a load, or the in-register transpose of a loaded 16-bit block, is
followed by a subgroup reorder (`gpu.shuffle idx`, xe-cute-architecture.md "Subgroup Reorders").
A transposed A that no block load can read (e.g. an unaligned pitch) arrives gathered: one
`load_gather` per K row (its M elements), the rows inserted into a K x M block
(`insert_strided_slice`), `vector.transpose` to M x K, slices as DPAS A operands (16-, 8- and 32-bit
data). The rows keep their gathers' distribution (one element per work-item and row: as many
messages as in VC mode; the transposed packed-A sg_map would give each row to two work-items, half
each, and every work-item would gather four elements per row), the block takes its default
distribution, and the transpose is followed by a subgroup reorder to the packed A order (one
`gpu.shuffle idx` of the fragment per pattern of source work-items, each element then picked by
work-item id). A transposed B arriving gathered (one `load_gather` per N row of the N x K memory
block, `vector.transpose` to K x N, then the VNNI shape_cast / transpose) is handled alike: the
transposed DPAS B sg_map would give every row to one work-item (each gathering a whole row: ~5.7x the
VC messages); the rows keep their gathers' distribution and the transpose is followed by a subgroup
reorder to the DPAS B order. A non-transposed block assembled from gathered rows keeps the layout
its users want (each work-item gathers the row elements its fragment holds, e.g. 2 per work-item for a
16-bit packed A: one 32-lane message per row, as in VC mode) unless that takes more than one message
per gathered piece (an 8-bit packed A, [2, 8] x [1, 4]: 4 per work-item); then the rows keep one
element per work-item and the last insert is followed by a subgroup reorder to the wanted layout.
A gathered block assembled in a constant (zeros) that another chain shares (convert-xetile-to-xegpu
uses one zero block for the gathered rows of A, C and e.g. a residual matrix) takes its own layout:
its users' when they want one (re-creating the constant in it), else, when the constant's layout
(fixed by another chain's users, e.g. the packed A order) does not fit its gathered rows, the block's
default distribution ([1, 16] x [1, 1] for 16 columns: the DPAS C layout a residual is added to).
Bias epilogues broadcast a row (1 x n) or a column (m x 1) to a block, usually in the DPAS C layout
([1, 16] x [1, 1]: each work-item holds one column, all rows). A row takes the block's sg_map (each
work-item holds its columns' elements: vector<1x1> per 16 columns) and the broadcast becomes a
per-work-item `vector.broadcast` of that element. A column is needed whole by every work-item
(layout "uniform", as for constants): one-lane scattered loads already give every work-item the
element; a block load (e.g. tensor_desc<32x1xf32>, [16, 1] x [1, 1]) is followed by a subgroup
reorder that gives every work-item the whole column, which then is the work-item's fragment of the
broadcast. Other broadcast patterns hold the source whole and pick elements by work-item id.
Reductions (`vector.multi_reduction`, `vector.reduction`) whose result elements each have all their
source elements in one work-item (column sums of a C block, a source held whole) are reduced per
work-item. Otherwise (row sums of a C block: each work-item holds one column) every work-item
reduces the elements it holds into a partial result of the whole shape, the kind's identity where
it holds none (NaN for minnumf / maxnumf, +-inf for the NaN-propagating minimumf / maximumf,
extreme values for integer min / max), an element several work-items hold counted once; then
`gpu.subgroup_reduce` combines the 16 partials (minui / maxui: `gpu.shuffle xor` butterflies) and
every work-item keeps the result elements its users want (all of them by default: the broadcast
back over the columns, the scattered store of a 16x1 tile). convert-xetile-to-xegpu's chains per
block row (the first column sliced off as the accumulator, the other 15 and the next blocks reduced
onto it) are combined once: slices some work-items hold none of are views of the source fragment
that only reductions consume ("sparse" layout), a result only same-kind reductions consume stays
partial, and views of one fragment are reduced together (a row sum over two 8x16 blocks: one add
and one subgroup_reduce per work-item). Element-wise ops combining like a kind (arith.addf,
maximumf, ...) on such views or partials are handled alike (canonicalize folds the reduction of a
last unit column into one, e.g. the two per-subgroup partial sums of appendix 2.2's row reduction).
Partials that go to lane-dependent result elements are inserted at positions looked up by work-item
id when selecting per work-item group would take more code.

The pass works in three steps:
1. DPAS A operands are given their own block loads: an A load larger than the DPAS block whose
   result only feeds DPAS A operands through `vector.extract_strided_slice` is split into
   DPAS-row-sized descriptors, so each A fragment comes straight from a block load in the
   hardware's element order (option split-a-loads; more, smaller load messages).
2. Layout analysis: requirements flow backwards from DPAS operands through slices, element-wise
   ops, VNNI conversions and loop-carried values to the loads, which fix the sg_map of each
   descriptor chain (create_nd_tdesc / update_nd_offset / scf.for); then every vector value gets a
   per-lane table (which subgroup elements each work-item holds, in which order) and every
   reduction its plan (within the work-items, or partials combined across them).
3. Rewrite: descriptors get their sg_map, `mode = vc` disappears, vectors take their per-work-item
   shapes, and data movement (extract/insert_strided_slice, shape_cast, transpose) is rewritten on
   the fragments -- a strided slice when the fragment elements form a box, a `vector.shuffle`
   otherwise. Data from another work-item is fetched only by the reorders of transposed loads,
   of transposed gathered A and B blocks and of broadcast columns, and by the subgroup reductions of
   reductions across work-items (above); anything else that would need it (e.g. an uneven slice
   used other than by reductions, one element of a distributed vector) is reported as an error.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, gpu, scf, vector

from ....arch import elem_bits
from ...utils.ir_walk import as_op as _op, attr_dict as _attr_dict, owner_op as _owner, walk as _walk
from ...utils.rebuild import Rebuilder, RewriteError
from ....xegpu.attributes import TensorDescType
from ....xegpu.ops import (AtomicRmwOp, CreateNdTdescOp, CreateTdescOp, DpasOp, LoadGatherOp, LoadNdOp,
                         PrefetchNdOp, PrefetchOp, StoreNdOp, StoreScatterOp, UpdateNdOffsetOp, UpdateOffsetOp,
                         simt_shape)

SG = 16  # work-items per subgroup
_SCATTERED = ("xegpu.create_tdesc", "xegpu.load_gather", "xegpu.store_scatter", "xegpu.atomic_rmw",
              "xegpu.update_offset", "xegpu.prefetch")
_SIMT_MAX_LANES = 32   # a scattered access addresses at most 32 lanes on PVC: 2 elements per work-item
_DYN = ir.ShapedType.get_dynamic_size() if hasattr(ir.ShapedType, "get_dynamic_size") else -(1 << 63)
_PURE = ("vector.broadcast", "vector.splat", "vector.extract", "vector.from_elements", "vector.shape_cast",
         "vector.extract_strided_slice", "vector.insert_strided_slice", "vector.shuffle", "vector.step",
         "gpu.lane_id")


class SimtError(Exception):
    def __init__(self, op, message):
        super().__init__(message)
        self.op = op
        self.message = message


def _is_vec(v) -> bool:
    return isinstance(v.type, ir.VectorType) or str(v.type).startswith("vector<")


def _vshape(v):
    return tuple(ir.VectorType(v.type).shape)


def _velt(v):
    return str(ir.VectorType(v.type).element_type)


def _vt(shape, elt):
    et = elt if isinstance(elt, ir.Type) else ir.Type.parse(elt)
    return ir.VectorType.get(list(shape), et)


def _lt(shape, elt):
    """A work-item's type: the scalar for shape (), else the vector."""
    if tuple(shape) == ():
        return elt if isinstance(elt, ir.Type) else ir.Type.parse(elt)
    return _vt(shape, elt)


def _is_int(elt) -> bool:
    return elt == "index" or (elt.startswith("i") and elt[1:].isdigit())


def _dense(values, shape, elt):
    """Dense integer (index, i1, iN) elements attribute."""
    arr = np.asarray(values, np.int64).reshape(tuple(shape))

    def text(a):
        if a.ndim == 0:
            x = int(a)
            return ("true" if x else "false") if elt == "i1" else str(x)
        return "[" + ", ".join(text(x) for x in a) + "]"
    return ir.Attribute.parse(f"dense<{text(arr)}> : vector<{'x'.join(map(str, shape))}x{elt}>")


def _elementwise(op) -> bool:
    return op.name.startswith(("arith.", "math.")) and op.name != "arith.constant" and \
        any(_is_vec(r) for r in op.results)


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


def load_layout(mshape, sgm: SgMap, rshape, transpose=False, f=1) -> Layout:
    """Result layout of a SIMT block load (as xedialects.sim executes it): each work-item reads the
    fragment `sgm` gives it of the memory block `mshape`, transposed in registers for
    transpose = [1, 0], then VNNI-packed (vnni_axis 0, f elements per 32 bits) when f > 1. With a
    32-bit transpose of sub-32-bit data (wi_data [1, f]) the work-item's f-element groups are the
    32-bit units the hardware transposes."""
    H, W = mshape
    rows, cols = lane_coords((H, W), sgm.wl, sgm.wd)
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
    lane_shape = _simt_shape((H, W), sgm, vnni=f > 1, transpose=transpose)
    return Layout(tuple(rshape), flat.reshape(SG, -1), lane_shape, "gen", None)


def default_sgm(shape) -> SgMap:
    """[1, 16] x [1, 1] when 16 columns divide the block, else [16/g, g] x [1, 1]."""
    H, W = (1, shape[0]) if len(shape) == 1 else shape
    g = int(np.gcd(W, SG))
    ly = SG // g
    if len(shape) == 1 or H % ly:
        return SgMap((1, SG), (1, 1))
    return SgMap((ly, g), (1, 1))


def _insert_region(dest_lay: Layout, offsets, pshape):
    """For every work-item and destination fragment position: the flat piece index that
    insert_strided_slice(piece, dest, offsets) writes there, or -1 outside the piece."""
    dshape = dest_lay.shape
    k = len(dshape) - len(pshape)
    coords = np.unravel_index(dest_lay.tbl, dshape)
    inside = np.ones(dest_lay.tbl.shape, bool)
    for d in range(k):
        inside &= coords[d] == offsets[d]
    rel = []
    for j, sz in enumerate(pshape):
        r = coords[k + j] - offsets[k + j]
        inside &= (r >= 0) & (r < sz)
        rel.append(np.clip(r, 0, sz - 1))
    pidx = np.ravel_multi_index(tuple(rel), tuple(pshape)) if pshape else np.zeros_like(dest_lay.tbl)
    return np.where(inside, pidx, -1)


def piece_layout(dest_lay: Layout, offsets, pshape):
    """The layout of a piece inserted into a destination distributed as `dest_lay` in which every
    work-item holds the piece elements its destination fragment needs (in fragment order). Work-items
    that need fewer (none of a row that belongs to other work-items) are padded with the elements of
    work-items that need all, so every work-item holds the same count; None when nobody needs any."""
    region = _insert_region(dest_lay, offsets, pshape)
    rows = [[int(x) for x in r if x >= 0] for r in region]
    n = max(len(r) for r in rows)
    if n == 0:
        return None
    full = [i for i, r in enumerate(rows) if len(r) == n]
    short = [i for i, r in enumerate(rows) if len(r) < n]
    for j, i in enumerate(short):
        donor = rows[full[j % len(full)]]
        rows[i] = rows[i] + [x for x in donor if x not in rows[i]][:n - len(rows[i])]
        if len(rows[i]) < n:
            return None
    tbl = np.array(rows, np.int64)
    return Layout(tuple(pshape), tbl, (n,), "gen")


def insert_pairs(piece_lay: Layout, dest_lay: Layout, offsets):
    """Per work-item, the (destination position, piece position) pairs of an insert_strided_slice: every
    destination element the work-item holds inside the piece must come from its own piece fragment.
    None when some work-item would need another work-item's piece element."""
    region = _insert_region(dest_lay, offsets, piece_lay.shape)
    out = []
    for lane in range(SG):
        pos = {int(x): p for p, x in enumerate(piece_lay.tbl[lane])}
        pairs = []
        for q in np.nonzero(region[lane] >= 0)[0]:
            p = pos.get(int(region[lane, q]))
            if p is None:
                return None
            pairs.append((int(q), p))
        out.append(tuple(pairs))
    return out


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


def _box_in(positions, shape):
    """(first, sizes) when the flat `positions` (in order) are the row-major elements of a box of
    `shape`; else None."""
    pos = np.asarray(positions, np.int64)
    coords = np.unravel_index(pos, tuple(shape))
    first = [int(c.min()) for c in coords]
    sizes = [int(c.max()) - f + 1 for c, f in zip(coords, first)]
    if int(np.prod(sizes)) != pos.size:
        return None
    grid = np.indices(sizes).reshape(len(sizes), -1)
    flat = np.ravel_multi_index(tuple(grid[d] + first[d] for d in range(len(sizes))), tuple(shape))
    if not np.array_equal(flat, pos):
        return None
    return first, sizes


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


def _bcast_ok(sshape, rshape) -> bool:
    """True when vector.broadcast takes shape sshape to rshape (dims aligned at the end, each equal
    or 1 in the source)."""
    k = len(rshape) - len(sshape)
    return k >= 0 and all(s in (1, r) for s, r in zip(sshape, tuple(rshape)[k:]))


def _bcast_src_index(sshape, rshape):
    """Flat source index of every (row-major) result element of a vector.broadcast."""
    k = len(rshape) - len(sshape)
    src = np.arange(int(np.prod(sshape)), dtype=np.int64).reshape((1,) * k + tuple(sshape))
    return np.broadcast_to(src, tuple(rshape)).reshape(-1)


# ------------------------------------------------------------------------------------------------
# reductions

_RED_OPS = ("vector.multi_reduction", "vector.reduction")
# data movement a "sparse" view passes through (the fragment is kept; only the index table changes)
_VIEW_OPS = ("vector.extract_strided_slice", "vector.shape_cast", "vector.transpose", "vector.extract")
_ARITH_COMBINE = {"add": ("arith.addf", "arith.addi"), "mul": ("arith.mulf", "arith.muli"),
                  "minimumf": ("arith.minimumf", None), "maximumf": ("arith.maximumf", None),
                  "minnumf": ("arith.minnumf", None), "maxnumf": ("arith.maxnumf", None),
                  "minsi": (None, "arith.minsi"), "maxsi": (None, "arith.maxsi"), "minui": (None, "arith.minui"),
                  "maxui": (None, "arith.maxui"), "and": (None, "arith.andi"), "or": (None, "arith.ori"),
                  "xor": (None, "arith.xori")}
# element-wise ops that combine like a reduction kind (canonicalize folds a reduction over a unit
# dimension, e.g. the last 16x1 column of a 16x2 block, into one of them)
_COMBINE_KIND = {name: kind for kind, names in _ARITH_COMBINE.items() for name in names if name is not None}
# kinds gpu.subgroup_reduce combines across the work-items here; minui / maxui use gpu.shuffle xor
# butterflies (xedialects.sim's subgroup_reduce compares integers as signed)
_SUBGROUP_REDUCE_KINDS = ("add", "mul", "minimumf", "maximumf", "minnumf", "maxnumf", "minsi", "maxsi", "and",
                          "or", "xor")


def _red_kind(op) -> str:
    s = str(op.attributes["kind"])
    return s[s.index("<") + 1:s.rindex(">")].strip()


def _red_dims(op):
    if op.name == "vector.reduction":
        return [0]
    return _ints(op.attributes["reduction_dims"])


def _reduce_index(sshape, dims):
    """(flat result index of every flat source element, result element count) of a reduction of a
    `sshape` vector over `dims`."""
    n = int(np.prod(sshape))
    keep = [d for d in range(len(sshape)) if d not in dims]
    if not keep:
        return np.zeros(n, np.int64), 1
    coords = np.unravel_index(np.arange(n), tuple(sshape))
    rshape = tuple(sshape[d] for d in keep)
    return np.ravel_multi_index(tuple(coords[d] for d in keep), rshape).astype(np.int64), int(np.prod(rshape))


def _identity_attr(kind, elt: str):
    """The neutral element of a reduction kind: NaN for minnumf / maxnumf (skipped by them, so a
    combination of NaNs stays NaN), +-inf for the NaN-propagating minimumf / maximumf, the extreme
    values for integer min / max, all ones for and."""
    t = ir.Type.parse(elt)
    if _is_int(elt):
        w = 64 if elt == "index" else int(elt[1:])
        val = {"add": 0, "mul": 1, "minsi": (1 << (w - 1)) - 1, "maxsi": -(1 << (w - 1)), "minui": -1, "maxui": 0,
               "and": -1, "or": 0, "xor": 0}.get(kind)
        if val is None:
            raise ValueError(f"reduction kind '{kind}' on integers")
        return ir.IntegerAttr.get(t, val)
    val = {"add": 0.0, "mul": 1.0, "minimumf": float("inf"), "maximumf": float("-inf"), "minnumf": float("nan"),
           "maxnumf": float("nan")}.get(kind)
    if val is None:
        raise ValueError(f"reduction kind '{kind}' on floating-point values")
    return ir.FloatAttr.get(t, val)


def _contributions(tbl, ridx, n_r, dedupe=True):
    """Per work-item, per result element, the fragment positions whose elements the work-item puts
    into the reduction. With `dedupe`, an element several work-items hold (or one holds twice) is
    counted once, by the lowest work-item holding it; -1 entries (outside a sparse view) are skipped.
    Without (partial values), every position counts."""
    owner = {}
    if dedupe:
        for lane in range(SG):
            for x in tbl[lane]:
                if x >= 0:
                    owner.setdefault(int(x), lane)
    out = []
    for lane in range(SG):
        rows = [[] for _ in range(n_r)]
        seen = set()
        for p, x in enumerate(tbl[lane]):
            x = int(x)
            if x < 0 or (dedupe and (owner[x] != lane or x in seen)):
                continue
            seen.add(x)
            rows[int(ridx[x])].append(p)
        out.append(rows)
    return out


def _slots(rows, n_pos, n_r):
    """Fragment positions grouped into slots that go to the same result element in every work-item
    (positions no work-item uses are left out): (positions per slot, per work-item per result
    element the slots it takes)."""
    r_of = np.full((SG, n_pos), -1, np.int64)
    for lane in range(SG):
        for r, ps in enumerate(rows[lane]):
            for p in ps:
                r_of[lane, p] = r
    keys = {}
    for p in range(n_pos):
        col = tuple(int(x) for x in r_of[:, p])
        if any(x >= 0 for x in col):
            keys.setdefault(col, []).append(p)
    slots = list(keys.values())
    slot_rows = [[[] for _ in range(n_r)] for _ in range(SG)]
    for si, col in enumerate(keys):
        for lane in range(SG):
            if col[lane] >= 0:
                slot_rows[lane][col[lane]].append(si)
    return slots, slot_rows


def _pad_rows(rows):
    """A per-result-element list of position lists as an (n_r, K) array, -1 padded (identity)."""
    k = max([len(r) for r in rows] + [1])
    out = np.full((len(rows), k), -1, np.int64)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


@dataclass
class _RedPlan:
    """How a reduction is distributed (`Distributor.fwd_reduction`)."""
    kind: str
    elt: str
    ridx: np.ndarray        # flat result index of every flat source element
    n_r: int                # result elements
    rshape: tuple           # result shape (() for a scalar)
    mode: str               # "local": within the work-items; "cross": per-work-item partials, then combined
    res_lay: Layout | None  # the result's layout (None: a scalar every work-item holds)
    keep: bool              # cross: the result stays partial (its consumers combine the work-items)
    acc_mode: str           # "none", "local" (converted to res_lay), "partial" (every work-item's partial),
    #                         "contrib" (the work-item holding an element adds it), "post" (after the combine)


# ------------------------------------------------------------------------------------------------
# the pass


class Distributor:
    def __init__(self, func, arch, options, ctx):
        self.func = func
        self.arch = arch
        self.ctx = ctx
        self.options = options
        self.lay: dict = {}          # old vector value -> Layout
        self.want: dict = {}         # old vector value -> (form, SgMap) requirement
        self.chain_of: dict = {}     # tdesc value -> chain id
        self.chain_sgm: dict = {}    # chain id -> SgMap
        self.sc_lay: dict = {}       # scattered chain id -> access Layout (over lanes x chunk)
        self.sc_info: dict = {}      # scattered chain id -> (VC tensor_desc type, lanes, chunk)
        self.piece_need: dict = {}   # insert_strided_slice result -> Layout its rematerialised piece takes
        self.dest_need: dict = {}    # insert_strided_slice result -> Layout its rematerialised destination takes
        self.errors = []
        self.reorders: dict = {}     # result value -> (source Layout, source index per element): subgroup reorder
        self.red_plan: dict = {}     # reduction result -> _RedPlan (how the work-items combine it)
        self.gather_reorder: dict = {}   # last insert of a gathered block -> reordered after it
        self._remat: dict = {}       # vector value -> recomputable in any layout
        self._memo: dict = {}        # (what, key, block) -> value built in that block
        self._lane = None
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
        # (a load whose fragments are reordered across work-items does not feed the DPAS directly)
        direct = a_value is not None and _owner(a_value) is not None and \
            _owner(a_value).name == "xegpu.load_nd" and a_value not in self.reorders
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

        for op in _walk(self.func):
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
            if any("vnni_axis" in o.attributes or "transpose" in o.attributes or len(_vshape(o.results[0])) != 2
                   for o in loads):
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
        self.chain_of = self.chains()
        # vector kernel arguments are the same in every work-item
        for a in self.func.regions[0].blocks[0].arguments:
            if _is_vec(a):
                self.set_lay(a, Layout.uniform(_vshape(a)))
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
                if form == "tbl":
                    # an explicit per-work-item table (a scattered piece): element-wise producers only
                    if _elementwise(op):
                        for v in op.operands:
                            if _is_vec(v) and _vshape(v) == _vshape(res[0]):
                                changed |= self.desire(v, form, sgm)
                    continue
                if n == "vector.extract_strided_slice" or (n.startswith(("arith.", "math.")) and n != "arith.constant"):
                    for v in op.operands:
                        if _is_vec(v) and (n == "vector.extract_strided_slice" or _vshape(v) == _vshape(res[0])):
                            changed |= self.desire(v, form, sgm)
                elif n == "vector.insert_strided_slice" or (n == "vector.insert" and _is_vec(op.operands[0])):
                    if self.reorder_gathered_block(op, form):
                        # the block is assembled in its gathers' distribution and reordered after
                        # the last insert (fwd_insert)
                        continue
                    changed |= self.desire(op.operands[1], form, sgm)
                    p = op.operands[0]
                    if len(_vshape(p)) == len(_vshape(res[0])):
                        changed |= self.desire(p, form, sgm)
                    else:
                        # a lower-rank piece (e.g. a gathered row): each work-item takes the piece
                        # elements its destination fragment holds
                        dl = self.want_layout(res[0])
                        need = None if dl is None else piece_layout(dl, self.insert_offsets(op), _vshape(p))
                        if need is not None:
                            changed |= self.desire(p, "tbl", need)
                        elif len(_vshape(p)) == 1 and sgm.wl[0] == 1:
                            changed |= self.desire(p, "1d", SgMap((1, SG), (1, sgm.wd[1])))
                elif n in ("vector.broadcast", "vector.splat"):
                    if _is_vec(op.operands[0]):
                        need = self.broadcast_source_want(op)
                        if need is not None:
                            changed |= self.desire(op.operands[0], *need)
                elif form == "uniform":
                    # a value every work-item holds whole: so is its source
                    if n in ("vector.transpose", "vector.shape_cast"):
                        changed |= self.desire(op.operands[0], "uniform", None)
                elif n == "vector.transpose":
                    perm = _ints(op.attributes["permutation"])
                    if perm == [1, 0] and form == "plain" and sgm.t() != SgMap((1, SG), (1, 1)) and \
                            _gathered_block(op.operands[0]):
                        # a transposed operand assembled from gathered rows: the transposed sg_map
                        # would give every row to fewer than 16 work-items (packed A: two, half
                        # each, every work-item gathering four elements per row; B: one, gathering
                        # the whole row); the rows keep their gathers' distribution instead (one
                        # element per work-item, as in VC mode) and a subgroup reorder follows the
                        # transpose (fwd_move)
                        pass
                    elif perm == [1, 0]:
                        changed |= self.desire(op.operands[0], "plain", sgm.t())
                    elif perm == [0, 2, 1]:
                        changed |= self.desire(op.operands[0], "inter", sgm)
                elif n == "vector.shape_cast":
                    src = op.operands[0]
                    if form in ("inter", "vnni", "plain"):
                        f2 = "plain" if len(_vshape(src)) == 2 else ("vnni" if form == "plain" else "inter")
                        changed |= self.desire(src, f2, sgm)

    def reorder_gathered_block(self, op, form) -> bool:
        """True when the insert `op` completes a block assembled from gathered rows
        (`_gathered_block`) whose users want a layout that would make the gathers take more messages
        than in VC mode: each row of the wanted layout split over so few work-items that a gathered
        row piece needs more than one 32-lane message (e.g. an i8 DPAS A in the packed order,
        [2, 8] x [1, 4]: a 16-element piece held by 4 work-items, 4 elements each). Such a block is
        assembled in its rows' gathered distribution (one element per work-item, as in VC mode) and
        reordered across the work-items after the last insert. Decided once per block."""
        res = op.results[0]
        if res in self.gather_reorder:
            return self.gather_reorder[res]
        ok = False
        p = op.operands[0]
        if form == "plain" and op.name == "vector.insert_strided_slice" and \
                len(_vshape(p)) < len(_vshape(res)) and _gathered_block(res):
            dl = self.want_layout(res)
            need = None if dl is None else piece_layout(dl, self.insert_offsets(op), _vshape(p))
            ok = need is not None and need.count * SG > _SIMT_MAX_LANES
        self.gather_reorder[res] = ok
        return ok

    def broadcast_source_want(self, op):
        """What a vector.broadcast's source must hold for the layout the result's users want: each
        work-item needs the source elements its result fragment repeats. A row (1 x n) broadcast to
        a block distributed by an sg_map takes the same sg_map on the row (each work-item holds its
        columns' elements); a column (m x 1) broadcast to a block whose work-items each hold every
        row ([1, 16] x [1, 1], the DPAS C layout) needs the whole column in every work-item
        ("uniform"), as does any other pattern (each work-item then picks its elements by id)."""
        src, res = op.operands[0], op.results[0]
        wl = self.want_layout(res)
        if wl is None:
            return None
        sshape = _vshape(src)
        idx = _bcast_src_index(sshape, _vshape(res))[wl.tbl]
        sgm = self.want[res][1]
        cands = []
        if isinstance(sgm, SgMap):
            if len(sshape) == 2:
                cands.append(("plain", sgm))
            elif len(sshape) == 1:
                cands.append(("1d", SgMap((1, SG), (1, sgm.wd[1]))))
        cands.append(("uniform", None))
        for form, s in cands:
            try:
                lay = Layout.uniform(sshape) if form == "uniform" else Layout.plain(sshape, s)
            except ValueError:
                continue
            if _uniform_positions(lay.tbl, idx) is not None:
                return form, s
        # (work-items needing different elements, e.g. a column broadcast to a [2, 8] block: each
        # work-item holds the whole source and picks its elements by work-item id)
        return "uniform", None

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
        if form == "tbl":
            return sgm if tuple(sgm.shape) == tuple(shape) else None
        if form == "uniform":
            return Layout.uniform(shape)
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
        except ValueError:
            pass
        # not spread evenly over the work-items: every work-item holds it whole (it is recomputed
        # in the layout each user needs)
        return Layout.uniform(shape)

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
        if n in _COMBINE_KIND and any(self.lay.get(v) is not None and self.lay[v].special for v in op.operands) \
                and _is_vec(op.results[0]):
            self.fwd_combine(op)
            return
        if n not in _RED_OPS:
            for v in op.operands:
                lv = self.lay.get(v)
                if lv is not None and lv.special and not (lv.form == "sparse" and n in _VIEW_OPS):
                    raise SimtError(op, f"'{n}' cannot use {v.get_name()}, {lv.describe()}")
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
            self.fwd_scattered(op)
            return
        if n == "xegpu.load_nd":
            ld = LoadNdOp(op)
            res = op.results[0]
            rs = _vshape(res)
            w = self.want.get(res)
            if ld.transpose is not None:
                lay = self.fwd_transposed_load(op, ld, res, w)
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
                need = self.want_layout(res) if w is not None and w[0] in ("uniform", "tbl") else None
                if need is not None and not lay.same(need) and _uniform_positions(lay.tbl, need.tbl) is None \
                        and self.holds_all(lay, need.tbl):
                    # the users need elements other work-items loaded (a bias column every work-item
                    # broadcasts along its rows): the loaded fragments are exchanged after the load
                    self.reorders[res] = (lay, need.tbl)
                    lay = need
            self.set_lay(res, lay)
            return
        if n == "xegpu.store_nd":
            v, d = op.operands[0], op.operands[1]
            lv = self.lay_of(op, v)
            sgm = self.chain_layout_sgm(op, d, res_want=lv.sgm if lv.form in ("plain", "1d") else None)
            need = Layout.plain(_vshape(v), sgm)
            if not need.same(lv) and not self.convertible(v, need):
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
        if n in _RED_OPS:
            self.fwd_reduction(op)
            return
        res = [r for r in op.results if _is_vec(r)]
        if not res and not any(_is_vec(v) for v in op.operands):
            for region in op.regions:
                for b in region.blocks:
                    self.forward_block(b)
            return
        if n in ("vector.broadcast", "vector.splat") and _is_vec(op.operands[0]):
            self.fwd_broadcast(op)
            return
        if n == "arith.constant" or n in ("vector.broadcast", "vector.splat"):
            if n == "arith.constant" and not ir.DenseElementsAttr(op.attributes["value"]).is_splat:
                # kept whole in every work-item; users take their elements by work-item id
                self.set_lay(res[0], Layout.uniform(_vshape(res[0])))
                return
            self.set_lay(res[0], self.free_layout(op, res[0]))
            return
        if n == "vector.step":
            self.set_lay(res[0], Layout.uniform(_vshape(res[0])))
            return
        if n == "vector.extract" and res:
            self.fwd_slice(op)
            return
        if n == "vector.insert" and not _is_vec(op.operands[0]):
            if self.lay_of(op, op.operands[1]).form != "uniform":
                raise SimtError(op, "vector.insert of one element into a distributed vector needs the work-item "
                                    "that holds it")
            self.set_lay(res[0], self.lay[op.operands[1]])
            return
        if n == "vector.insert" and _is_vec(op.operands[0]):
            if len(op.operands) > 2:
                raise SimtError(op, "vector.insert of a sub-vector at a dynamic position is not supported by "
                                    "xegpu-simt-distribute")
            self.fwd_insert(op)
            return
        if n in ("vector.extract", "vector.extractelement") and not res:
            src = op.operands[0]
            if self.lay_of(op, src).form != "uniform":
                raise SimtError(op, f"'{n}' of one element of a distributed vector needs the work-item that holds "
                                    "it (a cross-work-item shuffle)")
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
            for v in vops:
                if _vshape(v) != _vshape(res[0]):
                    raise SimtError(op, f"'{n}' mixes vector shapes {list(_vshape(v))} and {list(_vshape(res[0]))}")
            # operands holding loaded or computed data fix the layout; values that do not depend on
            # the work-item (constants, broadcasts, address and mask arithmetic) are recomputed in it
            fixed = [lay for v, lay in zip(vops, lays) if not self.remat_able(v)]
            if fixed:
                ref = fixed[0]
                for lay in fixed[1:]:
                    if not lay.same(ref):
                        raise SimtError(op, f"operands of '{n}' are distributed differently ({ref.describe()} vs "
                                            f"{lay.describe()})")
            else:
                ref = self.want_layout(res[0]) or Layout.uniform(_vshape(res[0]))
            self.set_lay(res[0], Layout(ref.shape, ref.tbl, ref.lane_shape, ref.form, ref.sgm))
            return
        raise SimtError(op, f"'{n}' on subgroup vectors is not supported by xegpu-simt-distribute")

    # ---- scattered access -----------------------------------------------------------------------
    def remat_able(self, v) -> bool:
        """True when `v` does not depend on per-work-item data: splat constants, broadcasts of
        scalars, values every work-item holds whole, and element-wise arithmetic on such values.
        Those are recomputed (or picked by work-item id) in whatever layout a user needs."""
        r = self._remat.get(v)
        if r is not None:
            return r
        o = _owner(v)
        lay = self.lay.get(v)
        if lay is not None and lay.form == "uniform":
            r = True
        elif o is None:
            r = False
        elif o.name == "arith.constant":
            r = True
        elif o.name in ("vector.broadcast", "vector.splat"):
            r = not _is_vec(o.operands[0])
        elif _elementwise(o) and len(o.results) == 1:
            r = all(self.remat_able(x) for x in o.operands if _is_vec(x))
        else:
            r = False
        self._remat[v] = r
        return r

    def convertible(self, v, to: Layout) -> bool:
        lay = self.lay.get(v)
        if lay is None:
            return False
        if lay.same(to) or self.remat_able(v):
            return True
        if lay.form == "partial":
            return False
        return _uniform_positions(lay.tbl, to.tbl) is not None

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
        return Layout((lanes * chunk,), v2a[lay.tbl], (lay.count,), "gen", lay.sgm if len(vshape) == 1 else None)

    def fwd_scattered(self, op):
        n = op.name
        if n in ("xegpu.create_tdesc", "xegpu.update_offset", "xegpu.prefetch"):
            return      # offsets / deltas follow the chain's access layout when rewritten
        if n == "xegpu.load_gather":
            d, res = op.operands[0], op.results[0]
            tv, lanes, chunk = self.scatter_info(d)
            want = self.want_layout(res)
            cand = None if want is None else self.access_of_value(want, lanes, chunk, _vshape(res))
            acc = self.scatter_access(op, d, cand)
            self.set_lay(res, self.value_layout(acc, lanes, chunk, _vshape(res), want))
            return
        # store_scatter / atomic_rmw: the stored values fix the chain's layout unless they can be
        # recomputed in any layout
        v, d = op.operands[0], op.operands[1]
        tv, lanes, chunk = self.scatter_info(d)
        lv = self.lay_of(op, v)
        cand = None if self.remat_able(v) else self.access_of_value(lv, lanes, chunk, _vshape(v))
        acc = self.scatter_access(op, d, cand)
        need = self.value_layout(acc, lanes, chunk, _vshape(v), lv)
        if not self.convertible(v, need):
            raise SimtError(op, f"stored fragment layout {lv.describe()} differs from the scattered descriptor's "
                                f"{need.describe()} (a cross-work-item shuffle would be needed)")
        if n == "xegpu.atomic_rmw":
            self.set_lay(op.results[0], need)

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
        rs = _vshape(res)
        mshape = tuple(TensorDescType(op.operands[0].type).shape)
        elt = _velt(res)
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
        if need is not None and not lay.same(need) and _uniform_positions(lay.tbl, need.tbl) is None \
                and self.holds_all(lay, need.tbl):
            # the users need elements other work-items loaded: a subgroup reorder after the load
            if len(rs) == 2 and any(_op(u.owner).name == "xegpu.dpas" and u.operand_number == 0 for u in res.uses):
                # a reordered DPAS A operand does not come straight from the load: packed A order
                fa = self.arch.vnni_factor(elt) if elem_bits(elt) < 32 else 1
                try:
                    need = Layout.plain(rs, SgMap((2, 8), (1, fa)))
                except ValueError:
                    return lay
            self.reorders[res] = (lay, need.tbl)
            return need
        return lay

    @staticmethod
    def holds_all(src_lay: Layout, need_idx) -> bool:
        held = set(int(x) for x in np.unique(src_lay.tbl))
        return all(int(x) in held for x in np.unique(need_idx))

    def reorder_allowed(self, op) -> bool:
        """Cross-work-item layout changes are made only for the in-register transpose of a block
        load (the VC form of a transposed load of sub-32-bit data, which no PVC block load
        delivers in DPAS order: 'Transposed A, if the data type is less than 32 bits wide',
        xe-cute-architecture.md), where the loaded fragment has no other user, and for the
        transpose of a block assembled from gathered rows (`_gathered_block`: the scattered
        fallback of such a load, e.g. for an unaligned pitch). Other values that would need
        another work-item's data are refused."""
        if op.name != "vector.transpose":
            return False
        src = op.operands[0]
        o = _owner(src)
        if o is None:
            return False
        if o.name == "xegpu.load_nd":
            return sum(1 for _ in src.uses) == 1
        return _gathered_block(src)

    def reorder(self, src_new, src_lay: Layout, need_idx, lane_shape, elt):
        """A subgroup reorder (xe-cute-architecture.md 'Subgroup Reorders'): element p of work-item
        l's result fragment is the source element need_idx[l, p] (flat index into the VC value),
        taken from this work-item's own fragment when it holds it, else fetched from a work-item
        that does with `gpu.shuffle idx` (one shuffle of the whole fragment per distinct source
        work-item pattern), then put in place in registers."""
        holders = {}
        for lane in range(SG):
            for q, e in enumerate(src_lay.tbl[lane]):
                holders.setdefault(int(e), []).append((lane, q))
        n = need_idx.shape[1]
        src_lane = np.empty((SG, n), np.int64)
        src_pos = np.empty((SG, n), np.int64)
        for lane in range(SG):
            for p in range(n):
                hs = holders.get(int(need_idx[lane, p]))
                if not hs:
                    raise SimtError(None, "an element no work-item holds")
                ll, q = next(((x, y) for x, y in hs if x == lane), hs[0])
                src_lane[lane, p], src_pos[lane, p] = ll, q
        n_src = src_lay.count
        flat = src_new
        if tuple(src_lay.lane_shape) != (n_src,):
            flat = vector.shape_cast(_vt((n_src,), elt), src_new)
        pieces, keys = [], {}
        which = []
        identity = tuple(range(SG))
        for p in range(n):
            pat = tuple(int(x) for x in src_lane[:, p])
            if pat not in keys:
                keys[pat] = len(pieces)
                if pat == identity:
                    pieces.append(flat)
                else:
                    i32 = ir.IntegerType.get_signless(32)
                    width = self.memo("const_i32", SG, lambda: arith.ConstantOp(i32, SG).result)
                    pieces.append(gpu.ShuffleOp(flat, self.lane_value(pat, "i32"), width,
                                                gpu.ShuffleMode.IDX).results[0])
            which.append(keys[pat])
        if (src_pos == src_pos[0:1]).all():
            cat = pieces[0]
            for x in pieces[1:]:
                k = _vshape(cat)[0]
                cat = vector.shuffle(cat, x, list(range(k + n_src)))
            mask = [which[p] * n_src + int(src_pos[0, p]) for p in range(n)]
            out = cat if mask == list(range(_vshape(cat)[0])) else vector.shuffle(cat, cat, mask)
        else:
            elems = []
            for p in range(n):
                col = src_pos[:, p]
                if (col == col[0]).all():
                    elems.append(vector.extract(pieces[which[p]], [], [int(col[0])]))
                else:
                    elems.append(vector.extract(pieces[which[p]], [self.lane_index(col)], [_DYN]))
            out = vector.from_elements(_vt((n,), elt), elems)
        if tuple(lane_shape) != (n,):
            out = vector.shape_cast(_vt(lane_shape, elt), out)
        return out

    def slice_index_fn(self, op, sshape, rshape):
        """Flat source index of each result element of extract_strided_slice / vector.extract (static
        position, vector result: the sub-vector at that position); shapes of the VC values."""
        if op.name == "vector.extract":
            offs = _ints(op.attributes["static_position"]) + [0] * len(rshape)
        else:
            offs = _ints(op.attributes["offsets"])
        k = len(sshape) - len(rshape)

        def idx_fn(rtbl):
            coords = np.unravel_index(rtbl, rshape)
            sc = tuple([np.full(np.shape(rtbl), offs[d]) for d in range(k)] +
                       [coords[d] + offs[k + d] for d in range(len(rshape))])
            return np.ravel_multi_index(sc, sshape)
        return idx_fn

    def fwd_slice(self, op):
        src, res = op.operands[0], op.results[0]
        sl = self.lay_of(op, src)
        if sl.form == "uniform":
            self.set_lay(res, Layout.uniform(_vshape(res)))
            return
        if op.name == "vector.extract" and len(op.operands) > 1:
            raise SimtError(op, "vector.extract of a sub-vector at a dynamic position of a distributed vector is "
                                "not supported by xegpu-simt-distribute")
        idx_fn = self.slice_index_fn(op, _vshape(src), _vshape(res))
        if sl.form == "sparse":
            self.set_lay(res, self.sparse_view(sl, _vshape(res), idx_fn(np.arange(int(np.prod(_vshape(res)))))))
            return
        lay = self.derive(op, res, sl, idx_fn)
        if lay is None:
            try:
                lay = self.generic_subset(op, sl, res, idx_fn)
            except SimtError:
                if self.feeds_reductions(res):
                    # a slice only reductions consume (e.g. the first column of a DPAS C block, the
                    # accumulator of a row reduction): a view of the source fragments
                    self.set_lay(res, self.sparse_view(sl, _vshape(res),
                                                       idx_fn(np.arange(int(np.prod(_vshape(res)))))))
                    return
                w = self.want.get(res)
                if w is None or w[0] != "uniform":
                    raise
                raise SimtError(op, f"'{op.name}': every work-item needs the whole {list(_vshape(res))} slice (it is "
                                    f"broadcast along the rows of a block), but the source is distributed as "
                                    f"{sl.describe()} (a cross-work-item shuffle would be needed)")
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

    def insert_offsets(self, op):
        if op.name == "vector.insert":
            piece = op.operands[0]
            rank = len(self.lay[piece].shape) if piece in self.lay else len(_vshape(piece))
            return _ints(op.attributes["static_position"]) + [0] * rank
        return _ints(op.attributes["offsets"])

    def fwd_insert(self, op):
        piece, dest, res = op.operands[0], op.operands[1], op.results[0]
        ld = self.lay_of(op, dest)
        lp = self.lay_of(op, piece)
        offs = self.insert_offsets(op)
        if ld.form == "uniform" and lp.form == "uniform":
            self.set_lay(res, ld)
            return
        want = self.want_layout(res)
        final = None
        if self.gather_reorder.get(res):
            # the last insert of a gathered block its users want reordered: assembled in the
            # distribution of its gathers, then reordered (below)
            final, want = want, None
        if want is not None and not want.same(ld) and self.remat_able(dest):
            # a shared constant destination (zeros) is re-created in the layout this chain needs
            ld = want
            self.dest_need[res] = want
        # every destination element a work-item holds inside the piece must come from its own piece
        # fragment (work-items holding none of the piece keep their fragment)
        pairs = insert_pairs(lp, ld, offs)
        if pairs is None and want is None and self.remat_able(dest) and not self.remat_able(piece):
            # a shared constant destination (zeros) whose layout the users of another chain assembled
            # in it fixed (e.g. a gathered DPAS A block), while this chain's users want none (a
            # residual added to the GEMM result): the block is assembled in a layout its gathered
            # rows fit instead (the block's default, the DPAS C layout for a 16-column block)
            for cand in self.insert_dest_candidates(_vshape(dest), lp):
                if cand.same(ld):
                    continue
                cpairs = insert_pairs(lp, cand, offs)
                if cpairs is not None:
                    ld, pairs = cand, cpairs
                    self.dest_need[res] = cand
                    break
        need = piece_layout(ld, offs, _vshape(piece)) if self.remat_able(piece) else None
        need_pairs = None if need is None else insert_pairs(need, ld, offs)
        if pairs is None:
            if need_pairs is None:
                raise SimtError(op, f"inserting a fragment distributed as {lp.describe()} into {ld.describe()} would "
                                    "move data between work-items")
            self.piece_need[res] = need
        elif need_pairs is not None and len(set(need_pairs)) < len(set(pairs)):
            # a piece that does not depend on the work-item (the zero rows padding a gathered block)
            # is recomputed as the elements each work-item inserts, at the same fragment positions
            # in every work-item (rather than picked per work-item from the whole piece)
            self.piece_need[res] = need
        if final is not None and not final.same(ld) and self.holds_all(ld, final.tbl):
            # a subgroup reorder of the assembled block into the layout its users want
            self.reorders[res] = (ld, final.tbl)
            ld = final
        self.set_lay(res, ld)

    @staticmethod
    def insert_dest_candidates(dshape, lp: Layout):
        """Layouts for a constant destination that gathered pieces distributed as `lp` are inserted
        into: the block's default distribution, then the piece's sg_map spread over the block rows."""
        sgms = [default_sgm(dshape)]
        if lp.sgm is not None and len(lp.shape) == 1 and len(dshape) == 2:
            sgms.append(SgMap((1, SG), (1, lp.sgm.wd[-1])))
        out = []
        for s in sgms:
            try:
                out.append(Layout.plain(dshape, s))
            except ValueError:
                pass
        return out

    def fwd_broadcast(self, op):
        """vector.broadcast of a vector: the result takes the layout its users want when every
        work-item holds the source elements its fragment repeats (at the same fragment positions in
        every work-item, or the whole source); without a want, the source's sg_map or (a source
        held whole) the whole result."""
        src, res = op.operands[0], op.results[0]
        sl = self.lay_of(op, src)
        bidx = _bcast_src_index(_vshape(src), _vshape(res))
        want = self.want_layout(res)
        if want is not None:
            if sl.form == "uniform" or _uniform_positions(sl.tbl, bidx[want.tbl]) is not None:
                self.set_lay(res, want)
                return
            raise SimtError(op, f"vector.broadcast: the source is distributed as {sl.describe()}, but the result's "
                                f"users need {want.describe()}, which repeats elements other work-items hold (a "
                                "cross-work-item shuffle would be needed)")
        if sl.form == "uniform":
            self.set_lay(res, Layout.uniform(_vshape(res)))
            return
        lay = self.derive(op, res, sl, lambda t: bidx[t])
        if lay is None:
            free = self.free_layout(op, res)
            if free.form != "uniform" and _uniform_positions(sl.tbl, bidx[free.tbl]) is not None:
                lay = free
        if lay is None:
            raise SimtError(op, f"vector.broadcast of a source distributed as {sl.describe()}: no distribution of "
                                f"the {'x'.join(map(str, _vshape(res)))} result lets every work-item repeat its own "
                                "elements")
        self.set_lay(res, lay)

    def fwd_move(self, op):
        src, res = op.operands[0], op.results[0]
        sl = self.lay_of(op, src)
        if sl.form == "uniform":
            self.set_lay(res, Layout.uniform(_vshape(res)))
            return
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
        if sl.form == "sparse":
            self.set_lay(res, self.sparse_view(sl, rshape, src_idx_of_res(np.arange(int(np.prod(rshape))))))
            return
        lay = self.derive(op, res, sl, idx_fn)
        need = self.want_layout(res)
        if need is not None and (lay is None or not lay.same(need)) and self.reorder_allowed(op):
            if _uniform_positions(sl.tbl, idx_fn(need.tbl)) is None and self.holds_all(sl, idx_fn(need.tbl)):
                # the users need elements other work-items loaded: a subgroup reorder
                self.reorders[res] = (sl, idx_fn(need.tbl))
                self.set_lay(res, need)
                return
        if lay is None:
            # same elements per work-item, in source order
            n = int(np.prod(rshape))
            inv = np.empty(n, np.int64)
            inv[src_idx_of_res(np.arange(n))] = np.arange(n)
            tbl = inv[sl.tbl]
            lay = Layout(rshape, tbl, (tbl.shape[1],), "gen", None)
        self.set_lay(res, lay)

    # ---- reductions -------------------------------------------------------------------------------
    def feeds_reductions(self, v) -> bool:
        """True when every use of `v` is a reduction (source or accumulator) or an element-wise op
        combining like one (arith.addf, maximumf, ...), directly or through static data movement
        (slices, shape_cast, transpose) whose results are such values too."""
        uses = list(v.uses)
        if not uses:
            return False
        for u in uses:
            o = _op(u.owner)
            if o.name in _RED_OPS and u.operand_number in (0, 1):
                continue
            if o.name in _COMBINE_KIND and _is_vec(o.results[0]):
                continue
            if o.name in _VIEW_OPS and u.operand_number == 0 and len(o.operands) == 1 and _is_vec(o.results[0]) \
                    and self.feeds_reductions(o.results[0]):
                continue
            return False
        return True

    @staticmethod
    def sparse_view(sl: Layout, rshape, src_of_res) -> Layout:
        """The "sparse" layout of a data-movement result kept as a view of its source's fragments:
        each fragment position holds the result element of its source element, or -1 outside."""
        inv = np.full(int(np.prod(sl.shape)), -1, np.int64)
        inv[np.asarray(src_of_res, np.int64)] = np.arange(len(src_of_res))
        tbl = np.where(sl.tbl >= 0, inv[np.maximum(sl.tbl, 0)], -1)
        return Layout(tuple(rshape), tbl, sl.lane_shape, "sparse")

    def result_target(self, res):
        """The layout a reduction result should take for its users: the wanted one, else, for a value
        yielded by a loop, the loop's initial value's (the loop-carried layouts must agree)."""
        w = self.want_layout(res)
        if w is not None and not w.special:
            return w
        for u in res.uses:
            o = _op(u.owner)
            par = _op(o.parent) if o.name == "scf.yield" else None
            if par is not None and par.name == "scf.for":
                init = list(par.operands)[3 + u.operand_number]
                lay = self.lay.get(init)
                if lay is not None and not lay.special and lay.shape == _vshape(res):
                    return lay
        return None

    def keeps_partial(self, res, kind) -> bool:
        """A cross-work-item reduction result stays partial when its only users are reductions of the
        same kind (the accumulator chains convert-xetile-to-xegpu builds per block): their own combine
        across the work-items covers it."""
        def same_kind(u):
            o = _op(u.owner)
            if o.name in _RED_OPS:
                return u.operand_number in (0, 1) and _red_kind(o) == kind
            return _COMBINE_KIND.get(o.name) == kind and _is_vec(o.results[0])
        uses = list(res.uses)
        return bool(uses) and all(same_kind(u) for u in uses)

    def fwd_combine(self, op):
        """An element-wise op combining like a reduction kind (arith.addf for add, ...) with an
        operand held in part ("sparse" view) or as partial results: the result is a partial
        result of that kind (each work-item combines the operand elements it holds, the identity
        for the others), combined across the work-items unless only same-kind reductions or
        combinations consume it (as fwd_reduction)."""
        kind = _COMBINE_KIND[op.name]
        res = op.results[0]
        rshape = _vshape(res)
        elt = _velt(res)
        for v in op.operands:
            lv = self.lay_of(op, v)
            if lv.form == "partial" and lv.kind != kind:
                raise SimtError(op, f"'{op.name}': operand {v.get_name()} is a partial <{lv.kind}> result")
        n = int(np.prod(rshape))
        keep = self.keeps_partial(res, kind)
        lay = Layout(rshape, np.tile(np.arange(n, dtype=np.int64), (SG, 1)), rshape, "partial", kind=kind) if keep \
            else Layout.uniform(rshape)
        self.red_plan[res] = _RedPlan(kind, elt, np.arange(n, dtype=np.int64), n, rshape, "combine", lay, keep, "none")
        self.set_lay(res, lay)

    def fwd_reduction(self, op):
        """vector.multi_reduction / vector.reduction. When every result element a work-item is to
        hold has all its source elements in that work-item ("local": column sums of a DPAS C
        block, a source every work-item holds whole), each work-item reduces its own fragment.
        Otherwise ("cross": row sums of a C block, each work-item holding one column) every
        work-item reduces the source elements it holds into a partial result of the whole shape
        (the kind's identity where it holds none; an element several work-items hold counts once),
        and `gpu.subgroup_reduce` (gpu.shuffle xor butterflies for minui / maxui) combines the
        partials, leaving the result in every work-item ("uniform"); a result only reductions of
        the same kind consume stays partial and is combined by them. The accumulator is combined
        after the cross-work-item step when every work-item holds it, else by the work-items
        holding its elements, before."""
        kind = _red_kind(op)
        src, res = op.operands[0], op.results[0]
        acc = op.operands[1] if len(op.operands) > 1 else None
        sshape = _vshape(src)
        rshape = _vshape(res) if _is_vec(res) else ()
        elt = _velt(src)
        try:
            _identity_attr(kind, elt)
        except ValueError as e:
            raise SimtError(op, f"'{op.name}': {e}")
        ridx, n_r = _reduce_index(sshape, _red_dims(op))
        sl = self.lay_of(op, src)
        if acc is not None and _is_vec(acc):
            al = self.lay_of(op, acc)
        else:
            al = self.lay.get(acc) if acc is not None else None     # a scalar: uniform unless partial
        for what, lay in (("source", sl), ("accumulator", al)):
            if lay is not None and lay.form == "partial" and lay.kind != kind:
                raise SimtError(op, f"'{op.name}' <{kind}>: the {what} is a partial <{lay.kind}> result")
        if sl.form != "partial" and (al is None or al.form != "partial"):
            ok, lay = self.local_reduction_layout(sl, res, acc, ridx, n_r, rshape)
            if ok:
                self.red_plan[res] = _RedPlan(kind, elt, ridx, n_r, rshape, "local", lay, False,
                                              "none" if acc is None else "local")
                if lay is not None:
                    self.set_lay(res, lay)
                return
        keep = self.keeps_partial(res, kind)
        lay = None
        if keep:
            lay = Layout(rshape, np.tile(np.arange(n_r, dtype=np.int64), (SG, 1)), rshape, "partial", kind=kind)
        elif rshape:
            # after the combine every work-item has the whole result: it keeps the elements its
            # users want (e.g. a loop-carried value's distribution), else all
            lay = self.result_target(res)
            if lay is None:
                lay = Layout.uniform(rshape)
        if acc is None:
            acc_mode = "none"
        elif al is not None and al.form == "partial":
            acc_mode = "partial"
        elif not keep and (al is None if not rshape else self.convertible(acc, lay)):
            acc_mode = "post"
        else:
            acc_mode = "contrib"
        self.red_plan[res] = _RedPlan(kind, elt, ridx, n_r, rshape, "cross", lay, keep, acc_mode)
        if lay is not None:
            self.set_lay(res, lay)

    def local_reduction_layout(self, sl: Layout, res, acc, ridx, n_r, rshape):
        """(True, layout) when the reduction needs no other work-item's data: a result layout in which
        every work-item holds all source elements of its result elements (the users' wanted layout,
        the default distribution, the whole result, or each work-item's complete elements) and the
        accumulator can be brought to it; layout None for a scalar every work-item computes."""
        held = [set(int(x) for x in row if x >= 0) for row in sl.tbl]
        src_of = [[] for _ in range(n_r)]
        for s_, r in enumerate(ridx):
            src_of[int(r)].append(s_)
        full = [frozenset(r for r in range(n_r) if all(x in held[lane] for x in src_of[r])) for lane in range(SG)]
        if not rshape:
            return all(len(f) == 1 for f in full), None
        cands = []
        w = self.result_target(res)
        if w is not None:
            cands.append(w)
        if len(rshape) in (1, 2):
            try:
                cands.append(Layout.plain(rshape, default_sgm(rshape)))
            except ValueError:
                pass
        if all(len(f) == n_r for f in full):
            cands.append(Layout.uniform(rshape))
        sizes = {len(f) for f in full}
        if len(sizes) == 1 and 0 < min(sizes) < n_r and frozenset().union(*full) == frozenset(range(n_r)):
            tbl = np.array([sorted(f) for f in full], np.int64)
            cands.append(Layout(rshape, tbl, (tbl.shape[1],), "gen"))
        for c in cands:
            if all(set(int(x) for x in c.tbl[lane]) <= full[lane] for lane in range(SG)) and \
                    (acc is None or self.convertible(acc, c)):
                return True, c
        return False, None

    # ---- step 3: rewrite ------------------------------------------------------------------------
    def lane_type(self, v, lay=None):
        lay = lay or self.lay[v]
        return _vt(lay.lane_shape, _velt(v))

    # ---- work-item ids and conversions --------------------------------------------------------------
    def _block_key(self):
        return ir.InsertionPoint.current.block

    def memo(self, what, key, build):
        k = (what, key, self._block_key())
        v = self._memo.get(k)
        if v is None:
            v = build()
            self._memo[k] = v
        return v

    def lane(self):
        """This work-item's id (`gpu.lane_id`, created once at the top of the function)."""
        if self._lane is None:
            entry = self.func.regions[0].blocks[0]
            with ir.InsertionPoint.at_block_begin(entry), self.func.location:
                self._lane = ir.Operation.create("gpu.lane_id", results=[ir.IndexType.get()]).results[0]
        return self._lane

    def lane_index(self, col):
        """An index value equal to col[work-item id] (col: 16 integers)."""
        return self.lane_value(col, "index")

    def lane_value(self, col, elt):
        """A scalar of integer type `elt` equal to col[work-item id] (col: 16 integers): a constant,
        the work-item id (plus a constant) or a lookup in a 16-entry table."""
        col = [int(x) for x in col]

        def build():
            t = _lt((), elt)
            if all(x == col[0] for x in col):
                return arith.ConstantOp(t, col[0]).result
            c = col[0]
            if elt == "index" and col == [c + i for i in range(SG)]:
                if c == 0:
                    return self.lane()
                return arith.AddIOp(self.lane(), arith.ConstantOp(t, c).result).result
            table = arith.ConstantOp(_vt((SG,), elt), _dense(col, (SG,), elt)).result
            return vector.extract(table, [self.lane()], [_DYN])
        return self.memo("lane_value", (tuple(col), elt), build)

    def lane_pred(self, lanes):
        """An i1 value true in the given work-items."""
        lanes = sorted(int(x) for x in lanes)

        def build():
            i1 = ir.IntegerType.get_signless(1)
            lo, hi = lanes[0], lanes[-1] + 1
            if lanes == list(range(lo, hi)):
                conds = []
                if lo > 0:
                    conds.append(arith.CmpIOp(arith.CmpIPredicate.uge, self.lane(),
                                              arith.ConstantOp(ir.IndexType.get(), lo).result).result)
                if hi < SG:
                    conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, self.lane(),
                                              arith.ConstantOp(ir.IndexType.get(), hi).result).result)
                if len(conds) == 1:
                    return conds[0]
                if len(conds) == 2:
                    return arith.AndIOp(conds[0], conds[1]).result
                return arith.ConstantOp(i1, 1).result
            bits = np.zeros(SG, np.int64)
            bits[lanes] = 1
            return self.lane_value(bits, "i1")
        return self.memo("lane_pred", tuple(lanes), build)

    def lane_extract(self, src_new, shape, to: Layout, elt):
        """Elements of a vector every work-item holds whole, picked by work-item id per `to`."""
        def build():
            n = int(np.prod(shape))
            flat = src_new if len(shape) == 1 else vector.shape_cast(_vt((n,), elt), src_new)
            vals = []
            for p in range(to.count):
                col = to.tbl[:, p]
                if (col == col[0]).all():
                    vals.append(vector.extract(flat, [], [int(col[0])]))
                else:
                    vals.append(vector.extract(flat, [self.lane_index(col)], [_DYN]))
            if to.lane_shape == ():
                return vals[0]
            return vector.from_elements(_vt(to.lane_shape, elt), vals)
        return self.memo("extract", (src_new, to.key()), build)

    def convert(self, rb, v, to: Layout, op, what="operand"):
        """`v` (an old value) in layout `to` in this work-item: as is, recomputed (values that do not
        depend on the work-item), picked by work-item id (values every work-item holds whole) or
        rearranged within the work-item; anything else needs another work-item's data. A layout
        with lane_shape () gives the scalar."""
        lay = self.lay_of(op, v)
        if lay.same(to):
            return rb.one(v)
        if lay.form == "partial":
            raise SimtError(op, f"{what} {v.get_name()} is {lay.describe()}; '{op.name}' needs {to.describe()}")
        if self.remat_able(v):
            return self.materialize(rb, v, to, op)
        elt = _velt(v)
        if to.lane_shape == ():
            vec1 = self.convert(rb, v, to.with_lane_shape((1,)), op, what)
            return vector.extract(vec1, [], [0])
        try:
            return self.move(rb.one(v), lay, to, to.tbl, elt)
        except SimtError:
            raise SimtError(op, f"{what} {v.get_name()} is distributed as {lay.describe()}; '{op.name}' needs "
                                f"{to.describe()} (a cross-work-item shuffle would be needed)")

    def materialize(self, rb, v, to: Layout, op, rebuild=False):
        """`v` (a value that does not depend on the work-item) recomputed in layout `to`: constants
        and broadcasts are re-created, element-wise ops recomputed from their recomputed operands,
        values held whole picked by work-item id."""
        lay = self.lay[v]
        if lay.same(to) and not rebuild:
            return rb.one(v)
        o = _owner(v)
        elt = _velt(v)
        rt = _lt(to.lane_shape, elt)

        def build():
            if to.count == 1 and to.lane_shape != () and not (o is not None and o.name == "arith.constant"):
                # one element per work-item: compute the scalar (shared with scalar users), then wrap it
                return vector.broadcast(rt, self.materialize(rb, v, to.with_lane_shape(()), op))
            if o is not None and o.name == "arith.constant":
                d = ir.DenseElementsAttr(o.attributes["value"])
                if d.is_splat:
                    if to.lane_shape == ():
                        return arith.ConstantOp(rt, d.get_splat_value()).result
                    return arith.ConstantOp(rt, ir.DenseElementsAttr.get_splat(rt, d.get_splat_value())).result
                if _is_int(elt):
                    # a constant table: each element this work-item holds, by work-item id
                    di = ir.DenseIntElementsAttr(o.attributes["value"])
                    vals = np.array([int(di[i]) for i in range(len(di))], np.int64)
                    per = vals[to.tbl]
                    if (per == per[0:1]).all():
                        if to.lane_shape == ():
                            return arith.ConstantOp(rt, int(per[0, 0])).result
                        return arith.ConstantOp(rt, _dense(per[0], to.lane_shape, elt)).result
                    elems = [self.lane_value(per[:, p], elt) for p in range(to.count)]
                    return elems[0] if to.lane_shape == () else vector.from_elements(rt, elems)
            if o is not None and o.name in ("vector.broadcast", "vector.splat") and not _is_vec(o.operands[0]):
                s = rb.one(o.operands[0])
                return s if to.lane_shape == () else vector.broadcast(rt, s)
            if o is not None and _elementwise(o) and len(o.results) == 1 and \
                    all(self.remat_able(x) for x in o.operands if _is_vec(x)):
                operands = [self.materialize(rb, x, to, op) if _is_vec(x) else rb.one(x) for x in o.operands]
                return ir.Operation.create(o.name, results=[rt], operands=operands,
                                           attributes=_attr_dict(o)).results[0]
            if lay.form == "uniform":
                return self.lane_extract(rb.one(v), lay.shape, to, elt)
            raise SimtError(op, f"cannot recompute {v.get_name()} in the layout '{op.name}' needs")
        return self.memo("remat", (v, to.key(), to.lane_shape), build)

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
            "vector.extract": self.r_slice,
            "vector.insert": self.r_insert,
            "vector.shape_cast": self.r_move,
            "vector.transpose": self.r_move,
            "arith.constant": self.r_const,
            "vector.broadcast": self.r_broadcast,
            "vector.splat": self.r_broadcast,
            "xegpu.create_tdesc": self.r_create_tdesc,
            "xegpu.update_offset": self.r_update_offset,
            "xegpu.load_gather": self.r_gather,
            "xegpu.store_scatter": self.r_scatter,
            "xegpu.atomic_rmw": self.r_atomic,
            "xegpu.prefetch": self.r_prefetch_sc,
            "vector.multi_reduction": self.r_reduction,
            "vector.reduction": self.r_reduction,
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
        if res in self.reorders:
            src_lay, need_idx = self.reorders[res]
            v = LoadNdOp.build(tdesc=d, result_types=[_vt(native, _velt(res))], **kw).op.results[0]
            try:
                return [self.reorder(v, src_lay.with_lane_shape(tuple(native)), need_idx, lay.lane_shape,
                                     _velt(res))]
            except SimtError as e:
                raise SimtError(op, f"'{op.name}': {e.message}")
        if tuple(native) == tuple(lay.lane_shape):
            return [LoadNdOp.build(tdesc=d, result_types=[self.lane_type(res)], **kw).op.results[0]]
        v = LoadNdOp.build(tdesc=d, result_types=[_vt(native, _velt(res))], **kw).op.results[0]
        return [vector.shape_cast(self.lane_type(res), v)]

    def r_store(self, rb, op):
        kw = {k: _str_attr(op, k) for k in ("l1_hint", "l2_hint", "l3_hint") if k in op.attributes}
        v, d = op.operands[0], rb.one(op.operands[1])
        tv = TensorDescType(d.type)
        # (a value held whole, e.g. a reduction result, is picked per work-item)
        # (the old value may already be a loop's rebuilt block argument: shapes from the layout)
        need = Layout.plain(self.lay_of(op, v).shape, SgMap(tuple(tv.sg_map.wi_layout), tuple(tv.sg_map.wi_data)))
        StoreNdOp.build(value=self.convert(rb, v, need, op, "stored value"), tdesc=d, **kw)
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
        if not _is_vec(res):
            return None         # an element of a vector every work-item holds whole: kept
        sl, rl = self.lay[src], self.lay[res]
        if rl.form == "sparse":
            return [rb.one(src)]    # a view for reductions: the source fragment
        idx = self.slice_index_fn(op, sl.shape, rl.shape)(rl.tbl)
        try:
            return [self.move(rb.one(src), sl, rl, idx, _velt(res))]
        except SimtError:
            raise SimtError(op, f"'{op.name}' would move data between work-items")

    def r_move(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, rl = self.lay[src], self.lay[res]
        if rl.form == "sparse":
            return [rb.one(src)]    # a view for reductions: the source fragment
        if res in self.reorders:
            src_lay, need_idx = self.reorders[res]
            try:
                return [self.reorder(rb.one(src), src_lay, need_idx, rl.lane_shape, _velt(res))]
            except SimtError as e:
                raise SimtError(op, f"'{op.name}': {e.message}")
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
        if not _is_vec(piece) and self.lay[dest].form == "uniform":
            return None         # an element into a vector every work-item holds whole: kept
        lp, ldst = self.lay[piece], self.lay[dest]
        offs = self.insert_offsets(op)
        elt = _velt(res)
        if res in self.piece_need:   # (keyed by result: an Operation's hash changes as the IR is rebuilt)
            lp = self.piece_need[res]
            pnew = self.convert(rb, piece, lp, op, "inserted piece")
        else:
            pnew = rb.one(piece)
        if res in self.dest_need:
            ldst = self.dest_need[res]
            dnew = self.convert(rb, dest, ldst, op, "destination")
        else:
            dnew = rb.one(dest)
        pairs = insert_pairs(lp, ldst, offs)
        if pairs is None:
            raise SimtError(op, "insert_strided_slice would move data between work-items")
        groups = {}
        for lane, pr in enumerate(pairs):
            groups.setdefault(pr, []).append(lane)
        out = dnew
        for pr, lanes in groups.items():
            if not pr:
                continue        # these work-items hold none of the piece: their fragment is unchanged
            cand = self._insert_fragment(pnew, lp, dnew, ldst, pr, elt)
            if len(lanes) == SG:
                out = cand
                break
            out = arith.SelectOp(self.lane_pred(lanes), cand, out).result
        if res in self.reorders:
            # the assembled block reordered across the work-items (fwd_insert)
            src_lay, need_idx = self.reorders[res]
            try:
                out = self.reorder(out, src_lay, need_idx, self.lay[res].lane_shape, elt)
            except SimtError as e:
                raise SimtError(op, f"'{op.name}': {e.message}")
        return [out]

    def _insert_fragment(self, pnew, lp: Layout, dnew, ldst: Layout, pairs, elt):
        """dest fragment with position q replaced by piece fragment position p for each (q, p)."""
        nd = int(np.prod(ldst.lane_shape))
        npc = int(np.prod(lp.lane_shape))
        by_p = sorted(pairs, key=lambda x: x[1])
        if [p for _, p in by_p] == list(range(npc)):
            box = _box_in([q for q, _ in by_p], ldst.lane_shape)
            if box is not None:
                first, sizes = box
                src_shape = list(sizes)
                while len(src_shape) > 1 and src_shape[0] == 1:
                    src_shape.pop(0)
                src = pnew
                if tuple(src_shape) != tuple(lp.lane_shape):
                    src = vector.shape_cast(_vt(src_shape, elt), pnew)
                return vector.insert_strided_slice(src, dnew, first, [1] * len(src_shape))
        mask = list(range(nd))
        for q, p in pairs:
            mask[q] = nd + p
        fd = dnew if len(ldst.lane_shape) == 1 else vector.shape_cast(_vt((nd,), elt), dnew)
        fp = pnew if len(lp.lane_shape) == 1 else vector.shape_cast(_vt((npc,), elt), pnew)
        sh = vector.shuffle(fd, fp, mask)
        if len(ldst.lane_shape) != 1:
            sh = vector.shape_cast(_vt(ldst.lane_shape, elt), sh)
        return sh

    def r_const(self, rb, op):
        res = op.results[0]
        if not _is_vec(res):
            return None
        d = ir.DenseElementsAttr(op.attributes["value"])
        if not d.is_splat:
            return None         # kept whole (uniform); users pick their elements
        rt = self.lane_type(res)
        return [arith.ConstantOp(rt, ir.DenseElementsAttr.get_splat(rt, d.get_splat_value())).result]

    def r_broadcast(self, rb, op):
        res, src = op.results[0], op.operands[0]
        if not _is_vec(src):
            return [vector.broadcast(self.lane_type(res), rb.one(src))]
        # a vector source: each work-item repeats the source elements it holds
        sl, rl = self.lay[src], self.lay[res]
        elt = _velt(res)
        rt = self.lane_type(res)
        idx = _bcast_src_index(sl.shape, rl.shape)[rl.tbl]
        src_new = rb.one(src)
        q = _uniform_positions(sl.tbl, idx)
        if q is None:
            if sl.form != "uniform":
                raise SimtError(op, "vector.broadcast would move data between work-items")
            # the source is held whole: each work-item picks the elements it repeats by work-item id
            # (once each), then repeats them in registers
            rows = [list(dict.fromkeys(int(x) for x in r)) for r in idx]
            n = len(rows[0])
            even = all(len(r) == n for r in rows)
            if even and n == 1:
                one = Layout(sl.shape, np.array(rows, np.int64), (), "gen")
                return [vector.broadcast(rt, self.lane_extract(src_new, sl.shape, one, elt))]
            compact = Layout(sl.shape, np.array(rows, np.int64), (n,), "gen") if even else None
            q = None if compact is None else _uniform_positions(compact.tbl, idx)
            if q is None:
                return [self.lane_extract(src_new, sl.shape, Layout(sl.shape, idx, rl.lane_shape, "gen"), elt)]
            src_new = self.lane_extract(src_new, sl.shape, compact, elt)
            sl = compact
        if _bcast_ok(sl.lane_shape, rl.lane_shape) and \
                np.array_equal(_bcast_src_index(sl.lane_shape, rl.lane_shape), q):
            # the per-work-item operation is itself a broadcast (a row: each work-item's column element)
            if tuple(sl.lane_shape) == tuple(rl.lane_shape):
                return [src_new]
            return [vector.broadcast(rt, src_new)]
        if (q == q[0]).all():
            pos = [int(x) for x in np.unravel_index(int(q[0]), sl.lane_shape)]
            return [vector.broadcast(rt, vector.extract(src_new, [], pos))]
        return [self.move(src_new, sl, rl, idx, elt)]

    def r_generic(self, rb, op):
        """Element-wise arith/math op on fragments (operands that do not depend on the work-item are
        recomputed in the result's layout)."""
        res = [r for r in op.results if _is_vec(r)]
        if not res:
            return None
        if res[0] in self.red_plan:
            return [self.r_combine(rb, op)]
        lay = self.lay[res[0]]
        if len(op.results) == 1 and self.remat_able(res[0]):
            return [self.materialize(rb, res[0], lay, op, rebuild=True)]
        types = [self.lane_type(r) if _is_vec(r) else r.type for r in op.results]
        operands = [self.convert(rb, v, lay, op) if _is_vec(v) else rb.one(v) for v in op.operands]
        attrs = _attr_dict(op)
        new = ir.Operation.create(op.name, results=types, operands=operands, attributes=attrs)
        return [new.results[i] for i in range(len(types))]

    # ---- reductions (rewrite) -----------------------------------------------------------------------
    def _flat(self, v, lane_shape, elt):
        """A work-item's fragment as a 1-D vector (a scalar as vector<1>)."""
        if len(lane_shape) == 1:
            return v
        if tuple(lane_shape) == ():
            return self.memo("flat", v, lambda: vector.broadcast(_vt((1,), elt), v))
        return self.memo("flat", v, lambda: vector.shape_cast(_vt((int(np.prod(lane_shape)),), elt), v))

    @staticmethod
    def _unflat(v, lane_shape, elt):
        if tuple(lane_shape) == ():
            return vector.extract(v, [], [0])
        if len(lane_shape) == 1:
            return v
        return vector.shape_cast(_vt(lane_shape, elt), v)

    def identity_vec(self, kind, elt, n):
        def build():
            t = _vt((n,), elt)
            return arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, _identity_attr(kind, elt))).result
        return self.memo("identity", (kind, elt, n), build)

    @staticmethod
    def combine(kind, elt, a, b):
        name = _ARITH_COMBINE[kind][1 if _is_int(elt) else 0]
        return ir.Operation.create(name, results=[a.type], operands=[a, b]).results[0]

    def reduce_rows(self, frag, M, acc_vec, kind, elt):
        """vector<n_r>: element r the `kind` reduction of the fragment positions M[r] (-1: identity),
        combined with acc_vec (vector<n_r>) when given; None when nothing contributes."""
        n_r, k = M.shape
        if (M < 0).all():
            return acc_vec
        n_src = _vshape(frag)[0]
        mask = M.reshape(-1)
        if (mask >= 0).all():
            x = frag if np.array_equal(mask, np.arange(n_src)) else vector.shuffle(frag, frag, [int(i) for i in mask])
        else:
            x = vector.shuffle(frag, self.identity_vec(kind, elt, 1), [int(i) if i >= 0 else n_src for i in mask])
        if k == 1:
            return x if acc_vec is None else self.combine(kind, elt, x, acc_vec)
        x = vector.shape_cast(_vt((n_r, k), elt), x)
        a = acc_vec if acc_vec is not None else self.identity_vec(kind, elt, n_r)
        return ir.Operation.create("vector.multi_reduction", results=[_vt((n_r,), elt)], operands=[x, a],
                                   attributes={"kind": ir.Attribute.parse(f"#vector.kind<{kind}>"),
                                               "reduction_dims": ir.DenseI64ArrayAttr.get([1])}).results[0]

    def select_groups(self, groups: dict, build):
        """One value per group of work-items (key -> work-items), selected by work-item id."""
        items = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[1][0]))
        out = build(items[0][0])
        for key, lanes in items[1:]:
            cand = build(key)
            if cand != out:
                out = arith.SelectOp(self.lane_pred(lanes), cand, out).result
        return out

    def all_reduce(self, x, kind, elt):
        """The `kind` combination of x over the 16 work-items, in every work-item."""
        if kind in _SUBGROUP_REDUCE_KINDS:
            return ir.Operation.create("gpu.subgroup_reduce", results=[x.type], operands=[x],
                                       attributes={"op": ir.Attribute.parse(f"#gpu<all_reduce_op {kind}>")}).results[0]
        i32 = ir.IntegerType.get_signless(32)
        width = self.memo("const_i32", SG, lambda: arith.ConstantOp(i32, SG).result)
        off = SG // 2
        while off:
            o = self.memo("const_i32", off, lambda: arith.ConstantOp(i32, off).result)
            y = gpu.ShuffleOp(x, o, width, gpu.ShuffleMode.XOR).results[0]
            x = self.combine(kind, elt, x, y)
            off //= 2
        return x

    def r_reduction(self, rb, op):
        res = op.results[0]
        plan = self.red_plan[res]
        src = op.operands[0]
        acc = op.operands[1] if len(op.operands) > 1 else None
        sl = self.lay[src]
        frag = self._flat(rb.one(src), sl.lane_shape, plan.elt)
        if plan.mode == "local":
            return [self.red_local(rb, op, plan, sl, frag, acc)]
        return [self.red_cross(rb, op, plan, sl, frag, acc)]

    def red_local(self, rb, op, plan, sl, frag, acc):
        kind, elt, lay = plan.kind, plan.elt, plan.res_lay
        rows = lay.tbl if lay is not None else np.zeros((SG, 1), np.int64)
        n = rows.shape[1]
        src_of = [[] for _ in range(plan.n_r)]
        for s_, r in enumerate(plan.ridx):
            src_of[int(r)].append(s_)
        acc_vec = None
        if acc is not None:
            if lay is None:
                acc_vec = self._flat(rb.one(acc), (), elt)
            else:
                acc_vec = self.convert(rb, acc, lay.with_lane_shape((n,)), op, "accumulator")
        groups = {}
        for lane in range(SG):
            pos = {}
            for p, x in enumerate(sl.tbl[lane]):
                pos.setdefault(int(x), p)
            key = tuple(tuple(pos[s_] for s_ in src_of[int(r)]) for r in rows[lane])
            groups.setdefault(key, []).append(lane)
        out = self.select_groups(groups, lambda key: self.reduce_rows(frag, np.array(key, np.int64), acc_vec, kind,
                                                                         elt))
        return self._unflat(out, lay.lane_shape if lay is not None else (), elt)

    def operand_term(self, rb, v, n, elt):
        """(fragment, per-work-item contribution rows) of an operand of a cross-work-item combination
        (n elements): every position of a partial result, else each element once."""
        lay = self.lay[v]
        frag = self._flat(rb.one(v), lay.lane_shape, elt)
        return frag, _contributions(lay.tbl, np.arange(n, dtype=np.int64), n, dedupe=lay.form != "partial")

    def partial_of_terms(self, terms, kind, elt, n_r):
        """This work-item's vector<n_r> partial result of the `kind` combination of the terms (fragment,
        per-work-item rows: the fragment positions each result element takes). Work-items with the
        same positions share the code (selected by work-item id); a term whose positions differ in
        many work-items, one element per result element, is inserted at positions looked up by
        work-item id instead."""
        def key_of(rows, lane):
            return tuple(map(tuple, rows[lane]))
        merged = []
        for frag, rows in terms:
            # views of one fragment (a slice and the rest of the block): one term
            same = next((i for i, (f, _) in enumerate(merged) if f == frag), None)
            if same is None:
                merged.append((frag, [[list(r) for r in lane_rows] for lane_rows in rows]))
            else:
                for lane in range(SG):
                    for r, ps in enumerate(rows[lane]):
                        merged[same][1][lane][r] += ps
        terms = merged
        joint = {}
        for lane in range(SG):
            joint.setdefault(tuple(key_of(rows, lane) for _, rows in terms), []).append(lane)

        def build(key):
            x = None
            for (frag, _), rows in zip(terms, key):
                x = self.reduce_rows(frag, _pad_rows(rows), x, kind, elt)
            return x if x is not None else self.identity_vec(kind, elt, n_r)
        if len(joint) <= 4:
            return self.select_groups(joint, build)
        x = None
        for frag, rows in terms:
            groups = {}
            for lane in range(SG):
                groups.setdefault(key_of(rows, lane), []).append(lane)
            slots, slot_rows = _slots(rows, _vshape(frag)[0], n_r)
            k = max([len(r) for lane_rows in slot_rows for r in lane_rows] + [0])
            if len(groups) > len(slots) + 1 and k <= 1:
                # positions that always go to one result element are reduced first (e.g. the 4 rows
                # of a column a work-item of a [2, 8] layout holds), then inserted by work-item id
                sv = frag
                if any(len(ps) > 1 for ps in slots) or [ps[0] for ps in slots] != list(range(_vshape(frag)[0])):
                    sv = self.reduce_rows(frag, _pad_rows(slots), None, kind, elt)
                y = self.insert_by_lane(sv, slot_rows, kind, elt, n_r)
            else:
                def one(key, frag=frag):
                    y = self.reduce_rows(frag, _pad_rows(key), None, kind, elt)
                    return y if y is not None else self.identity_vec(kind, elt, n_r)
                y = self.select_groups(groups, one)
            x = y if x is None else self.combine(kind, elt, y, x)
        return x

    def insert_by_lane(self, frag, rows, kind, elt, n_r):
        """vector<n_r>: the identity, with each fragment position inserted at the result element it
        takes in this work-item (a lookup by work-item id; positions a work-item does not put anywhere
        go to a scratch element past the end)."""
        n_pos = _vshape(frag)[0]
        dest = np.full((SG, n_pos), n_r, np.int64)
        for lane in range(SG):
            for r, ps in enumerate(rows[lane]):
                for p in ps:
                    dest[lane, p] = r
        x = self.identity_vec(kind, elt, n_r + 1)
        for p in range(n_pos):
            col = dest[:, p]
            if (col == n_r).all():
                continue
            e = vector.extract(frag, [], [p])
            if (col == col[0]).all():
                x = vector.insert(e, x, [], [int(col[0])])
            else:
                x = vector.insert(e, x, [self.lane_index(col)], [_DYN])
        return vector.extract_strided_slice(_vt((n_r,), elt), x, [0], [n_r], [1])

    def r_combine(self, rb, op):
        res = op.results[0]
        plan = self.red_plan[res]
        kind, elt, n = plan.kind, plan.elt, plan.n_r
        part = self.partial_of_terms([self.operand_term(rb, v, n, elt) for v in op.operands], kind, elt, n)
        if not plan.keep:
            part = self.all_reduce(part, kind, elt)
        return self._unflat(part, plan.rshape, elt)

    def red_cross(self, rb, op, plan, sl, frag, acc):
        kind, elt, n_r = plan.kind, plan.elt, plan.n_r
        terms = [(frag, _contributions(sl.tbl, plan.ridx, n_r, dedupe=sl.form != "partial"))]
        if plan.acc_mode == "partial":
            terms.append(self.operand_term(rb, acc, n_r, elt))
        elif plan.acc_mode == "contrib":
            if self.lay.get(acc) is None:       # a scalar every work-item holds: added by work-item 0
                terms.append((self._flat(rb.one(acc), (), elt),
                               _contributions(np.zeros((SG, 1), np.int64), np.zeros(1, np.int64), 1)))
            else:
                terms.append(self.operand_term(rb, acc, n_r, elt))
        part = self.partial_of_terms(terms, kind, elt, n_r)
        if plan.keep:
            return self._unflat(part, plan.rshape, elt)
        if not plan.rshape:
            part = vector.extract(part, [], [0])
        total = self.all_reduce(part, kind, elt)
        if not plan.rshape:
            return total if plan.acc_mode != "post" else self.combine(kind, elt, total, rb.one(acc))
        lay = plan.res_lay
        n = lay.count
        if lay.form != "uniform":
            total = self.lane_extract(total, (plan.n_r,), lay.with_lane_shape((n,)), elt)
        if plan.acc_mode == "post":
            total = self.combine(kind, elt, total, self.convert(rb, acc, lay.with_lane_shape((n,)), op, "accumulator"))
        return self._unflat(total, lay.lane_shape, elt)

    # ---- scattered ops ------------------------------------------------------------------------------
    # A scattered chain's access layout says which (lane, chunk element) pairs of the VC access each
    # work-item addresses. A SIMT scattered access addresses at most 32 lanes (2 elements per
    # work-item), so a work-item holding more is split into parts of at most 2, each its own SIMT
    # descriptor / message; the parts of a loaded value are concatenated in the work-item.
    def sc_access(self, tdesc):
        c = self.chain_of.get(tdesc)
        if c not in self.sc_lay:
            _, lanes, chunk = self.scatter_info(tdesc)
            acc = self.default_access(lanes, chunk)
            self.sc_lay[c] = Layout(acc.shape, acc.tbl, (acc.count,), acc.form, acc.sgm)
        return self.sc_lay[c]

    def sc_parts(self, tdesc):
        """[(first position, access Layout of the part)] of a chain's SIMT messages."""
        acc = self.sc_access(tdesc)
        per = _SIMT_MAX_LANES // SG
        return [(p, Layout(acc.shape, acc.tbl[:, p:p + per], (min(per, acc.count - p),), "gen"))
                for p in range(0, acc.count, per)]

    def sc_tdesc_type(self, tdesc, part: Layout):
        """SIMT type of (a part of) a scattered descriptor: 16 x n lanes (n elements per work-item), 1D,
        sg_map [1, 16] x [1, n] when each work-item's lanes are consecutive, else [1, 16] x [1, 1]."""
        tv = self.scatter_info(tdesc)[0]
        n = part.count
        fields = _tdesc_fields(tv)
        fields.pop("chunk_size_per_lane", None)
        consecutive = n > 1 and bool((np.diff(part.tbl, axis=1) == 1).all())
        fields["sg_map"] = {"wi_layout": (1, SG), "wi_data": (1, n if consecutive else 1)}
        return TensorDescType.get([SG * n], tv.element_type, **fields)

    def sc_lanes(self, tdesc, part: Layout):
        """Layout over the VC lanes (offsets, masks, deltas) of each work-item's elements of a part;
        the scalar form for one element per work-item."""
        _, lanes, chunk = self.scatter_info(tdesc)
        lay = Layout((lanes,), part.tbl // chunk, (part.count,), "gen")
        return lay.with_lane_shape(()) if part.count == 1 else lay

    def sc_offsets(self, rb, op, tdesc, part: Layout, offsets, what):
        """This work-item's offsets of a part: the VC offsets of its lanes (plus the chunk position)."""
        _, lanes, chunk = self.scatter_info(tdesc)
        o = self.convert(rb, offsets, self.sc_lanes(tdesc, part), op, what)
        if chunk > 1 and what == "offsets":
            k = part.tbl % chunk
            if part.count == 1:
                o = arith.AddIOp(o, self.lane_index(k[:, 0])).result
            elif (k == k[0:1]).all():
                t = _vt((part.count,), "index")
                o = arith.AddIOp(o, arith.ConstantOp(t, _dense(k[0], (part.count,), "index")).result).result
            else:
                kv = vector.from_elements(_vt((part.count,), "index"), [self.lane_index(k[:, p])
                                                                       for p in range(part.count)])
                o = arith.AddIOp(o, kv).result
        return o

    def sc_value(self, rb, op, tdesc, v, what):
        """The value's elements this work-item stores, in access order, split per part."""
        acc = self.sc_access(tdesc)
        _, lanes, chunk = self.scatter_info(tdesc)
        lay = self.value_layout(acc, lanes, chunk, self.lay[v].shape, self.lay.get(v))
        parts = self.sc_parts(tdesc)
        if len(parts) == 1:
            return [self.convert(rb, v, lay.with_lane_shape(() if acc.count == 1 else (acc.count,)), op, what)]
        whole = self.convert(rb, v, lay.with_lane_shape((acc.count,)), op, what)
        out = []
        for first, part in parts:
            if part.count == 1:
                out.append(vector.extract(whole, [], [first]))
            else:
                out.append(vector.extract_strided_slice(_vt((part.count,), _velt(v)), whole, [first],
                                                        [part.count], [1]))
        return out

    def sc_result(self, res, pieces):
        """A work-item's loaded parts (scalars or vectors) as the fragment the rest of the program uses."""
        lay = self.lay[res]
        elt = _velt(res)
        vecs = [vector.broadcast(_vt((1,), elt), x) if not _is_vec(x) else x for x in pieces]
        whole = vecs[0]
        for x in vecs[1:]:
            a, b = _vshape(whole)[0], _vshape(x)[0]
            whole = vector.shuffle(whole, x, list(range(a + b)))
        if tuple(lay.lane_shape) != tuple(_vshape(whole)):
            whole = vector.shape_cast(self.lane_type(res), whole)
        return whole

    @staticmethod
    def _hints(op):
        return {k: _str_attr(op, k) for k in ("l1_hint", "l2_hint", "l3_hint") if k in op.attributes}

    @staticmethod
    def _one_or_list(vals):
        return vals[0] if len(vals) == 1 else vals

    def r_create_tdesc(self, rb, op):
        d = op.results[0]
        out = []
        for _, part in self.sc_parts(d):
            offs = self.sc_offsets(rb, op, d, part, op.operands[1], "offsets")
            out.append(CreateTdescOp.build(source=rb.one(op.operands[0]), offsets=offs,
                                           result_types=[self.sc_tdesc_type(d, part)]).op.results[0])
        return [self._one_or_list(out)]

    def r_update_offset(self, rb, op):
        old = op.operands[0]
        out = []
        for d, (_, part) in zip(rb.map(old), self.sc_parts(old)):
            delta = self.sc_offsets(rb, op, old, part, op.operands[1], "delta")
            out.append(UpdateOffsetOp.build(tdesc=d, delta=delta, result_types=[d.type]).op.results[0])
        return [self._one_or_list(out)]

    def r_gather(self, rb, op):
        old, res = op.operands[0], op.results[0]
        elt = _velt(res)
        pieces = []
        for d, (_, part) in zip(rb.map(old), self.sc_parts(old)):
            mask = self.convert(rb, op.operands[1], self.sc_lanes(old, part), op, "mask")
            rt = _lt(() if part.count == 1 else (part.count,), elt)
            pieces.append(LoadGatherOp.build(tdesc=d, mask=mask, result_types=[rt], **self._hints(op)).op.results[0])
        return [self.sc_result(res, pieces)]

    def r_scatter(self, rb, op):
        v, old = op.operands[0], op.operands[1]
        vals = self.sc_value(rb, op, old, v, "stored value")
        for d, val, (_, part) in zip(rb.map(old), vals, self.sc_parts(old)):
            mask = self.convert(rb, op.operands[2], self.sc_lanes(old, part), op, "mask")
            StoreScatterOp.build(value=val, tdesc=d, mask=mask, **self._hints(op))
        return []

    def r_atomic(self, rb, op):
        v, old, res = op.operands[0], op.operands[1], op.results[0]
        vals = self.sc_value(rb, op, old, v, "value")
        kind = AtomicRmwOp(op).kind
        pieces = []
        for d, val, (_, part) in zip(rb.map(old), vals, self.sc_parts(old)):
            mask = self.convert(rb, op.operands[2], self.sc_lanes(old, part), op, "mask")
            pieces.append(AtomicRmwOp.build(kind=kind, value=val, tdesc=d, mask=mask,
                                            result_types=[val.type]).op.results[0])
        return [self.sc_result(res, pieces)]

    def r_prefetch_sc(self, rb, op):
        for d in rb.map(op.operands[0]):
            PrefetchOp.build(tdesc=d, **self._hints(op))
        return []

    def run(self) -> bool:
        if not self.is_vc():
            return True
        if self.options["split-a-loads"]:
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
                # Rebuilder._for (1:N values flattened into the iter_args), registering the layouts
                # and descriptor chains of the new block arguments and results
                lb, ub, step, *inits = list(op.operands)
                body = op.regions[0].blocks[0]
                # also rebuilt when an enclosing loop's rebuild replaced a carried value in place
                retyped = any(v.type != a.type for v, a in zip(inits, list(body.arguments)[1:]))
                if not retyped and not any(self.is_changed(v) for v in op.operands):
                    self.process_block(body)
                    return False
                groups = [self.map(v) for v in inits]
                flat = [x for g in groups for x in g]
                new = scf.ForOp(self.one(lb), self.one(ub), self.one(step), flat)
                old_args = list(body.arguments)
                old_args[0].replace_all_uses_with(new.induction_variable)
                new_iter = list(new.inner_iter_args)
                k = 0
                for old_arg, g in zip(old_args[1:], groups):
                    vals = new_iter[k:k + len(g)]
                    k += len(g)
                    if len(vals) != 1:
                        self.set(old_arg, vals)
                        continue
                    if old_arg in dist.lay:
                        dist.lay[vals[0]] = dist.lay[old_arg]
                    if old_arg in dist.chain_of:
                        dist.chain_of[vals[0]] = dist.chain_of[old_arg]
                    old_arg.replace_all_uses_with(vals[0])
                for child in list(body.operations):
                    new.body.append(child.operation)
                self.process_block(new.body)
                results = list(new.results)
                k = 0
                for old_res, g in zip(op.results, groups):
                    vals = results[k:k + len(g)]
                    k += len(g)
                    if len(vals) != 1:
                        self.set(old_res, vals)
                        continue
                    if old_res in dist.lay:
                        dist.lay[vals[0]] = dist.lay[old_res]
                    if old_res in dist.chain_of:
                        dist.chain_of[vals[0]] = dist.chain_of[old_res]
                    old_res.replace_all_uses_with(vals[0])
                return True

        rb = _RB(handlers)
        try:
            for region in self.func.regions:
                for block in region.blocks:
                    rb.process_block(block)
        except (SimtError, RewriteError) as e:
            self.ctx.error(e.op if e.op is not None else self.func, e.message)
            return False
        self.erase_dead()
        return True

    def erase_dead(self):
        """Drop side-effect-free vector ops left without users (values that were recomputed in their
        users' layouts, or kept whole for them)."""
        changed = True
        while changed:
            changed = False
            for op in reversed(list(_walk(self.func))):
                n = op.name
                if not (n.startswith(("arith.", "math.")) or n in _PURE):
                    continue
                if n != "gpu.lane_id" and not any(_is_vec(r) for r in op.results) and n != "vector.extract":
                    continue
                if any(True for r in op.results for _ in r.uses):
                    continue
                op.erase()
                changed = True


def _gathered_block(v) -> bool:
    """True when `v` is a block assembled in registers from gathered pieces (convert-xetile-to-xegpu's
    scattered form of a block load): a chain of insert_strided_slice / vector.insert of vector pieces
    into a constant, each intermediate block used only by the next insert, at least one piece
    computed (element-wise, e.g. the select of masked lanes) from an `xegpu.load_gather`."""
    gathered = False
    while True:
        o = _owner(v)
        if o is None:
            return False
        if o.name == "arith.constant":
            return gathered
        if o.name not in ("vector.insert_strided_slice", "vector.insert") or not _is_vec(o.operands[0]):
            return False
        piece = [o.operands[0]]
        while piece and not gathered:
            x = _owner(piece.pop())
            if x is None:
                continue
            if x.name == "xegpu.load_gather":
                gathered = True
            elif _elementwise(x):
                piece.extend(y for y in x.operands if _is_vec(y))
        v = o.operands[1]
        if sum(1 for _ in v.uses) != 1:
            return False


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


from ...utils.driver import run_per_function  # noqa: E402
from ...registry import Option, register_pass  # noqa: E402


@register_pass("xegpu-simt-distribute",
               "Distribute VC-mode XeGPU to SIMT mode: sg_map on descriptors, per-work-item vectors",
               options=[Option("arch", str, "pvc", "target architecture"),
                        Option("split-a-loads", bool, True,
                               "give each DPAS A operand its own block load (hardware A layout)")])
def xegpu_simt_distribute(module_op, options, ctx):
    return run_per_function(module_op, options, ctx, Distributor)
