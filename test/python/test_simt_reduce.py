"""xegpu-simt-distribute on reductions whose reduced elements are spread over the work-items.

In SIMT mode each work-item holds a fragment of a block (a DPAS C block: one column, all rows), so a
`vector.multi_reduction` / `vector.reduction` along the distributed dimension (row sums) needs the
other work-items' data: every work-item reduces the elements it holds (the kind's identity for those
it holds none of), then `gpu.subgroup_reduce` (or `gpu.shuffle xor` butterflies) combines the
work-items. Reductions within a work-item's fragment (column sums) stay per work-item. The kernels
are simulated in VC and SIMT mode (`xedialects.sim`) and compared with each other and with numpy."""
import os
import re
import sys

import ml_dtypes
import numpy as np
import pytest

import xedialects
from xedialects.diagnostics import DiagnosticError
from xedialects.passes import run
from xedialects.sim import simulate

sys.path.insert(0, os.path.dirname(__file__))

SIMT = "xegpu-simt-distribute"
BF16 = ml_dtypes.bfloat16

# test_blocking.ROW_SUMS: a DPAS result normalised by its row sums (tile_reduce <add> [1] and the
# broadcast back), the sums stored as a 16x1 tile
ROW_SUMS = """
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @row_sums(%A: memref<16x32xbf16>, %B: memref<32x32xbf16>, %C: memref<16x32xf32>, %S: memref<16x1xf32>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c0 = arith.constant 0 : index
      %a = xetile.init_tile %A[%c0, %c0] : memref<16x32xbf16> -> !xetile.tile<16x32xbf16>
      %b = xetile.init_tile %B[%c0, %c0] : memref<32x32xbf16> -> !xetile.tile<32x32xbf16>
      %va = xetile.load_tile %a : !xetile.tile<16x32xbf16> -> vector<16x32xbf16>
      %vb = xetile.load_tile %b : !xetile.tile<32x32xbf16> -> vector<32x32xbf16>
      %d = xetile.tile_mma %va, %vb : vector<16x32xbf16>, vector<32x32xbf16> -> vector<16x32xf32>
      %r = xetile.tile_reduce <add> %d [1] : vector<16x32xf32> -> vector<16x1xf32>
      %rb = xetile.tile_broadcast %r [1] : vector<16x1xf32> -> vector<16x32xf32>
      %n = arith.divf %d, %rb : vector<16x32xf32>
      %ct = xetile.init_tile %C[%c0, %c0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
      xetile.store_tile %n, %ct : vector<16x32xf32>, !xetile.tile<16x32xf32>
      %st = xetile.init_tile %S[%c0, %c0] : memref<16x1xf32> -> !xetile.tile<16x1xf32>
      xetile.store_tile %r, %st : vector<16x1xf32>, !xetile.tile<16x1xf32>
      gpu.return
    }
  }
  func.func @main(%A: memref<16x32xbf16>, %B: memref<32x32xbf16>, %C: memref<16x32xf32>, %S: memref<16x1xf32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @k::@row_sums blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%A : memref<16x32xbf16>, %B : memref<32x32xbf16>, %C : memref<16x32xf32>, %S : memref<16x1xf32>)
    return
  }
}"""


