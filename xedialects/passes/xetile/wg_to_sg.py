"""`xetile-wg-to-sg`: distribute work-group level XeTile to subgroup level XeTile (pipeline stage 2).

Inside each `gpu.func`, every work-group value (a tile whose type carries `wg_map`, a vector produced
by a work-group op) becomes the subgroup value(s) of the executing subgroup, per the RFC rule
implemented in `distribution.py`: `%sg = gpu.subgroup_id` is placed on the sg_layout grid
row-major; per dimension the tile is handed out round-robin (several subtiles per subgroup: one
work-group value maps to N subgroup values) or wraps around (subgroups share data).

The pass works in three steps per function:
1. layout analysis: which wg_map every work-group vector has (from its producer: load_tile takes
   the tile's map, tile_mma wg_map_c, tile_transpose/reduce/broadcast/conv_layout their wg_map;
   element-wise arith/math ops take the `wg_map` attribute they carry (the map of their result)
   and otherwise carry their operands' map through, as do scf.for and scf.if; splat constants and
   scalar broadcasts take it from their users);
2. checks: everything that could fail is reported (`ctx.error`) before the IR is touched;
3. rewrite with the 1:N `Rebuilder`.

Per op: init_tile gives one subgroup init_tile per owned subtile (offsets = work-group offsets +
subtile offsets; dynamic shape/stride operands and i64 sources kept; the tile type drops wg_map
and keeps the other fields); load/store/prefetch/update_tile_offset/atomic_rmw_tile work per
subtile; tile_mma checks the A/B/C maps against the RFC derivation and multiplies the matching
pieces (every subgroup must hold the whole K extent of its rows of A and columns of B);
element-wise arith/math ops, splat constants and scalar vector.broadcast are re-created at
subgroup size; scf.for / scf.if carrying work-group values are rebuilt with 1:N results.

Vector ops that move data between subgroups (tile_transpose, tile_conv_layout, tile_broadcast and
tile_reduce whose source is distributed differently) go through shared local memory: a
`memref.alloc` in address space 3, per-subgroup `store_tile` with the source map, `gpu.barrier`,
`load_tile` with the target map (transposed loads for tile_transpose). When every subgroup already
holds what it needs (checked statically over all subgroups, e.g. rfc-xetile.md appendix 2.3) they
stay in registers. A cross-subgroup tile_reduce reduces per subgroup, exchanges the partial
results through SLM and reduces again; a tile_conv_layout whose only user is a tile_reduce is
folded into it (partials move instead of the whole value). Values larger than the `slm-budget`
option move in bands. Anything that cannot be distributed is reported at its op.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf, vector

from ...core.opdef import attr_value
from ...core.typeinfo import element_bits, vector_info
from ...xetile.attributes import WG_MAP, TileType
from ...xetile.ops import (InitTileOp, LoadTileOp, StoreTileOp, TileBroadcastOp,
                          TileConvLayoutOp, TileMmaOp, TileReduceOp, TileTransposeOp)
from .distribution import Layout, distribution_errors, local_plan, local_reduce_plan
from ..utils.rebuild import Rebuilder
from ..registry import Option, register_pass
from ..utils.ir_walk import functions as _functions, owner_op as _owner_op, walk as _walk
from ..analysis.tile_uses import is_elementwise as _is_elementwise

_RFC_MMA = ("RFC: the A, B and C maps of tile_mma must have the same sg_layout, sg_data for the M and N "
            "dimensions must be the same as wg_map_c's, and sg_data for the K dimension the same for A and B")

_COMBINE = {  # tile_reduce kind -> element-wise arith op combining partial results (float, int)
    "add": ("arith.addf", "arith.addi"), "mul": ("arith.mulf", "arith.muli"),
    "minsi": (None, "arith.minsi"), "minui": (None, "arith.minui"), "maxsi": (None, "arith.maxsi"),
    "maxui": (None, "arith.maxui"), "and": (None, "arith.andi"), "or": (None, "arith.ori"),
    "xor": (None, "arith.xori"), "minnumf": ("arith.minnumf", None), "maxnumf": ("arith.maxnumf", None),
    "minimumf": ("arith.minimumf", None), "maximumf": ("arith.maximumf", None),
}

_VECTOR_OPS = ("xetile.tile_mma", "xetile.tile_transpose", "xetile.tile_reduce", "xetile.tile_broadcast",
               "xetile.tile_conv_layout")
_MATERIALIZABLE = ("arith.constant", "vector.broadcast", "vector.splat")


class PassError(Exception):
    def __init__(self, op, message):
        super().__init__(message)
        self.op = op
        self.message = message


class _Reported(Exception):
    """A problem already reported at an earlier op."""


# -- small helpers ---------------------------------------------------------------------------------

def _is_tile(t) -> bool:
    return str(t).startswith("!xetile.tile")


def _is_vector(t) -> bool:
    return isinstance(t, ir.VectorType) or str(t).startswith("vector<")


def _tile_layout(t):
    """Layout of a tile type carrying wg_map, else None."""
    if not _is_tile(t):
        return None
    tv = TileType(t)
    if tv.wg_map is None:
        return None
    return Layout.of(tv.shape, tv.wg_map)


def _vshape(v):
    return vector_info(v)[0]


def _elt(v) -> ir.Type:
    return ir.VectorType(v.type).element_type


def _shape2d(v):
    """The 2D shape a vector covers: blocked 4D [M/bm, N/bn, bm, bn] vectors cover M x N."""
    s = _vshape(v)
    return (s[0] * s[2], s[1] * s[3]) if len(s) == 4 else s


def _piece_type(v, lay) -> ir.Type:
    """Type of one subgroup piece of work-group vector `v` (blocked like `v` when it is 4D)."""
    s = _vshape(v)
    d = lay.sg_data
    shape = (d[0] // s[2], d[1] // s[3], s[2], s[3]) if len(s) == 4 else d
    return _vec(shape, ir.VectorType(v.type).element_type)


def _vec(shape, elt) -> ir.Type:
    return ir.VectorType.get(list(shape), elt)


def _short(lay: Layout) -> str:
    return f"sg_layout = [{lay.sg_layout[0]}, {lay.sg_layout[1]}], sg_data = [{lay.sg_data[0]}, {lay.sg_data[1]}]"


def _create(name, operands, result_types, attrs=None):
    return ir.Operation.create(name, results=list(result_types), operands=list(operands),
                               attributes=dict(attrs or {}))


def _attrs(op, drop=("wg_map",)):
    """The attributes an op keeps at subgroup level: without `wg_map` (the subgroup form of an
    element-wise op, constant or broadcast carries no work-group map)."""
    named = (op.attributes[i] for i in range(len(op.attributes)))
    return {na.name: na.attr for na in named if na.name not in drop}


def _op_wg_map(op):
    """The `wg_map` attribute of an element-wise op, constant or broadcast (the map of its result,
    as on the XeTile vector ops), or None."""
    if "wg_map" not in op.attributes:
        return None
    return attr_value(WG_MAP, op.attributes["wg_map"])




# -- layout analysis ------------------------------------------------------------------------------

class _Class:
    __slots__ = ("fixed", "fixed_op", "reqs")

    def __init__(self):
        self.fixed = None
        self.fixed_op = None
        self.reqs = []  # (layout, op, strong)


class LayoutAnalysis:
    """Assigns a Layout (shape + wg_map) to every work-group vector of one function."""

    def __init__(self, func, errors):
        self.func = func
        self.errors = errors  # list of (op, message)
        self.parent: dict = {}
        self.cls: dict = {}
        self.requirements = []  # (value, layout, op, message prefix): checked after resolution
        self.deriving = []      # (op, source value, result value, derive fn)
        self.layout: dict = {}
        self._walk_block_ops(func)
        self._resolve()

    # union-find over vector values
    def _find(self, v):
        if v not in self.parent:
            self.parent[v] = v
            self.cls[v] = _Class()
            return v
        root = v
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[v] != root:
            self.parent[v], v = root, self.parent[v]
        return root

    def _union(self, a, b, op):
        ra, rb = self._find(a), self._find(b)
        if ra == rb:
            return
        ca, cb = self.cls[ra], self.cls[rb]
        if ca.fixed is not None and cb.fixed is not None and ca.fixed != cb.fixed:
            self.errors.append((op, f"'{op.name}' joins work-group vectors with different maps: {ca.fixed} "
                                    f"(from '{ca.fixed_op.name}') and {cb.fixed} (from '{cb.fixed_op.name}'); "
                                    "insert xetile.tile_conv_layout to convert one of them"))
        self.parent[rb] = ra
        if ca.fixed is None:
            ca.fixed, ca.fixed_op = cb.fixed, cb.fixed_op
        ca.reqs += cb.reqs
        del self.cls[rb]

    def _fix(self, v, lay, op):
        c = self.cls[self._find(v)]
        if c.fixed is not None and c.fixed != lay:
            self.errors.append((op, f"'{op.name}' result map {lay} conflicts with {c.fixed} "
                                    f"(from '{c.fixed_op.name}') of a value it is joined with"))
            return
        c.fixed, c.fixed_op = lay, op

    def _require(self, v, lay, op, strong, what):
        self.cls[self._find(v)].reqs.append((lay, op, strong))
        if strong:
            self.requirements.append((v, lay, op, what))

    def _walk_block_ops(self, op):
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    self._visit(child.operation)

    def _visit(self, op):
        name = op.name
        if name == "xetile.load_tile":
            lay = _tile_layout(op.operands[0].type)
            if lay is not None:
                perm = LoadTileOp(op).transpose
                if perm is not None and tuple(perm) == (1, 0):
                    if 1 not in lay.sg_layout:
                        self.errors.append((op, "load_tile with transpose = [1, 0] of a work-group tile needs an "
                                                "sg_layout with a 1 (e.g. [32, 1]) so that the transposed data keeps "
                                                f"the row-major subgroup order; the tile has {_short(lay)}; load "
                                                "without transpose and use xetile.tile_transpose"))
                        return
                    lay = Layout(lay.shape[::-1], lay.sg_layout[::-1], lay.sg_data[::-1])
                self._fix(op.results[0], lay, op)
        elif name == "xetile.atomic_rmw_tile":
            lay = _tile_layout(op.operands[1].type)
            if lay is not None:
                self._fix(op.results[0], lay, op)
                self._require(op.operands[0], lay, op, True, "the value of atomic_rmw_tile")
        elif name == "xetile.store_tile":
            lay = _tile_layout(op.operands[1].type)
            if lay is not None:
                self._require(op.operands[0], lay, op, True, "the stored vector")
        elif name == "xetile.tile_mma":
            mma = TileMmaOp(op)
            res = op.results[0]
            if mma.wg_map_c is not None:
                lay = Layout.of(_vshape(res), mma.wg_map_c)
                self._fix(res, lay, op)
                if mma.c is not None:
                    self._require(mma.c, lay, op, True, "the accumulator C")
            elif mma.c is not None:
                self._union(res, mma.c, op)
            else:
                self._find(res)
            for v, m in ((mma.a, mma.wg_map_a), (mma.b, mma.wg_map_b)):
                if m is not None:
                    self._require(v, Layout.of(_vshape(v), m), op, False, "")
                else:
                    self._find(v)
        elif name in ("xetile.tile_transpose", "xetile.tile_reduce", "xetile.tile_broadcast"):
            src, res = op.operands[0], op.results[0]
            self._find(src)
            wgm = (TileTransposeOp if name.endswith("transpose") else TileReduceOp if name.endswith("reduce")
                   else TileBroadcastOp)(op).wg_map
            if wgm is not None:
                lay = Layout.of(_vshape(res), wgm)
                self._fix(res, lay, op)
                derived = self._derive_source(op, lay)
                if derived is not None:
                    self._require(src, derived, op, False, "")
            else:
                self._find(res)
                self.deriving.append(op)
        elif name == "xetile.tile_conv_layout":
            cv = TileConvLayoutOp(op)
            self._find(op.operands[0])
            self._fix(op.results[0], Layout.of(_vshape(op.results[0]), cv.wg_map), op)
            if cv.wg_map_source is not None:
                self._require(op.operands[0], Layout.of(_vshape(op.operands[0]), cv.wg_map_source), op, True,
                              "the source of tile_conv_layout (wg_map_source)")
        elif name in _MATERIALIZABLE:
            if op.results and _is_vector(op.results[0].type):
                self._find(op.results[0])
        elif _is_elementwise(op):
            vs = [v for v in list(op.operands) + list(op.results) if _is_vector(v.type)]
            for v in vs[1:]:
                self._union(vs[0], v, op)
            wgm = _op_wg_map(op)
            if wgm is not None:
                self._fix(op.results[0], Layout.of(_vshape(op.results[0]), wgm), op)
        elif name == "scf.for":
            body = op.regions[0].blocks[0]
            inits = list(op.operands)[3:]
            for init, arg, res in zip(inits, list(body.arguments)[1:], op.results):
                if _is_vector(init.type):
                    self._union(init, arg, op)
                    self._union(arg, res, op)
            self._walk_block_ops(op)
            term = list(body.operations)[-1]
            for y, arg in zip(term.operands, list(body.arguments)[1:]):
                if _is_vector(y.type):
                    self._union(y, arg, term)
        elif name == "scf.if":
            self._walk_block_ops(op)
            for region in op.regions:
                for block in region.blocks:
                    term = list(block.operations)[-1]
                    for y, res in zip(term.operands, op.results):
                        if _is_vector(y.type):
                            self._union(y, res, term)
        else:
            self._walk_block_ops(op)

    @staticmethod
    def _derive_source(op, res_lay: Layout):
        """The RFC's derived map of the source of tile_transpose / tile_reduce / tile_broadcast."""
        src_shape = _vshape(op.operands[0])
        name = op.name
        if len(src_shape) != 2:
            return None
        if name == "xetile.tile_transpose":
            return Layout(src_shape, res_lay.sg_layout[::-1], res_lay.sg_data[::-1])
        if name == "xetile.tile_reduce":
            dims = TileReduceOp(op).reduction_dims
            data = tuple(src_shape[d] if d in dims else res_lay.sg_data[d] for d in range(2))
            return Layout(src_shape, res_lay.sg_layout, data)
        dims = TileBroadcastOp(op).broadcast_dims
        data = tuple(1 if d in dims else res_lay.sg_data[d] for d in range(2))
        return Layout(src_shape, res_lay.sg_layout, data)

    @staticmethod
    def _derive_result(op, src_lay: Layout):
        res_shape = _vshape(op.results[0])
        name = op.name
        if name == "xetile.tile_transpose":
            return Layout(res_shape, src_lay.sg_layout[::-1], src_lay.sg_data[::-1])
        if name == "xetile.tile_reduce":
            dims = TileReduceOp(op).reduction_dims
            return Layout(res_shape, src_lay.sg_layout,
                          tuple(1 if d in dims else src_lay.sg_data[d] for d in range(2)))
        dims = TileBroadcastOp(op).broadcast_dims
        return Layout(res_shape, src_lay.sg_layout,
                      tuple(res_shape[d] if d in dims else src_lay.sg_data[d] for d in range(2)))

    def _class_layout(self, c: _Class):
        if c.fixed is not None:
            return c.fixed
        for strong in (True, False):
            for lay, _op, s in c.reqs:
                if s == strong:
                    return lay
        return None

    def _resolve(self):
        # ops without wg_map derive their result map from their source (RFC derivation rules)
        changed = True
        while changed:
            changed = False
            for op in self.deriving:
                src, res = op.operands[0], op.results[0]
                c_res = self.cls[self._find(res)]
                if c_res.fixed is not None:
                    continue
                src_lay = self._class_layout(self.cls[self._find(src)])
                if src_lay is not None and len(src_lay.shape) == 2:
                    self._fix(res, self._derive_result(op, src_lay), op)
                    changed = True
        for v in self.parent:
            lay = self._class_layout(self.cls[self._find(v)])
            if lay is not None:
                self.layout[v] = lay

    def of(self, v):
        return self.layout.get(v)


