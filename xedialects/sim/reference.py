"""Reference runner: executes host linalg-on-memref functions on the CPU with upstream MLIR's
ExecutionEngine, and `compare` checks simulator results against it with element-type-aware
tolerances.

The module is never modified: the entry function and the host functions it calls are printed and
re-parsed into a fresh upstream context (gpu modules, kernels and our dialect ops are dropped), the
entry gets `llvm.emit_c_interface`, tensors computed in between are bufferized (upstream
one-shot-bufferize), `linalg.softmax` is decomposed (`softmax_reference.py`), large contractions
are tiled and vectorized (`reference_fast.py`; GEMM-like functions also run by blocks of rows and
columns, `reference_slices.py`), and the clone is lowered with linalg-to-loops → scf-to-cf →
(arith-expand for bf16) → *-to-llvm (math ops without an LLVM intrinsic, e.g. tanh and erf, call
libm).
"""
from __future__ import annotations

import ctypes
import re

import numpy as np
from mlir import ir

from ..diagnostics import Diagnostic, DiagnosticError
from .i4_memrefs import check_range
from .typeinfo import BF16, parse_type

# upstream MLIR's lowering of a CPU program to the LLVM dialect (also the whole-program host JIT's)
PIPELINE = ("builtin.module("
            "func.func(convert-linalg-to-loops),"
            "expand-strided-metadata,"
            "lower-affine,"
            "convert-scf-to-cf,"
            "func.func(arith-expand{include-bf16=true}),"
            "convert-math-to-llvm,"
            "convert-math-to-libm,"
            "convert-vector-to-llvm,"
            "convert-arith-to-llvm,"
            "convert-index-to-llvm,"
            "finalize-memref-to-llvm,"
            "convert-func-to-llvm,"
            "convert-cf-to-llvm,"
            "convert-ub-to-llvm,"
            "reconcile-unrealized-casts)")

_ENGINE_CACHE: dict = {}
_TF32 = re.compile(r"(?:(?<=[^\w$.@%-])|(?<=[\d?]x))tf32(?![\w$.-])")   # the type, also in memref<4xtf32>


def _err(msg: str):
    raise DiagnosticError([Diagnostic("error", msg)])


def _top_ops(module):
    body = module.body if hasattr(module, "body") else module.regions[0].blocks[0]
    return [op.operation for op in body.operations]


def _sym(op):
    if "sym_name" in op.attributes:
        return ir.StringAttr(op.attributes["sym_name"]).value
    return None


_CALL_RE = re.compile(r"(?:func\.call|call)\s+@([\w$.-]+)|callee\s*=\s*@([\w$.-]+)")


def extract_host_functions(module_or_text, entry: str) -> str:
    """Text of a module holding `entry` and the host functions/globals it (transitively) references."""
    if isinstance(module_or_text, str):
        text = module_or_text
        with ir.Context() as ctx, ir.Location.unknown():
            ctx.allow_unregistered_dialects = True
            try:
                mod = ir.Module.parse(text)
            except Exception:
                from .testing import parse_module

                mod = parse_module(text)
            return extract_host_functions(mod, entry)
    ops = {}
    globs = []
    for op in _top_ops(module_or_text):
        n = _sym(op)
        if op.name == "func.func" and n is not None:
            ops[n] = op
        elif op.name == "memref.global":
            globs.append(op)
    if entry not in ops:
        _err(f"reference: function '@{entry}' not found")
    need, todo, texts = set(), [entry], []
    while todo:
        n = todo.pop()
        if n in need:
            continue
        need.add(n)
        op = ops.get(n)
        if op is None:
            _err(f"reference: called function '@{n}' not found")
        t = op.get_asm(print_generic_op_form=False)
        if "gpu.launch" in t or "xetile." in t or "xegpu." in t:
            _err(f"reference: function '@{n}' is not a host linalg function (it uses gpu/xetile/xegpu ops)")
        for m in _CALL_RE.finditer(t):
            todo.append(m.group(1) or m.group(2))
    for n in sorted(need):
        texts.append(ops[n].get_asm(print_generic_op_form=False))
    for g in globs:
        texts.append(g.get_asm(print_generic_op_form=False))
    return "module {\n" + "\n".join(texts) + "\n}\n"