def _xetile_reduce_kernel(kind, dims, elt="f32", acc_elt="f32"):
    """C = A x B (16x32 bf16 x 32x32), then tile_reduce <kind> over `dims`, stored: [1] -> 16x1,
    [0] -> 1x32."""
    rshape = {(1,): (16, 1), (0,): (1, 32)}[tuple(dims)]
    r = "x".join(map(str, rshape))
    return f"""
module attributes {{gpu.container_module}} {{
  gpu.module @k {{
    gpu.func @red(%A: memref<16x32xbf16>, %B: memref<32x32xbf16>, %S: memref<{r}xf32>) kernel
        attributes {{known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32}} {{
      %c0 = arith.constant 0 : index
      %a = xetile.init_tile %A[%c0, %c0] : memref<16x32xbf16> -> !xetile.tile<16x32xbf16>
      %b = xetile.init_tile %B[%c0, %c0] : memref<32x32xbf16> -> !xetile.tile<32x32xbf16>
      %va = xetile.load_tile %a : !xetile.tile<16x32xbf16> -> vector<16x32xbf16>
      %vb = xetile.load_tile %b : !xetile.tile<32x32xbf16> -> vector<32x32xbf16>
      %d = xetile.tile_mma %va, %vb : vector<16x32xbf16>, vector<32x32xbf16> -> vector<16x32xf32>
      %r = xetile.tile_reduce <{kind}> %d {list(dims)} : vector<16x32xf32> -> vector<{r}xf32>
      %st = xetile.init_tile %S[%c0, %c0] : memref<{r}xf32> -> !xetile.tile<{r}xf32>
      xetile.store_tile %r, %st : vector<{r}xf32>, !xetile.tile<{r}xf32>
      gpu.return
    }}
  }}
  func.func @main(%A: memref<16x32xbf16>, %B: memref<32x32xbf16>, %S: memref<{r}xf32>) {{
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @k::@red blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%A : memref<16x32xbf16>, %B : memref<32x32xbf16>, %S : memref<{r}xf32>)
    return
  }}
}}"""


def _distribute(text, stages, name="k.mlir"):
    """(VC module, SIMT module, SIMT IR text): `stages` then xegpu-simt-distribute on a copy."""
    vc = xedialects.parse(text, name)
    run(vc, f"builtin.module({stages})")
    simt = xedialects.parse(xedialects.print_ir(vc), name)
    run(simt, f"builtin.module({SIMT})")
    ir_text = xedialects.print_ir(simt)
    assert "mode = vc" not in ir_text
    return vc, simt, ir_text


def _both(vc, simt, args):
    a = simulate(vc, "main", [x.copy() for x in args])
    b = simulate(simt, "main", [x.copy() for x in args], trace=True)
    assert b.trace.launches[0].level == "simt"
    return a.buffers, b.buffers


# ------------------------------------------------------------------------------------------------
# xetile kernels: row sums of DPAS results (across work-items), column reductions (within them)


def test_row_sums_distribute_with_subgroup_reduce():
    """ROW_SUMS through blocking, convert-xetile-to-xegpu and SIMT distribution: the row sums of
    each 8x16 C block (one column per work-item) are partial sums per work-item (the first column,
    the accumulator convert-xetile-to-xegpu slices off, added by work-item 0 alone) combined by one
    gpu.subgroup_reduce per 8 rows; the normalised block and the 16x1 sums match numpy."""
    vc, simt, text = _distribute(ROW_SUMS, "xetile-blocking,convert-xetile-to-xegpu", "row_sums.mlir")
    assert len(re.findall(r"gpu\.subgroup_reduce\s+add %\w+ : \(vector<8xf32>\)", text)) == 2
    assert "vector.multi_reduction" not in text          # one element per work-item and row: no local reduce
    rng = np.random.default_rng(1)
    A = rng.uniform(0.5, 1, (16, 32)).astype(BF16)
    B = rng.uniform(0.5, 1, (32, 32)).astype(BF16)
    args = [A, B, np.zeros((16, 32), np.float32), np.zeros((16, 1), np.float32)]
    ref, out = _both(vc, simt, args)
    d = A.astype(np.float32) @ B.astype(np.float32)
    sums = d.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out[3], sums, rtol=1e-5)
    np.testing.assert_allclose(out[2], d / sums, rtol=1e-5)
    np.testing.assert_allclose(out[3], ref[3], rtol=1e-6)


@pytest.mark.parametrize("kind,dims", [("add", [1]), ("maximumf", [1]), ("minimumf", [1]), ("mul", [1]),
                                       ("add", [0]), ("maximumf", [0])])
