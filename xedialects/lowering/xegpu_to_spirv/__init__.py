"""Stage 6, `convert-xegpu-to-spirv{target=pvc|portable}`: VC-mode XeGPU kernels to OpenCL SPIR-V
(docs/spirv.md). `convert` is the pass, `xegpu_kernel` lowers kernel bodies, `spirv_builtins`
declares Intel's DPAS / 2D block builtins (pvc), `spirv_lanes` and `spirv_layout` expand
subgroup blocks per lane (portable), `spirv_export` serializes and validates binaries."""
