"""Simulator handlers for `math` (elementwise functions evaluated in float64 and rounded to the
result type, integer powers, bit counts) and `vector.fma`."""
from __future__ import annotations

import math

import numpy as np

from ..core import handler
from .elements import as_unsigned


_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _round_away(x):
    return np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5))


MATH1 = {
    "math.exp": np.exp, "math.exp2": np.exp2, "math.expm1": np.expm1, "math.log": np.log, "math.log2": np.log2,
    "math.log10": np.log10, "math.log1p": np.log1p, "math.tanh": np.tanh, "math.sin": np.sin, "math.cos": np.cos,
    "math.tan": np.tan, "math.asin": np.arcsin, "math.acos": np.arccos, "math.atan": np.arctan,
    "math.sinh": np.sinh, "math.cosh": np.cosh, "math.asinh": np.arcsinh, "math.acosh": np.arccosh,
    "math.atanh": np.arctanh,
    "math.sqrt": np.sqrt, "math.rsqrt": lambda x: 1.0 / np.sqrt(x), "math.absf": np.abs, "math.floor": np.floor,
    "math.ceil": np.ceil, "math.round": _round_away, "math.roundeven": np.rint, "math.trunc": np.trunc,
    "math.cbrt": np.cbrt, "math.erf": lambda x: _erf(x).astype(np.float64),
    "math.erfc": lambda x: _erfc(x).astype(np.float64),
}


def _make_math1(name):
    fn = MATH1[name]

    def h(c, o):
        a, r = o.ins[0], o.outs[0]
        dt = o.out_types[0].dtype

        def f(env, st):
            env[r] = np.asarray(fn(env[a].astype(np.float64))).astype(dt)

        return f

    return h


for _n in MATH1:
    handler(_n)(_make_math1(_n))


@handler("math.absi")
def _absi(c, o):
    a, r = o.ins[0], o.outs[0]

    def f(env, st):
        env[r] = np.abs(env[a])

    return f


@handler("math.isnan", "math.isinf", "math.isfinite")
def _fpclass(c, o):
    fn = {"math.isnan": np.isnan, "math.isinf": np.isinf, "math.isfinite": np.isfinite}[o.name]
    a, r = o.ins[0], o.outs[0]

    def f(env, st):
        env[r] = fn(env[a].astype(np.float32))

    return f


MATH2 = {"math.powf": np.power, "math.atan2": np.arctan2, "math.copysign": np.copysign}


@handler(*MATH2)
def _math2(c, o):
    fn = MATH2[o.name]
    a, b = o.ins
    r = o.outs[0]
    dt = o.out_types[0].dtype

    def f(env, st):
        env[r] = fn(env[a].astype(np.float64), env[b].astype(np.float64)).astype(dt)

    return f


@handler("math.fpowi")
def _fpowi(c, o):
    a, b = o.ins
    r = o.outs[0]
    dt = o.out_types[0].dtype

    def f(env, st):
        env[r] = np.power(env[a].astype(np.float64), env[b].astype(np.float64)).astype(dt)

    return f


@handler("math.ipowi")
def _ipowi(c, o):
    a, b = o.ins
    r = o.outs[0]

    def f(env, st):
        x, y = env[a], env[b]
        env[r] = np.where(y < 0, 0, np.power(x, np.maximum(y, 0))).astype(x.dtype)

    return f


@handler("math.fma", "vector.fma")
def _fma(c, o):
    a, b, d = o.ins
    r = o.outs[0]
    dt = o.out_types[0].dtype

    def f(env, st):
        env[r] = (env[a].astype(np.float64) * env[b].astype(np.float64) + env[d].astype(np.float64)).astype(dt)

    return f


@handler("math.ctpop", "math.ctlz", "math.cttz")
def _bitcount(c, o):
    a, r = o.ins[0], o.outs[0]
    bits = o.out_types[0].dtype.itemsize * 8
    name = o.name

    def f(env, st):
        x = as_unsigned(env[a]).astype(np.uint64)
        if name == "math.ctpop":
            cnt = np.zeros(x.shape, np.int64)
            for i in range(bits):
                cnt += ((x >> np.uint64(i)) & np.uint64(1)).astype(np.int64)
        elif name == "math.ctlz":
            cnt = np.full(x.shape, bits, np.int64)
            for i in range(bits):
                cnt = np.where((x >> np.uint64(i)) & np.uint64(1), bits - 1 - i, cnt)
        else:
            cnt = np.full(x.shape, bits, np.int64)
            for i in reversed(range(bits)):
                cnt = np.where((x >> np.uint64(i)) & np.uint64(1), i, cnt)
        env[r] = cnt.astype(env[a].dtype)

    return f
