"""The simulator's numeric model of matrix multiply-accumulate: `xegpu.dpas`, `xetile.tile_mma` and
`vector.contract` all compute through `multiply_accumulate` here, so one model decides the bits.

Model (docs/numerics.md): inputs are converted exactly (16-bit floats, tf32-rounded f32, ints);
every product is exact; the products of one instruction's K-chunk are summed exactly where float64
can hold every partial sum (checked from the operands' exponent ranges) and otherwise in a fixed
k order in float64; the accumulator is added once in float64 and the result rounded once to the
result type. No BLAS kernel, thread count or core type can change a result bit.
"""
from __future__ import annotations

import threading
from typing import Callable

import numpy as np

from .typeinfo import BF16

# explicit mantissa bits of the formats an operand can hold (tf32 is held in f32 storage)
_MANTISSA_BITS = {"bf16": 7, "f16": 10, "tf32": 10, "f32": 23, "f64": 52}
_BITS_VIEW = {2: np.uint16, 4: np.uint32, 8: np.uint64}
_F64_BITS = 53
_LOCAL = threading.local()  # per thread: scratch arrays and recently prepared operands
_SCRATCH_MAX_BYTES = 64 << 20
_RECENT_OPERANDS = 16


def round_tf32(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to tf32 (10 explicit mantissa bits, round to nearest even), kept in f32."""
    x = np.ascontiguousarray(x, np.float32)
    u = x.view(np.uint32)
    lsb = (u >> np.uint32(13)) & np.uint32(1)
    u = (u + np.uint32(0x0FFF) + lsb) & np.uint32(0xFFFFE000)
    return u.view(np.float32)


def elem_name_of(dtype: np.dtype) -> str:
    """The element name the model uses for a numpy dtype (bf16, f16, f32, f64 or an int)."""
    dtype = np.dtype(dtype)
    if dtype == BF16:
        return "bf16"
    if dtype.kind == "f":
        return f"f{dtype.itemsize * 8}"
    return dtype.name


class Operand:
    """One multiplier input as the model sees it: `values` exactly in float64 (int64 for
    integers), its element name, and per leading-axis entry the biased exponents of the largest
    and of the smallest non-zero magnitude, per matrix of a batch (`finite` False if any value is
    inf or NaN)."""

    __slots__ = ("values", "elem", "hi", "lo", "finite")

    def __init__(self, values, elem, hi=None, lo=None, finite=True):
        self.values, self.elem, self.hi, self.lo, self.finite = values, elem, hi, lo, finite

    @property
    def exact_width(self) -> bool:
        return self.elem in _MANTISSA_BITS and self.values.dtype.kind == "f"


def operand(value: np.ndarray, elem: str, *, dpas: bool = False,
            view: tuple[Callable[[np.ndarray], np.ndarray], tuple] | None = None,
            remember: bool = False) -> Operand:
    """Prepare `value` for `multiply_accumulate`.

    f32 DPAS operands and tf32 operands are rounded to tf32. `view = (fn, key)` reshapes the value
    first (e.g. VNNI to a plain matrix); `key` names that reshaping. With `remember` (for SSA
    values, which are never modified in place) the most recent operands are kept by the identity
    of `value`, so a block that feeds several DPAS is converted and range-checked once."""
    cache = _LOCAL.__dict__.setdefault("operands", {})
    key = (id(value), elem, dpas, view[1] if view else None)
    hit = cache.get(key) if remember else None
    if hit is not None and hit[0] is value:
        return hit[1]
    x = view[0](value) if view else value
    if elem == "tf32" or (dpas and elem == "f32"):
        x, elem = round_tf32(x), "tf32"
    if x.dtype.kind in "iu":
        op = Operand(x.astype(np.int64), elem)
    elif elem in _MANTISSA_BITS:
        op = Operand(x.astype(np.float64), elem, *_exponent_range(x))
    else:  # a float format of no known width: the fixed-order path is taken
        op = Operand(x.astype(np.float64), elem)
    if remember:
        if len(cache) >= _RECENT_OPERANDS:
            cache.pop(next(iter(cache)))
        cache[key] = (value, op)  # holds `value`, so its id cannot be reused while cached
    return op


def multiply_accumulate(a, b, acc, out_dtype, ea: str | None = None, eb: str | None = None, *,
                        dpas: bool = False, spec: str | None = None) -> np.ndarray:
    """`acc + a x b` rounded once to `out_dtype`, following the model of this module.

    `a`, `b` are `Operand`s or arrays (with their element names `ea`, `eb`: bf16, f16, tf32, f32,
    f64, i8, ...), batched matrices (`...MK`, `...KN`) or, with an einsum `spec` of two operands,
    any contraction; `acc` is None or an array of the result's shape."""
    A = a if isinstance(a, Operand) else operand(a, ea, dpas=dpas)
    B = b if isinstance(b, Operand) else operand(b, eb, dpas=dpas)
    x, y = A.values, B.values
    if x.dtype.kind in "iu" and y.dtype.kind in "iu":  # exact and associative: any order, same bits
        p = np.einsum(spec, x, y) if spec else np.matmul(x, y)
        if acc is not None:
            p = p + np.asarray(acc).astype(np.int64)
        return p.astype(out_dtype)
    x, y = x.astype(np.float64, copy=False), y.astype(np.float64, copy=False)
    inexact = _inexact_entries(A, B, spec)
    if inexact is True:
        p = _ordered_sum(x, y, spec)
    else:
        p = np.einsum(spec, x, y) if spec else np.matmul(x, y, out=_scratch(
            "p", np.broadcast_shapes(x.shape[:-2], y.shape[:-2]) + (x.shape[-2], y.shape[-1]), np.float64))
        if inexact is not None:
            batch = p.shape[:-2]
            idx = np.nonzero(inexact)
            p[idx] = _ordered_sum(np.broadcast_to(x, batch + x.shape[-2:])[idx],
                                  np.broadcast_to(y, batch + y.shape[-2:])[idx], None)
    if acc is not None:
        acc = np.asarray(acc)
        if acc.shape == p.shape:
            p += acc  # float64 += any float type: one exact conversion, one rounding
        else:
            p = p + acc.astype(np.float64)
    return p.astype(out_dtype)


def _scratch(role: str, shape, dtype) -> np.ndarray:
    """A reusable array (per thread, role, shape and type): a simulation repeats the same
    instruction shapes, and fresh multi-megabyte temporaries cost more in page faults than the
    arithmetic."""
    dtype = np.dtype(dtype)
    key = (role, tuple(shape), dtype)
    cache = _LOCAL.__dict__.setdefault("scratch", {})
    buf = cache.get(key)
    if buf is None:
        buf = np.empty(shape, dtype)
        if buf.nbytes <= _SCRATCH_MAX_BYTES:
            if len(cache) >= 32:
                cache.pop(next(iter(cache)))
            cache[key] = buf
    return buf


def _exponent_range(x: np.ndarray):
    """(hi, lo, finite) of an operand: per matrix of a batch (one entry for rank < 3),
    the biased exponents of the largest magnitude and of the smallest non-zero one (subnormals
    count as exponent 1; an all-zero entry has lo > hi)."""
    view = _BITS_VIEW[x.dtype.itemsize]
    nbits = x.dtype.itemsize * 8
    mant = 7 if x.dtype == BF16 else np.finfo(x.dtype).nmant
    top = (1 << (nbits - 1 - mant)) - 1  # the exponent of inf and NaN
    u = np.bitwise_and(x.view(view), view((1 << (nbits - 1)) - 1), out=_scratch("bits", x.shape, view))
    u = u.reshape(int(np.prod(x.shape[:-2])) if x.ndim >= 3 else 1, -1)
    hi = u.max(axis=1, initial=0)
    if u.size and int(hi.max()) >> mant == top:
        return None, None, False
    u -= view(1)  # zeros wrap to the largest value: the minimum is then the smallest non-zero one
    lo = u.min(axis=1, initial=(1 << nbits) - 1) + view(1)  # 0 where an entry is all zero
    lo_exp = np.where(lo == 0, top, np.maximum(lo >> mant, 1)).astype(np.int32)
    return np.maximum(hi >> mant, 1).astype(np.int32), lo_exp, True


def _inexact_entries(A: Operand, B: Operand, spec):
    """Where float64 might round a partial sum of products: None if nowhere (then no summation
    order can change a bit), True for everything, or a boolean mask over the batch entries of a
    batched matrix product (to recompute in a fixed order).

    All products of a batch entry are multiples of the last bit of its smallest product, and
    their partial sums stay below 2^53 of those bits when the exponent spans of the entry's A and
    B, both mantissa widths, log2(K) and 2 add up to at most 53 (docs/numerics.md)."""
    if not (A.exact_width and B.exact_width and A.finite and B.finite):
        return True
    x, y = A.values, B.values
    k = _contracted_size(x, y, spec)
    if k == 0 or x.size == 0 or y.size == 0:
        return None
    budget = _F64_BITS - 2 - (k - 1).bit_length() - _MANTISSA_BITS[A.elem] - _MANTISSA_BITS[B.elem]
    batched = not spec and x.ndim >= 3 and x.shape[:-2] == y.shape[:-2]
    if not batched:  # bound by the whole operands
        whole = int(A.hi.max()) - int(A.lo.min()) + int(B.hi.max()) - int(B.lo.min())
        return None if whole <= budget else True
    bad = (A.hi - A.lo) + (B.hi - B.lo) > budget
    if not bad.any():
        return None
    return bad.reshape(x.shape[:-2])


def _contracted_size(x, y, spec):
    if not spec:
        return x.shape[-1]
    ins, out = spec.split("->")
    sa, sb = (s.replace("...", "") for s in ins.split(","))
    out = out.replace("...", "")
    size = 1
    for i, ch in enumerate(sa):
        if ch in sb and ch not in out:
            size *= x.shape[x.ndim - len(sa) + i]
    return size


def _ordered_sum(x, y, spec):
    """The contraction with its products added in increasing k order in float64."""
    if spec:
        ins, out = spec.split("->")
        sa, sb = ins.split(",")
        red = "".join(ch for ch in dict.fromkeys(sa.replace("...", "") + sb.replace("...", ""))
                      if ch in sa and ch in sb and ch not in out)
        prods = np.einsum(f"{sa},{sb}->{out}{red}", x, y)  # no summation: exact elementwise products
        prods = prods.reshape(prods.shape[:prods.ndim - len(red)] + (-1,))
        terms = (prods[..., i] for i in range(prods.shape[-1]))
    else:
        terms = (x[..., :, i:i + 1] * y[..., i:i + 1, :] for i in range(x.shape[-1]))
    total = None
    for term in terms:
        total = term.copy() if total is None else total + term
    if total is None:  # K = 0
        shape = np.einsum(spec, x, y).shape if spec else np.broadcast_shapes(x.shape[:-1], y.shape[:-2] + (1,))
        return np.zeros(shape if spec else shape + y.shape[-1:], np.float64)
    return total
