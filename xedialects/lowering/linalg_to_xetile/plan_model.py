"""The performance model of a GEMM plan, as convert-linalg-to-xetile prints it (`--xe-print-plan`) and
records it on the kernel (`xe.model`, passes/analysis/model_record.py) for xe-kernel-report: one
prediction, computed once from `perf_model.work_from_plan` (docs/perf-model.md "One number")."""
from __future__ import annotations

from ...arch import XeArch
from ...passes.analysis.model_record import record_work
from ...passes.analysis.perf_model import predict, work_from_plan


def plan_model_line(plan, hw: XeArch) -> str | None:
    """`  model [arch]: predicted T, X TFLOP/s, bound: B` for the plan, None without perf facts."""
    if hw.perf is None:
        return None
    p = predict(hw, work_from_plan(plan, hw))
    t = f"{p.time_s * 1e3:.3f} ms" if p.time_s >= 1e-3 else f"{p.time_s * 1e6:.3f} us"
    dyn = f" (at the planned {'x'.join(map(str, plan.planned_mnk))})" if plan.dynamic else ""
    return (f"  {'model [' + hw.name + ']':<17}: predicted {t}, {p.tflops:.2f} TFLOP/s, bound: {p.bound}{dyn} "
            "(recorded as xe.model; xe-kernel-report predicts from it)")


def record_plan_models(gpu_module, planned, hw: XeArch) -> None:
    """`xe.model` on each kernel of `gpu_module` named in `planned` = [(plan, kernel name)]."""
    if hw.perf is None or not planned:
        return
    from mlir import ir

    by_name = {}
    for op in gpu_module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "gpu.func":
            by_name[ir.StringAttr(op.attributes["sym_name"]).value] = op
    for plan, kname in planned:
        if kname in by_name:
            record_work(by_name[kname], work_from_plan(plan, hw), hw)
