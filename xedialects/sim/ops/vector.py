"""Simulator handlers for upstream dialects: arith, math, index casts, vector, memref, affine maps,
gpu kernel intrinsics (ids, barrier, shuffles) and host-side gpu memory ops.

Every handler runs at compile time once per op and returns a closure `f(env, st)` operating on
batched numpy arrays (leading axis 1 or B, see core.py).
"""
from __future__ import annotations

import math
import re

import numpy as np
from mlir import ir

from ..core import (SUBGROUP_SIZE, ExecState, FuncCompiler, OpInfo, SimError, alloc_in_kernel, attr_ints, enum_text,
                   handler)
from ..memory import MemRef
from ..numerics import elem_name_of, multiply_accumulate
from ..typeinfo import BF16, DYN, TypeInfo

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
# arith


def _unsigned(x):
    x = np.asarray(x)
    if x.dtype.kind == "i":
        return x.view(np.dtype(f"u{x.dtype.itemsize}"))
    return x


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
    ua, ub = _unsigned(a), _unsigned(b)
    ub = np.where(ub == 0, 1, ub)
    return (ua // ub).view(a.dtype) if a.dtype.kind == "i" else ua // ub


def _remui(a, b):
    ua, ub = _unsigned(a), _unsigned(b)
    ub = np.where(ub == 0, 1, ub)
    return (ua % ub).view(a.dtype) if a.dtype.kind == "i" else ua % ub


def _ceildivui(a, b):
    ua, ub = _unsigned(a), _unsigned(b)
    ub = np.where(ub == 0, 1, ub)
    q = ua // ub + ((ua % ub) != 0)
    return q.astype(ua.dtype).view(a.dtype) if a.dtype.kind == "i" else q


def _remsi(a, b):
    return np.fmod(a, np.where(b == 0, 1, b))


def _shrui(a, b):
    return np.right_shift(_unsigned(a), _unsigned(b).astype(_unsigned(a).dtype)).view(a.dtype)


def _shift_ok(fn):
    def g(a, b):
        return fn(a, b.astype(a.dtype) if b.dtype != a.dtype else b)

    return g


def _minmax_u(fn):
    def g(a, b):
        return fn(_unsigned(a), _unsigned(b)).view(a.dtype) if a.dtype.kind == "i" else fn(a, b)

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
    "arith.maxui": _minmax_u(np.maximum),
    "arith.minui": _minmax_u(np.minimum),
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
            x, y = _unsigned(x), _unsigned(y)
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
                    env[r] = _unsigned(x).astype(ddt)
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
                env[r] = (_unsigned(x) if x.dtype != np.bool_ else x).astype(np.float64).astype(ddt)
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
# math


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
        x = _unsigned(env[a]).astype(np.uint64)
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


# ----------------------------------------------------------------------------------------------
# vector


def _bcast_to(x: np.ndarray, shape: tuple) -> np.ndarray:
    """Broadcast batched x (nb, *s) to (nb, *shape) aligning trailing dims."""
    nb = x.shape[0]
    s = x.shape[1:]
    k = len(shape) - len(s)
    x = x.reshape((nb,) + (1,) * k + s)
    return np.broadcast_to(x, (nb,) + tuple(shape))


@handler("vector.broadcast", "vector.splat")
def _vbroadcast(c, o):
    a, r = o.ins[0], o.outs[0]
    shape = o.out_types[0].shape

    def f(env, st):
        env[r] = _bcast_to(env[a], shape)

    return f


def _positions(o: OpInfo, static_name: str, dyn_slots):
    pos = o.ints(static_name, [])
    dyn = list(dyn_slots)
    out = []
    for p in pos:
        if p == DYN:
            s = dyn.pop(0)
            cv = o.const(s)
            out.append(("c", int(cv.reshape(-1)[0])) if cv is not None else ("d", s))
        else:
            out.append(("c", p))
    return out


def _index_tuple(env, pos, nb_hint):
    """Index tuple for x[(batch, *pos)]; dynamic per-batch positions use fancy indexing."""
    dyn = [env[s] for k, s in pos if k == "d"]
    if not dyn or all(d.shape[0] == 1 for d in dyn):
        return (slice(None),) + tuple(v if k == "c" else int(env[v][0]) for k, v in pos), False
    nb = max(d.shape[0] for d in dyn)
    bidx = np.arange(nb)
    return (bidx,) + tuple(np.full(nb, v) if k == "c" else np.broadcast_to(env[v], (nb,)) for k, v in pos), True


@handler("vector.extract")
def _vextract(c, o):
    src = o.ins[0]
    pos = _positions(o, "static_position", o.ins[1:])
    r = o.outs[0]
    rt = o.out_types[0]

    def f(env, st):
        x = env[src]
        idx, fancy = _index_tuple(env, pos, x.shape[0])
        if fancy and x.shape[0] == 1:
            x = np.broadcast_to(x, (idx[0].shape[0],) + x.shape[1:])
        v = x[idx]
        if rt.kind == "scalar":
            v = np.asarray(v).reshape(-1)
        env[r] = v

    return f


@handler("vector.insert")
def _vinsert(c, o):
    val, dst = o.ins[0], o.ins[1]
    pos = _positions(o, "static_position", o.ins[2:])
    r = o.outs[0]

    def f(env, st):
        x = env[dst]
        v = env[val]
        idx, fancy = _index_tuple(env, pos, x.shape[0])
        nb = max(x.shape[0], v.shape[0], idx[0].shape[0] if fancy else 1)
        out = np.array(np.broadcast_to(x, (nb,) + x.shape[1:]))
        if fancy:
            out[idx] = np.broadcast_to(v, (nb,) + v.shape[1:])
        else:
            out[idx] = v if v.shape[0] == nb else np.broadcast_to(v, (nb,) + v.shape[1:])
        env[r] = out

    return f


@handler("vector.extract_strided_slice")
def _vess(c, o):
    offs = o.ints("offsets")
    sizes = o.ints("sizes")
    strides = o.ints("strides", [1] * len(offs))
    src, r = o.ins[0], o.outs[0]
    sl = (slice(None),) + tuple(slice(a, a + n * s, s) for a, n, s in zip(offs, sizes, strides))

    def f(env, st):
        env[r] = env[src][sl]

    return f


@handler("vector.insert_strided_slice")
def _viss(c, o):
    offs = o.ints("offsets")
    strides = o.ints("strides", None)
    val, dst = o.ins
    r = o.outs[0]
    vshape = o.in_types[0].shape
    k = len(offs) - len(vshape)
    if strides is None:
        strides = [1] * len(vshape)
    sl = (slice(None),) + tuple(offs[:k]) + tuple(
        slice(a, a + n * s, s) for a, n, s in zip(offs[k:], vshape, strides))

    def f(env, st):
        x, v = env[dst], env[val]
        nb = max(x.shape[0], v.shape[0])
        out = np.array(np.broadcast_to(x, (nb,) + x.shape[1:]))
        out[sl] = v
        env[r] = out

    return f


@handler("vector.shape_cast")
def _vshape_cast(c, o):
    src, r = o.ins[0], o.outs[0]
    shape = o.out_types[0].shape

    def f(env, st):
        x = env[src]
        env[r] = x.reshape((x.shape[0],) + shape)

    return f


@handler("vector.transpose")
def _vtranspose(c, o):
    perm = [0] + [p + 1 for p in o.ints("permutation")]
    src, r = o.ins[0], o.outs[0]

    def f(env, st):
        env[r] = env[src].transpose(perm)

    return f


@handler("vector.step")
def _vstep(c, o):
    n = o.out_types[0].shape[0]
    return const_result(c, o.outs[0], np.arange(n, dtype=np.int64)[None])


@handler("vector.from_elements")
def _vfrom(c, o):
    ins, r = o.ins, o.outs[0]
    shape = o.out_types[0].shape
    dt = o.out_types[0].dtype

    def f(env, st):
        vals = [env[s] for s in ins]
        nb = max(v.shape[0] for v in vals)
        out = np.empty((nb, len(vals)), dt)
        for i, v in enumerate(vals):
            out[:, i] = v
        env[r] = out.reshape((nb,) + shape)

    return f


@handler("vector.to_elements")
def _vto(c, o):
    src, outs = o.ins[0], o.outs

    def f(env, st):
        x = env[src]
        flat = x.reshape(x.shape[0], -1)
        for i, s in enumerate(outs):
            env[s] = flat[:, i]

    return f


@handler("vector.constant_mask")
def _vcmask(c, o):
    t = o.out_types[0]
    sizes = o.ints("mask_dim_sizes")
    m = np.zeros(t.shape, bool)
    m[tuple(slice(0, s) for s in sizes)] = True
    return const_result(c, o.outs[0], m[None])


@handler("vector.create_mask")
def _vmask(c, o):
    t = o.out_types[0]
    ins, r = o.ins, o.outs[0]

    def f(env, st):
        bounds = [env[s] for s in ins]
        nb = max(b.shape[0] for b in bounds)
        m = np.ones((nb,) + t.shape, bool)
        for d, b in enumerate(bounds):
            ar = np.arange(t.shape[d]).reshape((1,) + (1,) * d + (-1,) + (1,) * (len(t.shape) - d - 1))
            m &= ar < b.reshape((-1,) + (1,) * len(t.shape))
        env[r] = m

    return f


@handler("vector.bitcast")
def _vbitcast(c, o):
    src, r = o.ins[0], o.outs[0]
    t = o.out_types[0]

    def f(env, st):
        x = np.ascontiguousarray(env[src])
        env[r] = x.view(t.dtype).reshape((x.shape[0],) + t.shape)

    return f


def _up(x):
    """Promote bf16/f16 to f32 for accumulation."""
    if x.dtype == BF16 or x.dtype == np.float16:
        return x.astype(np.float32)
    return x


@handler("vector.contract")
def _vcontract(c, o):
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(o.attr("indexing_maps"))]
    kind = enum_text(o.attr("kind")) if o.has("kind") else "add"
    if kind != "add":
        o.error(f"simulator: vector.contract kind '{kind}' not supported")
    letters = "abcdefghijklmnopqrstuvwxyz"

    def sub(m):
        s = ""
        for e in m.results:
            if not isinstance(e, ir.AffineDimExpr):
                o.error("simulator: vector.contract with non-dimension indexing expressions")
            s += letters[e.position]
        return s

    sa, sb, sc = sub(maps[0]), sub(maps[1]), sub(maps[2])
    spec = f"...{sa},...{sb}->...{sc}"
    a, b, acc = o.ins[:3]
    r = o.outs[0]
    dt = o.out_types[0].dtype
    is_mm = len(sa) == 2 and len(sb) == 2 and len(sc) == 2 and sa[0] == sc[0] and sb[1] == sc[1] and sa[1] == sb[0]
    flops = 2
    shapes = {}
    for s_, t_ in ((sa, o.in_types[0]), (sb, o.in_types[1])):
        for ch, n in zip(s_, t_.shape):
            shapes[ch] = n
    for n in shapes.values():
        flops *= n

    def f(env, st):
        x, y = env[a], env[b]
        env[r] = multiply_accumulate(x, y, env[acc], dt, elem_name_of(x.dtype), elem_name_of(y.dtype),
                                     spec=None if is_mm else spec)
        if st.trace is not None:
            st.trace.mma_flops += flops * st.active_count()

    return f


