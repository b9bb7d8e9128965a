"""The planner's performance-model inputs recorded on its kernel (`xe.model` on the gpu.func), so that
`xe-kernel-report` predicts the same number the planner used (docs/perf-model.md "One number").

convert-linalg-to-xetile knows what the IR cannot show -- tile reuse inside a work-group, the L2 and
HBM traffic of its launch order (swizzle), the useful FLOPs of an unaligned shape, the prefetch
distance -- and writes the `KernelWork` of `perf_model.work_from_plan` with the arch it planned for:

    gpu.func @gemm_0(...) kernel attributes {..., xe.model = {arch = "bmg", bytes_hbm = 301989888 : i64, ...}}

`record_work(func, work, arch)` writes it, `recorded_work(func)` reads it back (None when absent or
unreadable), `mismatch(work, report)` names the first count the IR contradicts (None when it agrees),
so a kernel changed after planning falls back to the IR counts.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from .perf_model import KernelWork

MODEL_ATTR = "xe.model"
_ALWAYS = ("work_groups", "subgroups_per_wg", "k_steps", "dpas_ops_per_step", "dpas_type")


@dataclass(frozen=True)
class RecordedWork:
    arch: str
    work: KernelWork


def record_work(func, work: KernelWork, arch) -> None:
    """Set `xe.model` on `func` (an ir.Operation of a gpu.func): `work`'s fields and the arch's name."""
    from mlir import ir

    with func.context:
        i64 = ir.IntegerType.get_signless(64)
        items = {"arch": ir.StringAttr.get(getattr(arch, "name", str(arch)))}
        for f in fields(KernelWork):
            v = getattr(work, f.name)
            if v is None or (f.name not in _ALWAYS and v == f.default):
                continue
            if isinstance(v, bool):
                items[f.name] = ir.BoolAttr.get(v)
            elif isinstance(v, int):
                items[f.name] = ir.IntegerAttr.get(i64, v)
            elif isinstance(v, str):
                items[f.name] = ir.StringAttr.get(v)
            elif isinstance(v, tuple):
                items[f.name] = ir.ArrayAttr.get([ir.StringAttr.get(str(x)) for x in v])
        func.attributes[MODEL_ATTR] = ir.DictAttr.get(items)


def recorded_work(func) -> RecordedWork | None:
    """The planner's record on `func`, or None."""
    from mlir import ir

    if MODEL_ATTR not in func.attributes:
        return None
    try:
        d = ir.DictAttr(func.attributes[MODEL_ATTR])
        values = {}
        for f in fields(KernelWork):
            if f.name not in d:
                continue
            a = d[f.name]
            if isinstance(a, ir.BoolAttr):
                values[f.name] = a.value
            elif isinstance(a, ir.IntegerAttr):
                values[f.name] = a.value
            elif isinstance(a, ir.StringAttr):
                values[f.name] = a.value
            elif isinstance(a, ir.ArrayAttr):
                values[f.name] = tuple(ir.StringAttr(x).value for x in a)
        return RecordedWork(ir.StringAttr(d["arch"]).value, KernelWork(**values))
    except (KeyError, TypeError, ValueError):
        return None


def mismatch(work: KernelWork, report: dict, launch: tuple | None) -> str | None:
    """The first count of the kernel's IR (`kernel_report` row, its `launch` (grid, block)) that
    differs from the recorded work, as text; None when every count the IR knows agrees."""
    import math

    checks = []
    if launch is not None:
        grid, block = launch
        checks.append(("work-groups", math.prod(grid), work.work_groups))
        checks.append(("subgroups per work-group", -(-math.prod(block) // 16), work.subgroups_per_wg))
    if report.get("grf_mode"):
        checks.append(("GRF mode", report["grf_mode"], "large" if work.large_grf else "default"))
    ps = report.get("per_k_step") or {}
    if report.get("k_loop") and ps.get("dpas_ops"):
        checks.append(("DPAS operations per K step", ps["dpas_ops"], work.dpas_ops_per_step))
        if report.get("k_trips") is not None:
            checks.append(("K steps", report["k_trips"], work.k_steps))
    elif work.dpas_ops_per_step and not report.get("dpas_ops_total"):
        checks.append(("DPAS operations", 0, work.dpas_ops_per_step * work.k_steps))
    for what, ir_value, planned in checks:
        if ir_value != planned:
            return f"{what}: {ir_value} in the IR, {planned} planned"
    return None
