"""Parallel and sampled execution of kernel launches (xe-run --jobs N, --sample-groups K).

`Scheduler` is a `Simulator.launcher`: each gpu.launch_func's work-groups (all, or a sample from
`sampling.py`) are split into contiguous chunks that forked worker processes run with
`Simulator.run_workgroups`. A worker runs on private copies of the global buffers and reports the
elements it changed (bitwise) into shared anonymous memory; the parent merges them once every
chunk succeeded and no element was changed by two chunks. A launch runs as one serial batch
instead when it uses atomics, without fork, for short launches, and again (from the untouched
buffers) when a worker failed or chunks overlapped, so results and errors are the serial ones.
Trace counts of the chunks are summed (barriers: the maximum). A chunk's gpu.printf output comes back with
its result and is written after the merge, chunk by chunk: the serial order. docs/simulator-scaling.md.
"""
from __future__ import annotations

import mmap
import multiprocessing
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

import numpy as np

from ..diagnostics import DiagnosticError
from . import progress
from .core import SUBGROUP_SIZE, _is_vc_kernel, _walk
from .sampling import sample_groups
from .trace import LaunchRecord, Trace

MIN_GROUPS = 4          # launches with fewer work-groups run serially (fork costs more)
MIN_SECONDS = 0.3       # launches expected to take less than this serially run serially
PRIOR_SUBGROUP_SECONDS = 5e-4   # expected cost of one subgroup before a kernel has been timed
CHUNK_SUBGROUPS = 256   # subgroups per chunk: smaller batches run faster per work-group (caches) up to
                        # where the interpreter's per-op overhead dominates (bench/sim_gemm.py)
_ATOMICS = ("memref.atomic_rmw", "memref.generic_atomic_rmw", "xegpu.atomic_rmw", "xetile.atomic_rmw_tile")


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