def _reduce_fn(kind: str, dtype):
    k = kind
    if k == "add":
        return lambda x, axis: np.add.reduce(_up(x), axis=axis)
    if k == "mul":
        return lambda x, axis: np.multiply.reduce(_up(x), axis=axis)
    if k in ("minsi", "minimumf", "minf"):
        return lambda x, axis: np.minimum.reduce(x, axis=axis)
    if k in ("maxsi", "maximumf", "maxf"):
        return lambda x, axis: np.maximum.reduce(x, axis=axis)
    if k == "minnumf":
        return lambda x, axis: np.fmin.reduce(x, axis=axis)
    if k == "maxnumf":
        return lambda x, axis: np.fmax.reduce(x, axis=axis)
    if k == "minui":
        return lambda x, axis: np.minimum.reduce(_unsigned(x), axis=axis).view(x.dtype)
    if k == "maxui":
        return lambda x, axis: np.maximum.reduce(_unsigned(x), axis=axis).view(x.dtype)
    if k == "and":
        return lambda x, axis: np.bitwise_and.reduce(x, axis=axis)
    if k == "or":
        return lambda x, axis: np.bitwise_or.reduce(x, axis=axis)
    if k == "xor":
        return lambda x, axis: np.bitwise_xor.reduce(x, axis=axis)
    raise ValueError(f"unsupported reduction kind '{kind}'")


