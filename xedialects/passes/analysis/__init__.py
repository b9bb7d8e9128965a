"""Analyses over the IR that transform nothing: `tile_uses` (how XeTile tiles flow and are used,
for the XeTile passes), `kernel_report` (`xe-kernel-report`: per-kernel instruction counts) and
`registers` (a kernel's register estimate and GRF mode, also read by convert-xegpu-to-spirv)."""
