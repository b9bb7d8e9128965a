"""Registered names of the export and of upstream's route: the pass `convert-xegpu-to-upstream`
(checks that the module exports, or with route=spirv that it reaches a spirv-val-clean binary; the IR
stays ours, the output is emitted by xe-opt) and the pipelines `xe-gemm-to-upstream-xegpu` and
`xe-gemm-to-spirv-upstream`. `export_kind` and `route_distribute` tell xe-opt which output a pass list ends in and how its
route distributes."""
from __future__ import annotations

import re

from ...diagnostics import DiagnosticError
from ...passes import Option, register_pass, register_pipeline

EXPORT_PASS = "convert-xegpu-to-upstream"
UPSTREAM_XEGPU = "xe-gemm-to-upstream-xegpu"
SPIRV_UPSTREAM = "xe-gemm-to-spirv-upstream"


@register_pass(EXPORT_PASS,
               "Export XeGPU as upstream MLIR's xegpu (text; xe-opt prints it, Python: export_upstream / "
               "export_upstream_lanes); route=spirv also runs upstream's passes, llvm-spirv and spirv-val "
               "(xe-opt prints spirv-dis text, or --emit=spirv-binary -o F); the IR is left unchanged",
               options=[Option("route", str, "none", "none: the export only; spirv: upstream's route to SPIR-V",
                               choices=("none", "spirv")),
                        Option("level", str, "subgroup", "subgroup: VC-mode kernels as subgroup-level xegpu; lane: "
                               "SIMT-mode kernels (VC-mode ones distributed by xegpu-simt-distribute on a copy) as "
                               "lane-level xegpu", choices=("subgroup", "lane")),
                        Option("distribute", str, "auto", "route=spirv: whose subgroup distribution -- upstream: "
                               "LLVM's; xedialects: ours, then the lane-level export; auto: LLVM's, ours when it "
                               "fails (with a remark)", choices=("auto", "upstream", "xedialects"))])
def convert_xegpu_to_upstream(module_op, options, ctx):
    from ..xegpu_to_upstream import export_upstream
    from .route import lane_text, upstream_route

    lanes = options["level"] == "lane"
    try:
        if options["route"] == "spirv":
            result = upstream_route(module_op, distribute="xedialects" if lanes else options["distribute"])
            for d in result.remarks:
                ctx.emit(d)
        elif lanes:
            lane_text(module_op)
        else:
            export_upstream(module_op)
    except DiagnosticError as e:
        for d in e.diagnostics:
            ctx.emit(d)
        return False
    return True


register_pipeline(
    UPSTREAM_XEGPU,
    "linalg.matmul to upstream MLIR's subgroup-level xegpu text (xe-gemm-to-xegpu, then "
    "convert-xegpu-to-upstream; docs/upstream-xegpu.md)",
    f"builtin.module(xe-gemm-to-xegpu, {EXPORT_PASS})")
register_pipeline(
    SPIRV_UPSTREAM,
    "linalg.matmul to SPIR-V by upstream MLIR's route (xe-gemm-to-xegpu, export, upstream xegpu -> XeVM -> "
    "LLVM passes, llvm-spirv, spirv-val); prints spirv-dis text, --emit=spirv-binary -o F writes the binary",
    f"builtin.module(xe-gemm-to-xegpu, {EXPORT_PASS}{{route=spirv}})")


def export_kind(last_name: str | None, last_options: str | None) -> str | None:
    """What the pipeline's last element makes xe-opt emit: "upstream-xegpu" (subgroup-level text),
    "upstream-xegpu-lanes" (lane-level text: the export pass with level=lane), "upstream-spirv" or None."""
    if last_name == SPIRV_UPSTREAM:
        return "upstream-spirv"
    if last_name == UPSTREAM_XEGPU:
        return "upstream-xegpu"
    if last_name == EXPORT_PASS:
        opts = _options(last_options)
        if opts.get("route") == "spirv":
            return "upstream-spirv"
        return "upstream-xegpu-lanes" if opts.get("level") == "lane" else "upstream-xegpu"
    return None


def route_distribute(last_name: str | None, last_options: str | None) -> str:
    """The `distribute` mode of the route a pipeline ends in (as the pass itself runs it)."""
    if last_name != EXPORT_PASS:
        return "auto"
    opts = _options(last_options)
    return "xedialects" if opts.get("level") == "lane" else opts.get("distribute", "auto")


def _options(text: str | None) -> dict:
    """A pass element's options `k=v k2=v2` (or comma-separated) as a dict."""
    return dict(o.split("=", 1) for o in re.split(r"[\s,]+", text or "") if "=" in o)