def _combine_fn(kind: str):
    return {
        "add": np.add, "mul": np.multiply, "minsi": np.minimum, "maxsi": np.maximum, "minimumf": np.minimum,
        "maximumf": np.maximum, "minf": np.minimum, "maxf": np.maximum, "minnumf": np.fmin, "maxnumf": np.fmax,
        "minui": _minmax_u(np.minimum), "maxui": _minmax_u(np.maximum), "and": np.bitwise_and,
        "or": np.bitwise_or, "xor": np.bitwise_xor,
    }[kind]


@handler("vector.reduction")
def _vreduction(c, o):
    kind = enum_text(o.attr("kind"))
    red, comb = _reduce_fn(kind, None), _combine_fn(kind)
    src = o.ins[0]
    acc = o.ins[1] if len(o.ins) > 1 else None
    r = o.outs[0]
    dt = o.out_types[0].dtype

    def f(env, st):
        x = env[src]
        v = red(x, tuple(range(1, x.ndim)))
        if acc is not None:
            v = comb(v, _up(env[acc]))
        env[r] = np.asarray(v).astype(dt).reshape(-1)

    return f


@handler("vector.multi_reduction")
def _vmultired(c, o):
    kind = enum_text(o.attr("kind"))
    red, comb = _reduce_fn(kind, None), _combine_fn(kind)
    dims = tuple(d + 1 for d in o.ints("reduction_dims"))
    src, acc = o.ins[:2]
    r = o.outs[0]
    dt = o.out_types[0].dtype

    def f(env, st):
        x = env[src]
        v = comb(red(x, dims), _up(env[acc]))
        env[r] = np.asarray(v).astype(dt).reshape((x.shape[0],) + o.out_types[0].shape)

    return f


# ----------------------------------------------------------------------------------------------
# memref helpers


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


@handler("memref.load")
def _mload(c, o):
    mslot, idx = o.ins[0], o.ins[1:]
    r = o.outs[0]

    def f(env, st):
        m = env[mslot]
        lin = memref_linear(st, m, [env[s] for s in idx], "memref.load")
        if check_region(st, m.lo, m.hi, lin, "memref.load"):
            lin = np.clip(lin, 0, m.data.size - 1)
        env[r] = m.data[lin]

    return f


def _masked_write(st, data, lin, val):
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


@handler("memref.store")
def _mstore(c, o):
    val, mslot, idx = o.ins[0], o.ins[1], o.ins[2:]

    def f(env, st):
        m = env[mslot]
        lin = memref_linear(st, m, [env[s] for s in idx], "memref.store")
        check_region(st, m.lo, m.hi, lin, "memref.store")
        _masked_write(st, m.data, lin, env[val].astype(m.dtype, copy=False))

    return f


@handler("vector.load", "vector.maskedload")
def _vload(c, o):
    mslot = o.ins[0]
    vt = o.out_types[0]
    mt = o.in_types[0]
    nidx = mt.rank
    idx = o.ins[1:1 + nidx]
    mask_slot = o.ins[1 + nidx] if o.name == "vector.maskedload" else None
    pass_slot = o.ins[2 + nidx] if o.name == "vector.maskedload" else None
    r = o.outs[0]
    vshape = vt.shape

    def f(env, st):
        m = env[mslot]
        if mask_slot is None:
            lin = memref_linear(st, m, [env[s] for s in idx], o.name, vshape)
            check_region(st, m.lo, m.hi, lin, o.name)
            env[r] = m.data[lin]
        else:
            lin, valid = _block_lin_soft(m, [env[s] for s in idx], vshape)
            valid = valid & env[mask_slot]
            check_region(st, m.lo, m.hi, lin, o.name, valid)
            lin = np.where(valid, lin, m.lo.reshape((-1,) + (1,) * len(vshape)))
            env[r] = np.where(valid, m.data[lin], env[pass_slot])

    return f


