"""The CPU reference at scale (sim/reference_fast, sim/reference_slices) and xe-run's phases:

* a large contraction is tiled and vectorized by upstream MLIR and gives the scalar loops' bits
  (bf16 inputs); a small one stays on the loops;
* a GEMM-like function computed by blocks (a sampled check's, parallel row blocks) gives exactly
  the whole function's elements; a function blocks would change runs whole;
* a memref function computing on tensors in between is bufferized first (upstream one-shot);
* xe-run's summary gives the time of each phase, before the per-buffer lines.
"""
import os

import ml_dtypes
import numpy as np
import pytest
from mlir import ir

from xedialects.sim import reference
from xedialects.sim.reference import extract_host_functions, run_reference
from xedialects.sim.reference_fast import vectorize_contractions
from xedialects.sim.reference_slices import plan
from xedialects.tools.xe_run import main

BF16 = ml_dtypes.bfloat16
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def gemm(m, n, k):
    return f"""func.func @gemm(%A: memref<{m}x{k}xbf16>, %B: memref<{k}x{n}xbf16>, %C: memref<{m}x{n}xf32>) {{
  linalg.matmul ins(%A, %B : memref<{m}x{k}xbf16>, memref<{k}x{n}xbf16>) outs(%C : memref<{m}x{n}xf32>)
  return
}}"""


# C = relu(A x B + bias): a GEMM with a fill and an element-wise epilogue reading a row vector
EPILOGUE = """func.func @mlp(%A: memref<200x48xbf16>, %B: memref<48x300xbf16>, %bias: memref<300xf32>,
                %C: memref<200x300xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%C : memref<200x300xf32>)
  linalg.matmul ins(%A, %B : memref<200x48xbf16>, memref<48x300xbf16>) outs(%C : memref<200x300xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<300xf32>) outs(%C : memref<200x300xf32>) {
  ^bb0(%b: f32, %c: f32):
    %s = arith.addf %c, %b : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  }
  return
}"""

SOFTMAX_ROWS = """func.func @f(%A: memref<40x64xf32>, %O: memref<40x64xf32>) {
  linalg.softmax dimension(1) ins(%A : memref<40x64xf32>) outs(%O : memref<40x64xf32>)
  return
}"""

# a memref function that computes on tensors in between (what the lowering takes, issue 31)
TENSORS_INSIDE = """func.func @softmax(%in: memref<24x40xf32>, %out: memref<24x40xf32>) {
  %t = bufferization.to_tensor %in restrict : memref<24x40xf32> to tensor<24x40xf32>
  %e = tensor.empty() : tensor<24x40xf32>
  %s = linalg.softmax dimension(1) ins(%t : tensor<24x40xf32>) outs(%e : tensor<24x40xf32>) -> tensor<24x40xf32>
  bufferization.materialize_in_destination %s in restrict writable %out : (tensor<24x40xf32>, memref<24x40xf32>) -> ()
  return
}"""


def _gemm_args(m, n, k, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, (m, k)).astype(BF16), rng.uniform(-1, 1, (k, n)).astype(BF16),
            rng.uniform(-1, 1, (m, n)).astype(np.float32)]


def _mlp_args():
    rng = np.random.default_rng(1)
    return [rng.uniform(-1, 1, (200, 48)).astype(BF16), rng.uniform(-1, 1, (48, 300)).astype(BF16),
            rng.uniform(-1, 1, 300).astype(np.float32), np.full((200, 300), 7.0, np.float32)]


@pytest.mark.parametrize("m, n, k, partial", [(256, 256, 512, False),   # 2^25 points: the threshold
                                              (200, 264, 650, True)])    # partial tiles in m, n and k
def test_large_contraction_is_vectorized_and_agrees_with_the_loops(monkeypatch, m, n, k, partial):
    text = gemm(m, n, k)
    with ir.Context(), ir.Location.unknown():
        mod = ir.Module.parse(text)
        assert vectorize_contractions(mod)
        body = str(mod)
    assert "vector.fma" in body and ("linalg.generic" in body) == partial   # peeled partial tiles stay linalg
    args = _gemm_args(m, n, k)
    fast = run_reference(text, "gemm", args)[2]
    monkeypatch.setattr(reference, "_ENGINE_CACHE", {})
    monkeypatch.setattr("xedialects.sim.reference_fast.MIN_POINTS", 1 << 62)
    loops = run_reference(text, "gemm", args)[2]
    # bf16 products are exact in f32, so an FMA rounds as mulf + addf, and every element sums k in
    # the loops' order: the same bits (f32 inputs differ in the last bits, within compare's tolerance)
    assert np.array_equal(fast, loops)
    exact = args[2].astype(np.float64) + args[0].astype(np.float64) @ args[1].astype(np.float64)
    assert np.abs(fast - exact).max() < 1e-4


