"""Analyses over the IR that transform nothing: `tile_uses` (how XeTile tiles flow and are used,
for the XeTile passes) and `kernel_report` (`xe-kernel-report`: per-kernel instruction counts)."""