@handler("vector.store", "vector.maskedstore")
def _vstore(c, o):
    if o.name == "vector.store":
        val, mslot = o.ins[0], o.ins[1]
        idx = o.ins[2:]
        mask_slot = None
        vshape = o.in_types[0].shape
    else:
        mslot = o.ins[0]
        nidx = o.in_types[0].rank
        idx = o.ins[1:1 + nidx]
        mask_slot, val = o.ins[1 + nidx], o.ins[2 + nidx]
        vshape = o.in_types[-1].shape

    def f(env, st):
        m = env[mslot]
        v = env[val].astype(m.dtype, copy=False)
        if mask_slot is None:
            lin = memref_linear(st, m, [env[s] for s in idx], o.name, vshape)
            check_region(st, m.lo, m.hi, lin, o.name)
            _masked_write(st, m.data, lin, v)
        else:
            lin, valid = _block_lin_soft(m, [env[s] for s in idx], vshape)
            valid = valid & env[mask_slot]
            check_region(st, m.lo, m.hi, lin, o.name, valid)
            _write_valid(st, m.data, lin, v, valid)

    return f


def _write_valid(st, data, lin, v, valid):
    shape = np.broadcast_shapes(lin.shape, v.shape, valid.shape)
    if st.mask is not None:
        shape = np.broadcast_shapes(shape, (st.B,) + (1,) * (len(shape) - 1))
        valid = valid & st.mask.reshape((-1,) + (1,) * (len(shape) - 1))
    valid = np.broadcast_to(valid, shape)
    data[np.broadcast_to(lin, shape)[valid]] = np.broadcast_to(v, shape)[valid]


def _block_lin_soft(m: MemRef, idxs, vshape):
    """Linear indices and validity of a block access over the last dims (no error on OOB)."""
    rank = m.rank
    k = len(vshape)
    extra = (1,) * k
    lin = m.offset.reshape((-1,) + extra)
    valid = None
    for d, ix in enumerate(idxs):
        ix = np.asarray(ix, np.int64).reshape((-1,) + extra)
        if d >= rank - k:
            j = d - (rank - k)
            ix = ix + np.arange(vshape[j], dtype=np.int64).reshape((1,) + (1,) * j + (-1,) + (1,) * (k - j - 1))
        sz = m.sizes[:, d].reshape((-1,) + extra)
        v = (ix >= 0) & (ix < sz)
        valid = v if valid is None else valid & v
        lin = lin + ix * m.strides[:, d].reshape((-1,) + extra)
    return lin, valid


def _transfer_setup(o: OpInfo, mt: TypeInfo, vt: TypeInfo):
    pm = o.attr("permutation_map")
    rank = mt.rank
    if pm is None:
        exprs = [("d", rank - len(vt.shape) + j) for j in range(len(vt.shape))]
    else:
        amap = ir.AffineMapAttr(pm).value
        exprs = []
        for e in amap.results:
            if isinstance(e, ir.AffineDimExpr):
                exprs.append(("d", e.position))
            elif isinstance(e, ir.AffineConstantExpr) and e.value == 0:
                exprs.append(("b", None))
            else:
                o.error("simulator: unsupported transfer permutation map")
    in_bounds = None
    if o.has("in_bounds"):
        in_bounds = [str(x).startswith("true") for x in ir.ArrayAttr(o.attr("in_bounds"))]
    return exprs, in_bounds


def _transfer_index(m: MemRef, idxs, exprs, vshape):
    """(lin, valid) of a transfer op: vector dim j sweeps memref dim exprs[j]."""
    k = len(vshape)
    extra = (1,) * k
    rank = m.rank
    offs = {d: np.asarray(idxs[d], np.int64).reshape((-1,) + extra) for d in range(rank)}
    for j, (kind, d) in enumerate(exprs):
        if kind == "d":
            ar = np.arange(vshape[j], dtype=np.int64).reshape((1,) + (1,) * j + (-1,) + (1,) * (k - j - 1))
            offs[d] = offs[d] + ar
    lin = m.offset.reshape((-1,) + extra)
    valid = None
    for d in range(rank):
        ix = offs[d]
        sz = m.sizes[:, d].reshape((-1,) + extra)
        v = (ix >= 0) & (ix < sz)
        valid = v if valid is None else valid & v
        lin = lin + ix * m.strides[:, d].reshape((-1,) + extra)
    return lin, valid


@handler("vector.transfer_read")
def _tread(c, o):
    seg = o.segments()
    mslot = seg[0][0]
    idx = seg[1]
    pad = seg[2][0]
    mask = seg[3][0] if len(seg) > 3 and seg[3] else None
    mt, vt = o.in_types[0], o.out_types[0]
    if mt.kind != "memref":
        o.error("simulator: vector.transfer_read on tensors is not supported")
    exprs, in_bounds = _transfer_setup(o, mt, vt)
    r = o.outs[0]
    vshape = vt.shape

    def f(env, st):
        m = env[mslot]
        lin, valid = _transfer_index(m, [env[s] for s in idx], exprs, vshape)
        if in_bounds is not None and all(in_bounds):
            check_active(st, ~valid, lambda b: "vector.transfer_read: out-of-bounds access of an in_bounds transfer")
        if mask is not None:
            valid = valid & env[mask]
        check_region(st, m.lo, m.hi, lin, "vector.transfer_read", valid)
        lin2 = np.where(valid, lin, m.lo.reshape((-1,) + (1,) * len(vshape)))
        padv = env[pad].reshape((-1,) + (1,) * len(vshape))
        env[r] = np.where(valid, m.data[lin2], padv).astype(vt.dtype)

    return f


