"""Runner utilities of IMEX's integration programs, written here in numpy (our implementation of the
documented behaviour of IMEX's `ImexRunnerUtils`, output text included):

    printAllclose{F32,F16,BF16,I32}(M, N)   "[ALLCLOSE: TRUE]" / "[ALLCLOSE: FALSE]": every pair of
                                           elements (row-major, up to the shorter) has
                                           |m - n| <= 1e-4 + 1e-3 * |n| (in f32; NaN passes)
    allclose{F32,F16,BF16}(M, N) -> i1      the same test, returned
    printMaxError{F32,F16,BF16}(M, N)      "Max absolute error E at idx=I (i=X, j=Y)" and
                                           "Max relative error ..." (first maximum; |m-n| / max(|m|,|n|))
    fillResource1D{F32,F16,BF16}(M, v)     every element = v
    fillResource1DRandom{F32,F16,BF16}(M, lo, hi, int)  uniform in [lo, hi) (truncated toward 0 when
                                           `int`); seeded (XE_RUN_SEED, default 0), not random_device
    gemm{F16F16F32,F16F16F16,BF16BF16F32}(A, B, C)  C += A x B in f32, k in increasing order (F16F16F16
                                           rounds the result through f16)

Each is called through the C interface (`llvm.emit_c_interface` on the declaration): memrefs as
descriptor pointers, f32 as float, i1 as bool. Output goes to stdout after flushing C's stdio, so
it interleaves correctly with printMemref* (upstream's runner-utils libraries).
"""
from __future__ import annotations

import ctypes
import os
import sys

import ml_dtypes
import numpy as np

from ...diagnostics import DiagnosticError
from . import descriptors

_LIBC = ctypes.CDLL(None)


def flush_c() -> None:
    """Flush C's stdio buffers (printMemref's output) before Python writes."""
    _LIBC.fflush(None)


def emit(text: str) -> None:
    flush_c()
    sys.stdout.write(text)
    sys.stdout.flush()


def _g(x: float) -> str:
    """A double as C++'s default ostream formatting prints it (%g, 6 significant digits)."""
    return "%g" % x


def _close_ok(m: np.ndarray, n: np.ndarray) -> bool:
    k = min(m.size, n.size)
    a = m[:k].astype(np.float32)
    b = n[:k].astype(np.float32)
    return not bool(np.any(np.abs(a - b) > np.float32(1e-4) + np.float32(1e-3) * np.abs(b)))


def print_allclose(m, n):
    emit("[ALLCLOSE: TRUE]\n" if _close_ok(m, n) else "[ALLCLOSE: FALSE]\n")


def allclose(m, n):
    return _close_ok(m, n)


def print_max_error(m, n):
    k = min(m.size, n.size)
    a = m[:k].astype(np.float64)
    b = n[:k].astype(np.float64)
    delta = np.abs(a - b)
    with np.errstate(all="ignore"):
        rel = delta / np.fmax(np.abs(a), np.abs(b))
    lines = []
    for what, err in (("absolute", delta), ("relative", rel)):
        e = np.where(np.isnan(err), -1.0, err)     # NaN never raises the maximum
        i = int(np.argmax(e)) if k else 0               # the first maximum
        if k and e[i] > 0:
            lines.append(f"Max {what} error {_g(err[i])} at idx={i} (i={_g(a[i])}, j={_g(b[i])})\n")
        else:
            lines.append(f"Max {what} error 0 at idx=0 (i=inf, j=inf)\n")
    emit("".join(lines))


def fill(m_strided, value):
    m_strided.array()[...] = np.float32(value).astype(m_strided.flat.dtype)


_RNG = None


def fill_random(m_strided, lower, upper, gen_int):
    global _RNG
    if _RNG is None:
        _RNG = np.random.default_rng(int(os.environ.get("XE_RUN_SEED", "0")))
    shape = m_strided.sizes
    vals = _RNG.uniform(float(lower), float(upper), size=shape)
    if gen_int:
        vals = np.trunc(vals)
    m_strided.array()[...] = vals.astype(np.float32).astype(m_strided.flat.dtype) if not gen_int \
        else vals.astype(m_strided.flat.dtype)


def gemm(a_s, b_s, c_s, round_f16=False):
    a, b, c = a_s.array(), b_s.array(), c_s.array()
    if a.ndim != 2 or b.ndim != 2 or c.ndim != 2:
        emit(f"Expecting 2D memrefs, got A rank: {a.ndim}, B rank: {b.ndim}, C rank: {c.ndim}\n")
        return
    if a.shape[1] != b.shape[0] or a.shape[0] != c.shape[0] or b.shape[1] != c.shape[1]:
        emit(f"Incompatible matrix dimensions: A: [{a.shape[0]}, {a.shape[1]}], B: [{b.shape[0]}, {b.shape[1]}], "
             f"C: [{c.shape[0]}, {c.shape[1]}]\n")
        return
    if any(s.strides != (s.sizes[1], 1) for s in (a_s, b_s, c_s)):
        emit("Expecting A strides to be [M, 1], B strides to be [K, 1], C strides to be [M, 1]\n")
        return
    af, bf = a.astype(np.float32), b.astype(np.float32)
    acc = c.astype(np.float32)
    for k in range(af.shape[1]):       # f32 products and sums, k in increasing order
        acc += np.outer(af[:, k], bf[k, :])
    if round_f16:
        acc = acc.astype(np.float16).astype(np.float32)
    c[...] = acc