def test_tile_reduce_kinds_and_dims(kind, dims):
    """tile_reduce over rows (across work-items: subgroup reductions) and over columns (within each
    work-item's column: per-work-item reductions, no subgroup operation) of a DPAS result."""
    src = _xetile_reduce_kernel(kind, dims)
    vc, simt, text = _distribute(src, "xetile-blocking,convert-xetile-to-xegpu", "red.mlir")
    if dims == [1]:
        assert re.search(rf"gpu\.subgroup_reduce\s+{kind} ", text)
    else:
        assert "gpu.subgroup_reduce" not in text and "gpu.shuffle" not in text
    rng = np.random.default_rng(5)
    lo = 0.9 if kind == "mul" else -1      # products of 32 factors near 1
    A = rng.uniform(lo, 1, (16, 32)).astype(BF16)
    B = rng.uniform(lo, 1, (32, 32)).astype(BF16) / (np.float32(8) if kind == "mul" else 1)
    B = B.astype(BF16)
    rshape = (16, 1) if dims == [1] else (1, 32)
    ref, out = _both(vc, simt, [A, B, np.zeros(rshape, np.float32)])
    d = A.astype(np.float32) @ B.astype(np.float32)
    fn = {"add": np.add, "mul": np.multiply, "maximumf": np.maximum, "minimumf": np.minimum}[kind]
    want = fn.reduce(d, axis=dims[0], keepdims=True)
    np.testing.assert_allclose(out[2], want, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out[2], ref[2], rtol=1e-5, atol=1e-5)     # (summation order)


# ------------------------------------------------------------------------------------------------
# vector.multi_reduction / vector.reduction of every kind (test_opencl_backend's reduction kernels,
# with the 8-element results stored as 2x8 blocks: a 1x8 block store has no SIMT form, 8 elements
# cannot be spread over 16 work-items)

FLOAT_KINDS = ["add", "mul", "minimumf", "maximumf", "minnumf", "maxnumf"]
INT_KINDS = ["add", "mul", "minsi", "maxsi", "minui", "maxui", "and", "or", "xor"]
RED_RESULTS = ("rows", "rows_slice_acc", "cols", "cols_slice_acc", "all_rows", "all_cols", "all")


def _red_acc(kind, elt):
    if elt.startswith("i"):
        return {"add": 3, "mul": 1, "and": -1}.get(kind, 2)
    return {"add": 0.5, "mul": 1.5}.get(kind, 0.25)