@handler("vector.transfer_write")
def _twrite(c, o):
    seg = o.segments()
    val = seg[0][0]
    mslot = seg[1][0]
    idx = seg[2]
    mask = seg[3][0] if len(seg) > 3 and seg[3] else None
    vt, mt = o.in_types[0], o.in_types[1]
    if mt.kind != "memref":
        o.error("simulator: vector.transfer_write on tensors is not supported")
    exprs, in_bounds = _transfer_setup(o, mt, vt)
    vshape = vt.shape

    def f(env, st):
        m = env[mslot]
        lin, valid = _transfer_index(m, [env[s] for s in idx], exprs, vshape)
        if in_bounds is not None and all(in_bounds):
            check_active(st, ~valid, lambda b: "vector.transfer_write: out-of-bounds access of an in_bounds transfer")
        if mask is not None:
            valid = valid & env[mask]
        check_region(st, m.lo, m.hi, lin, "vector.transfer_write", valid)
        _write_valid(st, m.data, lin, env[val].astype(m.dtype, copy=False), valid)

    return f


# ----------------------------------------------------------------------------------------------
# memref views and allocation


def _mixed(o: OpInfo, static_name: str, dyn_slots: list, env):
    """Per-batch int64 arrays (nb,) for a static/dynamic mixed list."""
    vals = o.ints(static_name)
    out = []
    it = iter(dyn_slots)
    for v in vals:
        if v == DYN:
            out.append(np.asarray(env[next(it)], np.int64).reshape(-1))
        else:
            out.append(np.array([v], np.int64))
    return out


def _stack(cols: list) -> np.ndarray:
    if not cols:
        return np.zeros((1, 0), np.int64)
    nb = max(x.shape[0] for x in cols)
    return np.stack([np.broadcast_to(x, (nb,)) for x in cols], axis=1)


@handler("memref.subview")
def _subview(c, o):
    seg = o.segments()
    src = seg[0][0]
    d_off, d_siz, d_str = seg[1], seg[2], seg[3]
    rt = o.out_types[0]
    st_t = o.in_types[0]
    r = o.outs[0]
    static_sizes = o.ints("static_sizes")
    # rank reduction: drop unit dims not present in the result
    keep = list(range(len(static_sizes)))
    if rt.rank < st_t.rank:
        keep = []
        j = 0
        ndrop = st_t.rank - rt.rank
        for d, s in enumerate(static_sizes):
            if j < rt.rank and s == rt.shape[j] and not (s == 1 and ndrop > 0 and
                                                          (st_t.rank - d - 1) >= (rt.rank - j)):
                keep.append(d)
                j += 1
            elif s == 1 and ndrop > 0:
                ndrop -= 1
            elif j < rt.rank:
                keep.append(d)
                j += 1
        if len(keep) != rt.rank:
            o.error("simulator: cannot infer rank-reduced subview dimensions")

    def f(env, st):
        m = env[src]
        offs = _mixed(o, "static_offsets", d_off, env)
        sizes = _mixed(o, "static_sizes", d_siz, env)
        strides = _mixed(o, "static_strides", d_str, env)
        off = m.offset
        new_strides = []
        for d in range(m.rank):
            off = off + offs[d] * m.strides[:, d]
            new_strides.append(strides[d] * m.strides[:, d])
            bad = (offs[d] < 0) | (offs[d] + (sizes[d] - 1) * strides[d] >= m.sizes[:, d])
            bad &= sizes[d] > 0
            if bad.any():
                check_active(st, bad, lambda b, d=d: f"memref.subview: slice [{int(offs[d][min(b, offs[d].shape[0]-1)])}, "
                                                      f"size {int(sizes[d][min(b, sizes[d].shape[0]-1)])}) exceeds dimension {d} "
                                                      f"of size {int(m.sizes[min(b, m.sizes.shape[0]-1), d])}")
        env[r] = m.with_(offset=np.asarray(off, np.int64), sizes=_stack([sizes[d] for d in keep]),
                         strides=_stack([new_strides[d] for d in keep]))

    return f


@handler("memref.dim")
def _mdim(c, o):
    src, di = o.ins
    r = o.outs[0]

    def f(env, st):
        m = env[src]
        d = env[di]
        if d.shape[0] == 1:
            env[r] = m.sizes[:, int(d[0])].copy()
        else:
            env[r] = m.sizes[np.arange(d.shape[0]) % m.sizes.shape[0], d]

    return f


@handler("memref.rank")
def _mrank(c, o):
    return const_result(c, o.outs[0], np.array([o.in_types[0].rank], np.int64))


@handler("memref.cast", "memref.memory_space_cast", "memref.assume_alignment")
def _mcast(c, o):
    src, r = o.ins[0], o.outs[0]

    def f(env, st):
        env[r] = env[src]

    return f


@handler("memref.reinterpret_cast")
def _mreinterpret(c, o):
    seg = o.segments()
    src = seg[0][0]
    d_off, d_siz, d_str = seg[1], seg[2], seg[3]
    r = o.outs[0]

    def f(env, st):
        m = env[src]
        off = _mixed(o, "static_offsets", d_off, env)[0]
        sizes = _mixed(o, "static_sizes", d_siz, env)
        strides = _mixed(o, "static_strides", d_str, env)
        # offsets are relative to the allocation's aligned base pointer
        env[r] = m.with_(offset=m.lo + off, sizes=_stack(sizes), strides=_stack(strides))

    return f


@handler("memref.collapse_shape")
def _mcollapse(c, o):
    groups = [attr_ints(g) for g in ir.ArrayAttr(o.attr("reassociation"))]
    src, r = o.ins[0], o.outs[0]

    def f(env, st):
        m = env[src]
        sizes, strides = [], []
        for g in groups:
            sz = m.sizes[:, g[0]].copy()
            for d in g[1:]:
                sz = sz * m.sizes[:, d]
            sizes.append(sz)
            strides.append(m.strides[:, g[-1]])
        env[r] = m.with_(sizes=_stack(sizes), strides=_stack(strides))

    return f


