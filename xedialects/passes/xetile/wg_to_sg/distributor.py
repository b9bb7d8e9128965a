"""`WgToSg`: distributes one gpu.func of `xetile-wg-to-sg` -- layout analysis, checks, then the
rewrite with the 1:N `Rebuilder` (one rule per op, from the rule mixins), with the subgroup id and
index arithmetic hoisted to the function entry."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu

from ...utils.rebuild import Rebuilder
from ...utils.ir_walk import owner_op, walk
from .checks import DistributionChecks
from .common import PassError, create_op, is_vector, piece_type, sg_attrs, tile_layout
from .control_flow_rules import ControlFlowRules
from .distribution import Layout
from .elementwise_rules import ElementwiseRules
from .layout_analysis import LayoutAnalysis
from .mma_rules import MmaRules
from .slm_exchange import SlmExchange
from .segmented_reduce import SegmentedReduceRules
from .subgroup_ids import SubgroupIndexing
from .tile_rules import TileRules
from .vector_layout_rules import VectorLayoutRules


class WgToSg(DistributionChecks, SubgroupIndexing, SlmExchange, TileRules, MmaRules, ElementwiseRules,
             VectorLayoutRules, SegmentedReduceRules, ControlFlowRules):
    """Distribution of one function: `run()` reports through `ctx` and returns False on failure.
    `la` is the LayoutAnalysis, `rb` the Rebuilder, `sg` the subgroup id; the rules are the `h_*`
    methods of the mixins, picked by `handlers()`."""

    def __init__(self, func, arch, options, ctx, slm_budget):
        self.func = func
        self.arch = arch
        self.options = options
        self.ctx = ctx
        self.slm_budget = slm_budget     # bytes, resolved by the pass (wg_to_sg.slm_budget)
        self.errors: list = []
        self.rb = None
        self._consts: dict = {}
        self._coords: dict = {}
        self._bases: dict = {}
        self._bad_layouts: set = set()
        self.slm_bytes = 0

    def is_wg_function(self) -> bool:
        for op in walk(self.func):
            if any(k in op.attributes for k in ("wg_map", "wg_map_a", "wg_map_b", "wg_map_c")):
                return True
            for v in list(op.results) + list(op.operands):
                if tile_layout(v.type) is not None:
                    return True
        return False

    def wg_value(self, v) -> bool:
        return tile_layout(v.type) is not None or self.la.of(v) is not None

    def wg_op(self, op) -> bool:
        return any(self.wg_value(v) for v in list(op.operands) + list(op.results))

    def analyse(self) -> bool:
        self.la = LayoutAnalysis(self.func, self.errors)
        if self.errors:
            return False
        self._check_requirements()
        self._check_ops()
        return not self.errors

    def _materializable(self, v) -> bool:
        op = owner_op(v)
        if op is None:
            return False
        name = op.name
        if name == "arith.constant":
            try:
                return ir.DenseElementsAttr(op.attributes["value"]).is_splat
            except Exception:
                return False
        if name in ("vector.broadcast", "vector.splat"):
            return not is_vector(op.operands[0].type)
        return False

    def pieces(self, v, want: Layout):
        """The subgroup values of work-group vector `v` distributed as `want`."""
        have = self.la.of(v)
        if have == want:
            return self.rb.map(v)
        if self._materializable(v):
            return self._materialize(v, want)
        raise PassError(owner_op(v) or self.func,
                        f"work-group vector distributed as {have} is used where {want} is required")

    def _materialize(self, v, lay: Layout):
        op = owner_op(v)
        t = piece_type(v, lay)
        if op.name == "arith.constant":
            splat = ir.DenseElementsAttr(op.attributes["value"]).get_splat_value()
            new = arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, splat)).result
        else:
            new = create_op(op.name, [self.rb.one(op.operands[0])], [t], sg_attrs(op)).results[0]
        return [new] * lay.num_subtiles

    def handlers(self):
        names = {op.name for op in walk(self.func)}
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
            "vector.shape_cast": self.h_segment_cast,
            "vector.bitcast": self.h_bitcast,
            "vector.multi_reduction": self.h_segment_reduce,
            "scf.for": self.h_for,
            "scf.if": self.h_if,
        }
        for n in names:
            if n.startswith(("arith.", "math.")) and n not in h:
                h[n] = self.h_elementwise
        return h

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
