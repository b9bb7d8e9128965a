"""`xegpu-simt-distribute`, pipeline stage 5: VC-mode XeGPU (stage 4, `convert-xetile-to-xegpu`)
to SIMT-mode XeGPU, where every tensor_desc carries an `sg_map` and every vector is one
work-item's fragment. A layout analysis (`analysis/`) assigns each value a work-item layout, then
per-op distribution rules (`distribute/`) rewrite the ops; `pass_entry` registers the pass.
Design: docs/simt.md."""
from __future__ import annotations

from .pass_entry import xegpu_simt_distribute

__all__ = ["xegpu_simt_distribute"]
