"""The modules that declare passes or named pipelines, imported lazily by
`passes.manager.registry.load_pass_modules()` (running a pipeline, --help, --list-passes), so
`import xedialects` and plain parsing/printing import none of them.

ADD NEW PASS MODULES HERE (absolute module names). A list of its own, apart from `passes/__init__`
(which imports the registry), so that the registry reads it without an import circle.
"""
from __future__ import annotations

PASS_MODULES: list[str] = [
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
