"""Intel OpenCL builtins used by the `pvc` target of convert-xegpu-to-spirv (no IR here).

MLIR 22's SPIR-V dialect has no ops for SPV_INTEL_2d_block_io or
SPV_INTEL_subgroup_matrix_multiply_accumulate (and SPIRV-Tools 2023.1 rejects
SPV_INTEL_bfloat16_conversion), so the pvc target calls the OpenCL C builtins of
cl_intel_subgroup_2d_block_io, cl_intel_subgroup_matrix_multiply_accumulate(_tf32) and
cl_intel_bfloat16_conversions as imported
functions (`spirv.func` with `LinkageAttributes ... Import` and the Itanium-mangled OpenCL C name,
as clang + llvm-spirv emit them; the GPU driver links them from its builtin library).

Each builtin comes with its per-lane data layout (subgroup size 16), stated as a function of the
memory (row, column) of an element inside the block: (lane, index of the per-lane value, part of
a packed value). The converter builds `spirv_layout.Layout`s from them.
"""
from __future__ import annotations

from dataclasses import dataclass

# OpenCL C type name -> (Itanium code, SPIR-V scalar type, bits)
_SCALARS = {
    "char": ("c", "i8", 8), "uchar": ("h", "i8", 8), "short": ("s", "i16", 16), "ushort": ("t", "i16", 16),
    "int": ("i", "i32", 32), "uint": ("j", "i32", 32), "long": ("l", "i64", 64), "ulong": ("m", "i64", 64),
    "float": ("f", "f32", 32), "half": ("Dh", "f16", 16), "void": ("v", None, 0),
}


def mangle(name: str, params: list[str]) -> str:
    """Itanium mangling of an overloadable OpenCL C function. Parameter spellings: scalar types,
    vectors ("int8"), "global void*", "private ushort*"; vector and pointer types are substitution
    candidates (S_, S0_, ...) as in clang."""
    subs: list[str] = []
    out = []
    for p in params:
        p = p.strip()
        if p.endswith("*"):
            space, base = p[:-1].split()
            code = _SCALARS[base][0]
            if space == "global":
                inner = f"U3AS1{code}"
                full = "P" + inner
                out.append(_sub(full, subs) or "P" + (_sub(inner, subs) or inner))
                for s in (inner, full):
                    if s not in subs:
                        subs.append(s)
            else:
                full = "P" + code
                out.append(_sub(full, subs) or full)
                if full not in subs:
                    subs.append(full)
            continue
        base, n = _split_vec(p)
        code = _SCALARS[base][0]
        if n == 1:
            out.append(code)
            continue
        full = f"Dv{n}_{code}"
        out.append(_sub(full, subs) or full)
        if full not in subs:
            subs.append(full)
    return f"_Z{len(name)}{name}{''.join(out)}"


def _sub(code, subs):
    if code in subs:
        i = subs.index(code)
        return "S_" if i == 0 else f"S{i - 1}_"
    return None


def _split_vec(t: str):
    for base in sorted(_SCALARS, key=len, reverse=True):
        if t.startswith(base):
            rest = t[len(base):]
            return base, int(rest) if rest else 1
    raise ValueError(f"unknown OpenCL type {t!r}")


def spirv_type(t: str) -> str:
    """MLIR spelling of an OpenCL parameter type ("int8" -> "vector<8xi32>", pointers as
    !spirv.ptr)."""
    if t.endswith("*"):
        space, base = t[:-1].split()
        elt = _SCALARS[base][1] or "i8"
        return f"!spirv.ptr<{elt}, {'CrossWorkgroup' if space == 'global' else 'Function'}>"
    base, n = _split_vec(t)
    s = _SCALARS[base][1]
    return s if n == 1 else f"vector<{n}x{s}>"


@dataclass(frozen=True)
class Builtin:
    name: str                 # OpenCL C name
    params: tuple             # OpenCL parameter types
    result: str = "void"

    @property
    def mangled(self) -> str:
        return mangle(self.name, list(self.params))

    @property
    def symbol(self) -> str:
        """Symbol of the import declaration inside the spirv.module."""
        return "__builtin_" + self.name

    def declaration(self) -> str:
        args = ", ".join(spirv_type(p) for p in self.params)
        res = "" if self.result == "void" else f" -> {spirv_type(self.result)}"
        return (f'spirv.func @{self.symbol}({args}){res} "None" attributes {{linkage_attributes = '
                f'#spirv.linkage_attributes<linkage_name = "{self.mangled}", linkage_type = <Import>>}}')


