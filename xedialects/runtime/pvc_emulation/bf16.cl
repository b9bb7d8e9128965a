// Emulation of the f32 -> bf16 conversion of cl_intel_bfloat16_conversions, imported by the pvc
// target under IGC's SPIR-V friendly name `__spirv_ConvertFToBF16INTEL` for every f32 -> bf16
// rounding: round to nearest even (infinities, -0 and denormals kept, overflow by rounding to inf).
// A NaN becomes the canonical quiet NaN with its sign (0x7fc0 / 0xffc0), the simulator's rule
// (numpy / ml_dtypes), so the two agree bit for bit; the hardware keeps the NaN's upper payload
// bits (high half | 0x40, Intel's convention), see docs/numerics.md. Defined here because Intel's
// OpenCL CPU runtime's own intel_convert_bfloat16_as_ushort turns every NaN into 0xffc1.

__attribute__((overloadable)) ushort __spirv_ConvertFToBF16INTEL(float x) {
    uint u = as_uint(x);
    if (isnan(x)) return (ushort)(((u >> 16) & 0x8000u) | 0x7fc0u);
    return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
