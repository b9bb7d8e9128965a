"""Simulator: hand-written GEMM kernels (subgroup-level XeTile, VC-mode XeGPU) checked against numpy
and against the upstream-MLIR CPU reference of a linalg.matmul; unaligned shapes rely on the
out-of-bounds semantics of 2D block accesses; a deliberately wrong kernel must fail the comparison."""
import numpy as np
import pytest

from xedialects.sim import simulate
from xedialects.sim.reference import compare, run_reference
from xedialects.sim.testing import parse_module, random_inputs, xegpu_gemm_module, xetile_gemm_module


def _numpy_ref(A, B):
    return A.astype(np.float32) @ B.astype(np.float32)


def _check(text, M, N, K, trace=False):
    mod = parse_module(text)
    A, B, C = random_inputs(M, N, K, seed=M + N + K)
    res = simulate(mod, "main", [A, B, C], trace=trace)
    out = res.buffers[2]
    ok_np, mx_np, _ = compare(out, _numpy_ref(A, B), "bf16", "f32", k=K)
    ref = run_reference(mod, "reference", [A, B, C])[2]
    ok_ref, mx_ref, rel = compare(out, ref, "bf16", "f32", k=K)
    return ok_np, ok_ref, res, (mx_np, mx_ref, rel)


def test_xetile_gemm_256():
    ok_np, ok_ref, res, info = _check(xetile_gemm_module(256, 256, 256), 256, 256, 256, trace=True)
    assert ok_np and ok_ref, info
    tr = res.trace
    # 16 work-groups x 4 subgroups, 8 K-steps, one A and one B tile load each
    assert tr.block_loads == 64 * 8 * 2
    assert tr.block_stores == 64
    assert tr.op_counts["xetile.tile_mma"] == 64 * 8


def test_xegpu_vc_gemm_256():
    text = xegpu_gemm_module(256, 256, 256, wg_tile=(64, 64), sg_layout=(2, 2))
    ok_np, ok_ref, res, info = _check(text, 256, 256, 256, trace=True)
    assert ok_np and ok_ref, info
    tr = res.trace
    # 64 subgroups x 8 K-steps x (4 x 2 C blocks) x 2 K sub-blocks
    assert tr.dpas == 64 * 8 * 8 * 2
    assert tr.dpas_flops == tr.dpas * 2 * 8 * 16 * 16
    assert tr.block_stores == 64 * 8


def test_xegpu_vc_gemm_vnni_a():
    text = xegpu_gemm_module(64, 64, 64, wg_tile=(32, 32), sg_layout=(1, 2), a_vnni=True)
    ok_np, ok_ref, _, info = _check(text, 64, 64, 64)
    assert ok_np and ok_ref, info


@pytest.mark.parametrize("gen", ["xetile", "xegpu"])
def test_unaligned_gemm_uses_oob_semantics(gen):
    M, N, K = 100, 70, 50
    if gen == "xetile":
        text = xetile_gemm_module(M, N, K, wg_tile=(64, 64), sg_layout=(2, 2))
    else:
        text = xegpu_gemm_module(M, N, K, wg_tile=(32, 32), sg_layout=(2, 1))
    ok_np, ok_ref, res, info = _check(text, M, N, K)
    assert ok_np and ok_ref, info


@pytest.mark.parametrize("gen", ["xetile", "xegpu"])
def test_wrong_kernel_fails_comparison(gen):
    M = N = K = 64
    if gen == "xetile":
        text = xetile_gemm_module(M, N, K, wg_tile=(64, 64), sg_layout=(2, 2), bug_offset=1)
    else:
        text = xegpu_gemm_module(M, N, K, wg_tile=(32, 32), sg_layout=(2, 1), bug_offset=1)
    ok_np, ok_ref, _, info = _check(text, M, N, K)
    assert not ok_np and not ok_ref, info


def test_xegpu_gemm_1024():
    # correctness at full size; the time is reported by bench/sim_gemm.py, not asserted here
    M = N = K = 1024
    mod = parse_module(xegpu_gemm_module(M, N, K, wg_tile=(256, 256), sg_layout=(8, 4), k_step=32))
    A, B, C = random_inputs(M, N, K)
    res = simulate(mod, "main", [A, B, C], trace=True)
    assert res.trace.dpas == (M // 8) * (N // 16) * (K // 16)
    assert compare(res.buffers[2], _numpy_ref(A, B), "bf16", "f32", k=K)[0]
