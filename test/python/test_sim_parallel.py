"""Parallel and sampled simulation (xe-run --jobs / --sample-groups, sim/parallel.py):

* serial (one batch) and parallel (forked chunks of work-groups) runs are bit-identical, with the
  same trace counts: aligned and unaligned GEMM (VC XeGPU, SIMT, subgroup XeTile), SLM + barrier,
  two launches; atomics, overlapping writes, a traced partial-subgroup SIMT kernel and short
  launches run serially;
* an error in a worker surfaces exactly as in a serial run (API and xe-run: message, exit 1, no
  output file); a worker that dies makes the launch run serially;
* sampling runs the corner work-groups plus a seeded spread; the sampled check compares only the
  elements they wrote and catches a kernel that is wrong only in an edge work-group; a launch
  reading a partly simulated buffer is noted;
* progress is drawn only on a terminal and never with --quiet.
"""
import io
import os
import sys

import numpy as np
import pytest

import xedialects
from xedialects.diagnostics import DiagnosticError
from xedialects.passes import run as run_pipeline
from xedialects.sim import parallel, progress, simulate
from xedialects.sim.parallel import Scheduler, fork_available, merge_traces
from xedialects.sim.reference import compare
from xedialects.sim.sampling import edge_groups, sample_groups, sampled_masks
from xedialects.sim.testing import (parse_module, random_inputs, single_kernel_module, tdesc_attr, tdesc_type,
                                    xegpu_gemm_module, xetile_gemm_module)
from xedialects.sim.trace import Trace
from xedialects.tools.xe_run import main as xe_run

needs_fork = pytest.mark.skipif(not fork_available(), reason="parallel simulation needs fork")


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.itemsize in (1, 2, 4, 8) else a


def _trace_dict(tr):
    d = tr.as_dict()
    d["launches"] = [(r["kernel"], r["grid"], r["block"], r["level"], r["batch"]) for r in d["launches"]]
    return d


def _serial_vs_parallel(mod, entry, args, jobs=2):
    ser = simulate(mod, entry, args, trace=True)
    sched = Scheduler(jobs=jobs, min_groups=1, chunk_subgroups=1, min_seconds=0)
    par = simulate(mod, entry, args, trace=True, launcher=sched)
    for x, y in zip(ser.buffers, par.buffers):
        assert np.array_equal(_bits(x), _bits(y))
    assert _trace_dict(ser.trace) == _trace_dict(par.trace)
    return sched


def _lowered(src, pipeline):
    mod = xedialects.parse(src, "test.mlir")
    run_pipeline(mod, f"builtin.module({pipeline})")
    return mod


MM = """
func.func @mm(%A: memref<{M}x{K}xbf16>, %B: memref<{K}x{N}xbf16>, %C: memref<{M}x{N}xf32>) {{
  linalg.matmul ins(%A, %B : memref<{M}x{K}xbf16>, memref<{K}x{N}xbf16>) outs(%C : memref<{M}x{N}xf32>)
  return
}}
"""

TWO = """
func.func @two(%A: memref<96x64xbf16>, %B: memref<64x80xbf16>, %C: memref<96x80xf32>, %D: memref<80x48xf32>,
               %E: memref<96x48xf32>) {
  linalg.matmul ins(%A, %B : memref<96x64xbf16>, memref<64x80xbf16>) outs(%C : memref<96x80xf32>)
  linalg.matmul ins(%C, %D : memref<96x80xf32>, memref<80x48xf32>) outs(%E : memref<96x48xf32>)
  return
}
"""


@needs_fork
@pytest.mark.parametrize("M,N,K", [(256, 256, 64), (200, 72, 96)])
@pytest.mark.parametrize("simt", [False, True])
def test_pipeline_gemm_serial_equals_parallel(M, N, K, simt):
    mod = _lowered(MM.format(M=M, N=N, K=K), "xe-gemm-to-xegpu" + (",xegpu-simt-distribute" if simt else ""))
    A, B, C = random_inputs(M, N, K, seed=3)
    C = np.random.default_rng(4).uniform(-1, 1, C.shape).astype(np.float32)
    sched = _serial_vs_parallel(mod, "mm", [A, B, C])
    assert sched.modes == ["parallel (2 jobs)"]