def _clone(text: str, entry: str):
    """The upstream clone of `text` in the current context, ready to lower: softmax decomposed,
    the entry's C interface on; (module, argument TypeInfos, result TypeInfos)."""
    # tf32 lives in memory as 32-bit floats and LLVM has no tf32 type: the reference computes
    # such functions in f32 (compare() applies the tf32 tolerance)
    mod = ir.Module.parse(_TF32.sub("f32", text))
    if "tensor<" in text:
        _bufferize(mod, entry)
    if "linalg.softmax" in text:
        from .softmax_reference import decompose_softmax

        problems = decompose_softmax(mod)
        if problems:
            _err(f"reference: upstream MLIR cannot compile @{entry} for the CPU: {problems[0]}")
    for op in mod.body.operations:
        op = op.operation
        if op.name == "func.func" and _sym(op) == entry:
            op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            arg_types = [parse_type(t) for t in ft.inputs]
            ret_types = [parse_type(t) for t in ft.results]
    if len(ret_types) > 1 or any(t.kind != "memref" for t in ret_types):
        _err("reference: entry functions may return at most one memref (use out-parameters)")
    return mod, arg_types, ret_types


# a memref function computing on tensors in between (bufferization.to_tensor ...
# materialize_in_destination): upstream's bufferization, its buffers freed at the end
BUFFERIZE = "builtin.module(one-shot-bufferize,buffer-deallocation-pipeline,convert-bufferization-to-memref)"


def _bufferize(mod, entry: str) -> None:
    from mlir import passmanager

    try:
        passmanager.PassManager.parse(BUFFERIZE).run(mod.operation)
    except Exception as e:      # MLIR reports a failed pass as a bare exception
        _err(f"reference: upstream MLIR cannot bufferize @{entry} for the CPU: {str(e).strip()}")


def _fast_lowered(text: str, entry: str, fast: bool | None):
    """The clone (as `_clone`) with its large contractions (with `fast`, all of them) tiled and
    vectorized (reference_fast), lowered to LLVM; None when it has none, when `fast` is False, or
    when upstream refuses the schedule (the loops then run)."""
    from .sub_byte_memrefs import run_lowering
    from .reference_fast import VECTOR_LOWERING, vectorize_contractions

    if fast is False:
        return None
    clone = _clone(text, entry)
    try:
        if not vectorize_contractions(clone[0], 0 if fast else None):
            return None
        pipeline = PIPELINE.replace("func.func(convert-linalg-to-loops),",
                                    "func.func(convert-linalg-to-loops)," + VECTOR_LOWERING)
        return None if run_lowering(clone[0], pipeline, text) else clone
    except Exception:            # e.g. an op the vectorizer refuses: the scalar loops compute it
        return None


def _compile(text: str, entry: str, fast: bool | None = None):
    """(context, lowered module, ExecutionEngine with the code generated, argument and result
    TypeInfos, whether the fast path was taken); `fast`: as `_fast_lowered`. Cached."""
    key = (text, entry, fast)
    hit = _ENGINE_CACHE.get(key)
    if hit is not None:
        return hit
    from mlir import execution_engine

    from .sub_byte_memrefs import run_lowering

    ctx = ir.Context()
    with ctx, ir.Location.unknown():
        vectorized = _fast_lowered(text, entry, fast)
        mod, arg_types, ret_types = vectorized or _clone(text, entry)
        try:
            problems = [] if vectorized else run_lowering(mod, PIPELINE, text)   # i1 memrefs stored as bytes
            ee = None if problems else execution_engine.ExecutionEngine(mod, opt_level=2)
            if ee is not None:
                ee.raw_lookup("_mlir_ciface_" + entry)     # LLVM generates the code now, not at the first call
        except Exception as e:          # MLIR reports a failed lowering as a bare exception
            _err(f"reference: upstream MLIR cannot compile @{entry} for the CPU: {str(e).strip()}")
        if problems:
            _err(f"reference: upstream MLIR cannot compile @{entry} for the CPU: {problems[0].message}")
    hit = (ctx, mod, ee, arg_types, ret_types, vectorized is not None)
    _ENGINE_CACHE[key] = hit
    return hit


