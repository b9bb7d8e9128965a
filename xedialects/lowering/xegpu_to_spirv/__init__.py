"""Stage 6, `convert-xegpu-to-spirv{target=pvc|portable}`: VC-mode XeGPU kernels to OpenCL SPIR-V
(docs/spirv.md). `convert` is the pass; `kernel_lowering` lowers kernel bodies, with one mixin
module per op family (`kernel_memory`, `kernel_block_io`, `kernel_dpas`, `kernel_scattered`,
`kernel_vector`, `kernel_reduction`, `kernel_sync`) and shared values in `kernel_values`;
`spirv_builtins` declares Intel's DPAS / 2D block builtins (pvc), `spirv_lanes` and `spirv_layout`
expand subgroup blocks per lane, `spirv_export` serializes and validates binaries."""
