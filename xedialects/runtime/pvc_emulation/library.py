"""The emulation library's OpenCL C source: `block_io.cl`, `dpas.cl`, `bf16.cl` and `exp2.cl` (shipped
in this package; bf16.cl defines the f32 -> bf16 builtin, exp2.cl the f32 exp2) plus one definition per
2D block / DPAS builtin the pvc target can import, enumerated from the lowering's own table
(`lowering.xegpu_to_spirv.spirv_builtins`), so the library provides exactly those. The
hardware limits the 2D block functions check come from the architecture table (`options(arch)`,
pvc or bmg: the binary's metadata names it) as -D options. Also: the builtins a SPIR-V binary imports, and the text of a recorded violation.
"""
from __future__ import annotations

import functools
import struct
from pathlib import Path

from ...lowering.xegpu_to_spirv import spirv_builtins as bi

HERE = Path(__file__).parent
SOURCES = ("block_io.cl", "dpas.cl", "bf16.cl", "exp2.cl")
ERROR_KERNEL = "xe_emu_take_error"
ERROR_WORDS = 8

_KIND = {"read": "XE_PLAIN", "transform": "XE_TRANSFORM", "transpose": "XE_TRANSPOSE"}


def block_builtins() -> list[bi.Block2D]:
    """Every 2D block builtin `spirv_builtins` can choose (reads of each form, writes, prefetches)."""
    out = {}
    for bits in (8, 16, 32, 64):
        for h in (1, 2, 4, 8, 16, 32):
            for w in (8, 16, 32, 64, 128):
                for vnni in (False, True):
                    for tr in (False, True):
                        for dpas_a in (False, True):
                            b = bi.block_read(bits, h, w, vnni, tr, dpas_a)
                            if b is not None:
                                out[b.name] = b
                b = bi.block_write(bits, h, w)
                if b is not None:
                    out[b.name] = b
                for _, b in bi.block_prefetch(bits, h, w):
                    out[b.name] = b
    return sorted(out.values(), key=lambda b: b.name)


def dpas_builtins() -> list[bi.DpasBuiltin]:
    out = {}
    combos = [("bf16", "bf16"), ("f16", "f16"), ("tf32", "tf32")] + [
        (a, b) for a in ("i8", "u8") for b in ("i8", "u8")]
    for ea, eb in combos:
        ec = "i32" if ea in ("i8", "u8") else "f32"
        for m in (1, 2, 4, 8):
            d = bi.dpas_builtin(ea, eb, ec, m)
            if d is not None:
                out[d.builtin.mangled] = d
    return [out[k] for k in sorted(out)]


@functools.lru_cache(maxsize=None)
def builtin_names() -> tuple[str, ...]:
    """OpenCL names of the 2D block builtins by id (the id an error record carries)."""
    return tuple(b.name for b in block_builtins())


@functools.lru_cache(maxsize=None)
def mangled_names() -> frozenset:
    """The Itanium-mangled names the library defines."""
    return frozenset([b.builtin.mangled for b in block_builtins()] + [d.builtin.mangled for d in dpas_builtins()]
                     + [bi.BF16_CONVERT.mangled, bi.EXP2.mangled])


def _block_line(i: int, b: bi.Block2D) -> str:
    eb = b.bits // 8
    if b.kind == "write":
        return f"XE_BLOCK_WRITE({i}, {b.name}, {b.lane_type}, {eb}, {b.rows}, {b.width})"
    if b.kind == "prefetch":
        return f"XE_BLOCK_PREFETCH({i}, {b.name})"
    return f"XE_BLOCK_READ({i}, {b.name}, {b.lane_type}, {_KIND[b.kind]}, {eb}, {b.rows}, {b.width}, {b.count})"


def _dpas_line(d: bi.DpasBuiltin) -> str:
    name = d.builtin.name
    if "tf32" in name:
        return f"XE_DPAS_TF32({name}, {d.m}, {d.a_type}, {d.c_type})"
    if "bf16" in name or "f16" in name:
        cvt = "xe_emu_bf16" if "bf16" in name else "xe_emu_f16"
        return f"XE_DPAS_F16({name}, {d.m}, {d.a_type}, {d.c_type}, {cvt})"
    ta, tb = name.split("_")[3:5]
    return (f"XE_DPAS_I8({name}, {d.m}, {d.a_type}, {d.b_type}, {d.c_type}, {int(ta == 'i8')}, "
            f"{int(tb == 'i8')})")


