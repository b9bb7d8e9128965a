"""Stage 4, `convert-xetile-to-xegpu`: blocked subgroup XeTile to VC-mode XeGPU, one XeGPU op per
hardware instruction (2D block IO, DPAS, scattered fallbacks); `convert` is the pass."""