@needs_fork
@pytest.mark.parametrize("gen", ["xetile", "xegpu"])
def test_hand_written_unaligned_gemm_serial_equals_parallel(gen):
    M, N, K = 100, 70, 50
    if gen == "xetile":
        text = xetile_gemm_module(M, N, K, wg_tile=(32, 32), sg_layout=(2, 2))
    else:
        text = xegpu_gemm_module(M, N, K, wg_tile=(32, 32), sg_layout=(2, 1))
    _serial_vs_parallel(parse_module(text), "main", list(random_inputs(M, N, K, seed=5)), jobs=3)


@needs_fork
def test_slm_barrier_kernel_serial_equals_parallel():
    # subgroup s of work-group w stores w*4+s into SLM, barrier, reads its neighbour's value
    body = """
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %wg = gpu.block_id x
    %sg = gpu.subgroup_id : index
    %slm = memref.alloc() : memref<4xindex, 3>
    %v = arith.muli %wg, %c4 : index
    %v2 = arith.addi %v, %sg : index
    memref.store %v2, %slm[%sg] : memref<4xindex, 3>
    gpu.barrier
    %n = arith.addi %sg, %c1 : index
    %n2 = arith.remui %n, %c4 : index
    %x = memref.load %slm[%n2] : memref<4xindex, 3>
    memref.store %x, %out[%wg, %sg] : memref<9x4xindex>
    """
    text = single_kernel_module([("out", "memref<9x4xindex>")], body, grid=(9, 1, 1), block=(64, 1, 1))
    mod = parse_module(text)
    _serial_vs_parallel(mod, "main", [np.zeros((9, 4), np.int64)])
    r = simulate(mod, "main", [np.zeros((9, 4), np.int64)], trace=True,
                 launcher=Scheduler(jobs=2, min_groups=1, chunk_subgroups=1, min_seconds=0))
    assert np.array_equal(r.buffers[0], [[w * 4 + (s + 1) % 4 for s in range(4)] for w in range(9)])
    assert r.trace.barriers == 1


@needs_fork
def test_two_launches_serial_equals_parallel():
    mod = _lowered(TWO, "xe-gemm-to-xegpu")
    rng = np.random.default_rng(0)
    import ml_dtypes
    args = [rng.uniform(-1, 1, s).astype(t) for s, t in
            [((96, 64), ml_dtypes.bfloat16), ((64, 80), ml_dtypes.bfloat16), ((96, 80), np.float32),
             ((80, 48), np.float32), ((96, 48), np.float32)]]
    sched = _serial_vs_parallel(mod, "two", args)
    assert sched.modes == ["parallel (2 jobs)"] * 2


ATOMIC = """
    %all = arith.constant dense<true> : vector<16xi1>
    %z = arith.constant dense<0> : vector<16xindex>
    %a = "xegpu.create_tdesc"(%acc, %z) {{mode = "vc"}} : (memref<1xf32>, vector<16xindex>) -> {d1}
    %ones = arith.constant dense<1.0> : vector<16xf32>
    %old = "xegpu.atomic_rmw"(%ones, %a, %all) {{kind = "addf", mode = "vc"}} : (vector<16xf32>, {d1}, vector<16xi1>) -> vector<16xf32>
"""


@needs_fork
def test_atomics_run_serially():
    body = ATOMIC.format(d1=tdesc_type((16,), "f32", tdesc_attr(scattered=True)))
    text = single_kernel_module([("acc", "memref<1xf32>")], body, grid=(8, 1, 1))
    sched = _serial_vs_parallel(parse_module(text), "main", [np.zeros(1, np.float32)])
    assert sched.modes == ["serial: atomics"]


OVERLAP = """
    %bx = gpu.block_id x
    %c0 = arith.constant 0 : index
    %f = arith.index_cast %bx : index to i32
    %v = arith.sitofp %f : i32 to f32
    memref.store %v, %out[%c0] : memref<1xf32>
"""


@needs_fork
def test_overlapping_writes_fall_back_to_serial():
    # every work-group writes element 0 (a race on hardware): the parallel run notices and re-runs
    text = single_kernel_module([("out", "memref<1xf32>")], OVERLAP, grid=(8, 1, 1))
    sched = _serial_vs_parallel(parse_module(text), "main", [np.full(1, -1, np.float32)])
    assert sched.modes == ["serial: work-groups wrote overlapping elements"]


