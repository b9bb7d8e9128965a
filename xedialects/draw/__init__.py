"""Pictures of a kernel's GEMM plan as self-contained SVG files (`xe-opt --xe-draw=DIR`,
`xe-run --draw=DIR`): per kernel a work-group view, a subgroup view and a work-item (SIMT) view.

The numbers come from one place each: the plan convert-linalg-to-xetile records
(`plan_recording()`, work-group tile, wg_maps, grid, reasons) and the lowered XeGPU of the kernel
(`source.read_kernel`: the hardware blocks, DPAS shapes and sg_maps). Python use:

    with plan_recording() as plans:
        Pipeline().add("xe-gemm-to-xegpu").run(module)
    paths = write_drawings(draw_kernels(module, plans), "out/")
"""
from __future__ import annotations

import os

__all__ = ["DrawError", "draw_kernels", "write_drawings", "plan_recording", "VIEWS"]

VIEWS = ("workgroup", "subgroup", "workitem")


class DrawError(ValueError):
    """Nothing (or not enough) to draw; the message says what is missing."""


def plan_recording():
    """Context manager yielding a dict kernel name -> GemmPlan, filled by every
    convert-linalg-to-xetile run inside it."""
    from ..lowering.linalg_to_xetile.convert import plan_recording as rec

    return rec()


def draw_kernels(module, plans: dict, hint: str = "--xe-gemm-to-xegpu") -> dict[str, str]:
    """File name -> SVG text for every gpu.func of `module` (lowered to XeGPU) that has a recorded
    plan: `<kernel>-workgroup.svg`, `-subgroup.svg`, `-workitem.svg`. Raises DrawError when the IR
    holds no XeGPU kernel or no kernel has a plan; its message names the pipeline as `hint` (the
    spelling of the calling tool: xe-opt's `--xe-gemm-to-xegpu`, xe-run's `--pipeline=...`)."""
    from ..passes.utils.ir_walk import functions, walk
    from .source import kernel_name, read_kernel
    from .subgroup import draw_subgroup
    from .workgroup import draw_workgroup
    from .workitem import draw_workitem

    funcs = functions(module.operation if hasattr(module, "operation") else module, kinds=("gpu.func",))
    kernels = [f for f in funcs if any(o.name == "xegpu.dpas" for o in walk(f))]
    if not kernels:
        have = "gpu.func kernels without xegpu.dpas" if funcs else "no gpu.func kernel"
        raise DrawError(f"nothing to draw: the IR holds {have}; run a pipeline that lowers a GEMM to XeGPU "
                        f"(e.g. {hint})")
    out = {}
    missing = []
    for f in kernels:
        name = kernel_name(f)
        plan = plans.get(name)
        if plan is None:
            missing.append(name)
            continue
        facts = read_kernel(f)
        out[f"{name}-workgroup.svg"] = draw_workgroup(plan, name)
        out[f"{name}-subgroup.svg"] = draw_subgroup(plan, facts, name)
        out[f"{name}-workitem.svg"] = draw_workitem(plan, facts, name)
    if not out:
        raise DrawError(f"no GEMM plan for kernel(s) {', '.join('@' + n for n in missing)}: the pictures need the "
                        "plan convert-linalg-to-xetile records, so run the pipeline from the linalg program "
                        f"(e.g. {hint})")
    return out


def write_drawings(drawings: dict[str, str], out_dir: str) -> list[str]:
    """Write the SVGs into out_dir (created if needed), all or none of them; returns their paths.
    OSError when the folder cannot be made, output_files.OutputError (naming the file) when a file
    cannot be written."""
    from ..output_files import write_all

    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, name) for name in drawings]
    write_all(list(zip(paths, drawings.values())))
    return paths
