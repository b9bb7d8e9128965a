"""The IGC test corpus and its builds: every linalg lowering program (test_upstream_export.PROGRAMS), the
examples and the memory-bound front's programs (one shape per op, type and form), lowered by the `pvc`
route for an architecture and compiled by IGC for its device with the metadata's build options.

`corpus_builds(arch)` builds the whole corpus in worker processes (lowering is Python, IGC a process:
both cores busy) once per test session and returns {program: summary}; a summary is plain data:
per kernel IGC's counts next to the XeGPU report's, or the error text.
"""
from __future__ import annotations

import functools
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
JOBS_ENV = "XE_IGC_TEST_JOBS"   # worker processes of corpus_builds (default: all cores)


def _shape_free(name: str) -> str:
    return re.sub(r"-[0-9x]+$", "", name)


def corpus() -> dict:
    """{program name: Case} (Case as in test_linalg_lowering: .src, .tensor)."""
    import test_linalg_gemv as GV
    import test_linalg_memory_bound as MB
    import test_linalg_softmax as SM
    import test_upstream_export as EX
    from test_linalg_lowering import Case

    progs = dict(EX.PROGRAMS)
    for f in sorted((ROOT / "examples").glob("*.mlir")):
        progs[f"example:{f.stem}"] = Case(f.read_text(), [], "bf16", 1)
    for prefix, cases in (("eltwise", MB.CASES), ("reduce", MB.RCASES), ("full", MB.FCASES),
                          ("softmax", SM.SCASES), ("gemv", GV.CASES)):
        seen = set()
        for name, case in cases.items():
            key = _shape_free(name)
            if key not in seen:
                seen.add(key)
                progs[f"{prefix}:{name}"] = case
    return progs


def _init():
    for p in (str(HERE), str(ROOT)):
        if p not in sys.path:
            sys.path.insert(0, p)


def build_one(name: str, arch: str) -> dict:
    """Lower program `name` for `arch` (pvc route), report its XeGPU, compile it with IGC: a summary."""
    _init()
    import xedialects
    from xedialects.arch import get_arch
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv
    from xedialects.passes import run
    from xedialects.passes.analysis.kernel_report import kernel_report
    from xedialects.runtime.igc import build_module

    case = corpus()[name]
    try:
        m = xedialects.parse(case.src, f"{name}.mlir")
        run(m, f"builtin.module({'xe-bufferize, ' if case.tensor else ''}xe-gemm-to-xegpu{{arch={arch}}})")
        reports = {r["kernel"]: r for r in kernel_report(m, get_arch(arch))}
        run(m, f"builtin.module(convert-xegpu-to-spirv{{target=pvc arch={arch}}})")
        binary, meta = export_spirv(m, "pvc", arch)
        build = build_module(binary, meta, arch)
    except Exception as e:  # noqa: BLE001 - the test reports it
        return {"error": f"{type(e).__name__}: {e}"}
    kernels = {}
    for k in meta["kernels"]:
        isa, rep = build.kernels.get(k["name"]), reports.get(k["name"], {})
        if isa is None:
            kernels[k["name"]] = {"missing": True}
            continue
        kernels[k["name"]] = {
            "grf_count": isa.grf_count, "spill_bytes": isa.spill_bytes,
            "dpas": isa.total.dpas, "scratch": isa.total.scratch_messages,
            "loop_dpas": isa.k_loop.dpas if isa.k_loop else None,
            "loop_scratch": isa.k_loop.scratch_messages if isa.k_loop else None,
            "ir_dpas_total": rep.get("dpas_total"), "ir_k_trips": rep.get("k_trips"),
            "ir_step_dpas": (rep.get("per_k_step") or {}).get("dpas"),
            "ir_k_loop": rep.get("k_loop"),
            "copies": 2 if k.get("surface_tests") else 1,     # versioned on its surfaces: the body twice
        }
    return {"build_options": meta.get("build_options", ""), "undefined": build.undefined, "kernels": kernels,
            "dynamic": "?" in case.src}


@functools.lru_cache(maxsize=None)
def corpus_builds(arch: str) -> dict:
    """{program: build_one(program, arch)} over the corpus, in os.cpu_count() worker processes."""
    names = list(corpus())
    jobs = int(os.environ.get(JOBS_ENV, "0") or 0) or os.cpu_count() or 1
    if jobs == 1:
        return {n: build_one(n, arch) for n in names}
    import multiprocessing

    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_init) as pool:
        return dict(zip(names, pool.map(build_one, names, [arch] * len(names))))


def executed_dpas(k: dict) -> int | None:
    """DPAS one subgroup issues per kernel run when every loop is unrolled: the K-loop body's DPAS once
    per trip plus the others (None when the trip count is unknown)."""
    if not k["ir_k_loop"] or not k["ir_step_dpas"]:
        return k["ir_dpas_total"]
    if k["ir_k_trips"] is None:
        return None
    return k["ir_dpas_total"] + k["ir_step_dpas"] * (k["ir_k_trips"] - 1)
