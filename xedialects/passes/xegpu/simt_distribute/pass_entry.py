"""The pass `xegpu-simt-distribute`: its registration and options, and `Distributor`, which runs
the three steps on one function with the `XeArch` resolved once by `run_per_function`:
1. `split_a_loads` (option split-a-loads), 2. the layout analysis (`analysis`), 3. the per-op
distribution rules (`distribute`). Errors are located diagnostics."""
from __future__ import annotations

from ...registry import Option, register_pass
from ...utils.arch_option import arch_option
from ...utils.driver import run_per_function
from ...utils.ir_walk import walk
from ...utils.rebuild import RewriteError
from .analysis import LayoutAnalysis
from .common import SimtError
from .distribute import DistributionRules
from .split_a_loads import SplitALoads


class Distributor(SplitALoads, LayoutAnalysis, DistributionRules):
    """VC-mode XeGPU to SIMT mode for one gpu.func / func.func; `arch` is the target's `XeArch`."""

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
        self.red_plan: dict = {}     # reduction result -> ReductionPlan (how the work-items combine it)
        self.gather_reorder: dict = {}   # last insert of a gathered block -> reordered after it
        self.dpas_a_conv: dict = {}  # DPAS result -> (Layout of its A operand, Layout the DPAS needs): reorder
        self._refused = None         # values whose want a trial propagation could not set (analysis/conversions)
        self.bitcast_pre: dict = {}  # widening bitcast result -> source Layout its fragment is rearranged to first
        self._remat: dict = {}       # vector value -> recomputable in any layout
        self._memo: dict = {}        # (what, key, block) -> value built in that block
        self._lane = None
        self._current = func

    def is_vc(self) -> bool:
        return any(o.name.startswith("xegpu.") and "mode" in o.attributes for o in walk(self.func))

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
        try:
            self.rewrite()
        except (SimtError, RewriteError) as e:
            self.ctx.error(e.op if e.op is not None else self.func, e.message)
            return False
        return True


@register_pass("xegpu-simt-distribute",
               "Distribute VC-mode XeGPU to SIMT mode: sg_map on descriptors, per-work-item vectors",
               options=[arch_option(),
                        Option("split-a-loads", bool, True,
                               "give each DPAS A operand its own block load (hardware A layout)")])
def xegpu_simt_distribute(module_op, options, ctx):
    return run_per_function(module_op, options, ctx, Distributor)
