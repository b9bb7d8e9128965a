// Emulation of cl_intel_subgroup_2d_block_io (subgroup size 16) for devices without it.
//
// Written from the extension's model of a 2D block message (shared/spec/xe-cute-architecture.md,
// "Block 2D Copy Atoms" and "Subgroup Scope and Thread-Local Data"):
//  * the surface: `base` (64-byte aligned), `width` and `pitch` in bytes, `height` in rows; the
//    block starts at element column coord.x, row coord.y; elements outside the surface read 0 and
//    are not written;
//  * the subgroup's register image of the block: blocks (count of them, side by side in memory)
//    one after the other; inside a block the rows one after the other (plain), pairs / quads of
//    rows interleaved into 32-bit values (VNNI transform), or the memory columns one after the
//    other (transpose);
//  * that image, cut into units of the per-lane type, is dealt round-robin to the lanes: unit u
//    is value u / 16 of lane u % 16.
// Each emulated builtin first checks the surface against the hardware's rules (the XE_* limits are
// -D options from the architecture table); a violation is recorded in xe_emu_error (first one
// wins) and the access is skipped. The host reads the record after each launch.

#define XE_LANES 16

// [0] builtin id + 1 (0: no error), [1] rule, [2] offending value (low 32 bits), [3] value high,
// [4..6] work-group id, [7] lane
global int xe_emu_error[8];

// rules (decoded by pvc_emulation/library.py)
#define XE_RULE_BASE_ALIGN 1
#define XE_RULE_WIDTH_MIN 2
#define XE_RULE_WIDTH_ALIGN 3
#define XE_RULE_WIDTH_MAX 4
#define XE_RULE_PITCH_MIN 5
#define XE_RULE_PITCH_ALIGN 6
#define XE_RULE_PITCH_MAX 7
#define XE_RULE_PITCH_LT_WIDTH 8
#define XE_RULE_HEIGHT 9

static void xe_emu_report(int id, int rule, long value) {
    if (atomic_cmpxchg((volatile global int*)&xe_emu_error[0], 0, id + 1) == 0) {
        xe_emu_error[1] = rule;
        xe_emu_error[2] = (int)(value & 0xffffffffL);
        xe_emu_error[3] = (int)(value >> 32);
        xe_emu_error[4] = (int)get_group_id(0);
        xe_emu_error[5] = (int)get_group_id(1);
        xe_emu_error[6] = (int)get_group_id(2);
        xe_emu_error[7] = (int)get_sub_group_local_id();
    }
}

// true when the surface obeys the hardware's rules (else the first violation is reported)
__attribute__((noinline)) static bool xe_emu_surface_ok(int id, global void* base, int width, int height, int pitch) {
    ulong addr = (ulong)base;
    if (addr % XE_BASE_ALIGN) { xe_emu_report(id, XE_RULE_BASE_ALIGN, (long)addr); return false; }
    if (width < XE_MIN_WIDTH) { xe_emu_report(id, XE_RULE_WIDTH_MIN, width); return false; }
    if (width % XE_WIDTH_ALIGN) { xe_emu_report(id, XE_RULE_WIDTH_ALIGN, width); return false; }
    if ((long)width > XE_MAX_WIDTH) { xe_emu_report(id, XE_RULE_WIDTH_MAX, width); return false; }
    if (pitch < XE_MIN_PITCH) { xe_emu_report(id, XE_RULE_PITCH_MIN, pitch); return false; }
    if (pitch % XE_PITCH_ALIGN) { xe_emu_report(id, XE_RULE_PITCH_ALIGN, pitch); return false; }
    if ((long)pitch > XE_MAX_PITCH) { xe_emu_report(id, XE_RULE_PITCH_MAX, pitch); return false; }
    if (pitch < width) { xe_emu_report(id, XE_RULE_PITCH_LT_WIDTH, pitch); return false; }
    if (height < 1 || (long)height > XE_MAX_HEIGHT) { xe_emu_report(id, XE_RULE_HEIGHT, height); return false; }
    return true;
}

