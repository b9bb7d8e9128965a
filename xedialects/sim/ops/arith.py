"""Simulator handlers for `arith` (constants, integer/float arithmetic incl. unsigned variants,
comparisons, select, casts), `index`, `ub.poison` and `affine.apply/min/max`.

Every handler runs at compile time once per op and returns a closure `f(env, st)` operating on
batched numpy arrays (leading axis 1 or B, see core.py).
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from ..core import enum_text, handler
from ..typeinfo import BF16
from .elements import as_unsigned, const_result, dense_value, scalar_value, unsigned_minmax


# ----------------------------------------------------------------------------------------------
# constants


@handler("arith.constant")
def _constant(c, o):
    t = o.out_types[0]
    a = o.attr("value")
    if t.kind == "scalar":
        v = scalar_value(a, t.dtype).reshape(1)
    elif t.kind == "vector":
        v = dense_value(a, t)[None]
    else:
        o.error(f"simulator: unsupported constant of type {t.text}")
    v.setflags(write=False)
    return const_result(c, o.outs[0], v)


@handler("ub.poison")
def _poison(c, o):
    t = o.out_types[0]
    v = np.zeros((1,) + t.shape, t.dtype) if t.kind in ("scalar", "vector") else None
    return const_result(c, o.outs[0], v)


# ----------------------------------------------------------------------------------------------
# arith and index arithmetic


def _signed(x, dt):
    return np.asarray(x).view(dt) if np.asarray(x).dtype.itemsize == dt.itemsize else np.asarray(x).astype(dt)


def _divsi(a, b):
    b = np.where(b == 0, 1, b)
    r = np.fmod(a, b)
    return ((a - r) // b).astype(a.dtype)


def _ceildivsi(a, b):
    b = np.where(b == 0, 1, b)
    return (-((-a) // b)).astype(np.result_type(a, b))


def _floordivsi(a, b):
    b = np.where(b == 0, 1, b)
    return a // b


def _divui(a, b):
    ua, ub = as_unsigned(a), as_unsigned(b)
    ub = np.where(ub == 0, 1, ub)
    return (ua // ub).view(a.dtype) if a.dtype.kind == "i" else ua // ub


def _remui(a, b):
    ua, ub = as_unsigned(a), as_unsigned(b)
    ub = np.where(ub == 0, 1, ub)
    return (ua % ub).view(a.dtype) if a.dtype.kind == "i" else ua % ub


def _ceildivui(a, b):
    ua, ub = as_unsigned(a), as_unsigned(b)
    ub = np.where(ub == 0, 1, ub)
    q = ua // ub + ((ua % ub) != 0)
    return q.astype(ua.dtype).view(a.dtype) if a.dtype.kind == "i" else q


def _remsi(a, b):
    return np.fmod(a, np.where(b == 0, 1, b))


def _shrui(a, b):
    return np.right_shift(as_unsigned(a), as_unsigned(b).astype(as_unsigned(a).dtype)).view(a.dtype)


def _shift_ok(fn):
    def g(a, b):
        return fn(a, b.astype(a.dtype) if b.dtype != a.dtype else b)

    return g


def _remf(a, b):
    return np.fmod(a, b)


def _bool_aware(fn, bool_fn):
    def g(a, b):
        if a.dtype == np.bool_:
            return bool_fn(a, b)
        return fn(a, b)

    return g


BINARY = {
    "arith.addi": _bool_aware(np.add, np.logical_xor),
    "arith.subi": _bool_aware(np.subtract, np.logical_xor),
    "arith.muli": _bool_aware(np.multiply, np.logical_and),
    "arith.divsi": _divsi,
    "arith.divui": _divui,
    "arith.remsi": _remsi,
    "arith.remui": _remui,
    "arith.ceildivsi": _ceildivsi,
    "arith.ceildivui": _ceildivui,
    "arith.floordivsi": _floordivsi,
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
    "arith.shli": _shift_ok(np.left_shift),
    "arith.shrsi": _shift_ok(np.right_shift),
    "arith.shrui": _shrui,
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
    "arith.maxui": unsigned_minmax(np.maximum),
    "arith.minui": unsigned_minmax(np.minimum),
    "arith.addf": np.add,
    "arith.subf": np.subtract,
    "arith.mulf": np.multiply,
    "arith.divf": np.divide,
    "arith.remf": _remf,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin,
    "index.add": np.add,
    "index.sub": np.subtract,
    "index.mul": np.multiply,
    "index.divs": _divsi,
    "index.rems": _remsi,
    "index.floordivs": _floordivsi,
    "index.ceildivs": _ceildivsi,
    "index.ceildivu": _ceildivui,
    "index.maxs": np.maximum,
    "index.mins": np.minimum,
    "index.and": np.bitwise_and,
    "index.or": np.bitwise_or,
    "index.xor": np.bitwise_xor,
    "index.shl": np.left_shift,
    "index.shrs": np.right_shift,
}


def _make_binary(name):
    fn = BINARY[name]

    def h(c, o):
        a, b = o.ins[:2]
        r = o.outs[0]
        dt = o.out_types[0].dtype

        def f(env, st):
            v = fn(env[a], env[b])
            if v.dtype != dt:
                v = v.astype(dt)
            env[r] = v

        return f

    return h


for _n in BINARY:
    handler(_n)(_make_binary(_n))


@handler("arith.negf")
def _negf(c, o):
    a, r = o.ins[0], o.outs[0]

    def f(env, st):
        env[r] = np.negative(env[a])

    return f


_CMPI = {
    0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater, 5: np.greater_equal,
}


@handler("arith.cmpi", "index.cmp")
def _cmpi(c, o):
    if o.name == "index.cmp":
        pred = {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5, "ult": 6, "ule": 7, "ugt": 8,
                "uge": 9}[enum_text(o.attr("pred"))]
    else:
        pred = o.int("predicate")
    a, b = o.ins
    r = o.outs[0]
    unsigned = pred >= 6
    fn = _CMPI[pred - 4 if unsigned else pred]

    def f(env, st):
        x, y = env[a], env[b]
        if unsigned:
            x, y = as_unsigned(x), as_unsigned(y)
        env[r] = fn(x, y)

    return f


def _cmpf_fn(pred):
    def nan(a, b):
        return np.isnan(a) | np.isnan(b)

    return {
        0: lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
        1: np.equal, 2: np.greater, 3: np.greater_equal, 4: np.less, 5: np.less_equal,
        6: lambda a, b: np.not_equal(a, b) & ~nan(a, b),
        7: lambda a, b: ~nan(a, b),
        8: lambda a, b: np.equal(a, b) | nan(a, b),
        9: lambda a, b: np.greater(a, b) | nan(a, b),
        10: lambda a, b: np.greater_equal(a, b) | nan(a, b),
        11: lambda a, b: np.less(a, b) | nan(a, b),
        12: lambda a, b: np.less_equal(a, b) | nan(a, b),
        13: np.not_equal,
        14: nan,
        15: lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
    }[pred]


@handler("arith.cmpf")
def _cmpf(c, o):
    fn = _cmpf_fn(o.int("predicate"))
    a, b = o.ins
    r = o.outs[0]

    def f(env, st):
        x, y = env[a], env[b]
        if x.dtype == BF16 or x.dtype == np.float16:
            x, y = x.astype(np.float32), y.astype(np.float32)
        env[r] = fn(x, y)

    return f


@handler("arith.select")
def _select(c, o):
    cnd, a, b = o.ins
    r = o.outs[0]
    vt = o.out_types[0]
    crank = o.in_types[0].rank if o.in_types[0].kind == "vector" else 0
    extra = (vt.rank - crank) if vt.kind in ("vector",) else 0

    def f(env, st):
        cv = env[cnd]
        x, y = env[a], env[b]
        if isinstance(x, np.ndarray):
            if extra:
                cv = cv.reshape(cv.shape + (1,) * extra)
            env[r] = np.where(cv, x, y)
        else:
            from ..core import bselect
            cvb = np.broadcast_to(cv, (st.B,))
            env[r] = bselect(cvb, x, y)

    return f


def _cast_handler(kind):
    def h(c, o):
        a, r = o.ins[0], o.outs[0]
        dst = o.out_types[0]
        ddt = dst.dtype

        if kind == "ext_unsigned":
            def f(env, st):
                x = env[a]
                if x.dtype == np.bool_:
                    env[r] = x.astype(ddt)
                else:
                    env[r] = as_unsigned(x).astype(ddt)
        elif kind == "ext_signed":
            def f(env, st):
                x = env[a]
                if x.dtype == np.bool_:
                    env[r] = np.where(x, -1, 0).astype(ddt)
                else:
                    env[r] = x.astype(ddt)
        elif kind == "trunc_int":
            def f(env, st):
                x = env[a]
                if ddt == np.bool_:
                    env[r] = (x & 1).astype(bool)
                else:
                    env[r] = x.astype(ddt)
        elif kind == "float":  # extf / truncf / sitofp / fptosi ... rounding via astype
            def f(env, st):
                x = env[a]
                if x.dtype == BF16 and ddt.kind in "iu":
                    x = x.astype(np.float32)
                if ddt.kind in "iu" and x.dtype.kind == "f":
                    info = np.iinfo(ddt)
                    x = np.clip(np.nan_to_num(x.astype(np.float64)), info.min, info.max)
                env[r] = x.astype(ddt)
        elif kind == "uitofp":
            def f(env, st):
                x = env[a]
                env[r] = (as_unsigned(x) if x.dtype != np.bool_ else x).astype(np.float64).astype(ddt)
        elif kind == "sitofp":
            def f(env, st):
                x = env[a]
                if x.dtype == np.bool_:
                    x = np.where(x, -1, 0)
                env[r] = x.astype(np.float64).astype(ddt)
        elif kind == "bitcast":
            def f(env, st):
                x = np.ascontiguousarray(env[a])
                if x.dtype.itemsize == ddt.itemsize:
                    env[r] = x.view(ddt)
                else:
                    env[r] = x.view(ddt).reshape(x.shape[:-1] + (-1,))
        else:
            raise AssertionError(kind)
        return f

    return h


for _n, _k in {
    "arith.index_cast": "ext_signed", "arith.index_castui": "ext_unsigned", "arith.extsi": "ext_signed",
    "arith.extui": "ext_unsigned", "arith.trunci": "trunc_int", "arith.extf": "float", "arith.truncf": "float",
    "arith.sitofp": "sitofp", "arith.uitofp": "uitofp", "arith.fptosi": "float", "arith.fptoui": "float",
    "arith.bitcast": "bitcast", "index.casts": "ext_signed", "index.castu": "ext_unsigned",
}.items():
    handler(_n)(_cast_handler(_k))


@handler("index.constant")
def _index_const(c, o):
    v = np.array([o.int("value")], np.int64)
    return const_result(c, o.outs[0], v)


# ----------------------------------------------------------------------------------------------
# affine


def affine_fn(amap):
    """Compile an AffineMap into a function (dims, syms) -> list of arrays."""

    def conv(e):
        if isinstance(e, ir.AffineDimExpr):
            p = e.position
            return lambda d, s: d[p]
        if isinstance(e, ir.AffineSymbolExpr):
            p = e.position
            return lambda d, s: s[p]
        if isinstance(e, ir.AffineConstantExpr):
            v = np.int64(e.value)
            return lambda d, s: v
        if isinstance(e, ir.AffineAddExpr):
            l, r = conv(e.lhs.maybe_downcast()), conv(e.rhs.maybe_downcast())
            return lambda d, s: l(d, s) + r(d, s)
        if isinstance(e, ir.AffineMulExpr):
            l, r = conv(e.lhs.maybe_downcast()), conv(e.rhs.maybe_downcast())
            return lambda d, s: l(d, s) * r(d, s)
        if isinstance(e, ir.AffineModExpr):
            l, r = conv(e.lhs.maybe_downcast()), conv(e.rhs.maybe_downcast())
            return lambda d, s: np.mod(l(d, s), r(d, s))
        if isinstance(e, ir.AffineFloorDivExpr):
            l, r = conv(e.lhs.maybe_downcast()), conv(e.rhs.maybe_downcast())
            return lambda d, s: np.floor_divide(l(d, s), r(d, s))
        if isinstance(e, ir.AffineCeilDivExpr):
            l, r = conv(e.lhs.maybe_downcast()), conv(e.rhs.maybe_downcast())
            return lambda d, s: -np.floor_divide(-l(d, s), r(d, s))
        raise ValueError(f"unsupported affine expression {e}")

    fns = [conv(e) for e in amap.results]
    nd = amap.n_dims
    return nd, lambda d, s: [np.asarray(fn(d, s), dtype=np.int64) for fn in fns]


@handler("affine.apply", "affine.min", "affine.max")
def _affine(c, o):
    amap = ir.AffineMapAttr(o.attr("map")).value
    nd, fn = affine_fn(amap)
    ins, r = o.ins, o.outs[0]
    red = {"affine.apply": None, "affine.min": np.minimum, "affine.max": np.maximum}[o.name]

    def f(env, st):
        vals = [env[s] for s in ins]
        res = fn(vals[:nd], vals[nd:])
        if red is None:
            v = res[0]
        else:
            v = res[0]
            for x in res[1:]:
                v = red(v, x)
        env[r] = np.atleast_1d(v).astype(np.int64)

    return f
