"""Local k-slicing of a GEMM work-group (XeTLA "local k-slicing"; pipeline stage 1).

A plan with `local_k_slices = S` runs S groups of `sg_layout` subgroups in one work-group; group
s = subgroup_id / (sg_layout[0] x sg_layout[1]) runs the s-th 1/S of the work-group's K steps.
In work-group XeTile the groups are the wrap-around replicas of maps whose sg_layout rows are
multiplied by S (`replicated`): every group holds the same C tile with its own partial sums and
its K offsets depend on s. After the K loop the partial tiles meet in SLM (a `memref.alloc` in
address space 3, one [wm, wn] band per group, `store_tile`, `gpu.barrier`), each subgroup loads
the S bands of its 1/S row share (`reduce_map`: sg_data rows / S, no replication) and adds them;
the accumulator start (C or the fused fill), the type conversion and the epilogue apply once, on
the reduced tile. `choose` lets the performance model pick S for the default plan.
"""
from __future__ import annotations

from ...arch import elem_bytes
from ...passes.analysis.perf_model import predict, work_from_plan
from .gemm_epilogue import KernelEnv
from .wg_map_rule import map_text, wg_map_rule_error

__all__ = ["replicated", "reduce_map", "local_kslice_errors", "emit_slice_range", "emit_reduction",
           "slm_bytes", "choose"]

LOCAL_SLICE_CANDIDATES = (2, 4, 8)
MIN_GAIN = 1.10          # policy: the model must predict >= 10 % more TFLOP/s to switch a default plan
MIN_STEPS_PER_SLICE = 4  # policy: each slice keeps a few K steps (prefetch warm-up)
TALL_K_RATIO = 4         # policy: only for "small M x N, large K": K >= 4 x max(M, N) (as split-K)


def replicated(m, s: int):
    """The wg_map `m` = (sg_layout, sg_data) with its layout rows multiplied by `s` (the replicas)."""
    (l0, l1), data = m
    return (l0 * s, l1), tuple(data)