# -- the rewrite ---------------------------------------------------------------------------------

class WgToSg:
    def __init__(self, func, options, ctx):
        self.func = func
        self.options = options
        self.ctx = ctx
        self.slm_budget = int(_opt(options, "slm-budget", 65536))
        self.errors: list = []
        self.rb = None
        self._consts: dict = {}
        self._coords: dict = {}
        self._bases: dict = {}
        self._bad_layouts: set = set()
        self.slm_bytes = 0

    # ---- detection / checks --------------------------------------------------------------------
    def is_wg_function(self) -> bool:
        for op in _walk(self.func):
            if any(k in op.attributes for k in ("wg_map", "wg_map_a", "wg_map_b", "wg_map_c")):
                return True
            for v in list(op.results) + list(op.operands):
                if _tile_layout(v.type) is not None:
                    return True
        return False

    def wg_value(self, v) -> bool:
        return _tile_layout(v.type) is not None or self.la.of(v) is not None

    def analyse(self) -> bool:
        self.la = LayoutAnalysis(self.func, self.errors)
        if self.errors:
            return False
        self._check_requirements()
        self._check_ops()
        return not self.errors

    def _check_requirements(self):
        for v, lay, op, what in self.la.requirements:
            have = self.la.of(v)
            if have is not None and have != lay and not self._materializable(v):
                if op.name == "xetile.tile_mma":
                    msg = (f"the accumulator C has the map {_short(have)} but wg_map_c is {_short(lay)} ({_RFC_MMA})")
                else:
                    msg = (f"{what} is distributed as {_short(have)} but {_short(lay)} is required; "
                           "insert xetile.tile_conv_layout")
                self.errors.append((op, msg))

    def _materializable(self, v) -> bool:
        op = _owner_op(v)
        if op is None:
            return False
        name = op.name
        if name == "arith.constant":
            try:
                return ir.DenseElementsAttr(op.attributes["value"]).is_splat
            except Exception:
                return False
        if name in ("vector.broadcast", "vector.splat"):
            return not _is_vector(op.operands[0].type)
        return False

    def _check_ops(self):
        first = None      # (subgroup count, sg_layout) of the first map met, in program order
        reported = set()
        for op in _walk(self.func):
            for v in list(op.operands) + list(op.results):
                lay = _tile_layout(v.type) or self.la.of(v)
                if lay is None:
                    continue
                if first is None:
                    first = (lay.num_subgroups, lay.sg_layout)
                elif lay.num_subgroups != first[0] and lay.sg_layout not in reported:
                    reported.add(lay.sg_layout)
                    self.errors.append((op, f"wg_maps of one kernel must use the same number of subgroups: sg_layout "
                                            f"{list(lay.sg_layout)} has {lay.num_subgroups} subgroups but sg_layout "
                                            f"{list(first[1])} has {first[0]}"))
            try:
                self._check_op(op)
            except PassError as e:
                self.errors.append((e.op, e.message))
            except _Reported:
                pass
        if first is not None and not reported:
            want = self._kernel_subgroups()
            if want is not None and want != first[0]:
                self.errors.append((self.func, f"the wg_maps distribute over {first[0]} subgroups but the kernel's "
                                               f"known_block_size gives {want} subgroups"))

    def _kernel_subgroups(self):
        attrs = self.func.attributes
        if "known_block_size" not in attrs:
            return None
        try:
            dims = [int(x) for x in ir.DenseI32ArrayAttr(attrs["known_block_size"])]
        except Exception:
            return None
        sg = 16
        if "xe.subgroup_size" in attrs:
            try:
                sg = ir.IntegerAttr(attrs["xe.subgroup_size"]).value
            except Exception:
                pass
        total = dims[0] * dims[1] * dims[2]
        return total // sg if total % sg == 0 else None

    def _check_op(self, op):
        name = op.name
        operands, results = list(op.operands), list(op.results)
        touches = [v for v in operands + results if self.wg_value(v)]
        if name == "xetile.init_tile":
            lay = _tile_layout(op.results[0].type)
            if lay is None:
                return
            tv = TileType(op.results[0].type)
            if tv.scattered or InitTileOp(op).indices is not None:
                raise PassError(op, "cannot distribute a scattered work-group tile (wg_map with scattered = true)")
            self._check_layout(op, lay, "tile")
            if tv.inner_blocks is not None:
                ib = tv.inner_blocks
                if lay.sg_data[0] % ib[0] or lay.sg_data[1] % ib[1]:
                    raise PassError(op, f"inner_blocks {list(ib)} must divide the subgroup tile {list(lay.sg_data)} "
                                        "(sg_data) of a distributed tile")
            return
        if not touches:
            return
        for v in touches:
            lay = _tile_layout(v.type) or self.la.of(v)
            if len(lay.shape) != 2:
                raise PassError(op, f"work-group value of rank {len(lay.shape)}: wg_map distributes 2D values only")
            self._check_layout(op, lay, "tile" if _is_tile(v.type) else "vector")
        if name in ("xetile.load_tile", "xetile.store_tile", "xetile.prefetch_tile", "xetile.update_tile_offset"):
            return
        if name in _VECTOR_OPS and any(_is_vector(v.type) and len(_vshape(v)) != 2 for v in operands + results):
            raise PassError(op, f"'{name}' on blocked (4D) work-group vectors: only load/store/element-wise ops "
                                "distribute blocked vectors; distribute before xetile-blocking")
        if name == "xetile.atomic_rmw_tile":
            lay = _tile_layout(op.operands[1].type)
            if lay is not None:
                rep = self._replication(lay)
                if rep > 1:
                    raise PassError(op, f"atomic_rmw_tile on a tile whose wg_map shares data between subgroups "
                                        f"({_short(lay)} on {list(lay.shape)}: each element is owned by {rep} "
                                        "subgroups) would apply the update several times")
            return
        if name == "xetile.tile_mma":
            self._plan_mma(op)
            return
        if name == "xetile.tile_reduce":
            self._require_layouts(op)
            kind = TileReduceOp(op).kind
            fl = self._is_float(op.results[0])
            if _COMBINE[kind][0 if fl else 1] is None:
                raise PassError(op, f"reduction kind {kind} does not apply to {_elt(op.results[0])} elements")
            return
        if name in ("xetile.tile_transpose", "xetile.tile_broadcast", "xetile.tile_conv_layout"):
            self._require_layouts(op)
            return
        if name == "arith.constant":
            if not self._materializable(op.results[0]):
                raise PassError(op, "cannot distribute a non-splat constant work-group vector (its per-subgroup "
                                    "slice depends on the subgroup id)")
            return
        if name in ("vector.broadcast", "vector.splat"):
            if not self._materializable(op.results[0]):
                raise PassError(op, f"cannot distribute '{name}' of a vector to a work-group vector; use "
                                    "xetile.tile_broadcast")
            return
        if _is_elementwise(op):
            self._require_layouts(op)
            return
        if name in ("scf.for", "scf.if", "scf.yield", "scf.condition"):
            return
        what = ", ".join(sorted({"tile" if _is_tile(v.type) else "vector" for v in touches}))
        raise PassError(op, f"cannot distribute '{name}' on a work-group {what} (no subgroup form known); "
                            "only XeTile ops, element-wise arith/math ops, splat constants, scalar broadcasts, "
                            "scf.for and scf.if are distributed")

    def _require_layouts(self, op):
        for v in list(op.operands) + list(op.results):
            if _is_vector(v.type) and self.la.of(v) is None:
                raise PassError(op, f"cannot tell how '{op.name}' is distributed: a vector operand or result has "
                                    "no wg_map (give the op a wg_map)")

    def _check_layout(self, op, lay, what):
        errs = distribution_errors(lay.shape, lay.sg_layout, lay.sg_data, what)
        if errs:
            if lay in self._bad_layouts:  # reported once, at its first op
                raise _Reported()
            self._bad_layouts.add(lay)
            raise PassError(op, f"cannot distribute the {what} {list(lay.shape)} with {_short(lay)}: {errs[0]}")

    @staticmethod
    def _replication(lay: Layout) -> int:
        rep = 1
        for t, l, d in zip(lay.shape, lay.sg_layout, lay.sg_data):
            if l * d > t:
                rep *= (l * d) // t
        return rep

    @staticmethod
    def _is_float(v) -> bool:
        return str(_elt(v)).startswith(("f", "bf", "tf"))

    # ---- tile_mma plan --------------------------------------------------------------------------
    def _plan_mma(self, op):
        mma = TileMmaOp(op)
        sa, sb = _vshape(mma.a), _vshape(mma.b)
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
                raise PassError(op, f"{nm} ({_short(attr)}) does not match the map of the operand's producer "
                                    f"({_short(prod)}); the producer's map must be consistent with the derived one")
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
                raise PassError(op, f"the map of {nm} ({_short(have)}) does not match the one derived from wg_map_c "
                                    f"({_short(mc)}): expected {_short(want)} ({_RFC_MMA})")
        if ka is not None and kb is not None and ka != kb:
            raise PassError(op, f"sg_data for K differs between A ({ka}) and B ({kb}) ({_RFC_MMA})")
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

    # ---- index arithmetic (hoisted to the function entry) ------------------------------------------
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

    # ---- value pieces ---------------------------------------------------------------------------
    def pieces(self, v, want: Layout):
        """The subgroup values of work-group vector `v` distributed as `want`."""
        have = self.la.of(v)
        if have == want:
            return self.rb.map(v)
        if self._materializable(v):
            return self._materialize(v, want)
        raise PassError(_owner_op(v) or self.func,
                        f"work-group vector distributed as {have} is used where {want} is required")

    def _materialize(self, v, lay: Layout):
        op = _owner_op(v)
        t = _piece_type(v, lay)
        if op.name == "arith.constant":
            splat = ir.DenseElementsAttr(op.attributes["value"]).get_splat_value()
            new = arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, splat)).result
        else:
            new = _create(op.name, [self.rb.one(op.operands[0])], [t], _attrs(op)).results[0]
        return [new] * lay.num_subtiles

    # ---- handlers -------------------------------------------------------------------------------
    def handlers(self):
        names = {op.name for op in _walk(self.func)}
        h = {
            "xetile.init_tile": self.h_init_tile,
            "xetile.load_tile": self.h_load_tile,
            "xetile.store_tile": self.h_store_tile,
            "xetile.prefetch_tile": self.h_per_piece,
            "xetile.update_tile_offset": self.h_update,
            "xetile.atomic_rmw_tile": self.h_atomic,
            "xetile.tile_mma": self.h_mma,
            "xetile.tile_transpose": self.h_transpose,
            "xetile.tile_reduce": self.h_reduce,
            "xetile.tile_broadcast": self.h_broadcast,
            "xetile.tile_conv_layout": self.h_conv_layout,
            "arith.constant": self.h_materializable,
            "vector.broadcast": self.h_materializable,
            "vector.splat": self.h_materializable,
            "scf.for": self.h_for,
            "scf.if": self.h_if,
        }
        for n in names:
            if n.startswith(("arith.", "math.")) and n not in h:
                h[n] = self.h_elementwise
        return h

    def h_init_tile(self, rb, op):
        lay = _tile_layout(op.results[0].type)
        if lay is None:
            return None
        it = InitTileOp(op)
        offs = [x if isinstance(x, int) else _const_int(rb.one(x)) for x in it.mixed("offsets", "static_offsets")]
        shape = [x if isinstance(x, int) else rb.one(x) for x in it.mixed("shape", "static_shape")]
        strides = [x if isinstance(x, int) else rb.one(x) for x in it.mixed("strides", "static_strides")]
        t = self.sg_tile_type(op.results[0].type)
        out, sums = [], {}
        for k in range(lay.num_subtiles):
            sub = self.piece_offsets(lay, k)
            o = []
            for d in range(2):
                key = (d, sub[d])
                if key not in sums:
                    sums[key] = self.add(offs[d], sub[d], hoist=isinstance(offs[d], int))
                o.append(sums[key])
            kw = {"shape": shape, "strides": strides} if shape else {}
            out.append(InitTileOp.build(source=rb.one(it.source), offsets=o, result_types=[t], **kw).op.results[0])
        return [out]

    @staticmethod
    def sg_tile_type(t):
        tv = TileType(t)
        return TileType(tv.with_fields(wg_map=None)).with_shape(list(tv.wg_map.sg_data))

    def h_load_tile(self, rb, op):
        tile = op.operands[0]
        tlay = _tile_layout(tile.type)
        if tlay is None:
            return None
        lay = self.la.of(op.results[0])
        perm = LoadTileOp(op).transpose
        transposed = perm is not None and tuple(perm) == (1, 0)
        t = _piece_type(op.results[0], lay)
        loaded = [_create(op.name, [p], [t], _attrs(op)).results[0] for p in rb.map(tile)]
        if transposed:
            n0, n1 = tlay.rounds
            loaded = [loaded[b * n1 + a] for a in range(n1) for b in range(n0)]
        return [loaded]

    def h_store_tile(self, rb, op):
        value, tile = op.operands
        lay = _tile_layout(tile.type)
        if lay is None:
            return None
        vals = self.pieces(value, lay)
        for v, t in zip(vals, rb.map(tile)):
            _create(op.name, [v, t], [], _attrs(op))
        return []

    def h_per_piece(self, rb, op):
        tile = op.operands[0]
        if _tile_layout(tile.type) is None:
            return None
        for t in rb.map(tile):
            _create(op.name, [t], [], _attrs(op))
        return []

    def h_update(self, rb, op):
        tile = op.operands[0]
        if _tile_layout(tile.type) is None:
            return None
        offs = [rb.one(v) for v in list(op.operands)[1:]]
        out = [_create(op.name, [t] + offs, [t.type], _attrs(op)).results[0] for t in rb.map(tile)]
        return [out]

    def h_atomic(self, rb, op):
        value, tile = op.operands
        lay = _tile_layout(tile.type)
        if lay is None:
            return None
        vals = self.pieces(value, lay)
        t = _piece_type(value, lay)
        return [[_create(op.name, [v, tt], [t], _attrs(op)).results[0] for v, tt in zip(vals, rb.map(tile))]]

    def h_mma(self, rb, op):
        if not self.wg_op(op):
            return None
        want_a, want_b, mc = self._plan_mma(op)
        mma = TileMmaOp(op)
        pa = self.pieces(mma.a, want_a)
        pb = self.pieces(mma.b, want_b)
        pc = self.pieces(mma.c, mc) if mma.c is not None else None
        ec = _elt(op.results[0])
        tc = _vec(mc.sg_data, ec)
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
                    acc = _create("xetile.tile_mma", ops, [tc]).results[0]
                out.append(acc)
        return [out]

    def wg_op(self, op) -> bool:
        return any(self.wg_value(v) for v in list(op.operands) + list(op.results))

    def h_materializable(self, rb, op):
        if not op.results or self.la.of(op.results[0]) is None:
            return None
        lay = self.la.of(op.results[0])
        return [self._materialize(op.results[0], lay)]

    def h_elementwise(self, rb, op):
        res_lays = [self.la.of(r) for r in op.results]
        if not any(l is not None for l in res_lays) and not any(self.la.of(v) is not None for v in op.operands):
            return None
        lay = next(l for l in res_lays + [self.la.of(v) for v in op.operands] if l is not None)
        ops_pieces = []
        for v in op.operands:
            if _is_vector(v.type):
                ops_pieces.append(self.pieces(v, lay))
            else:
                ops_pieces.append([rb.one(v)] * lay.num_subtiles)
        rtypes = [_piece_type(r, lay) if _is_vector(r.type) else r.type
                  for r in op.results]
        outs = [[] for _ in op.results]
        attrs = _attrs(op)
        for k in range(lay.num_subtiles):
            new = _create(op.name, [p[k] for p in ops_pieces], rtypes, attrs)
            for i, r in enumerate(new.results):
                outs[i].append(r)
        return outs

    # scf.for / scf.if carrying work-group values
    def h_for(self, rb, op):
        lb, ub, step, *inits = list(op.operands)
        if not any(self.wg_value(v) for v in inits):
            return None
        groups = []
        for v in inits:
            if _is_vector(v.type) and self.la.of(v) is not None:
                groups.append(self.pieces(v, self.la.of(v)))
            else:
                groups.append(rb.map(v))
        flat = [x for g in groups for x in g]
        new = scf.ForOp(rb.one(lb), rb.one(ub), rb.one(step), flat)
        body = op.regions[0].blocks[0]
        old_args = list(body.arguments)
        rb.set(old_args[0], [new.induction_variable])
        new_iter = list(new.inner_iter_args)
        k = 0
        for old_arg, g in zip(old_args[1:], groups):
            rb.set(old_arg, new_iter[k:k + len(g)])
            k += len(g)
        for child in list(body.operations):
            new.body.append(child.operation)
        rb.process_block(new.body)
        results, out, k = list(new.results), [], 0
        for g in groups:
            out.append(results[k:k + len(g)])
            k += len(g)
        return out

    def h_if(self, rb, op):
        if not any(self.wg_value(r) for r in op.results):
            return None
        groups = []
        for r in op.results:
            lay = self.la.of(r) if _is_vector(r.type) else _tile_layout(r.type)
            if lay is None:
                groups.append([r.type])
            elif _is_tile(r.type):
                groups.append([self.sg_tile_type(r.type)] * lay.num_subtiles)
            else:
                groups.append([_piece_type(r, lay)] * lay.num_subtiles)
        flat = [t for g in groups for t in g]
        has_else = len(op.regions[1].blocks) > 0
        new = scf.IfOp(rb.one(op.operands[0]), flat, has_else=has_else)
        for old_region, new_region in zip(op.regions, new.operation.regions):
            if not old_region.blocks:
                continue
            nb = new_region.blocks[0]
            for child in list(old_region.blocks[0].operations):
                nb.append(child.operation)
            rb.process_block(nb)
        results, out, k = list(new.results), [], 0
        for g in groups:
            out.append(results[k:k + len(g)])
            k += len(g)
        return out

    # ---- data movement between subgroups ----------------------------------------------------------
    def _in_loop(self, op) -> bool:
        p = op.parent
        while p is not None:
            p = p.operation
            name = p.name
            if name in ("scf.for", "scf.while", "scf.parallel"):
                return True
            if name in ("gpu.func", "func.func"):
                return False
            p = p.parent
        return False

    def _slm(self, op, shape, elt):
        """A shared-local-memory buffer (memref.alloc in address space 3) at the function entry."""
        mt = ir.MemRefType.get(list(shape), elt, memory_space=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 3))
        self.slm_bytes += self._bytes(shape, elt)
        with self._hoist(), op.location:
            return memref.AllocOp(mt, [], []).result

    @staticmethod
    def _bytes(shape, elt):
        return shape[0] * shape[1] * max(1, element_bits(str(elt)) // 8)

    def _slm_tile_type(self, shape, elt):
        return TileType.get(list(shape), str(elt), memory_space=3)

    def _slm_store(self, buf, elt, pieces, offsets, shape):
        t = self._slm_tile_type(shape, elt)
        for p, off in zip(pieces, offsets):
            tile = InitTileOp.build(source=buf, offsets=list(off), result_types=[t]).op.results[0]
            StoreTileOp.build(value=p, tile=tile)

    def _slm_load(self, buf, elt, off, shape, transpose=False):
        t = self._slm_tile_type(shape, elt)
        tile = InitTileOp.build(source=buf, offsets=list(off), result_types=[t]).op.results[0]
        rshape = shape[::-1] if transpose else shape
        kw = {"transpose": [1, 0]} if transpose else {}
        return LoadTileOp.build(tile=tile, result_types=[_vec(rshape, elt)], **kw).op.results[0]

    def _exchange(self, op, src_lay, src_pieces, elt, reads, what):
        """Store the source pieces into SLM with the source map, barrier, and read the boxes
        `reads` = [(offset, shape, transpose)] (source coordinates). A work-group value larger than
        the slm-budget moves in bands along one dimension (subtiles never straddle a band: their
        offsets are multiples of their sizes)."""
        shape = src_lay.shape
        offs = [self.piece_offsets(src_lay, k) for k in range(len(src_pieces))]
        band = self._band(src_lay, reads, elt)
        if band is None:
            if self._bytes(shape, elt) > self.slm_budget:
                self.ctx.remark(op, f"{what}: exchanges {self._bytes(shape, elt)} bytes through shared local memory "
                                    f"(slm-budget is {self.slm_budget}) and cannot be split into smaller bands")
            buf = self._slm(op, shape, elt)
            if self._in_loop(op):
                gpu.BarrierOp()
            self._slm_store(buf, elt, src_pieces, offs, src_lay.sg_data)
            gpu.BarrierOp()
            return [self._slm_load(buf, elt, o, s, tr) for o, s, tr in reads]
        b, h = band
        bshape = tuple(h if d == b else shape[d] for d in range(2))
        buf = self._slm(op, bshape, elt)
        out = [None] * len(reads)
        for i in range(shape[b] // h):
            start = i * h
            if i > 0 or self._in_loop(op):
                gpu.BarrierOp()
            t = self._slm_tile_type(src_lay.sg_data, elt)
            for p, off in zip(src_pieces, offs):
                def store(p=p, off=off):
                    loc = tuple(self.sub(off[d], start) if d == b else off[d] for d in range(2))
                    tile = InitTileOp.build(source=buf, offsets=list(loc), result_types=[t]).op.results[0]
                    StoreTileOp.build(value=p, tile=tile)
                self._in_band(off[b], h, i, store)
            gpu.BarrierOp()
            for r, (off, rs, tr) in enumerate(reads):
                def load(off=off, rs=rs, tr=tr):
                    loc = tuple(self.sub(off[d], start) if d == b else off[d] for d in range(2))
                    return self._slm_load(buf, elt, loc, rs, tr)
                rt = _vec(rs[::-1] if tr else rs, elt)
                out[r] = self._in_band(off[b], h, i, load, out[r], rt)
        return out

    def _band(self, src_lay, reads, elt):
        """(dimension, band size) for a banded exchange, or None when the whole value fits the
        budget or no band size works."""
        shape = src_lay.shape
        if self._bytes(shape, elt) <= self.slm_budget:
            return None
        for b in range(2):
            unit = src_lay.sg_data[b]
            for _o, rs, _t in reads:
                unit = _lcm(unit, rs[b])
            other = shape[1 - b]
            best = None
            h = unit
            while h < shape[b]:
                if shape[b] % h == 0 and self._bytes((h, other), elt) <= self.slm_budget:
                    best = h
                h += unit
            if best is not None:
                return b, best
        return None

    def _in_band(self, off, h, i, emit, prev=None, rtype=None):
        """Run `emit` when offset `off` lies in band i (statically, or under an scf.if)."""
        if isinstance(off, int):
            if off // h == i:
                return emit()
            return prev
        idx = self._div(off, h)
        cond = arith.CmpIOp(arith.CmpIPredicate.eq, idx, self.const(i)).result
        if rtype is None:
            ifop = scf.IfOp(cond)
            with ir.InsertionPoint(ifop.then_block):
                emit()
                scf.YieldOp([])
            return None
        if prev is None:
            prev = arith.ConstantOp(rtype, ir.DenseElementsAttr.get_splat(
                rtype, self._zero(ir.VectorType(rtype).element_type))).result
        ifop = scf.IfOp(cond, [rtype], has_else=True)
        with ir.InsertionPoint(ifop.then_block):
            scf.YieldOp([emit()])
        with ir.InsertionPoint(ifop.else_block):
            scf.YieldOp([prev])
        return ifop.results[0]

    @staticmethod
    def _zero(elt):
        if isinstance(elt, (ir.F32Type, ir.F16Type, ir.BF16Type, ir.F64Type)) or str(elt).startswith(("f", "bf")):
            return ir.FloatAttr.get(elt, 0.0)
        return ir.IntegerAttr.get(elt, 0)

    def sub(self, a, b: int):
        if b == 0:
            return a
        if isinstance(a, int):
            return a - b
        return arith.SubIOp(a, self.const(b)).result

    def _slice(self, v, off, size):
        shape = _vshape(v)
        if tuple(size) == tuple(shape):
            return v
        return vector.ExtractStridedSliceOp(_vec(size, _elt(v)), v, list(off), list(size), [1, 1]).result

    @staticmethod
    def _feeds_only_reduce(op) -> bool:
        """A tile_conv_layout whose only user is a tile_reduce: the reduction reads the conversion's
        source directly (partial reductions move between subgroups instead of the whole value)."""
        uses = list(op.results[0].uses)
        return len(uses) == 1 and _owner_name(uses[0].owner) == "xetile.tile_reduce"

    def h_conv_layout(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, dl = self.la.of(src), self.la.of(res)
        if sl is None:
            return None
        if self._feeds_only_reduce(op):
            return [[]]
        sp = self.pieces(src, sl)
        elt = _elt(src)
        plan = local_plan(sl, dl)
        if plan is not None:
            return [[self._slice(sp[j], o, dl.sg_data) for j, o in plan]]
        reads = [(self.piece_offsets(dl, k), dl.sg_data, False) for k in range(dl.num_subtiles)]
        return [self._exchange(op, sl, sp, elt, reads, "tile_conv_layout")]

    def h_transpose(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, dl = self.la.of(src), self.la.of(res)
        if sl is None:
            return None
        perm = tuple(TileTransposeOp(op).permutation)
        sp = self.pieces(src, sl)
        elt = _elt(src)
        if perm == (0, 1):
            plan = local_plan(sl, dl)
            if plan is not None:
                return [[self._slice(sp[j], o, dl.sg_data) for j, o in plan]]
            reads = [(self.piece_offsets(dl, k), dl.sg_data, False) for k in range(dl.num_subtiles)]
            return [self._exchange(op, sl, sp, elt, reads, "tile_transpose")]
        swap = lambda off, size: (off[::-1], size[::-1])  # noqa: E731
        plan = local_plan(sl, dl, swap)
        t = _vec(dl.sg_data, elt)
        if plan is not None:
            out = []
            for j, o in plan:
                piece = self._slice(sp[j], o, dl.sg_data[::-1])
                out.append(TileTransposeOp.build(vector=piece, permutation=[1, 0], result_types=[t]).op.results[0])
            return [out]
        reads = [(self.piece_offsets(dl, k)[::-1], dl.sg_data[::-1], True) for k in range(dl.num_subtiles)]
        return [self._exchange(op, sl, sp, elt, reads, "tile_transpose")]

    def h_broadcast(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, dl = self.la.of(src), self.la.of(res)
        if sl is None:
            return None
        dims = tuple(TileBroadcastOp(op).broadcast_dims)
        sp = self.pieces(src, sl)
        elt = _elt(src)
        collapse = lambda off, size: (tuple(0 if d in dims else off[d] for d in range(2)),  # noqa: E731
                                      tuple(1 if d in dims else size[d] for d in range(2)))
        box = collapse((0, 0), dl.sg_data)[1]
        plan = local_plan(sl, dl, collapse)
        if plan is not None:
            srcs = [self._slice(sp[j], o, box) for j, o in plan]
        else:
            reads = [(collapse(self.piece_offsets(dl, k), dl.sg_data)[0], box, False)
                     for k in range(dl.num_subtiles)]
            srcs = self._exchange(op, sl, sp, elt, reads, "tile_broadcast")
        t = _vec(dl.sg_data, elt)
        return [[TileBroadcastOp.build(vector=s, broadcast_dims=list(dims), result_types=[t]).op.results[0]
                 for s in srcs]]

    def _combine(self, kind, a, b):
        name = _COMBINE[kind][0 if self._is_float(a) else 1]
        return _create(name, [a, b], [a.type]).results[0]

    def _reduce_piece(self, kind, v, dims):
        shape = _vshape(v)
        if all(shape[d] == 1 for d in dims):
            return v
        rshape = tuple(1 if d in dims else shape[d] for d in range(2))
        return TileReduceOp.build(kind=kind, vector=v, reduction_dims=list(dims),
                                  result_types=[_vec(rshape, _elt(v))]).op.results[0]

    def h_reduce(self, rb, op):
        src, res = op.operands[0], op.results[0]
        sl, dl = self.la.of(src), self.la.of(res)
        if sl is None:
            return None
        red = TileReduceOp(op)
        dims = tuple(sorted(red.reduction_dims))
        kind = red.kind
        owner = _owner_op(src)
        if owner is not None and owner.name == "xetile.tile_conv_layout" and self._feeds_only_reduce(owner):
            src = owner.operands[0]
            sl = self.la.of(src)
        sp = self.pieces(src, sl)
        elt = _elt(src)
        plan = local_reduce_plan(sl, dl, dims)
        if plan is not None:
            out = []
            box = tuple(sl.sg_data[d] if d in dims else dl.sg_data[d] for d in range(2))
            for picks in plan:
                acc = None
                for j, o in picks:
                    part = self._reduce_piece(kind, self._slice(sp[j], o, box), dims)
                    acc = part if acc is None else self._combine(kind, acc, part)
                out.append(acc)
            return [out]
        # partial reduction per subgroup, exchange of the partial results through SLM, final reduction
        partials = [self._reduce_piece(kind, p, dims) for p in sp]
        pshape = tuple(sl.shape[d] // sl.sg_data[d] if d in dims else sl.shape[d] for d in range(2))
        pdata = tuple(1 if d in dims else sl.sg_data[d] for d in range(2))
        buf = self._slm(op, pshape, elt)
        if self._in_loop(op):
            gpu.BarrierOp()
        offs = []
        for k in range(len(sp)):
            off = self.piece_offsets(sl, k)
            offs.append(tuple(self._div(off[d], sl.sg_data[d]) if d in dims else off[d] for d in range(2)))
        self._slm_store(buf, elt, partials, offs, pdata)
        gpu.BarrierOp()
        out = []
        rbox = tuple(pshape[d] if d in dims else dl.sg_data[d] for d in range(2))
        for k in range(dl.num_subtiles):
            off = self.piece_offsets(dl, k)
            loaded = self._slm_load(buf, elt, tuple(0 if d in dims else off[d] for d in range(2)), rbox)
            out.append(self._reduce_piece(kind, loaded, dims))
        return [out]

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

    # ---- driver ---------------------------------------------------------------------------------
    def run(self) -> bool:
        if not self.is_wg_function():
            return True
        if not self.analyse():
            for op, msg in self.errors:
                self.ctx.error(op, msg)
            return False
        entry = self.func.regions[0].blocks[0]
        first = list(entry.operations)[0]
        handlers = self.handlers()
        with ir.InsertionPoint(first), self.func.location:
            self.sg = gpu.SubgroupIdOp().result
            # subgroup-id arithmetic and SLM buffers go right before this marker (erased below)
            self.anchor = arith.ConstantOp(ir.IndexType.get(), 0).operation
        self.rb = Rebuilder(handlers)
        try:
            for region in self.func.regions:
                for block in region.blocks:
                    self.rb.process_block(block)
        except PassError as e:
            self.ctx.error(e.op, e.message)
            return False
        self.anchor.erase()
        return True


def _const_int(v):
    """An index value defined by arith.constant as a Python int (offsets fold into static ones)."""
    op = _owner_op(v)
    if op is not None and op.name == "arith.constant" and isinstance(v.type, ir.IndexType):
        return ir.IntegerAttr(op.attributes["value"]).value
    return v


def _owner_name(owner):
    return owner.operation.name if hasattr(owner, "operation") else owner.name


def _lcm(a, b):
    from math import gcd
    return a * b // gcd(a, b)


def _opt(options, name, default):
    if options is None:
        return default
    if isinstance(options, dict):
        return options.get(name, options.get(name.replace("-", "_"), default))
    for n in (name, name.replace("-", "_")):
        if hasattr(options, n):
            return getattr(options, n)
    try:
        return options[name]
    except Exception:
        return default


@register_pass("xetile-wg-to-sg",
               "Distribute work-group XeTile (wg_map) to subgroup XeTile for the executing subgroup",
               options=[Option("slm-budget", int, 65536,
                               "bytes of shared local memory one data exchange (transpose, conv_layout, "
                               "broadcast) may use; larger work-group values move in bands, each under an "
                               "scf.if (default: 64 KiB, half the SLM of a PVC work-group)")])
def xetile_wg_to_sg(module_op, options, ctx):
    ok = True
    for func in _functions(module_op):
        if func.name == "func.func":
            w = WgToSg(func, options, ctx)
            if w.is_wg_function():
                ctx.error(func, "work-group level XeTile (wg_map) is distributed inside gpu.func kernels only; "
                                "outline this function into a gpu.module")
                ok = False
            continue
        ok = WgToSg(func, options, ctx).run() and ok
    return ok
