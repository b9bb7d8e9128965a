"""Layout analysis of `xetile-wg-to-sg`: which wg_map (as a `Layout`) every work-group vector of a
function has, before anything is rewritten.

A vector takes the map of its producer: load_tile the tile's map (swapped for a transposed load),
tile_mma its wg_map_c, tile_transpose/reduce/broadcast/conv_layout their wg_map (without one,
the map is derived from the source by the RFC rules); a vector.bitcast its wg_map, its source the same
map with the innermost sg_data scaled by the element-count ratio; element-wise arith/math ops take the
`wg_map` attribute they carry (the map of their result) and otherwise carry their operands' map
through, as do scf.for and scf.if; splat constants and scalar broadcasts take it from their
users. Values joined this way form union-find classes; conflicting maps are reported.
"""
from __future__ import annotations

from ....core.opdef import attr_value
from ....xetile.attributes import WG_MAP
from ....xetile.ops import LoadTileOp, TileBroadcastOp, TileConvLayoutOp, TileMmaOp, TileReduceOp, TileTransposeOp
from ...analysis.tile_uses import is_elementwise
from .common import is_vector, short_map, tile_layout, vshape
from .distribution import Layout
from .segmented_reduce import derived_result, result_map, segment_pattern

_MATERIALIZABLE = ("arith.constant", "vector.broadcast", "vector.splat")


def _op_wg_map(op):
    """The `wg_map` attribute of an element-wise op, constant or broadcast (the map of its result,
    as on the XeTile vector ops), or None."""
    if "wg_map" not in op.attributes:
        return None
    return attr_value(WG_MAP, op.attributes["wg_map"])


