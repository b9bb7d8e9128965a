"""Layout analysis of `xegpu-simt-distribute` (step 2, like upstream XeGPUPropagateLayout): the
dataflow in `propagate` and one module of layout rules per op family. `LayoutAnalysis` is their
union; `Distributor` (pass_entry) runs it before the rewrite (`..distribute`)."""
from __future__ import annotations

from .bitcasts import BitcastLayouts
from .block_io import BlockIOLayouts
from .conversions import LayoutConversions
from .dpas import DpasLayouts
from .propagate import LayoutPropagation
from .reductions import ReductionLayouts
from .scattered import ScatteredLayouts
from .vector_ops import VectorOpLayouts


class LayoutAnalysis(LayoutPropagation, BlockIOLayouts, DpasLayouts, ScatteredLayouts, VectorOpLayouts,
                     BitcastLayouts, ReductionLayouts, LayoutConversions):
    """Every vector value's `Layout` (`self.lay`), every descriptor chain's sg_map (`self.chain_sgm`,
    `self.sc_lay`), and the reorders, layout conversions and reduction plans the rewrite follows."""