# ------------------------------------------------------------------------------------------------
# f32 -> bf16: cl_intel_bfloat16_conversions' `intel_convert_bfloat16_as_ushort(float)`, imported
# under the SPIR-V friendly name IGC's builtin library defines it by (`__spirv_ConvertFToBF16INTEL`,
# what llvm-spirv turns OpConvertFToBF16INTEL into; IGC 2.40 has no definition of the OpenCL name
# for a SPIR-V input: an external call). IGC: one hardware conversion per register, where the
# integer sequence of `spirv_lanes.Lanes.f32_to_bf16` is about 8 instructions.

BF16_CONVERT = Builtin("__spirv_ConvertFToBF16INTEL", ("float",), "ushort")

# 2^x of f32: OpenCL's exp2 under the SPIR-V friendly name of IGC's builtin library (MLIR 22's SPIR-V
# dialect has no CL exp2). IGC: one hardware exp per register, where spirv.CL.exp is about 11
# instructions (range reduction, two exps, overflow tests); docs/numerics.md "exp2".

EXP2 = Builtin("__spirv_ocl_exp2", ("float",), "float")


# ------------------------------------------------------------------------------------------------
# DPAS: cl_intel_subgroup_matrix_multiply_accumulate (+ _tf32), subgroup size 16


@dataclass(frozen=True)
class DpasBuiltin:
    builtin: Builtin
    m: int
    a_type: str      # OpenCL type of A (per lane)
    b_type: str
    c_type: str
    a_pack: int      # elements of A packed in one per-lane value
    b_pack: int


def dpas_builtin(ea: str, eb: str, ec: str, m: int) -> DpasBuiltin | None:
    """The builtin computing an M x 16 DPAS for these element types, or None."""
    if m not in (1, 2, 4, 8):
        return None
    v = "" if m == 1 else str(m)
    if ea == eb and ea in ("bf16", "f16") and ec == "f32":
        name = f"intel_sub_group_{ea}_{ea}_matrix_mad_k16"
        a, b, c = f"short{v}", "int8", f"float{v}"
        return DpasBuiltin(Builtin(name, (a, b, c), c), m, a, b, c, 1, 2)
    ints = {"i8": "i8", "s8": "i8", "si8": "i8", "u8": "u8", "ui8": "u8"}
    if ea in ints and eb in ints and ec in ("i32", "s32", "si32"):
        ta, tb = ints[ea], ints[eb]
        name = f"intel_sub_group_{ta}_{tb}_matrix_mad_k32"
        a = ("short" if ta == "i8" else "ushort") + v
        b = "int8" if tb == "i8" else "uint8"
        c = f"int{v}"
        return DpasBuiltin(Builtin(name, (a, b, c), c), m, a, b, c, 2, 4)
    if ea in ("f32", "tf32") and eb in ("f32", "tf32") and ec == "f32":
        a = {1: "float", 2: "float", 4: "float2", 8: "float4"}[m]
        c = f"float{v}"
        return DpasBuiltin(Builtin("intel_sub_group_tf32_tf32_matrix_mad_k8", (a, "float8", c), c), m, a,
                           "float8", c, 1, 1)
    return None


def dpas_a_lane(ea: str, mm, kk):
    """(lane, slot) arrays of DPAS A element (m, k) in the builtin's per-lane layout (slots count
    unpacked elements)."""
    if ea in ("f32", "tf32"):
        return (mm % 2) * 8 + kk, mm // 2
    if ea in ("bf16", "f16"):
        return kk, mm
    return kk // 2, mm * 2 + kk % 2        # 8-bit: two bytes of a row per lane


# ------------------------------------------------------------------------------------------------
# 2D block IO: cl_intel_subgroup_2d_block_io, subgroup size 16

_ROWS = (1, 2, 4, 8, 16, 32)
_LANE_TYPE = {8: "uchar", 16: "ushort", 32: "uint", 64: "ulong"}


