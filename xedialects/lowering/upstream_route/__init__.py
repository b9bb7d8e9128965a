"""Upstream MLIR's route from our XeGPU to SPIR-V (issue 21): export to upstream xegpu, upstream's
xegpu -> XeVM -> LLVM passes (mlir-opt), mlir-translate, opt, llvm-spirv (Khronos translator),
spirv-val; plus SPIR-V statistics for comparing it with our own pvc binary (docs/upstream-xegpu.md).

    from xedialects.lowering.upstream_route import upstream_route
    result = upstream_route(module)   # .binary (spirv-val clean), .upstream, .lowered, .llvm_ir
    result = upstream_route(module, distribute="xedialects")   # our distribution, lane-level export
"""
from .route import UPSTREAM_PIPELINE, RouteResult, upstream_route
from .stats import disassemble, spirv_stats
from .tools import ToolError

__all__ = ["UPSTREAM_PIPELINE", "RouteResult", "ToolError", "disassemble", "spirv_stats", "upstream_route"]