@functools.lru_cache(maxsize=None)
def source() -> str:
    """The whole library: the .cl files, then one macro instance per builtin."""
    parts = [(HERE / f).read_text(encoding="utf-8") for f in SOURCES]
    parts.append("// ---- one definition per builtin of spirv_builtins")
    parts += [_block_line(i, b) for i, b in enumerate(block_builtins())]
    parts += [_dpas_line(d) for d in dpas_builtins()]
    return "\n".join(parts) + "\n"


def options(arch: str = "pvc") -> str:
    """Compiler options: OpenCL C 3.0 (program-scope globals) and the surface limits of `arch`."""
    from ...arch import get_arch

    s = get_arch(arch).surface
    defs = {"XE_BASE_ALIGN": s.base_align, "XE_MIN_WIDTH": s.min_width_bytes, "XE_WIDTH_ALIGN": s.width_align,
            "XE_MAX_WIDTH": s.max_width_bytes, "XE_MIN_PITCH": s.min_pitch_bytes, "XE_PITCH_ALIGN": s.pitch_align,
            "XE_MAX_PITCH": s.max_pitch_bytes, "XE_MAX_HEIGHT": s.max_height}
    return "-cl-std=CL3.0 " + " ".join(f"-D{k}={v}L" for k, v in defs.items())


# ----------------------------------------------------------------------------------------------
# the binary's imports

_OP_DECORATE, _DEC_LINKAGE, _IMPORT = 71, 41, 1


def imported_functions(binary: bytes) -> list[str]:
    """Linkage names the SPIR-V module imports (OpDecorate ... LinkageAttributes "name" Import)."""
    n = len(binary) // 4
    words = struct.unpack(f"<{n}I", binary[:4 * n])
    out, i = [], 5
    while i < n:
        count, op = words[i] >> 16, words[i] & 0xFFFF
        if count == 0:
            break
        if op == _OP_DECORATE and count >= 4 and words[i + 2] == _DEC_LINKAGE and words[i + count - 1] == _IMPORT:
            raw = struct.pack(f"<{count - 4}I", *words[i + 3:i + count - 1])
            out.append(raw.split(b"\0", 1)[0].decode("utf-8", "replace"))
        i += count
    return out


# ----------------------------------------------------------------------------------------------
# error records

RULES = {
    1: "the surface base address {v:#x} is not {arch.base_align}-byte aligned",
    2: "the surface width {v} bytes is below the minimum {arch.min_width_bytes}",
    3: "the surface width {v} bytes is not a multiple of {arch.width_align}",
    4: "the surface width {v} bytes exceeds {arch.max_width_bytes}",
    5: "the surface pitch {v} bytes is below the minimum {arch.min_pitch_bytes}",
    6: "the surface pitch {v} bytes is not a multiple of {arch.pitch_align}",
    7: "the surface pitch {v} bytes exceeds {arch.max_pitch_bytes}",
    8: "the surface pitch {v} bytes is smaller than its width",
    9: "the surface height {v} rows is outside 1..{arch.max_height}",
}


def describe_error(words, arch: str = "pvc") -> str | None:
    """Text of an error record (None when it holds no error)."""
    from ...arch import get_arch

    w = [int(x) for x in words]
    if w[0] == 0:
        return None
    names = builtin_names()
    ident = w[0] - 1
    name = names[ident] if 0 <= ident < len(names) else f"builtin #{ident}"
    value = (w[2] & 0xFFFFFFFF) | (w[3] << 32)
    hw = get_arch(arch)
    rule = RULES.get(w[1], "rule {r}").format(v=value, arch=hw.surface, r=w[1])
    return (f"{name}: {rule} (work-group ({w[4]}, {w[5]}, {w[6]}), lane {w[7]}); a {hw.name.upper()} GPU would "
            "not run this 2D block message")