def bitcast_source_layout(src_shape, res_lay: Layout):
    """The map of a vector.bitcast's source from its result's: the same subgroup layout, the innermost
    sg_data scaled by the element-count ratio (each subgroup bitcasts its own piece); None when the
    ratio does not divide it."""
    if len(src_shape) != 2 or len(res_lay.shape) != 2:
        return None
    num, den = src_shape[1], res_lay.shape[1]
    inner = res_lay.sg_data[1] * num
    if inner % den:
        return None
    return Layout(tuple(src_shape), res_lay.sg_layout, (res_lay.sg_data[0], inner // den))


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
        self.segments = []      # (multi_reduction, 2D source, S) of segmented reductions without a map
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
            lay = tile_layout(op.operands[0].type)
            if lay is not None:
                perm = LoadTileOp(op).transpose
                if perm is not None and tuple(perm) == (1, 0):
                    if 1 not in lay.sg_layout:
                        self.errors.append((op, "load_tile with transpose = [1, 0] of a work-group tile needs an "
                                                "sg_layout with a 1 (e.g. [32, 1]) so that the transposed data keeps "
                                                f"the row-major subgroup order; the tile has {short_map(lay)}; load "
                                                "without transpose and use xetile.tile_transpose"))
                        return
                    lay = Layout(lay.shape[::-1], lay.sg_layout[::-1], lay.sg_data[::-1])
                self._fix(op.results[0], lay, op)
        elif name == "xetile.atomic_rmw_tile":
            lay = tile_layout(op.operands[1].type)
            if lay is not None:
                self._fix(op.results[0], lay, op)
                self._require(op.operands[0], lay, op, True, "the value of atomic_rmw_tile")
        elif name == "xetile.store_tile":
            lay = tile_layout(op.operands[1].type)
            if lay is not None:
                self._require(op.operands[0], lay, op, True, "the stored vector")
        elif name == "xetile.tile_mma":
            mma = TileMmaOp(op)
            res = op.results[0]
            if mma.wg_map_c is not None:
                lay = Layout.of(vshape(res), mma.wg_map_c)
                self._fix(res, lay, op)
                if mma.c is not None:
                    self._require(mma.c, lay, op, True, "the accumulator C")
            elif mma.c is not None:
                self._union(res, mma.c, op)
            else:
                self._find(res)
            for v, m in ((mma.a, mma.wg_map_a), (mma.b, mma.wg_map_b)):
                if m is not None:
                    self._require(v, Layout.of(vshape(v), m), op, False, "")
                else:
                    self._find(v)
        elif name in ("xetile.tile_transpose", "xetile.tile_reduce", "xetile.tile_broadcast"):
            src, res = op.operands[0], op.results[0]
            self._find(src)
            wgm = (TileTransposeOp if name.endswith("transpose") else TileReduceOp if name.endswith("reduce")
                   else TileBroadcastOp)(op).wg_map
            if wgm is not None:
                lay = Layout.of(vshape(res), wgm)
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
            self._fix(op.results[0], Layout.of(vshape(op.results[0]), cv.wg_map), op)
            if cv.wg_map_source is not None:
                self._require(op.operands[0], Layout.of(vshape(op.operands[0]), cv.wg_map_source), op, True,
                              "the source of tile_conv_layout (wg_map_source)")
        elif name == "vector.multi_reduction" and segment_pattern(op) is not None:
            _cast, src, S = segment_pattern(op)
            res = op.results[0]
            self._find(src)
            self._union(res, op.operands[1], op)     # the accumulator is distributed as the result
            wgm = result_map(op)
            if wgm is not None:
                self._fix(res, Layout.of(vshape(res), wgm), op)
            else:
                self.segments.append((op, src, S))
        elif name == "vector.bitcast" and is_vector(op.results[0].type):
            src, res = op.operands[0], op.results[0]
            self._find(src)
            wgm = _op_wg_map(op)
            if wgm is not None:
                lay = Layout.of(vshape(res), wgm)
                self._fix(res, lay, op)
                derived = bitcast_source_layout(vshape(src), lay)
                if derived is not None:
                    self._require(src, derived, op, False, "")
            else:
                self._find(res)
        elif name in _MATERIALIZABLE:
            if op.results and is_vector(op.results[0].type):
                self._find(op.results[0])
        elif is_elementwise(op):
            vs = [v for v in list(op.operands) + list(op.results) if is_vector(v.type)]
            for v in vs[1:]:
                self._union(vs[0], v, op)
            wgm = _op_wg_map(op)
            if wgm is not None:
                self._fix(op.results[0], Layout.of(vshape(op.results[0]), wgm), op)
        elif name == "scf.for":
            body = op.regions[0].blocks[0]
            inits = list(op.operands)[3:]
            for init, arg, res in zip(inits, list(body.arguments)[1:], op.results):
                if is_vector(init.type):
                    self._union(init, arg, op)
                    self._union(arg, res, op)
            self._walk_block_ops(op)
            term = list(body.operations)[-1]
            for y, arg in zip(term.operands, list(body.arguments)[1:]):
                if is_vector(y.type):
                    self._union(y, arg, term)
        elif name == "scf.if":
            self._walk_block_ops(op)
            for region in op.regions:
                for block in region.blocks:
                    term = list(block.operations)[-1]
                    for y, res in zip(term.operands, op.results):
                        if is_vector(y.type):
                            self._union(y, res, term)
        else:
            self._walk_block_ops(op)

    @staticmethod
    def _derive_source(op, res_lay: Layout):
        """The RFC's derived map of the source of tile_transpose / tile_reduce / tile_broadcast."""
        src_shape = vshape(op.operands[0])
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
        res_shape = vshape(op.results[0])
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
            for op, src, S in self.segments:
                res = op.results[0]
                if self.cls[self._find(res)].fixed is not None:
                    continue
                src_lay = self._class_layout(self.cls[self._find(src)])
                lay = derived_result(src_lay, vshape(res), S) if src_lay is not None else None
                if lay is not None:
                    self._fix(res, lay, op)
                    changed = True
        for v in self.parent:
            lay = self._class_layout(self.cls[self._find(v)])
            if lay is not None:
                self.layout[v] = lay

    def of(self, v):
        return self.layout.get(v)