# name -> (python function, argument spec): 'M<elem>' a memref whose elements are read (flat, row
# major) or 'S<elem>' one passed as a strided view; 'f32' / 'i1' scalars; result type or None
_F = {"F32": "f32", "F16": "f16", "BF16": "bf16", "I32": "i32"}
UTILS: dict = {}
for _s, _e in _F.items():
    UTILS[f"printAllclose{_s}"] = (print_allclose, [f"M{_e}", "M*"], None)
    if _s != "I32":
        UTILS[f"allclose{_s}"] = (allclose, [f"M{_e}", "M*"], "i1")
        UTILS[f"printMaxError{_s}"] = (print_max_error, [f"M{_e}", f"M{_e}"], None)
        UTILS[f"fillResource1D{_s}"] = (fill, [f"S{_e}", "f32"], None)
        UTILS[f"fillResource1DRandom{_s}"] = (fill_random, [f"S{_e}", "f32", "f32", "i1"], None)
UTILS["gemmF16F16F32"] = (gemm, ["Sf16", "Sf16", "Sf32"], None)
UTILS["gemmF16F16F16"] = (lambda a, b, c: gemm(a, b, c, True), ["Sf16", "Sf16", "Sf32"], None)
UTILS["gemmBF16BF16F32"] = (gemm, ["Sbf16", "Sbf16", "Sf32"], None)

_SCALARS = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i1": ctypes.c_bool, "i32": ctypes.c_int32,
            "i64": ctypes.c_int64, "index": ctypes.c_int64}


class UtilSignatureError(ValueError):
    pass


def make_callback(name: str, inputs, results, on_error, before=None, check=None):
    """A ctypes callback implementing runner utility `name` for a declaration with `inputs` /
    `results` (TypeInfo lists); UtilSignatureError when the declaration does not fit. `before()`
    is called first on every call, `check(strided, what)` on every memref argument (it raises
    DiagnosticError for one that must not be read, e.g. a freed device buffer)."""
    fn, spec, result = UTILS[name]
    if len(inputs) != len(spec):
        raise UtilSignatureError(f"@{name} takes {len(spec)} arguments, the declaration has {len(inputs)}")
    for i, (want, t) in enumerate(zip(spec, inputs)):
        if want[0] in "MS":
            elem = want[1:]
            if t.kind != "memref" or (elem != "*" and t.elem != elem):
                what = "a memref" if elem == "*" else f"a memref of {elem}"
                raise UtilSignatureError(f"@{name}: argument {i} must be {what}, the declaration has {t.text}")
        elif t.text != want:
            raise UtilSignatureError(f"@{name}: argument {i} must be {want}, the declaration has {t.text}")
    if (result is None) != (not results) or (results and results[0].text != result):
        raise UtilSignatureError(f"@{name} returns {result or 'nothing'}")
    ctypes_args = [ctypes.c_void_p if t.kind == "memref" else _SCALARS[t.text] for t in inputs]
    restype = _SCALARS[result] if result else None

    def decode(raw, t, how, i):
        if t.shape is None or "*" in t.text:
            s = descriptors.unranked(raw, t.dtype)
        else:
            s = descriptors.ranked(raw, len(t.shape), t.dtype)
        if check is not None:
            check(s, f"runner utility @{name}: argument {i}")
        return s if how == "S" else s.elements()

    def callback(*raw):
        try:
            if before is not None:
                before()
            vals = [decode(r, t, w[0], i) if t.kind == "memref" else r
                    for i, (r, t, w) in enumerate(zip(raw, inputs, spec))]
            out = fn(*vals)
            return bool(out) if restype is not None else None
        except BrokenPipeError:         # the reader of stdout has gone (e.g. `| head`): end quietly
            os._exit(1)
        except DiagnosticError as e:
            on_error("\n".join(d.format() for d in e.diagnostics))
        except BaseException as e:      # exceptions cannot cross the JIT's frames
            on_error(f"runner utility @{name}: {type(e).__name__}: {e}")

    return ctypes.CFUNCTYPE(restype, *ctypes_args)(callback)


_ = ml_dtypes   # bf16 arrays are ml_dtypes.bfloat16 (through TypeInfo.dtype)