class Scheduler:
    """Runs launches in parallel (`jobs`) and/or on a sample of `sample` work-groups per launch.
    With a sample (or `track=True`) `written[buffer]` is the mask of elements the run changed."""

    def __init__(self, jobs: int = 1, sample: int = 0, seed: int = 0, track: bool = False,
                 min_groups: int | None = None, chunk_subgroups: int | None = None,
                 min_seconds: float | None = None):
        self.jobs = max(1, int(jobs))
        self.sample = int(sample)
        self.seed = seed
        self.track = track or self.sample > 0
        self.min_groups = MIN_GROUPS if min_groups is None else min_groups    # defaults: the module's
        self.chunk_subgroups = CHUNK_SUBGROUPS if chunk_subgroups is None else chunk_subgroups
        self.min_seconds = MIN_SECONDS if min_seconds is None else min_seconds
        self._cost: dict[int, float] = {}     # kernel -> measured seconds of one work-group (one core)
        self.written: dict = {}          # Buffer -> bool mask of changed elements (when tracking)
        self.groups_run = 0
        self.groups_total = 0
        self.modes: list[str] = []       # per launch: how it ran ("parallel ..." / "serial: why")
        self.notes: list[str] = []       # sampled runs: launches that read partly simulated buffers
        self._atomics: dict[int, bool] = {}

    # ------------------------------------------------------------------------------------------
    def __call__(self, sim, loc, kernel_ref, kop, grid, block, args):
        nwg = int(np.prod(grid))
        ids = sample_groups(grid, self.sample, self.seed) if self.sample else np.arange(nwg, dtype=np.int64)
        if self.sample:
            self._note_partial_inputs(kernel_ref, args)
        self.groups_run += int(ids.size)
        self.groups_total += nwg
        why = self._serial_reason(sim, kop, block, ids.size)
        t0 = time.perf_counter()
        with progress.bar(f"simulating {kernel_ref}", int(ids.size)) as bar:
            batch = None
            if why is None:
                batch, why = self._parallel(sim, (loc, kernel_ref, kop, grid, block, args), ids, bar)
            if batch is None:
                with bar.ticking():
                    batch = self._serial(sim, (loc, kernel_ref, kop, grid, block, args), ids)
                bar.update(int(ids.size))
        self.modes.append(why or f"parallel ({self.jobs} jobs)")
        spent = (time.perf_counter() - t0) * (1 if why else min(self.jobs, int(ids.size)))
        self._cost[id(kop)] = spent / max(1, int(ids.size))
        if sim.trace is not None:
            sim.trace.launches.append(LaunchRecord(kernel_ref, tuple(grid), tuple(block), sim.kernel_level(kop),
                                                   batch, time.perf_counter() - t0))

    def _note_partial_inputs(self, kernel_ref, args):
        for a in args:
            m = self.written.get(getattr(a, "buf", None))
            if m is not None and not m.all():
                self.notes.append(f"the launch of {kernel_ref} takes buffer {a.buf.name}, which an earlier sampled "
                                  f"launch wrote only in part: its results may differ from a full run")

    def _serial_reason(self, sim, kop, block, n) -> str | None:
        if self.jobs <= 1:
            return "serial"
        if not fork_available():
            return "serial: no fork on this platform"
        if n < max(2, self.min_groups):
            return f"serial: {n} work-group{'s' if n != 1 else ''}"
        per_wg = self._cost.get(id(kop), _subgroups_per_group(kop, block) * PRIOR_SUBGROUP_SECONDS)
        if n * per_wg < self.min_seconds:
            return "serial: short launch"
        key = id(kop)
        if key not in self._atomics:
            found = []     # in the kernel's gpu.module, so functions the kernel calls count too
            scope = kop.parent if kop.parent is not None and kop.parent.name == "gpu.module" else kop
            _walk(scope, lambda op: found.append(op.name) if op.name in _ATOMICS else None)
            self._atomics[key] = bool(found)
        if self._atomics[key]:
            return "serial: atomics"
        if sim.trace is not None and sim.kernel_level(kop) == "simt" and int(np.prod(block)) % SUBGROUP_SIZE:
            # SIMT message counts are active work-items // 16, which does not add up over chunks
            return "serial: trace of a SIMT kernel with a partial subgroup"
        return None

    # ------------------------------------------------------------------------------------------
    def _serial(self, sim, launch, ids):
        loc, kernel_ref, kop, grid, block, args = launch
        sub = None if ids.size == int(np.prod(grid)) else ids
        if not self.track:
            return sim.run_workgroups(loc, kernel_ref, kop, grid, block, args, sub)[0]
        bufs = _global_buffers(sim)
        before = [b.data.copy() for b in bufs]
        batch = sim.run_workgroups(loc, kernel_ref, kop, grid, block, args, sub)[0]
        for b, old in zip(bufs, before):
            ch = _changed(b.data, old)
            if ch.any():
                self._record(b, ch)
        return batch

    def _parallel(self, sim, launch, ids, bar):
        """(batch, None) after a successful parallel run; (None, reason) to run serially."""
        global _WORK
        loc, kernel_ref, kop, grid, block, args = launch
        sim.compile_func(kop, sim.kernel_level(kop))    # compile once, before forking
        bufs = _global_buffers(sim)
        shared = [(_shared(b.data.size, b.dtype), _shared(b.data.size, np.uint8)) for b in bufs]
        sgpw = _subgroups_per_group(kop, block)
        nchunks = min(int(ids.size), max(self.jobs, -(-int(ids.size) * sgpw // self.chunk_subgroups)))
        workers = min(self.jobs, nchunks, _memory_cap(sum(b.data.nbytes for b in bufs)))
        if workers < 2:
            return None, "serial: too little free memory for a private copy of the buffers per worker"
        chunks = np.array_split(ids, nchunks)
        _WORK = (sim, launch, bufs, shared, chunks)
        counts = np.zeros(len(bufs), np.int64)
        traces, batch, failed = [], 0, None
        printed = [""] * nchunks
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
        try:
            pending = {pool.submit(_run_chunk, i) for i in range(nchunks)}
            while pending and failed is None:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                bar.refresh()
                for f in done:
                    try:
                        res = f.result()
                    except Exception as e:   # noqa: BLE001 - a worker died (e.g. out of memory)
                        res = ("error", f"{type(e).__name__}: {e}")
                    if res[0] != "ok":
                        failed = res[1]
                        break
                    _, i, cnt, tr, b, printed[i] = res
                    counts += cnt
                    batch += b
                    traces.append(tr)
                    bar.update(int(chunks[i].size))
        finally:
            _WORK = None
            if pending or failed is not None:   # stop the other workers now, not after their chunks
                for proc in list((getattr(pool, "_processes", None) or {}).values()):
                    proc.terminate()
            pool.shutdown(wait=True, cancel_futures=True)
        if failed is not None:
            return None, "serial: a worker failed (re-run serially for the exact error)"
        marks = [m for _, m in shared]
        for n, m in zip(counts, marks):
            if n and np.count_nonzero(m) != n:
                return None, "serial: work-groups wrote overlapping elements"
        for b, (out, m), n in zip(bufs, shared, counts):
            if n:
                mb = m.view(bool)
                np.copyto(b.data, out, where=mb)
                if self.track:
                    self._record(b, mb)
        if sim.trace is not None:
            merge_traces(sim.trace, traces)
        text = "".join(printed)     # chunks are ascending runs of work-groups: the serial order
        if text:
            sim.printf_out(text)
        return batch, None

    def _record(self, buf, mask):
        prev = self.written.get(buf)
        if prev is None or prev.shape != mask.shape:
            self.written[buf] = np.array(mask, dtype=bool)
        else:
            prev |= mask

    def written_mask(self, name: str):
        """The changed-elements mask of the global buffer called `name` (e.g. 'arg2'), or None."""
        for b, m in self.written.items():
            if b.name == name and b.space == "global":
                return m
        return None


# ----------------------------------------------------------------------------------------------
# worker side (runs in forked processes; _WORK is inherited from the parent)

_WORK = None
_PRISTINE = None    # in a worker: the parent's buffers (copy-on-write), while it runs private copies


def _run_chunk(i):
    sim, (loc, kernel_ref, kop, grid, block, args), bufs, shared, chunks = _WORK
    if sim.trace is not None:
        sim.trace = Trace()
    global _PRISTINE
    if _PRISTINE is None:       # this worker's first chunk: run on private copies from now on
        _PRISTINE = [b.data for b in bufs]
        for b in bufs:
            b.data = b.data.copy()
            b._views = {}
    pristine = _PRISTINE
    printed = []                # the chunk's gpu.printf output, written by the parent in chunk order
    sim.printf_out = printed.append
    try:
        batch = sim.run_workgroups(loc, kernel_ref, kop, grid, block, args, chunks[i])[0]
    except DiagnosticError:
        return ("error", "diagnostic")
    except BaseException as e:  # noqa: BLE001 - the parent re-runs serially and reports it
        return ("error", f"{type(e).__name__}: {e}")
    counts = np.array([_export_changes(b.data, old, out, mark) for b, old, (out, mark) in zip(bufs, pristine, shared)],
                      np.int64)
    return ("ok", i, counts, sim.trace, batch, "".join(printed))


_BLOCK = 1 << 16    # elements compared at a time: the temporaries stay in cache


def _export_changes(new, old, out, mark) -> int:
    """Copy the elements of `new` that differ from `old` (bitwise) to `out`, mark them in `mark`,
    reset them in `new` to `old` (the launch's starting state, for the worker's next chunk);
    the number of such elements."""
    n = 0
    for s in range(0, new.size, _BLOCK):
        idx = np.flatnonzero(_changed(new[s:s + _BLOCK], old[s:s + _BLOCK]))
        if idx.size:
            idx += s
            out[idx] = new[idx]
            mark[idx] = 1
            new[idx] = old[idx]
            n += idx.size
    return n


# ----------------------------------------------------------------------------------------------


def _subgroups_per_group(kop, block) -> int:
    threads = int(np.prod(block))
    return threads if _is_vc_kernel(kop) else -(-threads // SUBGROUP_SIZE)   # VC kernels: a thread each


def _memory_cap(nbytes: int) -> int:
    """How many workers' private copies of `nbytes` fit in half the free physical memory."""
    try:
        free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 1 << 30
    return int(free // 2 // max(1, nbytes))


def _global_buffers(sim):
    return [b for b in sim.memory.buffers if b.space == "global" and not b.freed and b.data.size]


def _shared(n: int, dtype) -> np.ndarray:
    """A zero-filled array in anonymous shared memory (visible to forked children)."""
    dtype = np.dtype(dtype)
    mm = mmap.mmap(-1, max(1, n * dtype.itemsize))
    return np.frombuffer(mm, dtype=dtype, count=n)


def _changed(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """Elements whose bits differ (so -0.0 vs 0.0 and NaN payloads count, NaN == NaN does not)."""
    size = new.dtype.itemsize
    if size in (1, 2, 4, 8):
        u = np.dtype(f"u{size}")
        return new.view(u) != old.view(u)
    return (new.view(np.uint8).reshape(-1, size) != old.view(np.uint8).reshape(-1, size)).any(axis=1)


def merge_traces(into: Trace, parts) -> None:
    """Add the counts of the chunks' traces to `into` as one serial batch would have counted them:
    sums, except `barriers` (one per lock-step execution, the same in every chunk): the maximum."""
    barriers = 0
    for t in parts:
        if t is None:
            continue
        into.op_counts.update(t.op_counts)
        for k, v in t.__dict__.items():
            if k in ("op_counts", "launches", "barriers"):
                continue
            setattr(into, k, getattr(into, k) + v)
        barriers = max(barriers, t.barriers)
    into.barriers += barriers