@handler("memref.expand_shape")
def _mexpand(c, o):
    groups = [attr_ints(g) for g in ir.ArrayAttr(o.attr("reassociation"))]
    src = o.ins[0]
    dyn = o.ins[1:]
    r = o.outs[0]

    def f(env, st):
        m = env[src]
        out_sizes = _mixed(o, "static_output_shape", dyn, env) if o.has("static_output_shape") else \
            [np.array([s], np.int64) for s in o.out_types[0].shape]
        nd = len(out_sizes)
        strides = [None] * nd
        for gi, g in enumerate(groups):
            acc = m.strides[:, gi]
            for d in reversed(g):
                strides[d] = acc
                acc = acc * out_sizes[d]
        env[r] = m.with_(sizes=_stack(out_sizes), strides=_stack(strides))

    return f


@handler("memref.extract_aligned_pointer_as_index")
def _mptr(c, o):
    src, r = o.ins[0], o.outs[0]

    def f(env, st):
        m = env[src]
        env[r] = np.array([m.buf.base_addr], np.int64)

    return f


@handler("memref.extract_strided_metadata")
def _mmeta(c, o):
    src = o.ins[0]
    outs = o.outs
    rank = o.in_types[0].rank

    def f(env, st):
        m = env[src]
        base = m.with_(offset=m.lo, sizes=np.zeros((1, 0), np.int64), strides=np.zeros((1, 0), np.int64))
        env[outs[0]] = base
        env[outs[1]] = m.offset - m.lo
        for d in range(rank):
            env[outs[2 + d]] = m.sizes[:, d].copy()
            env[outs[2 + rank + d]] = m.strides[:, d].copy()

    return f


def _host_alloc(st: ExecState, t: TypeInfo, dyn_vals, name):
    shape = []
    it = iter(dyn_vals)
    for d in t.shape:
        shape.append(int(st.uniform(next(it), "allocation size")) if d == DYN else d)
    n = int(np.prod(shape)) if shape else 1
    buf = st.mem.new(np.zeros(n, t.dtype), name)
    return st.mem.full_view(buf, tuple(shape))


@handler("memref.alloc", "memref.alloca", "gpu.alloc")
def _malloc(c, o):
    t = o.out_types[-1]
    r = o.outs[-1]
    if o.name == "gpu.alloc":
        seg = o.segments()
        dyn = seg[1] if len(seg) > 1 else []
        tok = o.outs[0] if len(o.outs) > 1 else None
    else:
        seg = o.segments()
        dyn = seg[0]
        tok = None
    level = c.level
    loc = o.loc
    name = f"{o.name}@{loc}"
    key = object()  # identifies this op's static allocation within a launch

    def f(env, st):
        if level == "host":
            env[r] = _host_alloc(st, t, [env[s] for s in dyn], name)
        else:
            # kernel allocations are static: one allocation per op and launch, reused when the
            # op executes again (e.g. inside a loop)
            m = st.allocs.get(key)
            if m is None:
                space = "slm" if t.memory_space == 3 else "private"
                if dyn:
                    raise SimError("dynamic-size allocation inside a kernel is not supported")
                m = st.allocs[key] = alloc_in_kernel(st, t, space, loc, name)
            env[r] = m
        if tok is not None:
            env[tok] = None

    return f


@handler("memref.dealloc", "gpu.dealloc")
def _mdealloc(c, o):
    outs = o.outs

    def f(env, st):
        for s in outs:
            env[s] = None

    return f


def _copy_view(st: ExecState, dst: MemRef, src: MemRef, what: str):
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


@handler("memref.copy")
def _mcopy(c, o):
    s, d = o.ins

    def f(env, st):
        _copy_view(st, env[d], env[s], "memref.copy")

    return f


@handler("gpu.memcpy")
def _gmemcpy(c, o):
    ins = o.ins
    d, s = ins[-2], ins[-1]
    outs = o.outs

    def f(env, st):
        _copy_view(st, env[d], env[s], "gpu.memcpy")
        for x in outs:
            env[x] = None

    return f


@handler("gpu.memset")
def _gmemset(c, o):
    d, v = o.ins[-2], o.ins[-1]
    outs = o.outs

    def f(env, st):
        m = env[d]
        shape = m.uniform_static()[1]
        lin = memref_linear(st, m, [np.zeros(1, np.int64)] * len(shape), "gpu.memset", shape)
        m.data[lin] = env[v].astype(m.dtype)[0]
        for x in outs:
            env[x] = None

    return f


@handler("memref.global")
def _mglobal(c, o):
    return None


@handler("memref.get_global")
def _mget_global(c, o):
    name = str(o.attr("name")).lstrip("@")
    t = o.out_types[0]
    r = o.outs[0]
    sim = c.sim

    def f(env, st):
        v = sim._global_bufs.get(name)
        if v is None:
            gop = sim._globals.get(name)
            if gop is None:
                raise SimError(f"memref.get_global: @{name} not found")
            init = gop.attributes["initial_value"] if "initial_value" in gop.attributes else None
            if init is None or str(init) == "unit":
                data = np.zeros(t.shape, t.dtype)
            else:
                data = dense_value(init, t)
            buf = st.mem.new(data, f"global @{name}")
            v = sim._global_bufs[name] = st.mem.full_view(buf, t.shape)
        env[r] = v

    return f


_ATOMIC = {
    "addf": np.add, "addi": np.add, "mulf": np.multiply, "muli": np.multiply, "maximumf": np.maximum,
    "minimumf": np.minimum, "maxnumf": np.fmax, "minnumf": np.fmin, "maxs": np.maximum, "mins": np.minimum,
    "maxu": np.maximum, "minu": np.minimum, "ori": np.bitwise_or, "andi": np.bitwise_and,
    "xori": np.bitwise_xor, "assign": None,
}