def _result_descriptor(t):
    """An empty ranked memref descriptor for a returned memref and its numpy conversion."""
    import ctypes as C

    from mlir import runtime as rt

    dt = np.dtype(t.dtype)
    ct = C.c_uint16 if dt.itemsize == 2 and dt.kind in "fV" else np.ctypeslib.as_ctypes_type(dt)
    desc = rt.make_nd_memref_descriptor(len(t.shape), ct)()

    def to_numpy():
        arr = np.array(rt.ranked_memref_to_numpy(ctypes.pointer(desc)), copy=True)
        return arr.view(dt) if arr.dtype != dt else arr

    return ctypes.pointer(ctypes.pointer(desc)), to_numpy


_SCALAR_CTYPES = {np.dtype(np.float32): ctypes.c_float, np.dtype(np.float64): ctypes.c_double,
                  np.dtype(np.int8): ctypes.c_int8, np.dtype(np.int16): ctypes.c_int16,
                  np.dtype(np.int32): ctypes.c_int32, np.dtype(np.int64): ctypes.c_int64,
                  np.dtype(np.uint8): ctypes.c_uint8, np.dtype(np.uint16): ctypes.c_uint16,
                  np.dtype(np.uint32): ctypes.c_uint32, np.dtype(np.uint64): ctypes.c_uint64,
                  np.dtype(np.bool_): ctypes.c_bool}


def prepare(module_or_text, entry: str) -> str:
    """Compile host function `entry` for the CPU now (errors now, not after a simulation); returns
    the text `run_reference` takes to run it (the module may then change)."""
    text = extract_host_functions(module_or_text, entry)
    _compile(text, entry)
    return text


def run_reference(module_or_text, entry: str, args, *, returns: bool = False, checked: dict | None = None,
                  jobs: int = 1):
    """Run host function `entry` (linalg on memrefs) on copies of `args`; returns the arrays after
    the call (same order), and with `returns=True` the pair (arrays, returned arrays) for an entry
    returning a memref (e.g. a bufferized tensor function). bf16 arrays are ml_dtypes.bfloat16.

    A GEMM-like entry (reference_slices) runs by blocks: with `checked` ({argument index: flat
    bool mask}) only the blocks of rows and columns holding the masked elements (the others keep
    the arguments' values), else in `jobs` row blocks on parallel threads (the JIT-compiled code
    runs without the GIL). Each element is computed as in the whole function."""
    from . import progress

    text = extract_host_functions(module_or_text, entry)
    if not returns:
        done = _run_blocked(text, entry, args, checked, jobs)
        if done is not None:
            return done
    with progress.bar(f"CPU reference @{entry}", 1, unit="run") as bar, bar.ticking():
        out = _invoke(text, entry, args, returns)
        bar.update(1)
    return out


BLOCK = 128                    # rows and columns of a block a sampled check computes
_PARALLEL_MIN_ELEMENTS = 1 << 22       # arguments below 2048 x 2048 run whole on one thread (a second
#                                      compile of the block function costs more than the thread saves)


