"""Read the symbols of an IGC device binary (a ZE binary: a 64-bit little-endian ELF file).

`undefined_symbols(binary)` lists the functions the binary imports and nobody defines: a driver
cannot load such a binary. IGC's own relocations that the runtime patches (`__INTEL_PATCH_*`) are
not imports.
"""
from __future__ import annotations

import struct

RUNTIME_PATCHED = ("__INTEL_PATCH_",)


class ZebinError(ValueError):
    """Not a 64-bit little-endian ELF file, or a truncated one."""


def _sections(data: bytes):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ZebinError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    out = []
    for i in range(shnum):
        off = shoff + i * shentsize
        if off + 64 > len(data):
            raise ZebinError("truncated section table")
        name, typ, _flags, _addr, offset, size, link, _info, _align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, off)
        out.append((typ, offset, size, link, entsize))
    return out


def symbols(data: bytes) -> list[tuple[str, str, bool]]:
    """(name, binding, defined) of every named symbol in the binary's symbol tables."""
    secs = _sections(data)
    out = []
    for typ, offset, size, link, entsize in secs:
        if typ != 2 or not entsize:      # SHT_SYMTAB
            continue
        str_off = secs[link][1]
        for k in range(size // entsize):
            st_name, st_info, _other, st_shndx, _value, _size = struct.unpack_from("<IBBHQQ", data, offset + k * entsize)
            if not st_name:
                continue
            end = data.index(b"\0", str_off + st_name)
            name = data[str_off + st_name:end].decode("utf-8", "replace")
            bind = {0: "local", 1: "global", 2: "weak"}.get(st_info >> 4, str(st_info >> 4))
            out.append((name, bind, st_shndx != 0))
    return out


def undefined_symbols(data: bytes) -> list[str]:
    """Names the binary needs from elsewhere (global, undefined), less the runtime-patched ones."""
    return sorted({n for n, bind, defined in symbols(data)
                   if not defined and bind != "local" and not n.startswith(RUNTIME_PATCHED)})
