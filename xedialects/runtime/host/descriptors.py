"""Memref descriptors in the JIT's memory as zero-copy numpy views.

A ranked descriptor is `{T* allocated, T* aligned, i64 offset, i64 sizes[rank], i64 strides[rank]}`;
an unranked one `{i64 rank, void* ranked_descriptor}`. The arrays returned here alias the JIT's
memory: writes through them are seen by the compiled host code.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np


@dataclass
class Strided:
    """A memref in the JIT's memory: `flat` is every element from the aligned pointer to the last
    element the view reaches; the view is (offset, sizes, strides) in elements of `flat`."""
    flat: np.ndarray
    offset: int
    sizes: tuple
    strides: tuple
    aligned: int            # the aligned pointer
    allocated: int = 0      # the allocated pointer (identifies the allocation)

    def array(self) -> np.ndarray:
        """The view as an N-d numpy array (aliasing the JIT's memory)."""
        item = self.flat.itemsize
        if not self.sizes:
            return self.flat[self.offset:self.offset + 1].reshape(())
        if any(s == 0 for s in self.sizes):
            return np.zeros(self.sizes, self.flat.dtype)
        return np.lib.stride_tricks.as_strided(self.flat[self.offset:], shape=self.sizes,
                                               strides=tuple(s * item for s in self.strides))

    def span(self) -> tuple[int, int]:
        """(address of the first element the view reaches, bytes up to its last element); 0 bytes
        for an empty view."""
        head = self.offset * self.flat.itemsize
        return self.aligned + head, max(0, self.flat.nbytes - head)

    def elements(self) -> np.ndarray:
        """The view's elements in row-major order (a copy when not contiguous)."""
        return np.ascontiguousarray(self.array()).reshape(-1)


def _storage_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.uint8) if dtype == np.bool_ else dtype


def ranked(address: int, rank: int, dtype) -> Strided:
    """The ranked descriptor at `address` (of a memref of `rank` and element `dtype`)."""
    dtype = np.dtype(dtype)
    words = (ctypes.c_int64 * (3 + 2 * rank)).from_address(address)
    allocated, aligned, offset = int(words[0]) & (2 ** 64 - 1), int(words[1]) & (2 ** 64 - 1), int(words[2])
    sizes = tuple(int(x) for x in words[3:3 + rank])
    strides = tuple(int(x) for x in words[3 + rank:3 + 2 * rank])
    extent = 0 if any(s == 0 for s in sizes) else offset + 1 + sum((n - 1) * abs(s) for n, s in zip(sizes, strides))
    if any(s < 0 for s in strides):
        raise ValueError("memrefs with negative strides are not supported")
    if extent and not aligned:
        raise ValueError("memref with a null data pointer")
    nbytes = extent * dtype.itemsize
    raw = np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(aligned)) if nbytes else np.zeros(0, np.uint8)
    flat = raw.view(_storage_dtype(dtype))
    if dtype == np.bool_:
        flat = flat.view(np.bool_)
    return Strided(flat, offset, sizes, strides, aligned, allocated)


def unranked(address: int, dtype) -> Strided:
    """The unranked descriptor `{rank, ranked*}` at `address`."""
    head = (ctypes.c_int64 * 2).from_address(address)
    return ranked(int(head[1]) & (2 ** 64 - 1), int(head[0]), dtype)