def _run_blocked(text: str, entry: str, args, checked, jobs: int):
    """run_reference by blocks (its docstring); None when the entry cannot run so or need not."""
    from concurrent.futures import ThreadPoolExecutor

    from . import progress
    from .reference_slices import block_text, blocks, index, plan

    if checked is None and (jobs < 2 or not _large(args)):
        return None
    p = plan(text, entry)
    if p is None:
        return None
    _, _, _, arg_types, _, fast = _compile(text, entry)
    if len(args) != len(arg_types):
        _err(f"reference: @{entry} takes {len(arg_types)} arguments, {len(args)} given")
    arrays = [np.array(np.asarray(a).astype(t.dtype), copy=True, order="C") for a, t in zip(args, arg_types)]
    if checked is not None:
        nr, nc = min(BLOCK, p.rows), min(BLOCK, p.cols)
        starts = blocks(p, checked, [np.shape(a) for a in arrays], BLOCK)
        if starts is None:
            return None
    else:
        per_job = -(-p.rows // jobs)
        nr, nc = min(p.rows, -(-per_job // 32) * 32), p.cols      # a multiple of the register tiles
        starts = sorted({(min(r, p.rows - nr), 0) for r in range(0, p.rows, nr)})
    btext = block_text(text, entry, p, nr, nc)
    _compile(btext, entry, fast)           # once, before the threads; as the whole function

    def one(start):      # blocks read the arguments as given: the last block may overlap the one before
        idx = [index(p, i, a.ndim, start[0], nr, start[1], nc) if p.dims[i] is not None else None
               for i, a in enumerate(arrays)]
        return idx, _invoke(btext, entry, [a[k] if k is not None else a for a, k in zip(arrays, idx)], False, fast)

    results = [a.copy() for a in arrays]
    with progress.bar(f"CPU reference @{entry}", len(starts), unit="block") as bar, bar.ticking(), \
            ThreadPoolExecutor(max(1, jobs)) as pool:
        for idx, outs in pool.map(one, starts):
            for r, k, o in zip(results, idx, outs):
                if k is not None:
                    r[k] = o
            bar.update(1)
    return results


def _large(args) -> bool:
    return max((np.size(a) for a in args), default=0) >= _PARALLEL_MIN_ELEMENTS


def _invoke(text: str, entry: str, args, returns: bool, fast: bool | None = None):
    """run_reference of the whole function `text` (extract_host_functions' form), one thread;
    `fast` as `_compile`."""
    from mlir import runtime as rt

    from .strided_args import laid_out

    ctx, mod, ee, arg_types, ret_types, _ = _compile(text, entry, fast)
    if len(args) != len(arg_types):
        _err(f"reference: @{entry} takes {len(arg_types)} arguments, {len(args)} given")
    arrays, ptrs = [], []
    for t, a in zip(arg_types, args):
        if t.kind == "memref":
            arr = np.array(np.asarray(a).astype(t.dtype), copy=True, order="C")
            if t.elem == "i4":       # one value per byte, as the lowering stores i4 memrefs (sub_byte_memrefs.py)
                check_range(arr, f"reference: {t.text}")
            arr, base, offset = laid_out(arr, t)    # at the strides and offset of its type
            arrays.append(arr)
            view = base.view(np.uint16) if base.dtype == BF16 else base
            if view.dtype == np.bool_:
                view = view.view(np.uint8)
            desc = rt.get_ranked_memref_descriptor(view)
            desc.offset = offset
            ptrs.append(ctypes.pointer(ctypes.pointer(desc)))
        elif t.kind == "scalar":
            v = np.asarray(a).astype(t.dtype)
            arrays.append(v)
            if v.dtype.itemsize == 2 and v.dtype.kind in "fV":     # f16 / bf16: passed as their bits
                ptrs.append(ctypes.pointer(ctypes.c_uint16(int(v.reshape(()).view(np.uint16)))))
                continue
            ct = _SCALAR_CTYPES.get(v.dtype)
            if ct is None:
                _err(f"reference: unsupported scalar argument type {t.text}")
            ptrs.append(ctypes.pointer(ct(v.item())))
        else:
            _err(f"reference: unsupported argument type {t.text}")
    results = [_result_descriptor(t) for t in ret_types]
    with ctx:
        ee.invoke(entry, *[r[0] for r in results], *ptrs)
    if returns:
        return arrays, [r[1]() for r in results]
    return arrays


_EPS = {"bf16": 2.0 ** -8, "f16": 2.0 ** -11, "tf32": 2.0 ** -11, "f32": 2.0 ** -24, "f64": 2.0 ** -53}


def _elem_name(d) -> str:
    if isinstance(d, str):
        return d
    d = np.dtype(d)
    if d == BF16:
        return "bf16"
    return {"float16": "f16", "float32": "f32", "float64": "f64"}.get(d.name, d.name)


def tolerances(dtype_in, dtype_out, k: int = 1) -> tuple[float, float]:
    """(rtol, atol_scale): |res - ref| <= rtol * |ref| + atol_scale * max|ref|.

    Inputs are rounded identically on both sides; differences come from the summation order
    (~ K * eps of the f32/i32 accumulator), one rounding of a narrow output, and two effects of the
    CPU reference: linalg on f16/bf16 outputs accumulates in the output type (error ~ sqrt(K) * eps_out
    of the largest partial sums), and f32 inputs are multiplied exactly on the CPU while Xe DPAS
    multiplies them as tf32 (10-bit mantissa: ~ sqrt(K) * 2^-11 relative to the products)."""
    ein, eout = _elem_name(dtype_in), _elem_name(dtype_out)
    if eout not in _EPS:  # integers: exact
        return 0.0, 0.0
    acc = _EPS.get(eout, 2.0 ** -24)
    rtol = 4 * acc + 2 * max(k, 1) * 2.0 ** -24
    if ein in ("f32", "f64") and eout in ("f32", "f64"):
        rtol = max(rtol, 16 * _EPS[eout])
    atol_scale = 2 * max(k, 1) * 2.0 ** -24 + 2 * acc
    root_k = max(k, 1) ** 0.5
    if eout in ("f16", "bf16"):
        atol_scale += 2 * root_k * acc
    if ein in ("f32", "tf32"):
        atol_scale += 2 * root_k * 2.0 ** -11
    return rtol, atol_scale


def compare(result, reference, dtype_in, dtype_out, k: int | None = None):
    """(ok, max_abs, max_rel) of `result` against `reference`. Tolerances follow the element types:
    exact for integers; for float outputs relative error ~ K * eps_acc (K = reduction length, default
    taken from the shapes is unknown: pass k) plus one rounding of the output type, with an absolute
    slack scaled by max|reference| for cancellation."""
    res = np.asarray(result)
    ref = np.asarray(reference)
    if res.shape != ref.shape:
        return False, float("inf"), float("inf")
    if k is None:
        k = 1024
    if res.dtype.kind in "iub" and ref.dtype.kind in "iub":
        diff = np.abs(res.astype(np.int64) - ref.astype(np.int64))
        mx = float(diff.max()) if diff.size else 0.0
        den = np.maximum(np.abs(ref.astype(np.float64)), 1.0)
        return bool(mx == 0), mx, float((diff / den).max()) if diff.size else 0.0
    r = res.astype(np.float64)
    f = ref.astype(np.float64)
    finite = np.isfinite(r) & np.isfinite(f)
    if not finite.all():     # NaN and +-inf must sit at the same places (infinities with the same sign)
        def special(a):
            return np.where(np.isnan(a), 2.0, np.where(np.isinf(a), np.sign(a), 0.0))
        if not np.array_equal(special(r), special(f)):
            return False, float("nan"), float("nan")
        r = np.where(finite, r, 0.0)
        f = np.where(finite, f, 0.0)
    diff = np.abs(r - f)
    scale = float(np.abs(f).max()) if f.size else 0.0
    rtol, atol_scale = tolerances(dtype_in, dtype_out, k)
    ok = bool((diff <= rtol * np.abs(f) + atol_scale * scale).all())
    mx = float(diff.max()) if diff.size else 0.0
    rel = float((diff / np.maximum(np.abs(f), scale * 1e-3 + 1e-30)).max()) if diff.size else 0.0
    return ok, mx, rel
