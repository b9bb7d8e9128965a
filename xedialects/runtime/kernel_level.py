"""Are a module's kernels at a level the OpenCL backend can build? It runs SPIR-V: kernels already
converted (`spirv.module`) or XeGPU at either level -- VC mode (subgroup) or SIMT mode (lane: our
xegpu-simt-distribute's output, imported upstream lane-level and XeVM-level kernels) -- which it converts
with `convert-xegpu-to-spirv{target=portable}`. An XeTile kernel has to be lowered first; that is a
located error at its first XeTile op naming the pipelines that do it (xe-run --backend=opencl, kernel and
whole-program modes alike). What the SPIR-V lowering itself does not take is its own located error
(docs/spirv.md "Limits")."""
from __future__ import annotations

from ..diagnostics import DiagnosticError, at

HINT = ("lower the kernels with a pipeline to SPIR-V, e.g. --pipeline=xe-gemm-to-spirv-portable (or one ending "
        "at XeGPU, e.g. --pipeline=xe-gemm-to-xegpu, with or without xegpu-simt-distribute: xe-run converts "
        "XeGPU, VC or SIMT mode, to portable SPIR-V itself)")


def check_kernels_lowered(module, backend: str = "opencl") -> None:
    """DiagnosticError at the first XeTile op of a `gpu.func` of `module` (nothing when none)."""
    from mlir import ir

    from ..passes.utils.ir_walk import walk

    op = module.operation if hasattr(module, "operation") else module
    for gm in walk(op):
        if gm.name != "gpu.module":
            continue
        for f in walk(gm):
            if f.name != "gpu.func":
                continue
            first = next((o for o in walk(f) if o.name.startswith("xetile.")), None)
            if first is None:
                continue
            kernel = f"@{ir.StringAttr(gm.attributes['sym_name']).value}::@{ir.StringAttr(f.attributes['sym_name']).value}"
            raise DiagnosticError([at(first.location, "error",
                                      f"--backend={backend} runs SPIR-V, but kernel {kernel} is still XeTile "
                                      f"('{first.name}' here): {HINT}")])
