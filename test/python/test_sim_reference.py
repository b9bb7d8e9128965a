"""Simulator reference runner (upstream MLIR CPU ExecutionEngine) and result comparison."""
import ml_dtypes
import numpy as np
import pytest

from xedialects.diagnostics import DiagnosticError
from xedialects.sim.reference import compare, extract_host_functions, run_reference
from xedialects.sim.testing import parse_module, xegpu_gemm_module

BF16 = ml_dtypes.bfloat16


def test_reference_on_module_with_kernels_uses_a_clone():
    text = xegpu_gemm_module(32, 48, 16, wg_tile=(32, 48), sg_layout=(1, 3))
    mod = parse_module(text)
    before = str(mod)
    rng = np.random.default_rng(0)
    A = rng.standard_normal((32, 16)).astype(BF16)
    B = rng.standard_normal((16, 48)).astype(BF16)
    C = np.zeros((32, 48), np.float32)
    out = run_reference(mod, "reference", [A, B, C])
    assert str(mod) == before  # original untouched
    assert np.array_equal(C, np.zeros((32, 48), np.float32))  # inputs copied
    np.testing.assert_allclose(out[2], A.astype(np.float32) @ B.astype(np.float32), rtol=1e-5, atol=1e-5)
    clone = extract_host_functions(mod, "reference")
    assert "gpu" not in clone and "xegpu" not in clone
    with pytest.raises(DiagnosticError, match="not a host linalg function"):
        run_reference(mod, "main", [A, B, C])


def test_reference_bf16_output_and_generic_epilogue():
    text = """
    #id = affine_map<(i, j) -> (i, j)>
    func.func @f(%A: memref<8x16xbf16>, %B: memref<16x4xbf16>, %C: memref<8x4xbf16>, %E: memref<8x4xf32>) {
      linalg.matmul ins(%A, %B : memref<8x16xbf16>, memref<16x4xbf16>) outs(%C : memref<8x4xbf16>)
      linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
          ins(%C : memref<8x4xbf16>) outs(%E : memref<8x4xf32>) {
      ^bb0(%x: bf16, %y: f32):
        %e = arith.extf %x : bf16 to f32
        %t = math.tanh %e : f32
        linalg.yield %t : f32
      }
      return
    }"""
    rng = np.random.default_rng(1)
    A = rng.standard_normal((8, 16)).astype(BF16)
    B = rng.standard_normal((16, 4)).astype(BF16)
    C = np.zeros((8, 4), BF16)
    out = run_reference(text, "f", [A, B, C, np.zeros((8, 4), np.float32)])
    exp = (A.astype(np.float32) @ B.astype(np.float32))
    ok, mx, rel = compare(out[2], exp, "bf16", "bf16", k=16)
    assert ok, (mx, rel)
    np.testing.assert_allclose(out[3], np.tanh(out[2].astype(np.float32)), rtol=1e-5, atol=1e-6)


def test_compare_tolerances():
    ref = np.linspace(-10, 10, 100).astype(np.float32)
    assert compare(ref, ref, "f32", "f32")[0]
    assert compare(ref * (1 + 1e-6), ref, "bf16", "f32", k=256)[0]
    assert not compare(ref * 1.01, ref, "bf16", "f32", k=256)[0]
    assert compare((ref * (1 + 2 ** -9)).astype(BF16), ref.astype(BF16), "bf16", "bf16", k=16)[0]
    i = np.arange(10, dtype=np.int32)
    assert compare(i, i, "i8", "i32") == (True, 0.0, 0.0)
    j = i.copy()
    j[3] += 1
    ok, mx, _ = compare(j, i, "i8", "i32")
    assert not ok and mx == 1
    assert not compare(np.zeros(3), np.zeros(4), "f32", "f32")[0]


def test_compare_infinities_and_nans():
    """Equal infinities compare equal (an attention mask of -inf was a MISMATCH: -inf - -inf is NaN), at
    the same places and signs only; finite values keep the tolerance of the finite reference (before, a NaN
    anywhere turned the infinities into +-1.8e308 and the tolerance with them)."""
    inf, nan = np.inf, np.nan
    ref = np.array([-inf, 1.0, inf, nan, 2.0], np.float32)
    assert compare(ref.copy(), ref, "f32", "f32") == (True, 0.0, 0.0)
    assert compare(ref[:3].copy(), ref[:3], "f32", "f32") == (True, 0.0, 0.0)      # no NaN
    for bad in ([inf, 1.0, inf, nan, 2.0], [-inf, 1.0, 5.0, nan, 2.0], [-inf, 1.0, inf, 0.0, 2.0],
                [-inf, 1.0, inf, nan, 3.0]):
        assert not compare(np.array(bad, np.float32), ref, "f32", "f32")[0], bad


def test_reference_of_i1_memrefs_stores_bytes():
    # issue 30: upstream's MemRefToLLVM asserted (`width >= 8`) on i1 loads and stores; i1 memrefs are
    # stored as bytes of 0/1 (sim/sub_byte_memrefs.py), so an i1 matmul (and = multiply, or = add) and a copy run
    text = """
    func.func @mm(%A: memref<16x8xi1>, %B: memref<8x4xi1>, %C: memref<16x4xi1>) {
      linalg.matmul ins(%A, %B : memref<16x8xi1>, memref<8x4xi1>) outs(%C : memref<16x4xi1>)
      return
    }
    func.func @copy(%A: memref<5xi1>, %B: memref<5xi1>) {
      linalg.copy ins(%A : memref<5xi1>) outs(%B : memref<5xi1>)
      return
    }"""
    rng = np.random.default_rng(1)
    A, B = rng.integers(0, 2, (16, 8)).astype(bool), rng.integers(0, 2, (8, 4)).astype(bool)
    C = np.zeros((16, 4), bool)
    C[0, 0] = True                      # accumulated: stays true
    out = run_reference(text, "mm", [A, B, C])
    expect = ((A.astype(int) @ B.astype(int)) > 0) | C
    assert out[2].dtype == np.bool_ and np.array_equal(out[2], expect)
    a = np.array([True, False, True, True, False])
    assert np.array_equal(run_reference(text, "copy", [a, np.zeros(5, bool)])[1], a)