def atomic_apply(data: np.ndarray, lin: np.ndarray, val: np.ndarray, kind: str):
    """Apply an atomic RMW with duplicates handled (unbuffered); returns old values (pre-op gather)."""
    old = data[lin].copy()
    if kind == "assign":
        data[lin] = val
        return old
    fn = _ATOMIC.get(kind)
    if fn is None:
        raise SimError(f"unsupported atomic kind '{kind}'")
    if kind in ("maxu", "minu") and data.dtype.kind == "i":
        u = data.view(np.dtype(f"u{data.dtype.itemsize}"))
        fn.at(u, lin, _unsigned(val))
    elif data.dtype == BF16 or data.dtype == np.float16:
        # ufunc.at on ml_dtypes is not guaranteed: serialise in f32 per unique address
        tmp = data.astype(np.float32)
        fn.at(tmp, lin, val.astype(np.float32))
        uniq = np.unique(lin)
        data[uniq] = tmp[uniq].astype(data.dtype)
    else:
        fn.at(data, lin, val.astype(data.dtype))
    return old


@handler("memref.atomic_rmw")
def _matomic(c, o):
    kind = enum_text(o.attr("kind"))
    val, mslot = o.ins[0], o.ins[1]
    idx = o.ins[2:]
    r = o.outs[0]

    def f(env, st):
        m = env[mslot]
        lin = memref_linear(st, m, [env[s] for s in idx], "memref.atomic_rmw")
        check_region(st, m.lo, m.hi, lin, "memref.atomic_rmw")
        v = np.broadcast_to(env[val], np.broadcast_shapes(lin.shape, env[val].shape, (st.B,)))
        lin = np.broadcast_to(lin, v.shape)
        if st.mask is not None:
            mm = np.broadcast_to(st.mask, v.shape)
            old = np.zeros(v.shape, m.dtype)
            old[mm] = atomic_apply(m.data, lin[mm], v[mm], kind)
        else:
            old = atomic_apply(m.data, lin, v, kind)
        if st.trace is not None:
            st.trace.atomics += st.active_count()
        env[r] = old

    return f


# ----------------------------------------------------------------------------------------------
# gpu kernel intrinsics


def _dim(o: OpInfo) -> int:
    return "xyz".index(enum_text(o.attr("dimension")))


@handler("gpu.block_id")
def _block_id(c, o):
    d, r = _dim(o), o.outs[0]

    def f(env, st):
        env[r] = st.block_id[d]

    return f


@handler("gpu.grid_dim")
def _grid_dim(c, o):
    d, r = _dim(o), o.outs[0]

    def f(env, st):
        env[r] = np.array([st.grid[d]], np.int64)

    return f


@handler("gpu.block_dim")
def _block_dim(c, o):
    d, r = _dim(o), o.outs[0]

    def f(env, st):
        env[r] = np.array([st.block[d]], np.int64)

    return f


@handler("gpu.subgroup_id")
def _sg_id(c, o):
    r = o.outs[0]
    if c.level == "workgroup":
        o.error("gpu.subgroup_id in a kernel executed at work-group level (its XeTile ops carry wg_map)")

    def f(env, st):
        env[r] = st.sg_id

    return f


@handler("gpu.num_subgroups")
def _num_sg(c, o):
    r = o.outs[0]

    def f(env, st):
        env[r] = np.array([st.sg_per_wg], np.int64)

    return f


@handler("gpu.subgroup_size")
def _sg_size(c, o):
    return const_result(c, o.outs[0], np.array([SUBGROUP_SIZE], np.int64))


@handler("gpu.lane_id")
def _lane_id(c, o):
    r = o.outs[0]

    def f(env, st):
        env[r] = st.lane

    return f