def _reduction_kernel(elt, kinds):
    """Per kind the seven RED_RESULTS of an 8x32 block pair (columns on the work-items): rows
    (across work-items), with the accumulator a slice of the block (all in work-item 0, as
    convert-xetile-to-xegpu produces it), columns (within work-items), with a row slice as the
    accumulator, and full reductions; result j broadcast to rows 2j, 2j + 1 of O."""
    T = elt
    v816, v8, v16 = f"vector<8x16x{T}>", f"vector<8x{T}>", f"vector<16x{T}>"
    d816 = f"!xegpu.tensor_desc<8x16x{T}>"
    lines = [f"%d0 = xegpu.create_nd_tdesc %A[0, 0] {{mode = vc}} : memref<8x32x{T}> -> {d816}",
             f"%d1 = xegpu.create_nd_tdesc %A[0, 16] {{mode = vc}} : memref<8x32x{T}> -> {d816}",
             f"%b0 = xegpu.load_nd %d0 {{mode = vc}} : {d816} -> {v816}",
             f"%b1 = xegpu.load_nd %d1 {{mode = vc}} : {d816} -> {v816}"]

    def slice_(name, src, offs, sizes, res):
        return (f"{name} = vector.extract_strided_slice {src} {{offsets = {offs}, sizes = {sizes}, "
                f"strides = [1, 1]}} : {v816} to {res}")

    outs = []
    for i, k in enumerate(kinds):
        c = _red_acc(k, T)
        c = str(c) if T.startswith("i") else f"{c:e}"
        p = f"%k{i}_"
        lines += [
            f"{p}s8 = arith.constant dense<{c}> : {v8}",
            f"{p}s16 = arith.constant dense<{c}> : {v16}",
            f"{p}s = arith.constant {c} : {T}",
            f"{p}r1 = vector.multi_reduction <{k}>, %b0, {p}s8 [1] : {v816} to {v8}",
            f"{p}r2 = vector.multi_reduction <{k}>, %b1, {p}r1 [1] : {v816} to {v8}",
            slice_(f"{p}c0", "%b0", [0, 0], [8, 1], f"vector<8x1x{T}>"),
            f"{p}a0 = vector.shape_cast {p}c0 : vector<8x1x{T}> to {v8}",
            slice_(f"{p}rest", "%b0", [0, 1], [8, 15], f"vector<8x15x{T}>"),
            f"{p}x1 = vector.multi_reduction <{k}>, {p}rest, {p}a0 [1] : vector<8x15x{T}> to {v8}",
            f"{p}x2 = vector.multi_reduction <{k}>, %b1, {p}x1 [1] : {v816} to {v8}",
            f"{p}q1 = vector.multi_reduction <{k}>, %b0, {p}s16 [0] : {v816} to {v16}",
            f"{p}q2 = vector.multi_reduction <{k}>, %b1, {p}q1 [0] : {v816} to {v16}",
            slice_(f"{p}w0", "%b1", [0, 0], [1, 16], f"vector<1x16x{T}>"),
            f"{p}wa = vector.shape_cast {p}w0 : vector<1x16x{T}> to {v16}",
            slice_(f"{p}wr", "%b1", [1, 0], [7, 16], f"vector<7x16x{T}>"),
            f"{p}w1 = vector.multi_reduction <{k}>, {p}wr, {p}wa [0] : vector<7x16x{T}> to {v16}",
            f"{p}f1 = vector.reduction <{k}>, {p}x2, {p}s : {v8} into {T}",
            f"{p}f2 = vector.reduction <{k}>, {p}q2 : {v16} into {T}",
            f"{p}f3 = vector.multi_reduction <{k}>, %b0, {p}s [0, 1] : {v816} to {T}",
        ]
        for name, w in (("r2", 8), ("x2", 8), ("q2", 16), ("w1", 16), ("f1", 0), ("f2", 0), ("f3", 0)):
            v = f"{p}{name}"
            if w:
                lines.append(f"{v}_o = vector.broadcast {v} : vector<{w}x{T}> to vector<2x{w}x{T}>")
            else:
                w = 16
                lines.append(f"{v}_o = vector.broadcast {v} : {T} to vector<2x16x{T}>")
            outs.append((f"{v}_o", w))
    n = len(outs)
    for j, (v, w) in enumerate(outs):
        d = f"!xegpu.tensor_desc<2x{w}x{T}>"
        lines += [f"%o{j} = xegpu.create_nd_tdesc %O[{2 * j}, 0] {{mode = vc}} : memref<{2 * n}x16x{T}> -> {d}",
                  f"xegpu.store_nd {v}, %o{j} {{mode = vc}} : vector<2x{w}x{T}>, {d}"]
    body = "\n      ".join(lines)
    args = f"%A: memref<8x32x{T}>, %O: memref<{2 * n}x16x{T}>"
    targs = f"%A : memref<8x32x{T}>, %O : memref<{2 * n}x16x{T}>"
    return f"""module attributes {{gpu.container_module}} {{
  func.func @main({args}) {{
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @m::@red blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args({targs})
    return
  }}
  gpu.module @m {{
    gpu.func @red({args}) kernel attributes {{known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32}} {{
      {body}
      gpu.return
    }}
  }}
}}
"""


