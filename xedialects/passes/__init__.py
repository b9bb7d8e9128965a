"""Passes: the pass infrastructure (`register_pass`, `Pipeline`, `run`; in `manager/`) and, imported
lazily, every module that declares passes or named pipelines.

Pass modules (the list in `pass_modules.py`) are imported only when a pass name must be resolved
(running a pipeline, --help, --list-passes), so `import xedialects` and plain parsing/printing stay fast.
"""
from __future__ import annotations

from .manager import (
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
