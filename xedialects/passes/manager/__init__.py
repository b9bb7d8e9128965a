"""The pass infrastructure (what MLIR splits into Pass, PassRegistry and PassManager): declare a
Python pass once, run it in textual pipelines mixed with any upstream MLIR pass.

    @register_pass("xetile-blocking", "Split subgroup tiles into hardware-sized blocks",
                   options=[Option("arch", str, "pvc", "target architecture"),
                            Option("mma-m", int, 0, "DPAS M block (0: from the arch)")],
                   dependent_dialects=["vector"])
    def xetile_blocking(module_op, options, ctx):
        ...                      # options.arch / options["mma-m"]; ctx.error(op, "msg") fails the pass

    run(module, "builtin.module(canonicalize, xetile-blocking{arch=pvc mma-m=8}, func.func(cse))")
    Pipeline().add("xetile-blocking", arch="pvc").add("canonicalize").run(module)

Modules, bottom up: `errors` (PassPipelineError, PassFailure, PassInternalError), `options`
(Option, PassOptions, option text), `pass_context` (PassContext: how a pass reports),
`pipeline_text` (the `builtin.module(...)` grammar), `registry` (register_pass, register_pipeline,
lookup, lazy loading of the pass modules), `native_stderr` (capture and cleanup of what MLIR prints
to fd 2), `pipeline` (Pipeline, CompiledPipeline, run).

A pipeline becomes ONE `mlir.passmanager.PassManager`; our passes run on `builtin.module` only.
After each of our passes the IR is verified (MLIR's structural verifier, then
`xedialects.verifier.verify_module`, the RFC rules); a failure raises `PassFailure` (a
`DiagnosticError`): "pass 'x' failed" followed by the located diagnostics. Named pipelines
(`register_pipeline`) expand in place wherever their name is used. IR printing and timing use
MLIR's own instrumentation; the dumps are rewritten into our readable syntax before they reach
stderr.
"""
from __future__ import annotations

from .errors import PassFailure, PassInternalError, PassPipelineError
from .options import Option, PassOptions
from .pass_context import PassContext
from .pipeline import CompiledPipeline, Pipeline, run
from .registry import (PassInfo, PipelineInfo, load_pass_modules, lookup, register_pass, register_pipeline,
                       registered_passes, registered_pipelines)

__all__ = [
    "Option", "PassOptions", "PassContext", "PassInfo", "PipelineInfo", "Pipeline", "CompiledPipeline",
    "PassFailure", "PassPipelineError", "PassInternalError", "register_pass", "register_pipeline",
    "registered_passes", "registered_pipelines", "lookup", "run", "load_pass_modules",
]