def _np_reduce(kind, x, axis=None):
    """numpy reference of a reduction kind (floats in f32, integers wrapping in their type)."""
    if kind in ("minui", "maxui"):
        u = x.view(np.dtype(f"u{x.dtype.itemsize}"))
        fn = np.minimum if kind == "minui" else np.maximum
        return np.asarray(fn.reduce(u, axis=axis)).view(x.dtype)
    fn = {"add": np.add, "mul": np.multiply, "minimumf": np.minimum, "maximumf": np.maximum, "minnumf": np.fmin,
          "maxnumf": np.fmax, "minsi": np.minimum, "maxsi": np.maximum, "and": np.bitwise_and,
          "or": np.bitwise_or, "xor": np.bitwise_xor}[kind]
    return fn.reduce(x, axis=axis, dtype=x.dtype)


def _np_combine(kind, a, b):
    a, b = np.asarray(a), np.asarray(b, dtype=a.dtype)
    return _np_reduce(kind, np.stack(np.broadcast_arrays(a, b)), axis=0)


def _red_expected(kind, A, acc):
    x = A.astype(np.float32) if A.dtype.kind == "f" or str(A.dtype) == "bfloat16" else A
    acc = x.dtype.type(acc)
    rows = _np_combine(kind, _np_reduce(kind, x, 1), acc)
    rows_slice = _np_reduce(kind, x, 1)
    cols = _np_combine(kind, _np_reduce(kind, np.concatenate([x[:, :16], x[:, 16:]]), 0), acc)
    cols_slice = _np_reduce(kind, x[:, 16:], 0)
    return [rows, rows_slice, cols, cols_slice, _np_combine(kind, _np_reduce(kind, rows_slice), acc),
            _np_reduce(kind, cols), _np_combine(kind, _np_reduce(kind, x[:, :16]), acc)]


REDUCTION_CASES = {"f32": ("f32", FLOAT_KINDS), "i32": ("i32", INT_KINDS), "f16": ("f16", ["add", "maximumf"]),
                   "bf16": ("bf16", ["mul", "minnumf"]), "i8": ("i8", ["add", "minui", "xor"]),
                   # NaNs in a row of each block: propagated by add, minimumf / maximumf, skipped by
                   # minnumf / maxnumf (also across work-items)
                   "f32_nan": ("f32", ["add", "minimumf", "maximumf", "minnumf", "maxnumf"])}


@pytest.mark.parametrize("case", list(REDUCTION_CASES))
def test_vector_reductions_of_every_kind(case):
    """Every kind and result of the reduction kernels in SIMT mode: bit-identical to VC mode for
    integers, equal up to summation order for floats (NaN where VC has NaN), and equal to numpy."""
    elt, kinds = REDUCTION_CASES[case]
    dt = {"f32": np.float32, "f16": np.float16, "bf16": BF16, "i32": np.int32, "i8": np.int8}[elt]
    rng = np.random.default_rng(3)
    if elt.startswith("i"):
        A = (rng.integers(1, 60, (8, 32)) * rng.choice([-1, 1], (8, 32))).astype(dt)   # no 0: tells identities apart
    else:
        A = rng.uniform(-1, 1, (8, 32)).astype(np.float32).astype(dt)
    if case.endswith("_nan"):
        A[2, 5] = A[6, 17] = np.nan
    n = len(kinds) * len(RED_RESULTS)
    src = _reduction_kernel(elt, kinds)
    vc = xedialects.parse(src, "reductions.mlir")
    simt = xedialects.parse(src, "reductions.mlir")
    run(simt, f"builtin.module({SIMT})")
    text = xedialects.print_ir(simt)
    assert "mode = vc" not in text and "gpu.subgroup_reduce" in text
    if "minui" in kinds:
        assert re.search(r"gpu\.shuffle\s+xor", text)        # (the simulator's subgroup_reduce minui is signed)
    ref, out = _both(vc, simt, [A, np.zeros((2 * n, 16), dt)])
    ref, out = ref[1].astype(np.float64), out[1].astype(np.float64)
    tol = {"f32": 1e-5, "f16": 1e-3, "bf16": 1e-2}.get(elt, 0)
    bad = []
    for i, kind in enumerate(kinds):
        for j, (label, want) in enumerate(zip(RED_RESULTS, _red_expected(kind, A, _red_acc(kind, elt)))):
            row = 2 * (i * len(RED_RESULTS) + j)
            w = np.size(want) if np.ndim(want) else 16
            g = out[row:row + 2, :w]
            refs = {"vc": ref[row:row + 2, :w],
                    "numpy": np.broadcast_to(np.asarray(want).astype(dt).astype(np.float64), (2, w))}
            for ref_name, r in refs.items():
                if not np.allclose(g, r, rtol=tol, atol=tol, equal_nan=True):
                    bad.append(f"{kind} {label} vs {ref_name}: {g[0]} != {r[0]}")
    assert not bad, "\n".join(bad)


