// Emulation of the f32 exp2 the pvc target imports under IGC's SPIR-V friendly name
// `__spirv_ocl_exp2` (MLIR's SPIR-V dialect has no CL exp2 op): the CPU runtime's own exp2.

__attribute__((overloadable)) float __spirv_ocl_exp2(float x) {
    return exp2(x);
}