def reduce_map(plan):
    """The map of the reduced C tile: every subgroup owns sg_data rows / S of its group's block."""
    s = plan.local_k_slices
    (l0, l1), (d0, d1) = plan.sg_layout, plan.sg_data
    return (l0 * s, l1), (d0 // s, d1)


def slm_bytes(plan) -> int:
    return plan.local_k_slices * plan.wg_tile[0] * plan.wg_tile[1] * elem_bytes(plan.acc_type)


def local_kslice_errors(plan, hw) -> list[str]:
    """Why `plan`'s local k-slicing is illegal (empty when it is fine)."""
    s = plan.local_k_slices
    errs = []
    if s < 1:
        return [f"local_k_slices must be >= 1, got {s}"]
    (l0, l1), (d0, d1), (wm, wn) = plan.sg_layout, plan.sg_data, plan.wg_tile
    if d0 % s:
        errs.append(f"local_k_slices {s} must divide the subgroup C tile rows {d0} (sg_data {[d0, d1]}): each "
                    f"subgroup reduces and stores {d0} / {s} rows of its group's block")
    if l0 * d0 != wm or l1 * d1 != wn:
        errs.append(f"local k-slicing needs sg_layout x sg_data = wg_tile exactly (got {[l0, l1]} x {[d0, d1]} "
                    f"for {[wm, wn]}): replicated C blocks would be reduced twice")
    ks = plan.k_step
    for name, tile, m in (("prefetch map A", (wm, ks), plan.a_prefetch_map),
                          ("prefetch map B", (ks, wn), plan.b_prefetch_map)):
        (p0, p1), (q0, q1) = m
        if p0 * q0 < tile[0]:
            errs.append(f"local k-slicing: {name} {[p0, p1]} x {[q0, q1]} hands out the {tile[0]} rows of its tile "
                        f"round-robin; each slice group must cover them at once (sg_layout x sg_data >= rows)")
        msg = wg_map_rule_error(f"{name} replicated for {s} slice groups", tile, *replicated(m, s))
        if msg:
            errs.append(msg)
    need = slm_bytes(plan)
    cap = min(hw.slm_bytes_per_workgroup, hw.slm_bytes_per_core)
    if need > cap:
        errs.append(f"local k-slicing reduces {s} partial {wm}x{wn} {plan.acc_type} tiles through {need} B of SLM, "
                    f"more than the {cap} B a work-group may use; use a smaller wg_tile or fewer slices")
    return errs


def emit_slice_range(plan, w) -> tuple[str, str, str, str]:
    """Lines computing this slice group's K range [%kbeg_l, %kend_l) from the work-group's
    [%kbeg, %kend) (both multiples of %cks); returns (start, end, loop lower, loop upper bound).
    When K is known, not split globally and its steps divide evenly, every slice runs the same
    constant trip count: the K loop then runs over [0, steps x k_step) (its induction variable
    is unused) and keeps a static trip count (xe-kernel-report)."""
    s = plan.local_k_slices
    w(f"    %clks = arith.constant {s} : index")
    w(f"    %clkin = arith.constant {plan.inner_subgroups} : index")
    w("    %sgid = gpu.subgroup_id : index")
    w("    %lks = arith.divui %sgid, %clkin : index")
    steps = -(-plan.k // plan.k_step) if plan.k is not None else None
    if steps is not None and plan.k_slices == 1 and steps % s == 0:
        per = steps // s * plan.k_step
        w(f"    %clklen = arith.constant {per} : index")
        w("    %kbeg_l = arith.muli %lks, %clklen : index")
        return "%kbeg_l", None, "%c0", "%clklen"
    w("    %lkrange = arith.subi %kend, %kbeg : index")
    w("    %lksteps = arith.divui %lkrange, %cks : index")
    w("    %lkspl = arith.addi %lksteps, %clks : index")
    w("    %lkspl1 = arith.subi %lkspl, %c1 : index")
    w("    %lkper = arith.divui %lkspl1, %clks : index")
    w("    %lkb = arith.muli %lks, %lkper : index")
    w("    %lke_raw = arith.addi %lkb, %lkper : index")
    w("    %lke = arith.minui %lke_raw, %lksteps : index")
    w("    %lkbe = arith.muli %lkb, %cks : index")
    w("    %lkee = arith.muli %lke, %cks : index")
    w("    %kbeg_l = arith.addi %kbeg, %lkbe : index")
    w("    %kend_l = arith.addi %kbeg, %lkee : index")
    return "%kbeg_l", "%kend_l", "%kbeg_l", "%kend_l"


def _tile_t(shape, elt, m, slm=False) -> str:
    (l0, l1), (d0, d1) = m
    ms = "memory_space = 3, " if slm else ""
    return (f"!xetile.tile<{shape[0]}x{shape[1]}x{elt}, #xetile.tile_attr<{ms}wg_map = <sg_layout = [{l0}, {l1}], "
            f"sg_data = [{d0}, {d1}]>>>")


def emit_reduction(plan, w, partial: str, acc: str) -> str:
    """Lines reducing the S partial C tiles `partial` (replicated C map) through SLM; returns the
    name of the reduced accumulator (reduce_map)."""
    s = plan.local_k_slices
    wm, wn = plan.wg_tile
    rep = replicated(plan.c_wg_map, s)
    red = reduce_map(plan)
    vt = f"vector<{wm}x{wn}x{acc}>"
    mt = f"memref<{s * wm}x{wn}x{acc}, 3>"
    w(f"    %kslm = memref.alloc() : {mt}")
    w("    %kslmoff = arith.muli %lks, %cwm : index")
    st = _tile_t((wm, wn), acc, rep, slm=True)
    w(f"    %kslst = xetile.init_tile %kslm[%kslmoff, 0] : {mt} -> {st}")
    w(f"    xetile.store_tile {partial}, %kslst : {vt}, {st}")
    w("    gpu.barrier")
    lt = _tile_t((wm, wn), acc, red, slm=True)
    add = "arith.addi" if acc == "i32" else "arith.addf"
    total = None
    for t in range(s):
        w(f"    %ksllt{t} = xetile.init_tile %kslm[{t * wm}, 0] : {mt} -> {lt}")
        w(f"    %kslv{t} = xetile.load_tile %ksllt{t} : {lt} -> {vt}")
        if total is None:
            total = f"%kslv{t}"
        else:
            w(f"    %ksum{t} = {add} {total}, %kslv{t} {{wg_map = {map_text(red)}}} : {vt}")
            total = f"%ksum{t}"
    return total


def choose(plan, replan, hw):
    """The default plan or, when the performance model predicts >= MIN_GAIN more TFLOP/s, the
    same plan with local k-slicing: `replan(overrides)` builds a candidate. Known sizes only."""
    pm, pn, pk = plan.planned_mnk
    if plan.dynamic or plan.local_k_slices != 1 or hw.perf is None or pk < TALL_K_RATIO * max(pm, pn):
        return plan
    steps = -(-plan.planned_mnk[2] // plan.k_step) // max(1, plan.k_slices)
    base = predict(hw, work_from_plan(plan, hw)).tflops
    best, best_t = plan, base * MIN_GAIN
    for s in LOCAL_SLICE_CANDIDATES:
        if steps < s * MIN_STEPS_PER_SLICE or plan.sg_data[0] % s:
            continue
        try:
            cand = replan({"local_k_slices": s})
        except ValueError:
            continue
        t = predict(hw, work_from_plan(cand, hw)).tflops
        if t > best_t:
            best, best_t = cand, t
    if best is plan:
        return plan
    best.overrides.pop("local_k_slices", None)
    best.reasons = [r for r in best.reasons if not r.startswith("local k-slicing")]
    best.reasons.append(
        f"local k-slicing {best.local_k_slices}: the performance model predicts {best_t:.1f} TFLOP/s against "
        f"{base:.1f} without ({best.local_k_slices} x {best.inner_subgroups} subgroups per work-group, each group "
        f"1/{best.local_k_slices} of the K steps, partial C tiles reduced through {slm_bytes(best)} B of SLM)")
    return best


def emit_tail_start(plan, w, io, env, c_v: str, c_t: str, c_shp: str, split_k: bool):
    """After the K loop (`%r#0` = this group's partial tile): the SLM reduction, C's tile with the
    reduce map, and -- unless global split-K adds the result atomically -- the accumulator start
    (C or the fused fill) added once. Returns (reduced value, KernelEnv for the epilogue, map text)."""
    acc, ct, wm, wn = env.acc, env.ct, env.wm, env.wn
    red = reduce_map(plan)
    red_t = map_text(red)
    total = emit_reduction(plan, w, "%r#0", acc)
    c_tile_t = None
    if io.has_c:
        c_tile_t = _tile_t((wm, wn), ct, red)
        w(f"    %ct = xetile.init_tile {c_v}[%m, %n]{c_shp} : {c_t} -> {c_tile_t}")
    new_env = KernelEnv(wm, wn, acc, ct, red, "%res", "%ct" if io.has_c else None, c_tile_t)
    if split_k:
        return total, new_env, red_t
    lines: list[str] = []
    init = io.acc_init(new_env, lines.append)
    vt = f"vector<{wm}x{wn}x{acc}>"
    if init is None:
        w(f"    %cv = xetile.load_tile %ct : {c_tile_t} -> vector<{wm}x{wn}x{ct}>")
        init = "%cv"
        if ct != acc:
            w(f"    %kcv = arith.extf %cv {{wg_map = {red_t}}} : vector<{wm}x{wn}x{ct}> to {vt}")
            init = "%kcv"
    else:
        ren = {"%acc0": "%kacc0", "%fillv": "%kfillv"}
        for line in lines:
            for a, b in ren.items():
                line = line.replace(a + " ", b + " ").replace(a + ")", b + ")")
            w(line)
        init = ren.get(init, init)
    add = "arith.addi" if acc == "i32" else "arith.addf"
    w(f"    %kres = {add} {total}, {init} {{wg_map = {red_t}}} : {vt}")
    return "%kres", new_env, red_t