# ------------------------------------------------------------------------------------------------
# reductions carried through loops (a running maximum, running column sums)


def _loop_kernel(rows, dims, kind, init, reshape):
    """Loop over three 16-column blocks of A (rows x 48), reducing each onto the loop-carried
    result (dims [1]: per row, across work-items; [0]: per column, within them); stored as a 2-row
    block (broadcast directly or after a shape_cast to a 1-row vector)."""
    n = rows if dims == [1] else 16
    if reshape:
        out = (f"%o2 = vector.shape_cast %r : vector<{n}xf32> to vector<1x{n}xf32>\n"
               f"      %o = vector.broadcast %o2 : vector<1x{n}xf32> to vector<2x{n}xf32>")
    else:
        out = f"%o = vector.broadcast %r : vector<{n}xf32> to vector<2x{n}xf32>"
    args = f"%A: memref<{rows}x48xf32>, %O: memref<2x{n}xf32>"
    targs = f"%A : memref<{rows}x48xf32>, %O : memref<2x{n}xf32>"
    return f"""module attributes {{gpu.container_module}} {{
  func.func @main({args}) {{
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @m::@red blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args({targs})
    return
  }}
  gpu.module @m {{
    gpu.func @red({args}) kernel attributes {{known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32}} {{
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c48 = arith.constant 48 : index
      %init = arith.constant dense<{init}> : vector<{n}xf32>
      %r = scf.for %i = %c0 to %c48 step %c16 iter_args(%m = %init) -> (vector<{n}xf32>) {{
        %d = xegpu.create_nd_tdesc %A[0, %i] {{mode = vc}} : memref<{rows}x48xf32> -> !xegpu.tensor_desc<{rows}x16xf32>
        %b = xegpu.load_nd %d {{mode = vc}} : !xegpu.tensor_desc<{rows}x16xf32> -> vector<{rows}x16xf32>
        %mx = vector.multi_reduction <{kind}>, %b, %m {dims} : vector<{rows}x16xf32> to vector<{n}xf32>
        scf.yield %mx : vector<{n}xf32>
      }}
      {out}
      %od = xegpu.create_nd_tdesc %O[0, 0] {{mode = vc}} : memref<2x{n}xf32> -> !xegpu.tensor_desc<2x{n}xf32>
      xegpu.store_nd %o, %od {{mode = vc}} : vector<2x{n}xf32>, !xegpu.tensor_desc<2x{n}xf32>
      gpu.return
    }}
  }}
}}
"""


@pytest.mark.parametrize("rows,dims,kind,reshape", [(8, [1], "maximumf", False), (16, [1], "maximumf", False),
                                                    (16, [1], "maximumf", True), (16, [0], "add", True)])