OOB = """
    %bx = gpu.block_id x
    %c5 = arith.constant 5 : index
    %c10 = arith.constant 10 : index
    %bad = arith.cmpi eq, %bx, %c5 : index
    %i = arith.select %bad, %c10, %bx : index
    %v = memref.load %X[%i] : memref<8xf32>
    memref.store %v, %Y[%bx] : memref<8xf32>
"""


def _oob_text():
    return single_kernel_module([("X", "memref<8xf32>"), ("Y", "memref<8xf32>")], OOB, grid=(8, 1, 1))


@needs_fork
def test_worker_error_is_the_serial_error():
    mod = parse_module(_oob_text())
    args = [np.arange(8, dtype=np.float32), np.zeros(8, np.float32)]
    with pytest.raises(DiagnosticError) as serial:
        simulate(mod, "main", args)
    sched = Scheduler(jobs=2, min_groups=1, chunk_subgroups=1, min_seconds=0)
    with pytest.raises(DiagnosticError) as par:
        simulate(mod, "main", args, launcher=sched)
    assert [d.format() for d in par.value.diagnostics] == [d.format() for d in serial.value.diagnostics]
    assert "work-group (5, 0, 0)" in serial.value.diagnostics[0].message


@needs_fork
def test_worker_error_through_xe_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_SECONDS", 0.0)       # run even this small launch in parallel
    monkeypatch.setattr(parallel, "CHUNK_SUBGROUPS", 1)
    path = tmp_path / "oob.mlir"
    path.write_text(_oob_text())
    out = {}
    for jobs in ("1", "2"):
        assert xe_run([str(path), "--jobs", jobs, "--output", str(tmp_path / f"o{jobs}.npz")]) == 1
        out[jobs] = capsys.readouterr().err
        assert not (tmp_path / f"o{jobs}.npz").exists()
    assert out["1"] == out["2"] and "error:" in out["1"] and "out-of-bounds" in out["1"]
    assert "Traceback" not in out["2"]


def test_bad_job_and_sample_counts(tmp_path, capsys):
    path = tmp_path / "oob.mlir"
    path.write_text(_oob_text())
    for opt in (["--jobs", "0"], ["--sample-groups", "x"]):
        assert xe_run([str(path), *opt]) == 1        # a usage error: exit 1 like every other error
        assert "whole number >= 1" in capsys.readouterr().err
    assert xe_run([str(path), "--sample-groups", "2", "--backend", "opencl"]) == 1
    assert "--sample-groups" in capsys.readouterr().err


def test_merge_traces_sums_counts_and_takes_max_barriers():
    a, b, into = Trace(dpas=3, barriers=2), Trace(dpas=4, barriers=2), Trace(dpas=1, barriers=1)
    a.count("x", 5)
    b.count("x", 6)
    merge_traces(into, [a, b])
    assert (into.dpas, into.barriers, into.op_counts["x"]) == (8, 3, 11)


# ------------------------------------------------------------------------------------------------
# sampling


def test_sample_includes_corners_and_is_seeded():
    assert edge_groups((5, 3, 1)).tolist() == [0, 4, 10, 14]
    s = sample_groups((5, 3, 1), 7, seed=1)
    assert len(s) == 7 and set(edge_groups((5, 3, 1))) <= set(s.tolist())
    assert s.tolist() == sample_groups((5, 3, 1), 7, seed=1).tolist()
    assert sample_groups((5, 3, 1), 2).tolist() == [0, 4, 10, 14]     # never fewer than the corners
    assert sample_groups((5, 3, 1), 99).tolist() == list(range(15))
    assert edge_groups((1, 1, 1)).tolist() == [0]


def _sampled_check(mod, entry, args, want, k, jobs):
    sched = Scheduler(jobs=jobs, sample=k, min_groups=1, chunk_subgroups=1, min_seconds=0)
    res = simulate(mod, entry, args, launcher=sched)
    masks = sampled_masks(sched, [f"x{i}" for i in range(len(args))], res.returns)
    return sched, res, masks


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=needs_fork)])
def test_sampled_gemm_check_covers_unaligned_edges(jobs):
    M, N, K = 200, 72, 96
    mod = _lowered(MM.format(M=M, N=N, K=K), "xe-gemm-to-xegpu")
    A, B, C = random_inputs(M, N, K, seed=2)
    full = simulate(mod, "mm", [A, B, C]).buffers[2]
    sched, res, masks = _sampled_check(mod, "mm", [A, B, C], full, 5, jobs)
    m = masks["x2"].reshape(M, N)
    assert "x0" not in masks and "x1" not in masks           # inputs are not written
    assert sched.groups_run == 5 and sched.groups_total > 5
    assert m[0, 0] and m[-1, -1] and m[0, -1] and m[-1, 0]   # the corner work-groups ran
    assert 0 < m.sum() < M * N
    assert np.array_equal(_bits(res.buffers[2][m]), _bits(full[m]))   # what they wrote is the full run's
    assert not res.buffers[2][~m].any()                       # nothing else was simulated


