"""Stage 4, `convert-xetile-to-xegpu`: blocked subgroup XeTile to VC-mode XeGPU, one XeGPU op per
hardware instruction (2D block IO, DPAS, scattered fallbacks). `convert` is the pass and its
driver (rule table, 1:N rebuild); `tile_plans` analyses tiles; `converter` holds the per-function
state and block / grid helpers; the rules are in `tile_descriptors`, `tile_load_store`,
`scattered`, `tile_mma` and `vector_ops`."""