def test_small_contraction_stays_on_loops():
    with ir.Context(), ir.Location.unknown():
        mod = ir.Module.parse(gemm(64, 64, 64))
        assert not vectorize_contractions(mod)
        assert "vector." not in str(mod)


def test_sampled_blocks_give_the_whole_functions_elements():
    text = extract_host_functions(EPILOGUE, "mlp")
    p = plan(text, "mlp")
    assert p is not None and p.dims == ((0, None), (None, 1), (None, 0), (0, 1)) and (p.rows, p.cols) == (200, 300)
    args = _mlp_args()
    whole = run_reference(EPILOGUE, "mlp", args)
    mask = np.zeros((200, 300), bool)
    mask[:16, :20] = True                   # the first block, and the last (moved back to end at 200 x 300)
    mask[190:, 290:] = True
    part = run_reference(EPILOGUE, "mlp", args, checked={3: mask.reshape(-1)})
    assert np.array_equal(part[3][mask], whole[3][mask])
    # blocks of 128 x 128 at rows 0 and 72 (the last one moved back to end at 200), columns 0 and 172:
    # the elements no block holds keep the argument's values
    assert (part[3][:72, 128:172] == 7.0).all() and (part[3][:72, :20] != 7.0).all()
    for a, b in zip(part[:3], whole[:3]):
        assert np.array_equal(a, b)


def test_overlapping_blocks_read_the_arguments_as_given():
    # C += A x B with 200 rows: blocks of 128 rows at 0 and 72 share rows 72..127, which must not
    # accumulate twice
    args = _gemm_args(200, 64, 48)
    whole = run_reference(gemm(200, 64, 48), "gemm", args)[2]
    mask = np.zeros((200, 64), bool)
    mask[:, :10] = True
    part = run_reference(gemm(200, 64, 48), "gemm", args, checked={2: mask.reshape(-1)})[2]
    assert np.array_equal(part[mask], whole[mask])


def test_parallel_row_blocks_give_the_whole_function(monkeypatch):
    args = _mlp_args()
    whole = run_reference(EPILOGUE, "mlp", args)
    monkeypatch.setattr(reference, "_PARALLEL_MIN_ELEMENTS", 1)
    both = run_reference(EPILOGUE, "mlp", args, jobs=2)
    assert all(np.array_equal(a, b) for a, b in zip(both, whole))
    args = _gemm_args(200, 64, 48)          # row blocks at 0 and 72 (128 rows each) of C += A x B
    assert np.array_equal(run_reference(gemm(200, 64, 48), "gemm", args, jobs=2)[2],
                          run_reference(gemm(200, 64, 48), "gemm", args)[2])


def test_functions_blocks_would_change_run_whole():
    assert plan(extract_host_functions(SOFTMAX_ROWS, "f"), "f") is None      # a reduction along the rows
    rng = np.random.default_rng(2)
    args = [rng.uniform(-1, 1, (40, 64)).astype(np.float32), np.zeros((40, 64), np.float32)]
    mask = np.zeros((40, 64), bool)
    mask[3] = True
    out = run_reference(SOFTMAX_ROWS, "f", args, checked={1: mask.reshape(-1)})[1]
    e = np.exp(args[0] - args[0].max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_tensors_computed_in_a_memref_function_are_bufferized_first():
    x = np.random.default_rng(3).uniform(-2, 2, (24, 40)).astype(np.float32)
    out = run_reference(TENSORS_INSIDE, "softmax", [x, np.zeros_like(x)])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out[1], e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    assert np.array_equal(out[0], x)


def test_xe_run_summary_gives_the_phase_times(tmp_path, capsys):
    path = tmp_path / "gemm.mlir"
    path.write_text(gemm(64, 96, 32))
    assert main([str(path), "--pipeline=xe-gemm-to-xegpu", "--check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    phases = next(i for i, line in enumerate(lines) if line.startswith("phases: "))
    names = [p.rsplit(" ", 2)[0] for p in lines[phases][len("phases: "):].split(", ")]
    assert names == ["reference compile", "lowering", "simulation", "reference run", "compare"]
    assert all(float(p.rsplit(" ", 2)[1]) >= 0 for p in lines[phases][len("phases: "):].split(", "))
    assert lines[phases - 1].startswith("simulated @gemm in ") and lines[phases + 1].startswith("  A: ")
    assert lines[-1] == "PASS"
