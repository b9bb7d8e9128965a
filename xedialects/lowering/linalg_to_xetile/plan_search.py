"""Model-guided refinement of a default GEMM plan (pipeline role: last step of `plan_gemm`).

The planner's rules pick a plan; the PVC performance model (passes/analysis/perf_model.py) then
judges two alternatives and a default plan changes only when the model predicts at least
`MIN_GAIN` more TFLOP/s: (1) a larger work-group tile than the occupancy rule's (each dimension
up to 4x, within the clamp to the problem) -- fewer, larger tiles re-read less of A and B from L2
when the kernel is L2/HBM-bound; (2) local k-slicing (`local_kslice.choose`). Fields the caller
overrode are never searched. Known sizes only.
"""
from __future__ import annotations

from ...passes.analysis.perf_model import predict, work_from_plan
from .local_kslice import choose

MIN_GAIN = 1.10     # policy: switch a default plan only for >= 10 % predicted gain
_MAX_WG = 256       # the planner's start tile (rfc-xetile appendix 2.1)


def _pow2_ceil(x: int) -> int:
    return 1 << max(0, (int(x) - 1).bit_length())


def _tile_candidates(plan):
    pm, pn, _ = plan.planned_mnk
    dm, dn, _ = plan.dpas
    cap = (min(_MAX_WG, max(dm, _pow2_ceil(pm))), min(_MAX_WG, max(dn, _pow2_ceil(pn))))
    out = []
    for i in range(3):
        for j in range(3):
            t = (plan.wg_tile[0] << i, plan.wg_tile[1] << j)
            if (i or j) and t[0] <= cap[0] and t[1] <= cap[1]:
                out.append(t)
    return out


def refine(plan, replan, hw, ov: dict):
    """The best of `plan` and its alternatives under the model; `replan(extra_overrides)` builds
    a candidate (PlanError/ValueError: the candidate is skipped)."""
    if plan.dynamic or hw.perf is None:
        return plan
    if not ({"wg_tile", "sg_layout", "sg_data"} & set(ov)):
        base = predict(hw, work_from_plan(plan, hw)).tflops
        best, best_t = plan, base * MIN_GAIN
        tries = [{"wg_tile": t} for t in _tile_candidates(plan)]
        if "k_slices" not in ov and "split_k_mode" not in ov:   # the same tiles without split-K
            tries += [dict(t, k_slices=1) for t in tries]
        for extra in tries:
            try:
                cand = replan(extra)
            except ValueError:
                continue
            got = predict(hw, work_from_plan(cand, hw)).tflops
            if got > best_t:
                best, best_t = cand, got
        if best is not plan:
            best.overrides.pop("wg_tile", None)
            if "k_slices" not in ov:
                best.overrides.pop("k_slices", None)
            best.reasons = [r for r in best.reasons if not r.startswith(("wg_tile ", "k_slices 1: override"))]
            best.reasons.insert(2, f"wg_tile {best.wg_tile[0]}x{best.wg_tile[1]}: the performance model predicts "
                                   f"{best_t:.1f} TFLOP/s against {base:.1f} for the occupancy rule's "
                                   f"{plan.wg_tile[0]}x{plan.wg_tile[1]} (fewer A/B re-reads from L2)")
            plan = best
    if "local_k_slices" not in ov:
        fixed = {} if "wg_tile" in ov else {"wg_tile": plan.wg_tile}
        if "k_slices" not in ov and plan.k_slices > 1:
            fixed["k_slices"] = plan.k_slices
        chosen = choose(plan, lambda extra: replan({**fixed, **extra}), hw)
        if chosen is not plan:
            for key in fixed:
                chosen.overrides.pop(key, None)
            chosen.reasons = [r for r in chosen.reasons if not r.startswith(("wg_tile ", "k_slices "))
                              or "performance model" in r]
        plan = chosen
    return plan
