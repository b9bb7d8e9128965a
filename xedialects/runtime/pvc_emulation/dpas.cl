// Emulation of cl_intel_subgroup_matrix_multiply_accumulate (+ _tf32), subgroup size 16:
// D (M x 16) = C + A (M x K) * B (K x 16), lane n computing column n.
//
// Per-lane operands, as the extension defines them (M rows: vector component i = row i):
//  * bf16 / f16, K = 16: A `short`s, lane l holds A[i][l]; B `int8`, value j of lane n packs
//    B[2j][n] (low half) and B[2j+1][n];
//  * i8 / u8, K = 32: A `short`s, lane l holds A[i][2l] (low byte) and A[i][2l+1]; B `int8` /
//    `uint8`, value j of lane n packs B[4j..4j+3][n] (lowest byte first);
//  * tf32, K = 8: A `float`s, row i of the subgroup's A is lanes 8*(i%2) .. 8*(i%2)+7 of
//    component i/2; B `float8`, value k of lane n is B[k][n]; inputs rounded to tf32.
// A[i][k] reaches lane n by a subgroup shuffle from the lane holding it. Products are exact in
// f32 (16-bit floats, tf32) or i32, summed onto C in K order (the simulator's model).

static float xe_emu_bf16(ushort x) { return as_float((uint)x << 16); }

static float xe_emu_tf32(float x) {      // round to 10 explicit mantissa bits, nearest even
    uint u = as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u) return x;
    u += 0xfffu + ((u >> 13) & 1u);
    return as_float(u & ~0x1fffu);
}

#define XE_DPAS_F16(NAME, M, AT, CT, CVT)                                                            \
    __attribute__((overloadable, noinline)) CT NAME(AT a, int8 b, CT acc) {                                   \
        CT out = acc;                                                                                \
        private short* av = (private short*)&a;                                                      \
        private float* o = (private float*)&out;                                                     \
        private int* bv = (private int*)&b;                                                          \
        for (int i = 0; i < M; ++i) {                                                                \
            float s = o[i];                                                                          \
            for (int k = 0; k < 16; ++k) {                                                           \
                ushort ak = (ushort)intel_sub_group_shuffle(av[i], (uint)k);                         \
                ushort bk = (ushort)((uint)bv[k / 2] >> (16 * (k % 2)));                             \
                s += CVT(ak) * CVT(bk);                                                              \
            }                                                                                        \
            o[i] = s;                                                                                \
        }                                                                                            \
        return out;                                                                                  \
    }

static float xe_emu_f16(ushort x) { return vload_half(0, (private half*)&x); }

#define XE_DPAS_I8(NAME, M, AT, BT, CT, ASIGN, BSIGN)                                                \
    __attribute__((overloadable, noinline)) CT NAME(AT a, BT b, CT acc) {                                     \
        CT out = acc;                                                                                \
        private ushort* av = (private ushort*)&a;                                                    \
        private int* o = (private int*)&out;                                                         \
        private uint* bv = (private uint*)&b;                                                        \
        for (int i = 0; i < M; ++i) {                                                                \
            int s = o[i];                                                                            \
            for (int k = 0; k < 32; ++k) {                                                           \
                uint pair = (uint)intel_sub_group_shuffle(av[i], (uint)(k / 2));                     \
                uint ab = (pair >> (8 * (k % 2))) & 0xffu;                                           \
                uint bb = (bv[k / 4] >> (8 * (k % 4))) & 0xffu;                                      \
                int ak = ASIGN ? (int)(char)ab : (int)ab;                                            \
                int bk = BSIGN ? (int)(char)bb : (int)bb;                                            \
                s += ak * bk;                                                                        \
            }                                                                                        \
            o[i] = s;                                                                                \
        }                                                                                            \
        return out;                                                                                  \
    }

#define XE_DPAS_TF32(NAME, M, AT, CT)                                                                \
    __attribute__((overloadable, noinline)) CT NAME(AT a, float8 b, CT acc) {                                 \
        CT out = acc;                                                                                \
        private float* av = (private float*)&a;                                                      \
        private float* o = (private float*)&out;                                                     \
        private float* bv = (private float*)&b;                                                      \
        for (int i = 0; i < M; ++i) {                                                                \
            float s = o[i];                                                                          \
            for (int k = 0; k < 8; ++k) {                                                            \
                float ak = intel_sub_group_shuffle(av[i / 2], (uint)((i % 2) * 8 + k));              \
                s += xe_emu_tf32(ak) * xe_emu_tf32(bv[k]);                                           \
            }                                                                                        \
            o[i] = s;                                                                                \
        }                                                                                            \
        return out;                                                                                  \
    }
