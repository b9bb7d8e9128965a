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
# ROW_SUMS: a DPAS result normalised by its row sums (tile_reduce <add> [1] and the broadcast back),
# the sums stored as a 16x1 tile
from test_blocking import ROW_SUMS  # noqa: E402
from reduction_kernels import (REDUCTION_CASES, TRANSPOSE_BROADCAST, reduction_args,  # noqa: E402
                               reduction_kernel, reduction_mismatches, subgroup_module)

SIMT = "xegpu-simt-distribute"
BF16 = ml_dtypes.bfloat16
# ROW_SUMS' C = A x B (16x32 bf16 x 32x32 -> %d: vector<16x32xf32>), the GEMM of the tile_reduce kernels
GEMM_16x32 = ROW_SUMS[ROW_SUMS.index("%c0 = "):ROW_SUMS.index("%r = xetile.tile_reduce")].rstrip()


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
      {GEMM_16x32}
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
# vector.multi_reduction / vector.reduction of every kind (reduction_kernels, shared with
# test_opencl_backend, with the 8-element results stored as 2x8 blocks: a 1x8 block store has no
# SIMT form, 8 elements cannot be spread over 16 work-items)


@pytest.mark.parametrize("case", list(REDUCTION_CASES))
def test_vector_reductions_of_every_kind(case):
    """Every kind and result of the reduction kernels in SIMT mode: bit-identical to VC mode for
    integers, equal up to summation order for floats (NaN where VC has NaN), and equal to numpy."""
    elt, kinds, args = reduction_args(case, out_rows=2)
    src = reduction_kernel(elt, kinds, out_rows=2)
    vc = xedialects.parse(src, "reductions.mlir")
    simt = xedialects.parse(src, "reductions.mlir")
    run(simt, f"builtin.module({SIMT})")
    text = xedialects.print_ir(simt)
    assert "mode = vc" not in text and "gpu.subgroup_reduce" in text
    if "minui" in kinds:
        assert re.search(r"gpu\.shuffle\s+xor", text)        # (the simulator's subgroup_reduce minui is signed)
    ref, out = _both(vc, simt, args)
    bad = reduction_mismatches(elt, kinds, args[0], out[1], {"vc": ref[1]}, out_rows=2)
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
    return subgroup_module(f"%A: memref<{rows}x48xf32>, %O: memref<2x{n}xf32>", f"""%c0 = arith.constant 0 : index
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
      xegpu.store_nd %o, %od {{mode = vc}} : vector<2x{n}xf32>, !xegpu.tensor_desc<2x{n}xf32>""")


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
# rfc-xetile appendix 2.2 at 64x64 (reduction_kernels.TRANSPOSE_BROADCAST): GEMM with the
# transposed B through SLM, the bias broadcast, tile_conv_layout and the row sums (per subgroup:
# subgroup reductions of each 8x16 C block's rows; across subgroups: partial sums through SLM,
# added per row by the subgroup holding it)


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
