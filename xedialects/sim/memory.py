"""Simulator memory: buffers owned by the simulator and strided memref views onto them.

A `Buffer` is one flat numpy array. Global buffers are shared by everybody; shared local memory
(SLM, memref address space 3) and private allocations made inside a kernel hold one region per
work-group (resp. per batch element), and views address their own region through a per-batch offset.
A `MemRef` value is a view (buffer, per-batch offset, sizes, strides) whose leading axis is 1
(uniform) or the batch size. Buffers also get a fake 64-bit base address so the `i64` address forms
of init_tile / create_nd_tdesc / create_tdesc can be decoded back to a buffer.
"""
from __future__ import annotations

import numpy as np

ADDR_SHIFT = 40
ADDR_MASK = (1 << ADDR_SHIFT) - 1


class Buffer:
    __slots__ = ("id", "data", "dtype", "name", "space", "region", "base_addr", "_views", "freed")

    def __init__(self, bid: int, data: np.ndarray, name: str, space: str = "global", region: int | None = None):
        self.id = bid
        self.data = data  # 1-D
        self.dtype = data.dtype
        self.name = name
        self.space = space  # global | slm | private
        self.region = int(region if region is not None else data.size)
        self.base_addr = (bid + 1) << ADDR_SHIFT
        self._views = {}
        self.freed = False

    @property
    def nbytes(self) -> int:
        return self.data.nbytes

    def view_as(self, dtype: np.dtype) -> np.ndarray:
        """The flat data reinterpreted with another element type (same bytes)."""
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self.data
        v = self._views.get(dtype)
        if v is None:
            if self.data.nbytes % dtype.itemsize:
                raise ValueError(f"buffer {self.name} of {self.data.nbytes} bytes cannot be viewed as {dtype}")
            v = self.data.view(dtype)
            self._views[dtype] = v
        return v

    def __repr__(self):
        return f"Buffer({self.name}, {self.space}, {self.dtype}, {self.data.size})"


class MemRef:
    """A strided view. offset: (nb,), sizes/strides: (nb, rank) int64; lo/hi: (nb,) valid element
    range of the underlying allocation (the work-group's region for SLM)."""

    __slots__ = ("buf", "offset", "sizes", "strides", "lo", "hi", "dtype")

    def __init__(self, buf: Buffer, offset, sizes, strides, lo, hi, dtype=None):
        self.buf = buf
        self.offset = offset
        self.sizes = sizes
        self.strides = strides
        self.lo = lo
        self.hi = hi
        self.dtype = np.dtype(dtype) if dtype is not None else buf.dtype

    @property
    def rank(self) -> int:
        return self.sizes.shape[1]

    @property
    def nb(self) -> int:
        return max(self.offset.shape[0], self.sizes.shape[0], self.strides.shape[0], self.lo.shape[0])

    @property
    def data(self) -> np.ndarray:
        return self.buf.view_as(self.dtype)

    def with_(self, **kw) -> "MemRef":
        m = MemRef(self.buf, self.offset, self.sizes, self.strides, self.lo, self.hi, self.dtype)
        for k, v in kw.items():
            setattr(m, k, v)
        return m

    def select(self, mask, other: "MemRef") -> "MemRef":
        if other.buf is not self.buf:
            raise SelectError("memref values from different buffers selected per subgroup")
        return MemRef(
            self.buf,
            _sel(mask, self.offset, other.offset),
            _sel(mask[:, None], self.sizes, other.sizes),
            _sel(mask[:, None], self.strides, other.strides),
            _sel(mask, self.lo, other.lo),
            _sel(mask, self.hi, other.hi),
            self.dtype,
        )

    def uniform_static(self):
        """(offset, sizes, strides) as Python ints when uniform across the batch, else None."""
        if self.nb != 1:
            o, s, t = self.offset, self.sizes, self.strides
            if not ((o == o[0]).all() and (s == s[0]).all() and (t == t[0]).all()):
                return None
        return int(self.offset[0]), tuple(int(x) for x in self.sizes[0]), tuple(int(x) for x in self.strides[0])

    def to_numpy(self, b: int = 0) -> np.ndarray:
        """The view of batch element b as an (owned) numpy array."""
        i = lambda a: a[b] if a.shape[0] > 1 else a[0]
        off, sizes, strides = int(i(self.offset)), i(self.sizes), i(self.strides)
        idx = np.full(tuple(int(s) for s in sizes), off, dtype=np.int64)
        for d, (n, st) in enumerate(zip(sizes, strides)):
            shp = [1] * len(sizes)
            shp[d] = int(n)
            idx = idx + (np.arange(int(n), dtype=np.int64) * int(st)).reshape(shp)
        return self.data[idx]

    def __repr__(self):
        return f"MemRef({self.buf.name}, off={self.offset[:4]}, sizes={self.sizes[:1]}, strides={self.strides[:1]})"


class SelectError(Exception):
    pass


def _sel(mask, a, b):
    if a is b:
        return a
    if a.shape == b.shape and a.shape[0] == 1 and (a == b).all():
        return a
    return np.where(mask, a, b)


def row_major_strides(shape) -> tuple:
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= int(d)
    return tuple(reversed(strides))


class Memory:
    """All buffers of one simulation; decodes fake addresses."""

    def __init__(self):
        self.buffers: list[Buffer] = []

    def new(self, data: np.ndarray, name: str, space: str = "global", region: int | None = None) -> Buffer:
        b = Buffer(len(self.buffers), np.ascontiguousarray(data).reshape(-1), name, space, region)
        self.buffers.append(b)
        return b

    def full_view(self, buf: Buffer, shape, nb: int = 1, region_index=None) -> MemRef:
        """A row-major view of `shape` at the start of `buf` (per-batch region if region_index given)."""
        rank = len(shape)
        sizes = np.array([list(shape)], dtype=np.int64).reshape(1, rank)
        strides = np.array([list(row_major_strides(shape))], dtype=np.int64).reshape(1, rank)
        if region_index is None:
            off = np.zeros(1, np.int64)
            lo = np.zeros(1, np.int64)
            hi = np.array([buf.data.size], np.int64)
        else:
            off = np.asarray(region_index, np.int64) * buf.region
            lo = off
            hi = off + buf.region
        return MemRef(buf, off, sizes, strides, lo, hi)

    def decode(self, addr: np.ndarray):
        """(buffer, byte offsets) of fake addresses; all addresses must hit the same buffer."""
        addr = np.asarray(addr, dtype=np.int64)
        ids = (addr >> ADDR_SHIFT) - 1
        bid = int(ids.reshape(-1)[0])
        if not (ids == bid).all() or bid < 0 or bid >= len(self.buffers):
            return None, None
        return self.buffers[bid], addr & ADDR_MASK
