"""Static performance model of one XeGPU kernel (pipeline role: analysis; printed by `xe-kernel-report`).

A roofline with occupancy, wave quantization and a latency term (docs/perf-model.md has the
formulas and the calibration). Inputs: the architecture table (`XeArch`, resolved once by the
caller; its `perf` facts name their sources), and a `KernelWork` -- the launch (work-groups,
subgroups per work-group, GRF mode, SLM) and the work of one subgroup (DPAS operations per K step,
K steps, vector-engine elements) plus the bytes the kernel moves at each level. `KernelWork` comes
from a GEMM plan (`work_from_plan`, tile reuse known) or from the IR counts of `kernel_report`
(`work_from_report`, reuse unknown: stated in `assumptions`).

    t_xmx     = ceil(WG / cores) x ops_WG / (xmx_ops_per_clk x clock x xmx_efficiency x util)
    t_vector  = ceil(WG / cores) x elems_WG / (vector_ops_per_clk(f32) x clock)
    t_issue   = ceil(WG / cores) x subgroups x ISA instructions per subgroup / (vector engines x clock)
                (with IGC's machine code, xe-kernel-report{isa=true}: one instruction per clock per engine)
    t_compute = max(t_xmx, t_issue) + t_vector
    (IGC's spill traffic: scratch messages x 256 B added to the L2 bytes)
    t_hbm     = bytes_hbm / (hbm_gbs_per_stack x stacks)
    t_l2      = bytes_l2 / (l2_gbs_per_stack x stacks)
    t_latency = waves x (k_steps x latency / (prefetch_distance + 1) + latency) / clock
    time      = max(t_compute, t_hbm, t_l2, t_latency)

`predict(arch, work, stacks=None) -> Prediction`; `format_prediction(p)` gives the report lines.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...arch import XeArch, canonical_type, elem_bits, elem_bytes

__all__ = ["KernelWork", "Prediction", "predict", "work_from_plan", "work_from_report", "with_isa",
           "format_prediction", "launches"]

TAIL_WAVE_EFFICIENCY = 0.8   # policy: a compute-bound kernel losing > 20 % to its last wave is "tail wave"
# SLM bandwidth of one Xe-core when the arch table has no `slm_bytes_per_clk` fact:
# [MODEL] assumed one 64-byte line read or written per clock per Xe-core (no public figure found)
SLM_BYTES_PER_CLK = 64
# [MODEL] a vector engine issues one instruction of one of its threads per clock (the issue term of IGC's
# machine code); a scratch message of IGC's spill code moves 4 GRFs = 256 B (PVC `send ... scratch block
# x8` of 4 registers, Xe2 `store.ugm.d32x64t` on ss[]: as IGC 2.40 emits them)
ISSUE_PER_CLK = 1
SCRATCH_MESSAGE_BYTES = 256


@dataclass(frozen=True)
class KernelWork:
    """What one launch of a kernel does (inputs of the model)."""

    work_groups: int
    subgroups_per_wg: int
    k_steps: int                      # K-loop iterations of each subgroup
    dpas_ops_per_step: int            # DPAS operations (2 x M x N x K each) of one subgroup per K step
    dpas_type: str = "bf16"           # A/B element type of the DPAS
    vector_elems_per_sg: int = 0      # non-DPAS vector work of one subgroup (elements, 1 op each)
    bytes_hbm: int = 0                # whole kernel
    bytes_l2: int = 0                 # whole kernel: L2 -> Xe-cores (L1 misses)
    large_grf: bool = False
    slm_bytes_per_wg: int = 0
    slm_traffic_per_wg: int = 0       # bytes one work-group stores to + loads from SLM (local k-slice reduce)
    sync_waits: int = 0               # barrier + SLM round trips after the K loop (each ~ one memory latency)
    prefetch_distance: int = 0
    isa_instructions_per_sg: int = 0  # IGC's machine code: instructions one subgroup issues (0: not compiled)
    flops: int | None = None          # useful operations (2MNK); default: all DPAS operations
    assumptions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prediction:
    time_s: float
    tflops: float
    bound: str                        # compute | HBM | L2 | latency | tail wave
    terms: dict                       # seconds per term: compute (xmx + vector), hbm, l2, latency
    xe_cores: int
    wg_per_core: int
    waves: int
    wave_efficiency: float            # WG / (cores x ceil(WG / cores))
    xmx_utilization: float            # resident subgroups / vector engines of an Xe-core, <= 1
    grf_mode: str
    constants: list = field(default_factory=list)   # (name, value, unit, source)
    assumptions: tuple[str, ...] = ()
    bytes_moved: int = 0              # HBM bytes of the launch (work.bytes_hbm)
    gbs: float = 0.0                  # bytes_moved / time_s, GB/s
    flops: int = 0                    # useful operations of the launch (0: no DPAS, a memory-bound kernel)

    @property
    def memory_bound_kernel(self) -> bool:
        """No DPAS work: the figure of merit is bandwidth (GB/s), not TFLOP/s."""
        return not self.flops


def _cdiv(a, b):
    return -(-int(a) // int(b))


def predict(arch: XeArch, work: KernelWork, stacks: int | None = None) -> Prediction:
    """The predicted time of `work` on `stacks` stacks of `arch` (default: all of them)."""
    pf = arch.perf
    if pf is None:
        raise ValueError(f"{arch.name}: the architecture table has no performance facts")
    n_stacks = int(stacks or pf.stacks.value)
    cores = arch.xe_cores * n_stacks // int(pf.stacks.value)
    clock = arch.clock_mhz * 1e6
    t = canonical_type(work.dpas_type) if work.dpas_type else "bf16"
    t = "tf32" if t == "f32" else t
    xmx = dict(arch.peak.xmx_ops_per_clk)[t]
    vec = dict(arch.peak.vector_ops_per_clk)["f32"]
    eff = pf.xmx_efficiency.value
    lat = pf.mem_latency_clk.value
    hbm_bw = pf.hbm_gbs_per_stack.value * 1e9 * n_stacks
    l2_bw = pf.l2_gbs_per_stack.value * 1e9 * n_stacks
    # occupancy: work-groups resident on one Xe-core (threads in this GRF mode, SLM)
    sg = max(1, work.subgroups_per_wg)
    threads = arch.threads_per_core(work.large_grf)
    by_threads = max(1, threads // sg)
    by_slm = arch.slm_bytes_per_core // work.slm_bytes_per_wg if work.slm_bytes_per_wg else by_threads
    wg_per_core = max(1, min(by_threads, by_slm))
    wg = max(1, work.work_groups)
    waves = _cdiv(wg, cores * wg_per_core)
    per_core = _cdiv(wg, cores)                       # work-groups of the busiest Xe-core
    wave_eff = wg / (cores * per_core)
    resident = min(wg_per_core, per_core) * sg
    util = min(1.0, resident / arch.vector_engines_per_core)
    ops_wg = work.dpas_ops_per_step * work.k_steps * sg
    t_xmx = per_core * ops_wg / (xmx * clock * eff * util) if ops_wg else 0.0
    t_vec = per_core * work.vector_elems_per_sg * sg / (vec * clock)
    t_issue = per_core * work.isa_instructions_per_sg * sg / (arch.vector_engines_per_core * ISSUE_PER_CLK * clock)
    slm_fact = getattr(pf, "slm_bytes_per_clk", None)
    slm_bpc = slm_fact.value if slm_fact is not None else SLM_BYTES_PER_CLK
    t_slm = per_core * work.slm_traffic_per_wg / (slm_bpc * clock)
    terms = {
        "compute": (max(t_xmx, t_issue) if work.isa_instructions_per_sg else t_xmx) + t_vec + t_slm,
        "hbm": work.bytes_hbm / hbm_bw,
        "l2": work.bytes_l2 / l2_bw,
        "latency": waves * (work.k_steps * lat / (work.prefetch_distance + 1) + lat * (1 + work.sync_waits))
        / clock,
    }
    terms_detail = dict(terms, xmx=t_xmx, vector=t_vec, slm=t_slm, issue=t_issue)
    key = max(terms, key=terms.get)
    bound = {"compute": "compute", "hbm": "HBM", "l2": "L2", "latency": "latency"}[key]
    if key == "compute" and wave_eff < TAIL_WAVE_EFFICIENCY:
        bound = "tail wave"
    time_s = terms[key]
    flops = work.flops if work.flops is not None else ops_wg * wg
    tflops = flops / time_s / 1e12 if time_s > 0 else 0.0
    constants = [
        ("xe_cores", cores, "Xe-cores", f"[ARK] {arch.xe_cores} per device / {int(pf.stacks.value)} "
         f"stacks x {n_stacks} used"),
        ("clock", arch.clock_mhz, "MHz", arch.source("clock", "[ARK] max dynamic clock")),
        (f"xmx_ops_per_clk[{t}]", xmx, "ops/clk/Xe-core", arch.peak.source),
        ("vector_ops_per_clk[f32]", vec, "ops/clk/Xe-core", arch.peak.source),
        (f"threads_per_core[{'large' if work.large_grf else 'default'} GRF]", threads, "threads",
         arch.source("threads", "[OPT] vector engines x threads per engine")),
        ("slm_bytes_per_core", arch.slm_bytes_per_core, "B", arch.source("slm", "[OPT]")),
    ] + ([] if not work.slm_traffic_per_wg or slm_fact is not None else [
        ("slm_bytes_per_clk", SLM_BYTES_PER_CLK, "B/clk/Xe-core",
         "[MODEL] assumed one 64-byte line per clock (no public figure found)")]) + [
        (name, f.value, f.unit, f.source) for name, f in pf.items() if name != "stacks"]
    gbs = work.bytes_hbm / time_s / 1e9 if time_s > 0 else 0.0
    return Prediction(time_s, tflops, bound, terms_detail, cores, wg_per_core, waves, wave_eff, util,
                      "large" if work.large_grf else "default", constants, work.assumptions,
                      bytes_moved=work.bytes_hbm, gbs=gbs, flops=flops)


# ---- inputs ------------------------------------------------------------------------------------

def _plan_hbm_bytes(plan, operands, c_traffic, l2, l2_cap) -> tuple[int, str]:
    """HBM bytes of a planned GEMM and how they were counted. A + B fit in L2: compulsory traffic.
    Else by the launch order: a grid row (row_major) or `group_size` grid rows (swizzle) sweep all
    of B while their A panel stays in L2, so A is read once and B once per sweep unless B and the
    panel fit in L2 together; never more than the L2 traffic (every L2 read a miss)."""
    if operands <= l2_cap:
        return operands + c_traffic, "HBM: compulsory traffic (A + B fit in L2)"
    m, n, k = plan.planned_mnk
    wg_m, wg_n = plan.wg_tile
    batch = max(1, plan.batch)
    g = max(1, plan.group_size) if plan.group_order == "swizzle" else 1
    a_bytes, b_bytes = m * k * elem_bytes(plan.a_type), k * n * elem_bytes(plan.b_type)
    panel = g * wg_m * k * elem_bytes(plan.a_type)
    if panel > l2_cap:
        return l2, "HBM: every L2 read misses (an A panel of a sweep exceeds L2)"
    sweeps = 1 if b_bytes + panel <= l2_cap else _cdiv(_cdiv(m, wg_m), g)
    hbm = min(l2, (a_bytes + b_bytes * sweeps) * batch + c_traffic)
    return hbm, (f"HBM: A + B exceed L2; A read once, B once per sweep of {g} grid row(s) "
                 f"({sweeps} sweep(s)), C traffic")


def work_from_plan(plan, arch: XeArch) -> KernelWork:
    """The work of a GEMM planned by `plan_gemm` on `arch` (the planner's XeArch): per-WG tile
    reuse (each work-group reads its A row panel and B column panel once from L2), compulsory HBM
    traffic when A + B fit in `arch`'s L2."""
    m, n, k = plan.planned_mnk
    ks = max(1, plan.k_slices)
    stored_b = getattr(plan, "b_storage_type", None) or plan.b_type   # quantized weights: their bytes
    a_eb, b_eb, c_eb = elem_bytes(plan.a_type), elem_bits(stored_b) / 8, elem_bytes(plan.c_type)
    wg_m, wg_n = plan.wg_tile
    k_slice = _cdiv(k, ks)
    wgs = plan.num_work_groups
    dm, dn, dk = plan.dpas
    sg_m, sg_n = plan.sg_data
    lk = max(1, getattr(plan, "local_k_slices", 1))
    steps = _cdiv(_cdiv(k_slice, plan.k_step), lk)
    dpas_ops = 2 * _cdiv(sg_m, dm) * dm * _cdiv(sg_n, dn) * dn * plan.k_step
    batch = max(1, plan.batch)
    c_bytes = m * n * c_eb * batch
    c_traffic = 2 * c_bytes * ks          # C read + written once per K slice (atomic RMW for split-K)
    l2 = int(wgs * (wg_m * k_slice * a_eb + k_slice * wg_n * b_eb) + c_traffic)
    operands = int((m * k * a_eb + k * n * b_eb) * batch)
    hbm, hbm_note = _plan_hbm_bytes(plan, operands, c_traffic, l2, arch.l2_bytes)
    notes = [hbm_note]
    if stored_b != plan.b_type:
        notes.append(f"B read as {stored_b} and dequantized to {plan.b_type} in registers (scales not counted)")
    if ks > 1:
        notes.append(f"split-K: {ks} slices, C read-modify-written once per slice")
    slm = slm_traffic = 0
    vec = sg_m * sg_n
    if lk > 1:
        slm = lk * wg_m * wg_n * elem_bytes(plan.acc_type)
        slm_traffic = 2 * slm                 # every partial tile stored once and loaded once
        vec += sg_m * sg_n                    # the S loads of sg_m / S rows summed per subgroup
        notes.append(f"local k-slicing: {lk} slices per work-group, {slm} B of partial C through SLM")
    return KernelWork(
        work_groups=wgs, subgroups_per_wg=plan.num_subgroups, k_steps=steps, dpas_ops_per_step=dpas_ops,
        dpas_type=plan.a_type, vector_elems_per_sg=vec,
        bytes_hbm=hbm, bytes_l2=l2, large_grf=plan.grf_mode == "large",
        slm_bytes_per_wg=slm, slm_traffic_per_wg=slm_traffic, sync_waits=1 if lk > 1 else 0,
        prefetch_distance=plan.prefetch_distance, flops=2 * m * n * k * batch, assumptions=tuple(notes))


def work_from_report(report: dict, launch: tuple | None = None, arch: XeArch | None = None) -> KernelWork:
    """The work of a kernel from its `kernel_report` counts and `launch` = (grid, block) in
    work-items; without a launch one work-group of `known_block_size` (or one subgroup) is assumed.
    The report cannot see tile reuse: every block load of every subgroup is counted as L2 traffic
    (no L1 reuse); HBM traffic is the size of the kernel's memref arguments (each read or written
    once) when they fit in L2, else the L2 traffic. A kernel without DPAS (memory-bound) whose
    report has a launch-wide byte count (`global_memory`, kernel_bytes.py) uses those bytes: its
    accesses (loads and stores, edges clipped) for L2, its HBM bytes for HBM. The GRF mode (threads
    per Xe-core) is the report's `grf_mode`, the decision `registers.grf_mode` that also goes into
    the SPIR-V metadata; `work_from_plan` takes the plan's, which the kernel carries as xe.grf_mode."""
    notes = []
    sgsz = 16
    if launch is not None:
        grid, block = launch
        wgs = math.prod(grid)
        sg = max(1, _cdiv(math.prod(block), sgsz))
    elif report.get("known_block_size"):
        wgs, sg = 1, max(1, _cdiv(math.prod(report["known_block_size"]), sgsz))
        notes.append("no gpu.launch_func: assumed 1 work-group (known_block_size)")
    else:
        wgs, sg = 1, 1
        notes.append("no gpu.launch_func and no known_block_size: assumed 1 work-group of 1 subgroup")
    ps = report.get("per_k_step") or {}
    trips = report.get("k_trips")
    if report.get("k_loop") and trips is None:
        trips = 1
        notes.append("K-loop trip count not constant: assumed 1")
    trips = trips or 0
    step_ops = ps.get("dpas_ops", 0)
    outside_ops = report.get("dpas_ops_total", 0) - step_ops
    if trips:
        dpas_ops, steps = step_ops + _cdiv(max(0, outside_ops), trips), trips
    else:
        dpas_ops, steps = report.get("dpas_ops_total", 0), 1
    vec = ps.get("vector_elems", 0) * trips + report.get("vector_elems_outside_k_loop", 0)
    per_sg_bytes = ps.get("bytes_loaded", 0) * trips
    stores = report.get("block_stores_total", 0)
    total = per_sg_bytes * sg * wgs
    notes.append("L2 bytes: all block loads of all subgroups (no L1 reuse known from the IR)")
    args = report.get("memref_arg_bytes", 0)
    l2_cap = arch.l2_bytes if arch is not None else float("inf")
    if args and args <= l2_cap:
        hbm = args
        notes.append("HBM bytes: the memref arguments once each (they fit in L2)")
    else:
        hbm = total
        notes.append("HBM bytes: = L2 bytes (arguments unknown or larger than L2)")
    gm = report.get("global_memory") or {}
    if not report.get("dpas_ops_total") and gm.get("counted") and gm.get("complete"):
        total, hbm = gm["read"] + gm["write"], gm["hbm_read"] + gm["hbm_write"]
        notes = [n for n in notes if not n.startswith(("L2 bytes", "HBM bytes"))]
        notes.append("memory-bound kernel: L2 bytes = every load and store of the launch, HBM bytes = "
                     "each argument byte once per direction (global memory lines above)")
    slm_b = report.get("slm_bytes", 0) or 0
    syncs = report.get("barriers", 0) or 0
    if slm_b and syncs:
        notes.append(f"SLM: {slm_b} B per work-group stored and loaded once; each of the {syncs} barrier(s) "
                     "costs one memory latency")
    work = KernelWork(
        work_groups=wgs, subgroups_per_wg=sg, k_steps=steps, dpas_ops_per_step=dpas_ops,
        dpas_type=report.get("dpas_ab_type") or "bf16", vector_elems_per_sg=vec,
        bytes_hbm=hbm, bytes_l2=total, large_grf=report.get("grf_mode") == "large",
        slm_bytes_per_wg=slm_b, slm_traffic_per_wg=2 * slm_b if syncs else 0, sync_waits=syncs,
        prefetch_distance=1 if ps.get("block_prefetches") else 0, assumptions=tuple(notes))
    return with_isa(work, report.get("isa"), ps.get("dpas", 0), trips)


def with_isa(work: KernelWork, isa: dict | None, step_dpas: int, trips: int) -> KernelWork:
    """`work` with IGC's machine code (an `isa_report` row): the instructions one subgroup issues (the K
    loop's per K step times the trips, plus the rest; the whole kernel when IGC unrolled every loop) and
    the spill traffic (scratch messages) as L2 bytes. Unchanged without a row."""
    from dataclasses import replace

    if not isa:
        return work
    total, loop = isa["total"], isa["k_loop"]
    if loop and loop["dpas"] and step_dpas and trips:
        per_step = loop["dpas"] / step_dpas                  # K steps in one iteration of IGC's loop
        iters = trips / per_step
        instructions = (total["instructions"] - loop["instructions"]) + loop["instructions"] * iters
        scratch = (total["scratch_messages"] - loop["scratch_messages"]) + loop["scratch_messages"] * iters
        how = (f"IGC's K loop: {loop['instructions']} instructions per iteration ({per_step:g} K step(s)), "
               f"{iters:g} iterations")
    else:
        instructions, scratch = total["instructions"], total["scratch_messages"]
        how = f"IGC's machine code: {total['instructions']} instructions, no loop kept"
    spill = int(scratch * SCRATCH_MESSAGE_BYTES) * work.subgroups_per_wg * work.work_groups
    notes = [f"issue: {how}; one instruction per clock per vector engine"]
    if spill:
        notes.append(f"spill: {scratch:g} scratch messages per subgroup x {SCRATCH_MESSAGE_BYTES} B added to L2 bytes")
    return replace(work, isa_instructions_per_sg=int(round(instructions)), bytes_l2=work.bytes_l2 + spill,
                   assumptions=work.assumptions + tuple(notes))


_with_isa = with_isa      # the earlier private name


# ---- output ------------------------------------------------------------------------------------

def _t(s: float) -> str:
    return f"{s * 1e3:.3f} ms" if s >= 1e-3 else f"{s * 1e6:.3f} us"


def format_prediction(p: Prediction, constants: bool = True, source: str | None = None) -> list[str]:
    """Report lines (indented for `format_report`). A kernel without DPAS work (memory-bound) shows
    the bytes it moves to and from HBM and their rate instead of TFLOP/s and XMX utilization;
    `source` names where the model's inputs come from."""
    tr = p.terms
    if p.memory_bound_kernel:
        head = f"  model: predicted {_t(p.time_s)}, {p.gbs:.1f} GB/s ({p.bytes_moved:,} B to and from HBM), bound: {p.bound}"
        xmx = ""
    else:
        head = f"  model: predicted {_t(p.time_s)}, {p.tflops:.2f} TFLOP/s, bound: {p.bound}"
        xmx = f", XMX utilization {p.xmx_utilization:.2f}"
    lines = [
        head,
        f"    terms: compute {_t(tr['compute'])} (XMX {_t(tr['xmx'])}"
        + (f" | issue {_t(tr['issue'])}" if tr.get('issue') else "") + f" + vector {_t(tr['vector'])}"
        + (f" + SLM {_t(tr['slm'])}" if tr.get('slm') else "") + "), "
        f"HBM {_t(tr['hbm'])}, L2 {_t(tr['l2'])}, latency {_t(tr['latency'])}",
        f"    occupancy: {p.xe_cores} Xe-cores, {p.wg_per_core} WG/Xe-core ({p.grf_mode} GRF), "
        f"{p.waves} wave(s), wave efficiency {p.wave_efficiency:.2f}{xmx}",
    ]

    if constants:
        for name, value, unit, src in p.constants:
            lines.append(f"    constant {name} = {value:g} {unit} -- {src}")
    for a in p.assumptions:
        lines.append(f"    assumed: {a}")
    if source:
        lines.append(f"    inputs: {source}")
    return lines
