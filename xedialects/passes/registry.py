"""The pass registration API, what every pass module imports:

    from xedialects.passes.registry import Option, register_pass, register_pipeline

The registry itself, the pipeline parser and the runner are in `xedialects.passes.manager`."""
from __future__ import annotations

from .manager.options import Option, PassOptions
from .manager.pass_context import PassContext
from .manager.registry import PassInfo, PipelineInfo, register_pass, register_pipeline

__all__ = ["Option", "PassOptions", "PassContext", "PassInfo", "PipelineInfo", "register_pass", "register_pipeline"]
