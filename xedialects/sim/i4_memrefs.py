"""i4 memrefs packed two per byte, the even element in the low nibble: upstream MLIR's layout (its
narrow-type emulation, `mlir/test/Dialect/MemRef/emulate-narrow-type.mlir`: element i is byte i floordiv 2
shifted right by (i mod 2) x 4), which the kernels of a fused W4A16 GEMM read. Arrays outside the kernels
(xe-run, npz, `simulate`'s arguments, the CPU reference and the LLVM host, sub_byte_memrefs.py) hold one value
per int8; the simulator's host packs at the kernel boundary (docs/quantized-gemm.md "i4 weights")."""
from __future__ import annotations

import numpy as np


def pack_i4(values) -> np.ndarray:
    """int8 values in [-8, 7], row-major, an even count -> the packed bytes (int8, half as many)."""
    flat = np.ascontiguousarray(values, dtype=np.int8).reshape(-1)
    if flat.size % 2:
        raise ValueError(f"an i4 array of {flat.size} elements does not fill whole bytes")
    nib = flat.view(np.uint8) & 0xF
    return (nib[0::2] | (nib[1::2] << 4)).view(np.int8)


def unpack_i4(packed, shape) -> np.ndarray:
    """The inverse of pack_i4: the values (sign-extended nibbles) as int8 of `shape`."""
    b = np.ascontiguousarray(packed).reshape(-1).view(np.uint8)
    out = np.empty(b.size * 2, np.uint8)
    out[0::2], out[1::2] = b & 0xF, b >> 4
    vals = out.view(np.int8)
    return np.where(vals > 7, vals - 16, vals).astype(np.int8).reshape(shape)


def check_range(values, what: str) -> None:
    """ValueError when an i4 array holds values outside [-8, 7] or is not an integer array (a float array
    would be truncated and a NaN become some value)."""
    v = np.asarray(values)
    if v.dtype.kind not in "iub":
        raise ValueError(f"{what}: i4 values must be integers, got a {v.dtype} array")
    if v.size and (v.min() < -8 or v.max() > 7):
        raise ValueError(f"{what}: i4 values must lie in [-8, 7], got {int(v.min())}..{int(v.max())}")
