"""XeGPU transformations: stage 5 `xegpu-simt-distribute` (VC mode to SIMT mode with `sg_map`)."""