EDGE_BUG = """
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %tx = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %last = arith.constant 5 : index
    %col0 = arith.muli %bx, %c16 : index
    %col = arith.addi %col0, %tx : index
    %x = memref.load %a[%by, %col] : memref<4x96xf32>
    %two = arith.constant 2.0 : f32
    %three = arith.constant 3.0 : f32
    %edge = arith.cmpi eq, %bx, %last : index
    %f = arith.select %edge, %three, %two : f32
    %y = arith.mulf %x, %f : f32
    memref.store %y, %out[%by, %col] : memref<4x96xf32>
"""


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=needs_fork)])
def test_sampled_check_catches_a_bug_in_an_edge_work_group(jobs):
    # out = 2 * a, except that the last work-group column (bx = 5) multiplies by 3
    text = single_kernel_module([("a", "memref<4x96xf32>"), ("out", "memref<4x96xf32>")], EDGE_BUG,
                                grid=(6, 4, 1), block=(16, 1, 1))
    a = np.random.default_rng(0).uniform(1, 2, (4, 96)).astype(np.float32)
    want = 2 * a
    sched, res, masks = _sampled_check(parse_module(text), "main", [a, np.zeros_like(a)], want, 4, jobs)
    m = masks["x1"].reshape(4, 96)
    assert sched.groups_run == 4 and m.sum() == 4 * 16           # the four corner work-groups
    ok, _, _ = compare(res.buffers[1][m], want[m], "f32", "f32", k=1)
    assert not ok                                                 # the bug at bx = 5 is caught
    left = m & (np.arange(96) < 80)
    assert left.sum() == 2 * 16 and np.array_equal(res.buffers[1][left], want[left])