#define XE_PLAIN 0
#define XE_TRANSFORM 1
#define XE_TRANSPOSE 2

// Memory (row, column) inside the whole block of element `e` of the register image.
static int2 xe_emu_element(int kind, int ebytes, int rows, int bw, int e) {
    int per_block = rows * bw;
    int blk = e / per_block, rem = e % per_block, r, c;
    if (kind == XE_TRANSFORM) {          // 32-bit values of 4/ebytes consecutive rows of one column
        int f = 4 / ebytes, q = rem / f;
        r = (q / bw) * f + rem % f;
        c = q % bw;
    } else if (kind == XE_TRANSPOSE) {   // memory columns one after the other
        r = rem % rows;
        c = rem / rows;
    } else {
        r = rem / bw;
        c = rem % bw;
    }
    return (int2)(blk * bw + c, r);      // (column, row)
}

// Moves this lane's part of a block between memory and `data` (write: data -> memory).
__attribute__((noinline)) static void xe_emu_block(int id, int kind, int ebytes, int rows, int bw, int count, int lane_bytes,
                         global uchar* base, int width, int height, int pitch, int2 coord,
                         private uchar* data, bool write) {
    if (!xe_emu_surface_ok(id, base, width, height, pitch)) {
        if (!write)
            for (int i = 0; i < rows * bw * count * ebytes / XE_LANES; ++i) data[i] = 0;
        return;
    }
    int lane = (int)get_sub_group_local_id();
    int pack = lane_bytes / ebytes;
    int values = rows * bw * count / (XE_LANES * pack);
    for (int v = 0; v < values; ++v) {
        for (int p = 0; p < pack; ++p) {
            int e = (v * XE_LANES + lane) * pack + p;
            int2 rc = xe_emu_element(kind, ebytes, rows, bw, e);
            long x = (long)coord.x + rc.x, y = (long)coord.y + rc.y;
            bool inside = x >= 0 && (x + 1) * ebytes <= width && y >= 0 && y < height;
            private uchar* d = data + (v * pack + p) * ebytes;
            global uchar* m = base + y * pitch + x * ebytes;
            for (int b = 0; b < ebytes; ++b) {
                if (write) {
                    if (inside) m[b] = d[b];
                } else {
                    d[b] = inside ? m[b] : (uchar)0;
                }
            }
        }
    }
}

#define XE_BLOCK_READ(ID, NAME, LT, KIND, EBYTES, ROWS, BW, COUNT)                                   \
    __attribute__((overloadable, noinline)) void NAME(global void* base, int width, int height, int pitch,      \
                                            int2 coord, private LT* destination) {                   \
        xe_emu_block(ID, KIND, EBYTES, ROWS, BW, COUNT, sizeof(LT), (global uchar*)base, width, height, \
                     pitch, coord, (private uchar*)destination, false);                              \
    }

#define XE_BLOCK_WRITE(ID, NAME, LT, EBYTES, ROWS, BW)                                               \
    __attribute__((overloadable, noinline)) void NAME(global void* base, int width, int height, int pitch,      \
                                            int2 coord, private LT* source) {                        \
        xe_emu_block(ID, XE_PLAIN, EBYTES, ROWS, BW, 1, sizeof(LT), (global uchar*)base, width, height, \
                     pitch, coord, (private uchar*)source, true);                                    \
    }

// a prefetch moves no data: only the surface rules are checked
#define XE_BLOCK_PREFETCH(ID, NAME)                                                                  \
    __attribute__((overloadable, noinline)) void NAME(global void* base, int width, int height, int pitch,      \
                                            int2 coord) {                                            \
        xe_emu_surface_ok(ID, base, width, height, pitch);                                           \
    }

// The host reads (and clears) the error record after each launch.
kernel void xe_emu_take_error(global int* out) {
    for (int i = 0; i < 8; ++i) {
        out[i] = xe_emu_error[i];
        xe_emu_error[i] = 0;
    }
}
