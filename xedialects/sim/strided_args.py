"""Memref arguments laid out as their type says, for the simulator and the CPU reference.

xe-run's arrays hold a memref argument's logical elements (`A[i, j]`), whatever its layout. Code
compiled for a memref type with static strides (upstream's CPU code, our kernels) addresses it with
those strides and offset, so an argument of type `memref<64x64xf32, strided<[1, 64]>>` (column-major)
or with an offset gets a buffer of its own with the elements placed where the type says, and a
descriptor (a simulator view) with the type's strides and offset. Row-major contiguous layouts at
offset 0 and dynamic strides keep the plain C-order array.

    layout = static_layout(type_info, shape)          # (strides, offset, buffer size) or None
    logical, base, offset = laid_out(array, type_info)  # CPU reference: views of one new buffer
"""
from __future__ import annotations

import numpy as np

from .typeinfo import DYN


def static_layout(t, shape):
    """(element strides, offset, elements of the buffer) of memref type `t` (a TypeInfo) for `shape`
    when its layout is static, non-negative and not the row-major contiguous one at offset 0; else None."""
    strides, offset = t.layout_strides, t.layout_offset or 0
    if (strides is None or len(strides) != len(shape) or DYN in strides or offset == DYN
            or any(s < 0 for s in strides) or offset < 0 or 0 in shape):
        return None
    row_major = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    if offset == 0 and all(s == r for s, r, d in zip(strides, row_major, shape) if d > 1):
        return None
    size = offset + sum((d - 1) * s for d, s in zip(shape, strides)) + 1
    return tuple(int(s) for s in strides), int(offset), int(size)


def logical_view(buf: np.ndarray, shape, strides, offset: int) -> np.ndarray:
    """The elements of 1D `buf` a memref of `shape`, element `strides` and `offset` addresses."""
    item = buf.dtype.itemsize
    return np.lib.stride_tricks.as_strided(buf[offset:], tuple(shape), tuple(s * item for s in strides))


def laid_out(arr: np.ndarray, t):
    """(logical view, base view for the descriptor, descriptor offset) of C-order copy `arr` as memref
    type `t` lays it out (`arr` itself, twice, and 0 when the layout is the plain one)."""
    layout = static_layout(t, arr.shape)
    if layout is None:
        return arr, arr, 0
    strides, offset, size = layout
    buf = np.zeros(size, dtype=arr.dtype)
    logical = logical_view(buf, arr.shape, strides, offset)
    logical[...] = arr
    return logical, logical_view(buf, arr.shape, strides, 0), offset
