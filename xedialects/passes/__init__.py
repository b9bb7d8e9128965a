"""Passes: the pass infrastructure (`register_pass`, `Pipeline`, `run`; in `manager/`) and, imported
lazily, every module that declares passes or named pipelines.

Pass modules are imported only when a pass name must be resolved (running a pipeline, --help,
--list-passes), so `import xedialects` and plain parsing/printing stay fast.
"""
from __future__ import annotations

# ---- Pass modules ------------------------------------------------------------------------------
# Every module that calls `register_pass` / `register_pipeline`, imported lazily by
# `manager.registry.load_pass_modules()`. ADD NEW PASS MODULES HERE (absolute module names).
_PASS_MODULES: list[str] = [
    "xedialects.lowering.linalg_to_xetile.convert",                       # stage 1
    "xedialects.passes.xetile.wg_to_sg",                                  # stage 2
    "xedialects.passes.xetile.canonicalize", "xedialects.passes.xetile.blocking",
    "xedialects.passes.xetile.check_hw",                                  # stage 3
    "xedialects.passes.xetile.imex_aliases",                              # IMEX pass names
    "xedialects.lowering.xetile_to_xegpu.convert",                        # stage 4
    "xedialects.passes.xegpu.simt_distribute",                            # stage 5
    "xedialects.lowering.xegpu_to_spirv.convert",                         # stage 6
    "xedialects.passes.analysis.kernel_report",
    "xedialects.lowering.upstream_route.passes",                          # export, upstream's route
]
# -------------------------------------------------------------------------------------------------

from .manager import (  # noqa: E402  (after _PASS_MODULES: the registry reads it lazily)
    Option,
    PassContext,
    PassFailure,
    PassInfo,
    PassInternalError,
    PassOptions,
    PassPipelineError,
    Pipeline,
    PipelineInfo,
    load_pass_modules,
    lookup,
    register_pass,
    register_pipeline,
    registered_passes,
    registered_pipelines,
    run,
)

__all__ = [
    "Option", "PassContext", "PassFailure", "PassInfo", "PassInternalError", "PassOptions",
    "PassPipelineError", "Pipeline", "PipelineInfo", "load_pass_modules", "lookup", "register_pass",
    "register_pipeline", "registered_passes", "registered_pipelines", "run",
]
