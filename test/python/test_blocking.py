"""xetile-blocking and xetile-check-hw: the blocks chosen are legal for the architecture, the
blocked program computes the same result (simulated against the CPU reference), the accumulator
is not re-blocked inside the K loop, and blocking never costs 2D block messages compared with
letting convert-xetile-to-xegpu pick blocks for unblocked tiles."""
import re
import sys
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import xedialects
from xedialects.arch import get_arch
from xedialects.passes import run
from xedialects.sim import simulate
from xedialects.sim.reference import compare, run_reference

sys.path.insert(0, os.path.dirname(__file__))
from test_e2e_pipeline import CASES, _inputs, _mm  # noqa: E402

SG = "convert-linalg-to-xetile,xetile-wg-to-sg"
BLOCKED = SG + ",xetile-blocking,xetile-check-hw{require-blocked=true}"


def _lower(src, pipeline):
    m = xedialects.parse(src, "case.mlir")
    run(m, f"builtin.module({pipeline})")
    return m


def _loop_body(text):
    return text[text.index("scf.for"):text.index("scf.yield")]


def test_accumulator_stays_in_dpas_blocks_across_the_k_loop():
    text = xedialects.print_ir(_lower(CASES["bf16_256"][0], BLOCKED))
    body = _loop_body(text)
    # operands are re-blocked by slicing (pack to DPAS blocks), the f32 accumulator never
    assert "tile_pack" in body
    assert not re.search(r"tile_(un)?pack[^\n]*xf32", body)
    assert re.search(r"iter_args\(%\w+ = %\w+[^)]*\) -> \(vector<1x2x8x16xf32>", text)


def test_mma_blocks_option_removes_all_reblocking():
    src = CASES["bf16_256"][0]
    text = xedialects.print_ir(_lower(src, SG + ",xetile-blocking{load-blocks=mma},xetile-check-hw"))
    assert "tile_pack" not in text and "tile_unpack" not in text
    assert "inner_blocks = [8, 16]" in text and "inner_blocks = [16, 16]" in text


@pytest.mark.parametrize("case", ["bf16_256", "i8_i32", "f32_tf32", "dynamic"])
def test_blocking_never_adds_messages(case):
    src, specs = CASES[case]
    args = _inputs(specs)
    traces = {}
    for name, pipe in {"unblocked": SG, "blocked": SG + ",xetile-blocking"}.items():
        m = _lower(src, "xe-bufferize," + pipe + ",convert-xetile-to-xegpu,canonicalize,cse")
        traces[name] = simulate(m, "f", [a.copy() for a in args], trace=True).trace
    u, b = traces["unblocked"], traces["blocked"]
    assert b.dpas == u.dpas
    assert b.block_loads <= u.block_loads and b.block_stores <= u.block_stores
    assert b.block_load_bytes == u.block_load_bytes


_ELTS = [("bf16", "f32"), ("f16", "f32"), ("f16", "f16"), ("i8", "i32"), ("f32", "f32")]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.sampled_from([1, 7, 16, 40, 96]), n=st.sampled_from([16, 24, 48, 64]),
       k=st.sampled_from([8, 32, 50, 64]), elts=st.sampled_from(_ELTS))
def test_random_gemms_block_legally_and_compute_the_same(m, n, k, elts):
    a, c = elts
    src, specs = _mm(m, n, k, a, c)
    module = _lower(src, BLOCKED)   # check-hw: every block legal, nothing left unblocked
    args = _inputs(specs, seed=m + n + k)
    want = run_reference(src, "f", [x.copy() for x in args])[2]
    got = simulate(module, "f", [x.copy() for x in args]).buffers[2]
    ok, mx, rel = compare(got, want, a, c, k=k)
    assert ok, (m, n, k, elts, mx, rel)


def test_arch_table_drives_the_choice():
    arch = get_arch("pvc")
    text = xedialects.print_ir(_lower(CASES["bf16_256"][0], BLOCKED))
    for h, w in {tuple(map(int, b)) for b in re.findall(r"inner_blocks = \[(\d+), (\d+)\]", text)}:
        assert h <= arch.block_rule("load", "bf16").max_height or h <= arch.block_rule("store", "f32").max_height
        assert w <= max(arch.block_rule("load", "bf16").max_width, arch.block_rule("store", "f32").max_width)


# a GEMM block normalised by its row sums, the sums stored too: tile_reduce and tile_broadcast in
# the blocked 4D form, simulated at every stage and against numpy
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


@pytest.mark.parametrize("stages", ["", "xetile-blocking", "xetile-blocking,xetile-check-hw{require-blocked=true}",
                                    "xetile-blocking,convert-xetile-to-xegpu,canonicalize,cse"])
def test_blocked_reduce_and_broadcast_compute_row_normalisation(stages):
    import ml_dtypes
    m = xedialects.parse(ROW_SUMS, "row_sums.mlir")
    if stages:
        run(m, f"builtin.module({stages})")
    text = xedialects.print_ir(m)
    if stages.startswith("xetile-blocking") and "convert" not in stages:
        assert re.search(r"tile_reduce <add> %\w+ \[1, 3\] : vector<2x2x8x16xf32> -> vector<2x1x8x1xf32>", text)
        assert re.search(r"tile_broadcast %\w+ \[1, 3\] : vector<2x1x8x1xf32> -> vector<2x2x8x16xf32>", text)
        assert "tile_unpack" not in text.split("tile_mma")[1]       # no re-blocking after the MMA
    rng = np.random.default_rng(1)
    A = rng.uniform(0.5, 1, (16, 32)).astype(ml_dtypes.bfloat16)
    B = rng.uniform(0.5, 1, (32, 32)).astype(ml_dtypes.bfloat16)
    out = simulate(m, "main", [A, B, np.zeros((16, 32), np.float32), np.zeros((16, 1), np.float32)]).buffers
    d = A.astype(np.float32) @ B.astype(np.float32)
    sums = d.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out[3], sums, rtol=1e-5)
    np.testing.assert_allclose(out[2], d / sums, rtol=1e-5)