def test_xe_run_sampled_check(tmp_path, capsys):
    path = tmp_path / "mm.mlir"
    path.write_text(MM.format(M=200, N=72, K=96))
    assert xe_run([str(path), "--pipeline=xe-gemm-to-xegpu", "--check", "--sample-groups", "3", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "sampled check: 4 of 14 work-groups" in out        # the 4 corners of the 2 x 7 grid
    assert "A: not written by the sampled work-groups, not checked" in out
    assert " of 14400 elements)  ok" in out and out.rstrip().endswith("PASS")


def test_xe_run_sampled_check_without_a_launch(tmp_path, capsys):
    """A program that launches nothing (a zero-sized GEMM, removed as empty) has no work-group to sample:
    every element is checked (it was 'sampled check: 0 of 0 work-groups' and a FAIL with no reason)."""
    path = tmp_path / "mm.mlir"
    path.write_text(MM.format(M=0, N=72, K=96))
    assert xe_run([str(path), "--pipeline=xe-gemm-to-xegpu", "--check", "--sample-groups", "2", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "sampled check: the program launched no work-group; every element checked" in out
    assert "B: max abs error 0" in out and out.rstrip().endswith("PASS")


# ------------------------------------------------------------------------------------------------
# progress


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_only_on_a_terminal(monkeypatch):
    pytest.importorskip("tqdm")
    monkeypatch.setattr(progress, "DELAY", 0.0)
    try:
        for enabled, stream, shown in ((True, io.StringIO(), False), (True, _Tty(), True), (False, _Tty(), False)):
            monkeypatch.setattr(sys, "stderr", stream)
            progress.configure(enabled)
            with progress.bar("simulating @k", 10) as b:
                b.update(10)
            assert ("simulating @k" in stream.getvalue()) == shown, stream.getvalue()
    finally:
        progress.configure(False)


def test_xe_run_prints_no_progress_when_not_a_terminal(tmp_path, capfd, monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    path = tmp_path / "mm.mlir"
    path.write_text(MM.format(M=64, N=64, K=32))
    try:
        assert xe_run([str(path), "--pipeline=xe-gemm-to-xegpu", "--jobs", "1"]) == 0
    finally:
        progress.configure(False)
    assert capfd.readouterr().err == ""


_real_run_chunk = parallel._run_chunk


def _dying_run_chunk(i):
    if i == 1:
        os._exit(3)          # a worker killed mid-launch (e.g. by the out-of-memory killer)
    return _real_run_chunk(i)


@needs_fork
def test_dead_worker_falls_back_to_serial(monkeypatch):
    monkeypatch.setattr(parallel, "_run_chunk", _dying_run_chunk)
    M, N, K = 100, 70, 50
    text = xegpu_gemm_module(M, N, K, wg_tile=(32, 32), sg_layout=(2, 1))
    sched = _serial_vs_parallel(parse_module(text), "main", list(random_inputs(M, N, K, seed=5)))
    assert sched.modes[0].startswith("serial: a worker failed")


def test_sampled_two_launches_note_the_partly_simulated_input(tmp_path, capsys):
    path = tmp_path / "two.mlir"
    path.write_text(TWO)
    xe_run([str(path), "--pipeline=xe-gemm-to-xegpu", "--check", "--sample-groups", "1", "--jobs", "1"])
    out = capsys.readouterr().out
    assert "note: the launch of @two_kernels::@two_1 takes buffer arg2, which an earlier sampled launch" in out


SIMT_PARTIAL = """
    %bid = gpu.block_id x
    %tid = gpu.thread_id x
    %bd = gpu.block_dim x
    %base = arith.muli %bid, %bd : index
    %gid = arith.addi %base, %tid : index
    %x = memref.load %a[%gid] : memref<160xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %out[%gid] : memref<160xf32>
"""


@needs_fork
def test_simt_kernel_with_partial_subgroups():
    # 8 work-groups of 20 work-items: parallel without a trace; with one, the counts need one batch
    text = single_kernel_module([("a", "memref<160xf32>"), ("out", "memref<160xf32>")], SIMT_PARTIAL,
                                grid=(8, 1, 1), block=(20, 1, 1))
    mod = parse_module(text)
    args = [np.arange(160, dtype=np.float32), np.zeros(160, np.float32)]
    sched = _serial_vs_parallel(mod, "main", args)
    assert sched.modes == ["serial: trace of a SIMT kernel with a partial subgroup"]
    sched = Scheduler(jobs=2, min_groups=1, chunk_subgroups=1, min_seconds=0)
    r = simulate(mod, "main", args, launcher=sched)
    assert sched.modes == ["parallel (2 jobs)"] and np.array_equal(r.buffers[1], 2 * args[0])


@pytest.mark.parametrize("quiet", [False, True])
def test_xe_run_progress_on_a_terminal_unless_quiet(tmp_path, monkeypatch, capsys, quiet):
    pytest.importorskip("tqdm")
    monkeypatch.setattr(progress, "DELAY", 0.0)
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    path = tmp_path / "mm.mlir"
    path.write_text(MM.format(M=64, N=64, K=32))
    try:
        assert xe_run([str(path), "--pipeline=xe-gemm-to-xegpu", "--jobs", "1"] + (["--quiet"] if quiet else [])) == 0
    finally:
        progress.configure(False)
    assert ("simulating @mm_kernels::@mm_0" in tty.getvalue()) != quiet, tty.getvalue()


@needs_fork
def test_short_launches_run_serially_by_default():
    # a host loop of many small launches must not pay a fork each: small launches stay serial
    M, N, K = 100, 70, 50
    text = xegpu_gemm_module(M, N, K, wg_tile=(32, 32), sg_layout=(2, 1))
    sched = Scheduler(jobs=2)
    simulate(parse_module(text), "main", list(random_inputs(M, N, K, seed=5)), launcher=sched)
    assert sched.modes == ["serial: short launch"]


@needs_fork
def test_too_little_memory_runs_serially(monkeypatch):
    monkeypatch.setattr(parallel, "_memory_cap", lambda nbytes: 1)
    M, N, K = 100, 70, 50
    text = xegpu_gemm_module(M, N, K, wg_tile=(32, 32), sg_layout=(2, 1))
    sched = _serial_vs_parallel(parse_module(text), "main", list(random_inputs(M, N, K, seed=5)))
    assert sched.modes[0].startswith("serial: too little free memory")
