"""Export of our VC-mode XeGPU (the RFC dialect) to upstream MLIR's subgroup-level `xegpu` as text.

Our dynamic `xegpu` and upstream's C++ `xegpu` cannot share an MLIR context, so the export prints:
our xegpu ops and types are translated one by one (`ops.py`, `types.py`), everything else is printed
by MLIR, and the text is meant for an upstream context / `mlir-opt` (docs/upstream-xegpu.md).

    from xedialects.lowering.xegpu_to_upstream import export_upstream
    text = export_upstream(module)          # raises DiagnosticError at the first unexportable op
    text = export_upstream_lanes(simt)      # SIMT mode -> upstream's lane-level xegpu (lanes.py)
"""
from .driver import export_upstream
from .lanes import export_upstream_lanes

__all__ = ["export_upstream", "export_upstream_lanes"]
