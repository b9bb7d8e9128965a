"""Per-op distribution rules of `xegpu-simt-distribute` (step 3, like upstream
XeGPUSubgroupDistribute): one module per op family, each rule rewriting one VC-mode op into its
per-work-item form following the layout analysis. `DistributionRules` is their union and drives
the rewrite (`rewrite`), then drops what became dead."""
from __future__ import annotations

from ....utils.ir_walk import walk
from ..common import PURE_OPS, is_vec
from .bitcasts import BitcastRules
from .block_io import BlockIORules
from .control_flow import SimtRebuilder
from .conversions import FragmentConversions
from .dpas import DpasRules
from .reductions import ReductionRules
from .scattered import ScatteredRules
from .vector_ops import VectorOpRules


class DistributionRules(FragmentConversions, BlockIORules, DpasRules, VectorOpRules, BitcastRules, ReductionRules,
                        ScatteredRules):
    """The rewrite: `handlers` maps op names to rules (element-wise arith / math and scf.for are
    handled by `SimtRebuilder`)."""

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
            "vector.bitcast": self.r_bitcast,
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

    def rewrite(self):
        """Rewrite every op of the function (SimtError / RewriteError on what cannot be distributed)."""
        rb = SimtRebuilder(self)
        for region in self.func.regions:
            for block in region.blocks:
                rb.process_block(block)
        self.erase_dead()

    def erase_dead(self):
        """Drop side-effect-free vector ops left without users (values that were recomputed in their
        users' layouts, or kept whole for them)."""
        changed = True
        while changed:
            changed = False
            for op in reversed(list(walk(self.func))):
                n = op.name
                if not (n.startswith(("arith.", "math.")) or n in PURE_OPS):
                    continue
                if n != "gpu.lane_id" and not any(is_vec(r) for r in op.results) and n != "vector.extract":
                    continue
                if any(True for r in op.results for _ in r.uses):
                    continue
                op.erase()
                changed = True
