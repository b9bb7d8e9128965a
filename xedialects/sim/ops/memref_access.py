"""Checked element access to memory, shared by the memref, vector, gpu, xetile and xegpu handlers:
activity-aware error reporting (`check_active`), linear indices of memref accesses with bounds
checks (`memref_linear`, `check_region`), masked writes, whole-view copies and atomic
read-modify-write with duplicate addresses (`atomic_apply`).
"""
from __future__ import annotations

import numpy as np

from ..core import ExecState, SimError
from ..memory import MemRef
from ..typeinfo import BF16
from .elements import as_unsigned


def check_active(st: ExecState, bad: np.ndarray, make_msg):
    """Raise SimError if `bad` (leading batch axis) is set for an active batch element."""
    if not bad.any():
        return
    b2 = bad.reshape(bad.shape[0], -1).any(axis=1)
    m = st.mask
    if m is not None:
        if b2.shape[0] == 1:
            b2 = np.broadcast_to(b2, m.shape)
        b2 = b2 & m
    idx = np.nonzero(b2)[0]
    if idx.size:
        b = int(idx[0])
        raise SimError(make_msg(b) + (f" (in {st.where_desc(b)})" if st.level != "host" else ""))


def memref_linear(st: ExecState, m: MemRef, idxs: list, what: str, vec_shape: tuple = ()) -> np.ndarray:
    """Linear element indices of memref element accesses; raises on out-of-bounds (not clipped).
    With vec_shape, the last len(vec_shape) dims are swept by that block."""
    rank = m.rank
    if len(idxs) != rank:
        raise SimError(f"{what}: {len(idxs)} indices for a rank-{rank} memref")
    k = len(vec_shape)
    extra = (1,) * k
    lin = m.offset.reshape((-1,) + extra)
    bad = None
    for d, ix in enumerate(idxs):
        ix = np.asarray(ix, np.int64).reshape((-1,) + extra)
        sz = m.sizes[:, d].reshape((-1,) + extra)
        if d >= rank - k:
            j = d - (rank - k)
            ar = np.arange(vec_shape[j], dtype=np.int64).reshape((1,) + (1,) * j + (-1,) + (1,) * (k - j - 1))
            ix = ix + ar
        b = (ix < 0) | (ix >= sz)
        bad = b if bad is None else (bad | b)
        lin = lin + ix * m.strides[:, d].reshape((-1,) + extra)
    if bad is not None and bad.any():
        def msg(b):
            bb = bad if bad.shape[0] > 1 else bad
            sel = bb[b if bb.shape[0] > 1 else 0]
            pos = np.argwhere(sel)
            ix_desc = [int(np.asarray(i).reshape(-1)[b if np.asarray(i).shape[0] > 1 else 0]) for i in idxs]
            return (f"{what}: out-of-bounds access at index {ix_desc}"
                    f"{' + block offset ' + str(tuple(pos[0])) if k and pos.size else ''} of "
                    f"memref with sizes {[int(x) for x in m.sizes[b if m.sizes.shape[0] > 1 else 0]]}")

        check_active(st, bad, msg)
        lin = np.where(bad, m.lo.reshape((-1,) + extra), lin)
    # allocation bounds (views built by reinterpret_cast etc. may exceed the allocation)
    return lin


def check_region(st: ExecState, m_lo, m_hi, lin, what, valid=None):
    bad = (lin < m_lo.reshape((-1,) + (1,) * (lin.ndim - 1))) | (lin >= m_hi.reshape((-1,) + (1,) * (lin.ndim - 1)))
    if valid is not None:
        bad &= valid
    if bad.any():
        check_active(st, bad, lambda b: f"{what}: access outside the allocated buffer")
        return True
    return False


