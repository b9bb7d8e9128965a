"""Value helpers shared by the handlers of several dialects: numpy constants from MLIR attributes
(`scalar_value`, `dense_value`, `const_result`), unsigned views of signless integers, bf16/f16
widening, and the reduction kinds of `vector.reduction` / `vector.multi_reduction` /
`xetile.tile_reduce` (`reduce_fn`, `combine_fn`).
"""
from __future__ import annotations

import re

import numpy as np
from mlir import ir

from ..core import FuncCompiler
from ..typeinfo import BF16, TypeInfo


# ----------------------------------------------------------------------------------------------
# constants


def scalar_value(attr, dtype: np.dtype):
    try:
        v = ir.FloatAttr(attr).value
        return np.array(v, dtype=np.float64).astype(dtype)
    except Exception:
        pass
    try:
        v = ir.BoolAttr(attr).value
        return np.array(v).astype(dtype)
    except Exception:
        pass
    try:
        v = ir.IntegerAttr(attr).value
        if dtype == np.bool_:
            return np.array(bool(v & 1))
        if dtype.kind == "u" and v < 0:
            v += 1 << (8 * dtype.itemsize)
        return np.array(v).astype(dtype)
    except Exception:
        pass
    text = str(attr).split(":")[0].strip()
    if text in ("true", "false"):
        return np.array(text == "true").astype(dtype)
    return np.array(float(text)).astype(dtype)


_NUM_RE = re.compile(r"true|false|[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|nan)|0x[0-9A-Fa-f]+")


def dense_value(attr, t: TypeInfo) -> np.ndarray:
    """numpy array (t.shape, t.dtype) of a dense elements attribute (bf16 included)."""
    shape, dt = t.shape, t.dtype
    d = None
    try:
        d = ir.DenseElementsAttr(attr)
    except Exception:
        pass
    if d is not None and d.is_splat:
        return np.full(shape, scalar_value(d.get_splat_value(), dt), dtype=dt)
    if d is not None and dt != BF16:
        try:
            return np.array(d).astype(dt).reshape(shape)
        except Exception:
            pass
    text = str(attr)
    body = text[text.index("dense<") + 6:]
    if body.startswith('"0x'):
        hexs = body[3:body.index('"', 3)]
        raw = bytes.fromhex(hexs)
        if dt == np.bool_:
            arr = np.frombuffer(raw, np.uint8).astype(bool)
        else:
            arr = np.frombuffer(raw, dt)
        n = int(np.prod(shape)) if shape else 1
        if arr.size == 1 and n > 1:
            arr = np.full(n, arr[0], dt)
        return arr[:n].reshape(shape).copy()
    body = body[:body.rindex(">")]
    toks = _NUM_RE.findall(body)
    vals = [1.0 if x == "true" else 0.0 if x == "false" else float(int(x, 16)) if x.startswith("0x") else float(x)
            for x in toks]
    if dt.kind in "iub":
        return np.array([int(v) for v in vals]).astype(dt).reshape(shape)
    return np.array(vals, np.float64).astype(dt).reshape(shape)


def const_result(c: FuncCompiler, slot: int, val: np.ndarray):
    c.consts[slot] = val

    def f(env, st):
        env[slot] = val

    return f


# ----------------------------------------------------------------------------------------------
# integer and float views


def as_unsigned(x):
    x = np.asarray(x)
    if x.dtype.kind == "i":
        return x.view(np.dtype(f"u{x.dtype.itemsize}"))
    return x


def unsigned_minmax(fn):
    def g(a, b):
        return fn(as_unsigned(a), as_unsigned(b)).view(a.dtype) if a.dtype.kind == "i" else fn(a, b)

    return g


def widen_half(x):
    """Promote bf16/f16 to f32 for accumulation."""
    if x.dtype == BF16 or x.dtype == np.float16:
        return x.astype(np.float32)
    return x


# ----------------------------------------------------------------------------------------------
# reduction kinds


def reduce_fn(kind: str, dtype):
    k = kind
    if k == "add":
        return lambda x, axis: np.add.reduce(widen_half(x), axis=axis)
    if k == "mul":
        return lambda x, axis: np.multiply.reduce(widen_half(x), axis=axis)
    if k in ("minsi", "minimumf", "minf"):
        return lambda x, axis: np.minimum.reduce(x, axis=axis)
    if k in ("maxsi", "maximumf", "maxf"):
        return lambda x, axis: np.maximum.reduce(x, axis=axis)
    if k == "minnumf":
        return lambda x, axis: np.fmin.reduce(x, axis=axis)
    if k == "maxnumf":
        return lambda x, axis: np.fmax.reduce(x, axis=axis)
    if k == "minui":
        return lambda x, axis: np.minimum.reduce(as_unsigned(x), axis=axis).view(x.dtype)
    if k == "maxui":
        return lambda x, axis: np.maximum.reduce(as_unsigned(x), axis=axis).view(x.dtype)
    if k == "and":
        return lambda x, axis: np.bitwise_and.reduce(x, axis=axis)
    if k == "or":
        return lambda x, axis: np.bitwise_or.reduce(x, axis=axis)
    if k == "xor":
        return lambda x, axis: np.bitwise_xor.reduce(x, axis=axis)
    raise ValueError(f"unsupported reduction kind '{kind}'")


def combine_fn(kind: str):
    return {
        "add": np.add, "mul": np.multiply, "minsi": np.minimum, "maxsi": np.maximum, "minimumf": np.minimum,
        "maximumf": np.maximum, "minf": np.minimum, "maxf": np.maximum, "minnumf": np.fmin, "maxnumf": np.fmax,
        "minui": unsigned_minmax(np.minimum), "maxui": unsigned_minmax(np.maximum), "and": np.bitwise_and,
        "or": np.bitwise_or, "xor": np.bitwise_xor,
    }[kind]