@dataclass(frozen=True)
class Block2D:
    """One 2D block builtin: `kind` read | transform | transpose | write | prefetch on blocks of
    `rows` x `width` elements of `bits` bits, `count` blocks side by side."""

    kind: str
    bits: int
    rows: int
    width: int
    count: int

    @property
    def name(self) -> str:
        op = {"read": "read", "transform": "read_transform", "transpose": "read_transpose",
              "write": "write", "prefetch": "prefetch"}[self.kind]
        return f"intel_sub_group_2d_block_{op}_{self.bits}b_{self.rows}r{self.width}x{self.count}c"

    @property
    def lane_type(self) -> str:
        """OpenCL type of one per-lane value of the destination / source array."""
        if self.kind == "transform":
            return "uint"
        if self.bits == 8 and self.width == 32:
            return "ushort"
        return _LANE_TYPE[self.bits]

    @property
    def pack(self) -> int:
        """Elements packed in one per-lane value."""
        return {"uint": 32, "ushort": 16, "uchar": 8, "ulong": 64}[self.lane_type] // self.bits

    @property
    def values_per_lane(self) -> int:
        return self.rows * self.width * self.count // (16 * self.pack)

    @property
    def builtin(self) -> Builtin:
        params = ["global void*", "int", "int", "int", "int2"]
        if self.kind != "prefetch":
            params.append(f"private {self.lane_type}*")
        return Builtin(self.name, tuple(params))

    def lane_of(self, r, c):
        """(lane, value index, part) of memory element (r, c) of the whole block (numpy arrays)."""
        blk, cc = c // self.width, c % self.width
        if self.kind == "transform":
            f = 32 // self.bits
            return cc, blk * (self.rows // f) + r // f, r % f
        if self.kind == "transpose":
            # memory rows go to the lanes; each lane holds its row
            return r, c, 0 * r
        if self.width == 8 and self.bits == 32:
            return (r % 2) * 8 + cc, blk * (self.rows // 2) + r // 2, 0 * r
        if self.pack == 2:                 # 8-bit, 32 wide: two bytes per lane and row
            return cc // 2, blk * self.rows + r, cc % 2
        return cc, blk * self.rows + r, 0 * r


def block_read(bits: int, h: int, w: int, vnni: bool, transpose: bool, dpas_a: bool = False,
               columns: bool = False) -> Block2D | None:
    """The read builtin for an h x w memory block, or None when no builtin covers it.

    `columns`: an 8-bit block only converted element-wise (sitofp: dequantized weights) is best
    read with lane = column, 32 rows as the bytes of 8 values per lane (the transform builtin,
    also the only one for 16 bytes wide): converted, each value holds the K pairs of a VNNI B
    operand in its lane (docs/quantized-gemm.md "Lowering"); the plain read puts two columns
    per lane.

    `dpas_a`: the block is only read as A operands of tf32 DPAS (K = 8). A 32-bit block 16 wide
    is then read as two 8-wide blocks side by side (`32b_<h>r8x2c`, still one message): an 8-wide
    32-bit block puts rows 2i and 2i+1 in lanes 0-7 and 8-15 of value i, exactly the A layout of
    `intel_sub_group_tf32_tf32_matrix_mad_k8` (`dpas_a_lane`), where the 16-wide read puts a
    column on each lane (one shuffle + select per A register to rearrange)."""
    if dpas_a and bits == 32 and not vnni and not transpose and w in (8, 16) and h in _ROWS and h >= 2:
        return Block2D("read", 32, h, 8, w // 8)
    if transpose:
        if bits == 32 and not vnni and (h, w) == (16, 8):
            return Block2D("transpose", 32, 16, 8, 1)
        return None
    if vnni:
        if bits == 16 and h in (16, 32) and w in (16, 32):
            return Block2D("transform", 16, h, 16, w // 16)
        if bits == 8 and h == 32 and w in (16, 32, 64):
            return Block2D("transform", 8, 32, 16, w // 16)
        return None
    if bits == 8 and h == 32 and (w == 16 or columns and w in (32, 64)):
        return Block2D("transform", 8, 32, 16, w // 16)
    if h not in _ROWS:
        return None
    if bits == 16 and w in (16, 32):
        return Block2D("read", 16, h, 16, w // 16)
    if bits == 32 and w == 16:
        return Block2D("read", 32, h, 16, 1)
    if bits == 32 and w == 8 and h >= 2:
        return Block2D("read", 32, h, 8, 1)
    if bits == 8 and w in (32, 64):
        return Block2D("read", 8, h, 32, w // 32)
    return None


@dataclass(frozen=True)
class PairTranspose:
    """A 16-bit block of `rows` x `width` memory elements read transposed as 32-bit pairs: one
    `transpose_32b_16r8x1c` read (`piece`) per 16 rows and 16 columns (at column / 2: a 32-bit
    element column), each putting memory row r on lane r and its 16-bit elements, two per 32-bit
    value, in order. That is the register image of a 16-bit DPAS A operand read from a transposed A
    (lane k holds row k of A^T: A[0..7][k]) and of a VNNI B operand read from a transposed B (lane n
    holds row n of B^T: K pairs packed), which a plain read gives with one lane per memory column (a
    shuffle per element to move). The hardware transposes only 32/64-bit elements, so the column
    offset must be even. `vnni`: the values feed VNNI operands, which repack the same pairs (the
    words are split by shift / truncate, which IGC folds with the repacking); else each word is split
    by a bitcast to two 16-bit values (IGC: register regions, no shifts).

    `bits` 8: an 8-bit block (N x K integer weights only converted after the transpose) read the same way,
    four bytes per 32-bit value (32 columns per piece, the column offset a multiple of 4): memory row n on
    lane n with four consecutive K values per value, the register image of the 8-bit transform read of
    the K x N weights (docs/quantized-gemm.md "N x K weights"); the words are split by shift / truncate."""

    rows: int
    width: int
    vnni: bool = False
    bits: int = 16
    piece = Block2D("transpose", 32, 16, 8, 1)
    lane_type = "uint"

    @property
    def pack(self) -> int:
        return 32 // self.bits

    @property
    def piece_cols(self) -> int:
        """Memory columns one piece reads (8 32-bit values per lane)."""
        return 8 * self.pack

    @property
    def col_pieces(self) -> int:
        return -(-self.width // self.piece_cols)

    def pieces(self):
        """[(row offset, column offset, first value)] of the reads."""
        n, pc = self.piece.values_per_lane, self.piece_cols
        return [(16 * i, pc * j, (i * self.col_pieces + j) * n)
                for i in range(self.rows // 16) for j in range(self.col_pieces)]

    @property
    def values_per_lane(self) -> int:
        return len(self.pieces()) * self.piece.values_per_lane

    def lane_of(self, r, c):
        """(lane, value index, part) of memory element (r, c) of the block (numpy arrays)."""
        n, pc, f = self.piece.values_per_lane, self.piece_cols, self.pack
        return r % 16, ((r // 16) * self.col_pieces + c // pc) * n + (c % pc) // f, c % f


def pair_transpose(bits: int, h: int, w: int, vnni: bool) -> PairTranspose | None:
    """The transposed read of a 16-bit h x w block as 32-bit pairs, or None when it does not fit
    (h a multiple of 16 up to 32; w even up to 16, or 32); of an 8-bit one as 32-bit quads (w a multiple
    of 4 up to 32, or 64; a narrower block reads a whole piece and uses its first w columns)."""
    if bits == 16 and h in (16, 32) and (w in (2, 4, 6, 8, 10, 12, 14, 16) or w == 32):
        return PairTranspose(h, w, vnni)
    if bits == 8 and h in (16, 32) and (w in (4, 8, 12, 16, 20, 24, 28, 32) or w == 64):
        return PairTranspose(h, w, vnni, 8)
    return None


def block_write(bits: int, h: int, w: int) -> Block2D | None:
    """The write builtin for an h x w block, or None: the builtins write 16 columns (and have no
    block count), so a wider block whose width is a multiple of 16 is written by w / 16 calls of it
    side by side (a 16-bit 8 x 32 C tile: two 8 x 16 writes, as upstream's route stores it; before,
    such a tile was 16 per-lane stores per lane)."""
    if h in (1, 2, 4, 8) and w % 16 == 0 and 0 < w <= 64 and bits in (16, 32):
        return Block2D("write", bits, h, 16, 1)
    return None


def block_prefetch(bits: int, h: int, w: int) -> list[tuple[int, Block2D]]:
    """Prefetch builtins covering an h x w block: [(column offset, builtin)], [] when none."""
    if h not in _ROWS:
        return []
    unit = {8: 32, 16: 16, 32: 16, 64: 8}.get(bits)
    if unit is None or w % unit:
        return []
    out, c = [], 0
    while c < w:
        n = 2 if (w - c) >= 2 * unit and bits in (8, 16) else 1
        out.append((c, Block2D("prefetch", bits, h, unit, n)))
        c += n * unit
    return out