@handler("gpu.thread_id", "gpu.global_id")
def _thread_id(c, o):
    d, r = _dim(o), o.outs[0]
    glob = o.name == "gpu.global_id"

    def f(env, st):
        tx, ty, tz = st.block
        lid = st.local_id
        t = (lid % tx, (lid // tx) % ty, lid // (tx * ty))[d]
        if glob:
            t = st.block_id[d] * st.block[d] + t
        env[r] = t

    return f


@handler("gpu.barrier")
def _gpu_barrier(c, o):
    def f(env, st):
        if st.level == "host":
            raise SimError("gpu.barrier outside a kernel")
        m = st.mask
        if m is not None and st.level != "workgroup":
            per = st.B // st.nwg
            cnt = m.reshape(st.nwg, per).sum(axis=1)
            if st.level == "simt" and st.block[0] * st.block[1] * st.block[2] % SUBGROUP_SIZE:
                full = (st.local_id < st.block[0] * st.block[1] * st.block[2]).reshape(st.nwg, per).sum(axis=1)
            else:
                full = np.full(st.nwg, per)
            bad = np.nonzero((cnt != 0) & (cnt != full))[0]
            if bad.size:
                w = int(bad[0])
                raise SimError(f"gpu.barrier reached by only {int(cnt[w])} of {int(full[w])} "
                               f"{'work-items' if st.level == 'simt' else 'subgroups'} of work-group {w} "
                               f"(divergent control flow: the barrier would deadlock)")
        st.barrier_count += 1
        if st.trace is not None:
            st.trace.barriers += 1

    return f


@handler("gpu.printf", "vector.print", "gpu.dynamic_shared_memory")
def _noop(c, o):
    if o.name == "gpu.dynamic_shared_memory":
        o.error("simulator: gpu.dynamic_shared_memory is not supported")
    return None


def _lanes(st: ExecState, x: np.ndarray) -> np.ndarray:
    """View a per-work-item value (B, ...) as (B/16, 16, ...)."""
    x = np.broadcast_to(x, (st.B,) + x.shape[1:])
    return x.reshape((st.B // SUBGROUP_SIZE, SUBGROUP_SIZE) + x.shape[1:])


@handler("gpu.shuffle")
def _shuffle(c, o):
    mode = enum_text(o.attr("mode"))
    val, off, width = o.ins
    r_val, r_ok = o.outs

    def f(env, st):
        if st.level != "simt":
            raise SimError("gpu.shuffle outside a SIMT kernel")
        v = _lanes(st, env[val])
        lane = st.lane.reshape(-1, SUBGROUP_SIZE)
        o_ = _lanes(st, np.asarray(env[off], np.int64))
        w = int(st.uniform(env[width], "shuffle width"))
        if mode == "xor":
            src = lane ^ o_
        elif mode == "down":
            src = lane + o_
        elif mode == "up":
            src = lane - o_
        else:
            src = o_
        ok = (src >= 0) & (src < w)
        src = np.where(ok, src, lane)
        res = np.take_along_axis(v, src.reshape(src.shape + (1,) * (v.ndim - 2)), axis=1)
        env[r_val] = res.reshape((st.B,) + v.shape[2:])
        env[r_ok] = ok.reshape(-1)

    return f


@handler("gpu.subgroup_reduce")
def _sg_reduce(c, o):
    kind = enum_text(o.attr("op"))
    red = {"add": np.add, "mul": np.multiply, "minsi": np.minimum, "maxsi": np.maximum, "minui": np.minimum,
           "maxui": np.maximum, "minnumf": np.fmin, "maxnumf": np.fmax, "minimumf": np.minimum,
           "maximumf": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[kind]
    val, r = o.ins[0], o.outs[0]
    dt = o.out_types[0].dtype
    size = o.attr("cluster_size")
    stride = o.attr("cluster_stride")
    size = ir.IntegerAttr(size).value if size is not None else SUBGROUP_SIZE
    stride = ir.IntegerAttr(stride).value if stride is not None else 1
    if size * stride > SUBGROUP_SIZE or SUBGROUP_SIZE % (size * stride):
        o.error(f"gpu.subgroup_reduce: clusters of {size} lanes with stride {stride} do not tile a "
                f"{SUBGROUP_SIZE}-lane subgroup")

    def f(env, st):
        v = _lanes(st, env[val])
        if st.mask is not None:  # inactive lanes do not contribute
            m = _lanes(st, st.mask).reshape(v.shape[:2] + (1,) * (v.ndim - 2))
            if kind in ("add", "xor", "or"):
                fill = np.zeros((), v.dtype)
            elif kind == "mul":
                fill = np.ones((), v.dtype)
            else:  # idempotent kinds: any active lane's value is neutral
                first = np.argmax(m.reshape(m.shape[0], -1), axis=1)
                fill = v[np.arange(v.shape[0]), first][:, None]
            v = np.where(m, v, fill)
        x = _up(v)
        if kind in ("minui", "maxui"):          # unsigned order on the integer bits
            x = x.view(np.dtype(f"u{x.dtype.itemsize}"))
        # lanes [subgroups, 16] -> [subgroups, 16 / (size * stride), size, stride]: clusters on axis 2
        g = x.reshape((x.shape[0], SUBGROUP_SIZE // (size * stride), size, stride) + x.shape[2:])
        s = np.broadcast_to(red.reduce(g, axis=2, keepdims=True), g.shape).reshape(x.shape)
        if kind in ("minui", "maxui"):
            s = s.view(v.dtype)
        env[r] = s.astype(dt).reshape((-1,) + x.shape[2:])

    return f


@handler("memref.transpose")
def _mtranspose(c, o):
    amap = ir.AffineMapAttr(o.attr("permutation")).value
    perm = []
    for e in amap.results:
        if not isinstance(e, ir.AffineDimExpr):
            o.error("simulator: memref.transpose needs a permutation map")
        perm.append(e.position)
    src, r = o.ins[0], o.outs[0]

    def f(env, st):
        m = env[src]
        env[r] = m.with_(sizes=m.sizes[:, perm], strides=m.strides[:, perm])

    return f


@handler("vector.shuffle")
def _vshuffle(c, o):
    a, b = o.ins
    mask = o.ints("mask")
    r = o.outs[0]

    def f(env, st):
        x, y = env[a], env[b]
        if x.ndim == 1:
            x, y = x[:, None], y[:, None]
        nb = max(x.shape[0], y.shape[0])
        x = np.broadcast_to(x, (nb,) + x.shape[1:])
        y = np.broadcast_to(y, (nb,) + y.shape[1:])
        cat = np.concatenate([x, y], axis=1)
        env[r] = cat[:, mask]

    return f


@handler("vector.interleave")
def _vinterleave(c, o):
    a, b = o.ins
    r = o.outs[0]

    def f(env, st):
        x, y = env[a], env[b]
        nb = max(x.shape[0], y.shape[0])
        x = np.broadcast_to(x, (nb,) + x.shape[1:])
        y = np.broadcast_to(y, (nb,) + y.shape[1:])
        env[r] = np.stack([x, y], axis=-1).reshape(x.shape[:-1] + (2 * x.shape[-1],))

    return f


@handler("vector.deinterleave")
def _vdeinterleave(c, o):
    a = o.ins[0]
    r0, r1 = o.outs

    def f(env, st):
        x = env[a]
        env[r0] = x[..., 0::2]
        env[r1] = x[..., 1::2]

    return f
