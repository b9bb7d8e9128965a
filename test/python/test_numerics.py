"""The simulator's multiply-accumulate model (xedialects/sim/numerics.py, docs/numerics.md):
exact products, exact (or fixed-order) K sums, one rounding to the result type; results do not
depend on numpy's BLAS build, core type or thread count."""
from __future__ import annotations

import os
import platform
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from xedialects.sim import numerics

ROOT = Path(__file__).resolve().parents[2]
BF16 = ml_dtypes.bfloat16


def _exact(x, y, acc=None):
    """acc + x @ y in rationals (2D)."""
    M, K = x.shape
    N = y.shape[1]
    out = np.empty((M, N), object)
    for i in range(M):
        for j in range(N):
            s = Fraction(0) if acc is None else Fraction(float(acc[i, j]))
            for k in range(K):
                s += Fraction(float(x[i, k])) * Fraction(float(y[k, j]))
            out[i, j] = s
    return out


def _round_f32(fr):
    """Round-to-nearest-even of a rational to f32, via f64 (the model's two steps: exact sum, then
    the accumulator added in f64, then f32)."""
    return np.float32(float(fr))


@pytest.mark.parametrize("elem,dtype", [("bf16", BF16), ("f16", np.float16)])
def test_dpas_chunk_is_the_exact_sum_rounded_once(elem, dtype):
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (8, 16)).astype(dtype)
    y = rng.uniform(-1, 1, (16, 16)).astype(dtype)
    acc = rng.uniform(-4, 4, (8, 16)).astype(np.float32)
    got = numerics.multiply_accumulate(x, y, None, np.float64, elem, elem, dpas=True)
    exact = _exact(x, y)
    assert all(Fraction(float(g)) == e for g, e in zip(got.ravel(), exact.ravel()))
    got32 = numerics.multiply_accumulate(x, y, acc, np.float32, elem, elem, dpas=True)
    want = np.array([np.float32(float(e) + float(a)) for e, a in zip(exact.ravel(), acc.ravel())])
    np.testing.assert_array_equal(got32.ravel(), want)


def test_f32_dpas_operands_are_rounded_to_tf32():
    x = np.array([[1 + 2.0 ** -12, 1.0]], np.float32)  # the 2^-12 bit is below tf32's 10 mantissa bits
    y = np.array([[1.0], [1.0]], np.float32)
    assert numerics.multiply_accumulate(x, y, None, np.float32, "f32", "f32", dpas=True)[0, 0] == 2.0
    assert numerics.multiply_accumulate(x, y, None, np.float32, "f32", "f32")[0, 0] == np.float32(2 + 2.0 ** -12)


def test_wide_exponent_ranges_fall_back_to_fixed_order():
    """Operands whose products float64 cannot sum exactly are summed in increasing k order; only
    the batch entries that need it."""
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (6, 8, 16)).astype(BF16)
    y = rng.uniform(-1, 1, (6, 16, 16)).astype(BF16)
    x[2, 0, 0], y[2, 0, 3], x[2, 1, 5] = 2.0 ** 60, 2.0 ** 60, 2.0 ** -60
    mask = numerics._inexact_entries(numerics.operand(x, "bf16"), numerics.operand(y, "bf16"), None)
    assert mask is not None and mask is not True and mask.tolist() == [False, False, True, False, False, False]
    got = numerics.multiply_accumulate(x, y, None, np.float64, "bf16", "bf16")
    ordered = numerics._ordered_sum(x.astype(np.float64), y.astype(np.float64), None)
    np.testing.assert_array_equal(got, ordered)


def test_integers_and_contractions():
    rng = np.random.default_rng(7)
    a = rng.integers(-128, 128, (4, 32)).astype(np.int8)
    b = rng.integers(-128, 128, (32, 16)).astype(np.int8)
    got = numerics.multiply_accumulate(a, b, np.ones((4, 16), np.int32), np.int32, "i8", "i8", dpas=True)
    np.testing.assert_array_equal(got, a.astype(np.int64) @ b.astype(np.int64) + 1)
    x = rng.uniform(-1, 1, (3, 5, 4)).astype(np.float16)
    y = rng.uniform(-1, 1, (3, 4)).astype(np.float16)
    spec = "...kmn,...kn->...m"
    got = numerics.multiply_accumulate(x, y, np.zeros(5, np.float32), np.float32, "f16", "f16", spec=spec)
    want = np.einsum("kmn,kn->m", x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got, want)


def test_non_finite_values_propagate():
    x = np.ones((2, 16), np.float16)
    y = np.ones((16, 2), np.float16)
    x[0, 3] = np.inf
    x[1, 4] = np.nan
    got = numerics.multiply_accumulate(x, y, None, np.float32, "f16", "f16")
    assert np.isinf(got[0]).all() and np.isnan(got[1]).all()


def _core_type_envs():
    """Environments that make numpy's OpenBLAS pick other kernels (core types this CPU can run)
    and other thread counts."""
    base = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    envs = [dict(base), dict(base, OPENBLAS_NUM_THREADS="1")]
    if platform.machine() in ("x86_64", "AMD64"):
        flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
        envs.append(dict(base, OPENBLAS_CORETYPE="Prescott"))
        if " avx2" in flags:
            envs.append(dict(base, OPENBLAS_CORETYPE="Haswell", OPENBLAS_NUM_THREADS="2"))
    elif platform.machine() in ("aarch64", "arm64"):
        envs.append(dict(base, OPENBLAS_CORETYPE="ARMV8"))
    return envs


def test_simulated_gemm_output_file_is_byte_identical_across_blas_core_types(tmp_path):
    """xe-run's --output of a simulated GEMM has the same bytes whatever kernel numpy's BLAS uses."""
    outputs = []
    for i, env in enumerate(_core_type_envs()):
        out = tmp_path / f"out{i}.npz"
        r = subprocess.run([sys.executable, str(ROOT / "tools" / "xe-run.py"), str(ROOT / "examples" / "gemm_bf16.mlir"),
                            "--pipeline=xe-gemm-to-xegpu", f"--output={out}"],
                           env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        outputs.append(out.read_bytes())
    assert len(outputs) >= 3
    assert all(o == outputs[0] for o in outputs[1:])