def masked_write(st, data, lin, val):
    m = st.mask
    if m is None:
        if val.shape != lin.shape:
            val = np.broadcast_to(val, np.broadcast_shapes(val.shape, lin.shape))
            lin = np.broadcast_to(lin, val.shape)
        data[lin] = val
        return
    shape = np.broadcast_shapes(lin.shape, val.shape, (m.shape[0],) + (1,) * (lin.ndim - 1))
    lin = np.broadcast_to(lin, shape)
    val = np.broadcast_to(val, shape)
    mm = np.broadcast_to(m.reshape((-1,) + (1,) * (len(shape) - 1)), shape)
    data[lin[mm]] = val[mm]


def copy_view(st: ExecState, dst: MemRef, src: MemRef, what: str):
    a = src.uniform_static()
    b = dst.uniform_static()
    if a is None or b is None or st.mask is not None:
        raise SimError(f"{what}: only uniform copies are supported")
    if a[1] != b[1]:
        raise SimError(f"{what}: shape mismatch {a[1]} vs {b[1]}")
    shape = a[1]
    zero = [np.zeros(1, np.int64)] * len(shape)
    ls = memref_linear(st, src, zero, what, shape)
    ld = memref_linear(st, dst, zero, what, shape)
    check_region(st, src.lo, src.hi, ls, what)
    check_region(st, dst.lo, dst.hi, ld, what)
    dst.data[ld] = src.data[ls].astype(dst.dtype, copy=False)


_ATOMIC = {
    "addf": np.add, "addi": np.add, "mulf": np.multiply, "muli": np.multiply, "maximumf": np.maximum,
    "minimumf": np.minimum, "maxnumf": np.fmax, "minnumf": np.fmin, "maxs": np.maximum, "mins": np.minimum,
    "maxu": np.maximum, "minu": np.minimum, "ori": np.bitwise_or, "andi": np.bitwise_and,
    "xori": np.bitwise_xor, "assign": None,
}


def atomic_apply(data: np.ndarray, lin: np.ndarray, val: np.ndarray, kind: str):
    """Apply an atomic RMW element by element in the order of `lin` (flattened: work-group, subgroup,
    lane); returns the old value each element saw. Elements at distinct addresses go together: round r
    takes every address's r-th occurrence, so an address used n times costs n vectorized rounds."""
    flat = np.asarray(lin).reshape(-1)
    order = np.argsort(flat, kind="stable")
    srt = flat[order]
    first = np.ones(len(srt), bool)
    first[1:] = srt[1:] != srt[:-1]
    starts = np.maximum.accumulate(np.where(first, np.arange(len(srt)), 0))
    rank = np.empty(len(srt), np.int64)
    rank[order] = np.arange(len(srt)) - starts
    vals = np.broadcast_to(val, np.shape(lin)).reshape(-1)
    if len(rank) == 0 or rank.max() == 0:
        return _atomic_round(data, flat, vals, kind).reshape(np.shape(lin))
    old = np.empty(len(flat), data.dtype)
    for r in range(int(rank.max()) + 1):
        sel = rank == r
        old[sel] = _atomic_round(data, flat[sel], vals[sel], kind)
    return old.reshape(np.shape(lin))


def _atomic_round(data: np.ndarray, lin: np.ndarray, val: np.ndarray, kind: str):
    """One atomic RMW at distinct addresses `lin` (f16 / bf16 computed in f32, rounded once); the old values."""
    old = data[lin].copy()
    if kind == "assign":
        data[lin] = val
        return old
    fn = _ATOMIC.get(kind)
    if fn is None:
        raise SimError(f"unsupported atomic kind '{kind}'")
    if kind in ("maxu", "minu") and data.dtype.kind == "i":
        u = data.view(np.dtype(f"u{data.dtype.itemsize}"))
        u[lin] = fn(u[lin], as_unsigned(val))
    elif data.dtype == BF16 or data.dtype == np.float16:
        data[lin] = fn(old.astype(np.float32), val.astype(np.float32)).astype(data.dtype)
    else:
        data[lin] = fn(old, val.astype(data.dtype))
    return old