def test_loop_carried_reduction(rows, dims, kind, reshape):
    """A reduction result carried by scf.for takes the loop-carried value's distribution (each
    work-item keeps its elements of the combined row maxima; column sums stay per work-item)."""
    init = "0xFF800000" if kind == "maximumf" else "0.0"      # -inf, the running maximum's start
    src = _loop_kernel(rows, dims, kind, init, reshape)
    vc, simt = xedialects.parse(src, "loop.mlir"), xedialects.parse(src, "loop.mlir")
    run(simt, f"builtin.module({SIMT})")
    text = xedialects.print_ir(simt)
    assert ("gpu.subgroup_reduce" in text) == (dims == [1])
    rng = np.random.default_rng(7)
    A = rng.uniform(-1, 1, (rows, 48)).astype(np.float32)
    n = rows if dims == [1] else 16
    ref, out = _both(vc, simt, [A, np.zeros((2, n), np.float32)])
    fn = np.maximum if kind == "maximumf" else np.add
    want = fn.reduce(A.reshape(rows, 3, 16), axis=1)          # the three blocks combined element-wise
    want = fn.reduce(want, axis=dims[0])
    np.testing.assert_allclose(out[1], np.broadcast_to(want, (2, n)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[1], ref[1], rtol=1e-6, atol=1e-6)


# ------------------------------------------------------------------------------------------------
# rfc-xetile appendix 2.2 at 64x64 (test_opencl_backend.TRANSPOSE_BROADCAST): GEMM with the
# transposed B through SLM, the bias broadcast, tile_conv_layout and the row sums (per subgroup:
# subgroup reductions of each 8x16 C block's rows; across subgroups: partial sums through SLM,
# added per row by the subgroup holding it)

TRANSPOSE_BROADCAST = """
#mp_a       = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 32]>
#mp_b       = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 32]>
#mp_bt      = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 16]>
#mp_c       = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 32]>
#mp_bcast   = #xetile.wg_map<sg_layout = [2, 2], sg_data = [1, 32]>
#mp_reduce  = #xetile.wg_map<sg_layout = [4, 1], sg_data = [16, 1]>
#mp_reduce2 = #xetile.wg_map<sg_layout = [4, 1], sg_data = [16, 64]>
module attributes {gpu.container_module} {
  func.func @main(%a: memref<64x64xf16>, %bt: memref<64x64xf16>, %bcast: memref<64xf32>, %res: memref<64x1xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<64x64xf16>, %bt : memref<64x64xf16>, %bcast : memref<64xf32>, %res : memref<64x1xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%a: memref<64x64xf16>, %bt: memref<64x64xf16>, %bcast: memref<64xf32>, %res: memref<64x1xf32>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %1 = xetile.init_tile %a[%c0, %c0] : memref<64x64xf16> -> !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_a>>
      %2 = xetile.init_tile %bt[%c0, %c0] : memref<64x64xf16> -> !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>
      %bcast2 = memref.expand_shape %bcast [[0, 1]] output_shape [1, 64] : memref<64xf32> into memref<1x64xf32>
      %7 = xetile.init_tile %bcast2[%c0, %c0] : memref<1x64xf32> -> !xetile.tile<1x64xf32, #xetile.tile_attr<wg_map = #mp_bcast>>
      %3 = xetile.init_tile %res[%c0, %c0] : memref<64x1xf32> -> !xetile.tile<64x1xf32, #xetile.tile_attr<wg_map = #mp_reduce>>
      %zero = arith.constant dense<0.0> : vector<64x64xf32>
      %r:3 = scf.for %k = %c0 to %c64 step %c32
          iter_args(%at = %1, %btt = %2, %acc = %zero)
          -> (!xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_a>>, !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>,
              vector<64x64xf32>) {
        %4 = xetile.load_tile %at : !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_a>> -> vector<64x32xf16>
        %10 = xetile.load_tile %btt : !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_bt>> -> vector<64x32xf16>
        %5 = xetile.tile_transpose %10 [1, 0] {wg_map = #mp_b} : vector<64x32xf16> -> vector<32x64xf16>
        %6 = xetile.tile_mma %4, %5, %acc {wg_map_a = #mp_a, wg_map_b = #mp_b, wg_map_c = #mp_c}
            : vector<64x32xf16>, vector<32x64xf16>, vector<64x64xf32> -> vector<64x64xf32>
        %at2 = xetile.update_tile_offset %at, [%c0, %c32] : !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_a>>
        %bt2 = xetile.update_tile_offset %btt, [%c0, %c32] : !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>
        scf.yield %at2, %bt2, %6
            : !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_a>>, !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>,
              vector<64x64xf32>
      }
      %12 = xetile.load_tile %7 : !xetile.tile<1x64xf32, #xetile.tile_attr<wg_map = #mp_bcast>> -> vector<1x64xf32>
      %13 = xetile.tile_broadcast %12 [0] {wg_map = #mp_c} : vector<1x64xf32> -> vector<64x64xf32>
      %14 = arith.addf %r#2, %13 : vector<64x64xf32>
      %15 = xetile.tile_conv_layout %14 {wg_map = #mp_reduce2, wg_map_source = #mp_c} : vector<64x64xf32> -> vector<64x64xf32>
      %16 = xetile.tile_reduce <add> %15 [1] {wg_map = #mp_reduce} : vector<64x64xf32> -> vector<64x1xf32>
      xetile.store_tile %16, %3 : vector<64x1xf32>, !xetile.tile<64x1xf32, #xetile.tile_attr<wg_map = #mp_reduce>>
      gpu.return
    }
  }
}
"""


def test_appendix_2_2_row_sums_in_simt_mode():
    """The appendix 2.2 kernel through xetile-wg-to-sg, convert-xetile-to-xegpu, canonicalize, cse
    (test_opencl_backend._slm_case), then SIMT distribution: the per-subgroup row sums of the four
    8x16 C blocks are one gpu.subgroup_reduce each; the cross-subgroup step (two partial sums per
    row gathered from SLM into a 16x2 block, added by the arith.addf canonicalize folds the unit
    column's reduction into) combines the two work-items holding each row's sums. Same result as
    VC mode and numpy."""
    vc, simt, text = _distribute(TRANSPOSE_BROADCAST, "xetile-wg-to-sg, convert-xetile-to-xegpu, canonicalize, cse",
                                 "appendix-2.2.mlir")
    assert len(re.findall(r"gpu\.subgroup_reduce\s+add %\w+ : \(vector<8xf32>\)", text)) == 4
    assert len(re.findall(r"gpu\.subgroup_reduce\s+add %\w+ : \(vector<16xf32>\)", text)) == 1
    assert "gpu.barrier" in text and "memref.alloc()" in text
    shapes = [((64, 64), np.float16), ((64, 64), np.float16), ((64,), np.float32), ((64, 1), np.float32)]
    rng = np.random.default_rng(0)
    args = [rng.uniform(-1, 1, s).astype(dt) for s, dt in shapes]
    ref, out = _both(vc, simt, args)
    a, bt, bias = (x.astype(np.float32) for x in args[:3])
    want = (a @ bt.T + bias).sum(1, keepdims=True)
    np.testing.assert_allclose(out[3], want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out[3], ref[3], rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------------------------------
# what still needs another work-item's data outside a reduction: a located error


def test_uneven_slice_outside_reductions_is_a_located_error():
    """The last 15 columns of a C block (no element in work-item 0) used by arith.subf (no
    reduction kind combines like it): still refused, at the slice."""
    src = """
gpu.module @k {
  gpu.func @f(%A: memref<8x16xf32>, %O: memref<8x16xf32>) kernel {
    %d = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %b = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %s = vector.extract_strided_slice %b {offsets = [0, 1], sizes = [8, 15], strides = [1, 1]} : vector<8x16xf32> to vector<8x15xf32>
    %t = arith.subf %s, %s : vector<8x15xf32>
    %acc = arith.constant dense<0.0> : vector<8xf32>
    %r = vector.multi_reduction <add>, %t, %acc [1] : vector<8x15xf32> to vector<8xf32>
    gpu.return
  }
}"""
    m = xedialects.parse(src, "uneven.mlir")
    with pytest.raises(DiagnosticError) as e:
        run(m, f"builtin.module({SIMT})")
    assert re.search(r"uneven\.mlir:6:10: error: 'vector.extract_strided_slice' does not split evenly", str(e.value))
