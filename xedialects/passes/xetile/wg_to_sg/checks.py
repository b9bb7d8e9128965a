"""Checks of `xetile-wg-to-sg`: everything that could make the distribution of a function fail
(maps that do not distribute their value, values no rule knows, RFC rules of tile_mma, a subgroup
count that differs from the kernel's, a subgroup size other than the architecture's) is reported
before the IR is touched. Mixed into `WgToSg`."""
from __future__ import annotations

from mlir import ir

from ....xetile.attributes import TileType
from ....xetile.ops import InitTileOp, TileReduceOp
from ...utils.ir_walk import walk
from ...analysis.tile_uses import is_elementwise
from .common import COMBINE, RFC_MMA, PassError, elt_type, is_tile, is_vector, short_map, tile_layout, vshape
from .distribution import Layout, distribution_errors
from .layout_analysis import bitcast_source_layout
from .segmented_reduce import segment_cast_user, segment_pattern

_VECTOR_OPS = ("xetile.tile_mma", "xetile.tile_transpose", "xetile.tile_reduce", "xetile.tile_broadcast",
               "xetile.tile_conv_layout")


class _Reported(Exception):
    """A problem already reported at an earlier op."""


class DistributionChecks:
    """Everything that could make the distribution fail, reported before the IR is touched."""

    def _check_requirements(self):
        for v, lay, op, what in self.la.requirements:
            have = self.la.of(v)
            if have is not None and have != lay and not self._materializable(v):
                if op.name == "xetile.tile_mma":
                    msg = (f"the accumulator C has the map {short_map(have)} but wg_map_c is {short_map(lay)} ({RFC_MMA})")
                else:
                    msg = (f"{what} is distributed as {short_map(have)} but {short_map(lay)} is required; "
                           "insert xetile.tile_conv_layout")
                self.errors.append((op, msg))

    def _check_ops(self):
        first = None      # (subgroup count, sg_layout) of the first map met, in program order
        reported = set()
        for op in walk(self.func):
            for v in list(op.operands) + list(op.results):
                lay = tile_layout(v.type) or self.la.of(v)
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
        if first is None:
            return
        try:
            sg = self._subgroup_size()
        except PassError as e:
            self.errors.append((e.op, e.message))
            return
        if not reported:
            want = self._kernel_subgroups(sg)
            if want is not None and want != first[0]:
                self.errors.append((self.func, f"the wg_maps distribute over {first[0]} subgroups but the kernel's "
                                               f"known_block_size gives {want} subgroups"))

    def _kernel_subgroups(self, sg: int):
        """Subgroups of the kernel's known_block_size (of `sg` work-items each); None if unknown."""
        attrs = self.func.attributes
        if "known_block_size" not in attrs:
            return None
        try:
            dims = [int(x) for x in ir.DenseI32ArrayAttr(attrs["known_block_size"])]
        except Exception:
            return None
        total = dims[0] * dims[1] * dims[2]
        if "VectorComputeFunctionINTEL" in attrs:   # IMEX's VC kernels count subgroups, not work-items
            return total
        return total // sg if total % sg == 0 else None

    def _subgroup_size(self) -> int:
        """Work-items per subgroup: the kernel's `xe.subgroup_size`, else the architecture's. The
        subgroup tiles lower to DPAS and 2D block messages of the architecture's subgroup size, so
        another size is an error at the function."""
        want = self.arch.subgroup_size
        attr = self.func.attributes["xe.subgroup_size"] if "xe.subgroup_size" in self.func.attributes else None
        if attr is None:
            return want
        if not isinstance(attr, ir.IntegerAttr):
            raise PassError(self.func, f"xe.subgroup_size must be an integer attribute, got {attr}")
        if attr.value != want:
            raise PassError(self.func, f"xe.subgroup_size = {attr.value} is not supported: the subgroup tiles "
                                       f"lower to DPAS and 2D block messages of {want} work-items on "
                                       f"{self.arch.name}")
        return want

    def _check_op(self, op):
        name = op.name
        operands, results = list(op.operands), list(op.results)
        touches = [v for v in operands + results if self.wg_value(v)]
        if name == "xetile.init_tile":
            lay = tile_layout(op.results[0].type)
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
            lay = tile_layout(v.type) or self.la.of(v)
            if len(lay.shape) != 2:
                raise PassError(op, f"work-group value of rank {len(lay.shape)}: wg_map distributes 2D values only")
            self._check_layout(op, lay, "tile" if is_tile(v.type) else "vector")
        if name in ("xetile.load_tile", "xetile.store_tile", "xetile.prefetch_tile", "xetile.update_tile_offset"):
            return
        if name == "vector.shape_cast" and segment_cast_user(op) is not None:
            return
        if name == "vector.multi_reduction" and segment_pattern(op) is not None:
            self._segment_plan(op)
            return
        if name in _VECTOR_OPS and any(is_vector(v.type) and len(vshape(v)) != 2 for v in operands + results):
            raise PassError(op, f"'{name}' on blocked (4D) work-group vectors: only load/store/element-wise ops "
                                "distribute blocked vectors; distribute before xetile-blocking")
        if name == "xetile.atomic_rmw_tile":
            lay = tile_layout(op.operands[1].type)
            if lay is not None:
                rep = self._replication(lay)
                if rep > 1:
                    raise PassError(op, f"atomic_rmw_tile on a tile whose wg_map shares data between subgroups "
                                        f"({short_map(lay)} on {list(lay.shape)}: each element is owned by {rep} "
                                        "subgroups) would apply the update several times")
            return
        if name == "xetile.tile_mma":
            self._plan_mma(op)
            return
        if name == "xetile.tile_reduce":
            self._require_layouts(op)
            kind = TileReduceOp(op).kind
            fl = self._is_float(op.results[0])
            if COMBINE[kind][0 if fl else 1] is None:
                raise PassError(op, f"reduction kind {kind} does not apply to {elt_type(op.results[0])} elements")
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
        if name == "vector.bitcast":
            self._require_layouts(op)
            src_lay, res_lay = self.la.of(op.operands[0]), self.la.of(op.results[0])
            if bitcast_source_layout(vshape(op.operands[0]), res_lay) != src_lay:
                raise PassError(op, f"vector.bitcast from {short_map(src_lay)} to {short_map(res_lay)}: each subgroup "
                                    "bitcasts its own piece, so the maps must have the same sg_layout and sg_data "
                                    "scaled by the element-count ratio")
            return
        if is_elementwise(op):
            self._require_layouts(op)
            return
        if name in ("scf.for", "scf.if", "scf.yield", "scf.condition"):
            return
        what = ", ".join(sorted({"tile" if is_tile(v.type) else "vector" for v in touches}))
        raise PassError(op, f"cannot distribute '{name}' on a work-group {what} (no subgroup form known); "
                            "only XeTile ops, element-wise arith/math ops, splat constants, scalar broadcasts, "
                            "scf.for and scf.if are distributed")

    def _require_layouts(self, op):
        for v in list(op.operands) + list(op.results):
            if is_vector(v.type) and self.la.of(v) is None:
                raise PassError(op, f"cannot tell how '{op.name}' is distributed: a vector operand or result has "
                                    "no wg_map (give the op a wg_map)")

    def _check_layout(self, op, lay, what):
        errs = distribution_errors(lay.shape, lay.sg_layout, lay.sg_data, what)
        if errs:
            if lay in self._bad_layouts:  # reported once, at its first op
                raise _Reported()
            self._bad_layouts.add(lay)
            raise PassError(op, f"cannot distribute the {what} {list(lay.shape)} with {short_map(lay)}: {errs[0]}")

    @staticmethod
    def _replication(lay: Layout) -> int:
        rep = 1
        for t, l, d in zip(lay.shape, lay.sg_layout, lay.sg_data):
            if l * d > t:
                rep *= (l * d) // t
        return rep

    @staticmethod
    def _is_float(v) -> bool:
        return str(elt_type(v)).startswith(("f", "bf", "tf"))
