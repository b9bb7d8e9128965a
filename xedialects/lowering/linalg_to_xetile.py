"""Pass `convert-linalg-to-xetile`: outline each matmul-class linalg op into a GPU kernel written in
work-group XeTile (pipeline stage 1), launched from the host function with `gpu.launch_func`.

The GEMM planner chooses tiles, subgroup layout, K step, prefetch distance and split-K per shape
and type; every choice can be overridden by pass options. Unsupported ops are left untouched with a
remark (or rejected with an error when `strict` is set).
"""
from __future__ import annotations

import sys

from mlir import ir
from mlir.dialects import arith, memref

from ..diagnostics import DiagnosticError
from ..passes.registry import Option, register_pass
from .gemm_kernel import kernel_text
from .linalg_match import NotAMatmul, match_matmul

_OPTIONS = [
    Option("arch", str, "pvc", "target architecture"),
    Option("wg-tile", str, "", "work-group tile MxN, e.g. 256x256 (default: planner)"),
    Option("sg-layout", str, "", "subgroup layout RxC, e.g. 8x4 (default: planner)"),
    Option("k-step", int, 0, "K step of the main loop (0: planner)"),
    Option("prefetch-distance", int, -1, "K steps prefetched ahead (-1: planner)"),
    Option("k-slices", int, 0, "split-K factor (0: planner)"),
    Option("print-plan", bool, False, "print each GEMM plan to stderr"),
    Option("strict", bool, False, "error (instead of remark) on matmuls that cannot be lowered"),
]


def _overrides(options) -> dict:
    o = {}
    get = options.get if isinstance(options, dict) else lambda k, d=None: getattr(options, k.replace("-", "_"), d)
    if get("wg-tile"):
        o["wg_tile"] = tuple(int(x) for x in get("wg-tile").lower().split("x"))
    if get("sg-layout"):
        o["sg_layout"] = tuple(int(x) for x in get("sg-layout").lower().split("x"))
    if (get("k-step") or 0) > 0:
        o["k_step"] = get("k-step")
    if (get("prefetch-distance") if get("prefetch-distance") is not None else -1) >= 0:
        o["prefetch_distance"] = get("prefetch-distance")
    if (get("k-slices") or 0) > 0:
        o["k_slices"] = get("k-slices")
    return o


def _opt(options, name, default=None):
    if isinstance(options, dict):
        return options.get(name, default)
    return getattr(options, name.replace("-", "_"), default)


def plan_for(spec, options):
    from .gemm_plan import plan_gemm

    return plan_gemm(spec.m, spec.n, spec.k, spec.a_type, spec.b_type, spec.c_type,
                     arch=_opt(options, "arch", "pvc"), batch=spec.batch if spec.batch and spec.batch > 0 else 1,
                     transpose_a=spec.transpose_a, transpose_b=spec.transpose_b,
                     overrides=_overrides(options) or None)


def _host_funcs(module_op):
    for op in module_op.regions[0].blocks[0].operations:
        if op.operation.name == "func.func":
            yield op.operation


def _walk(op, out):
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                out.append(child.operation)
                _walk(child.operation, out)
    return out


@register_pass("convert-linalg-to-xetile", "Outline matmul-class linalg ops into work-group XeTile GPU kernels",
               options=_OPTIONS, dependent_dialects=["gpu", "scf", "arith", "memref"])
def convert_linalg_to_xetile(module_op, options, ctx):
    from ..syntax import parse_source

    module_op = module_op.operation
    converted = 0
    for func in list(_host_funcs(module_op)):
        fname = ir.StringAttr(func.attributes["sym_name"]).value
        kernels_text = []
        launches = []
        for op in _walk(func, []):
            if not op.name.startswith("linalg."):
                continue
            try:
                spec = match_matmul(op)
            except NotAMatmul as e:
                if op.name in ("linalg.matmul", "linalg.batch_matmul", "linalg.generic"):
                    (ctx.error if _opt(options, "strict") else ctx.remark)(
                        op, f"not lowered to XeTile: {e.reason}")
                continue
            try:
                plan = plan_for(spec, options)
            except ValueError as e:
                ctx.error(op, f"GEMM plan: {e}")
                continue
            if _opt(options, "print-plan"):
                print(f"// GEMM plan for {op.name} at {op.location}\n{plan.describe()}", file=sys.stderr)
            kname = f"{fname}_{len(launches)}"
            arg_types = [str(v.type) for v in (spec.a, spec.b, spec.c)]
            kernels_text.append(kernel_text(spec, plan, kname, arg_types))
            launches.append((op, spec, plan, kname))
        if not launches:
            continue
        mod_name = f"{fname}_kernels"
        text = f"gpu.module @{mod_name} {{\n" + "\n".join(kernels_text) + "\n}\n"
        try:
            kmod = parse_source(text, f"<xetile kernels of @{fname}>", module_op.context)
        except DiagnosticError as e:  # a planner/generator bug: report it at the matmul
            ctx.error(launches[0][0], "internal error: generated kernel does not verify:\n" + str(e))
            return
        gpu_mod = kmod.body.operations[0].operation
        module_op.regions[0].blocks[0].append(gpu_mod)
        for op, spec, plan, kname in launches:
            _emit_launch(op, spec, plan, mod_name, kname)
            op.erase()
            converted += 1
    if converted:
        module_op.attributes["gpu.container_module"] = ir.UnitAttr.get(module_op.context)


def _emit_launch(op, spec, plan, mod_name, kname):
    with op.context, ir.InsertionPoint(op), op.location:
        idx = ir.IndexType.get()

        def const(v):
            return arith.ConstantOp(idx, v).result

        wm, wn = plan.wg_tile
        slices = max(1, getattr(plan, "k_slices", 1) or 1)
        batched = spec.batch is not None
        c = spec.c
        if spec.dynamic or (batched and spec.batch < 0):
            r = 1 if batched else 0
            m = memref.DimOp(c, const(r)).result
            n = memref.DimOp(c, const(r + 1)).result
            gy = arith.CeilDivUIOp(m, const(wm)).result
            gx = arith.CeilDivUIOp(n, const(wn)).result
            if batched:
                b = memref.DimOp(c, const(0)).result
                gz = arith.MulIOp(b, const(slices)).result
            else:
                gz = const(slices)
        else:
            gx = const(-(-spec.n // wn))
            gy = const(-(-spec.m // wm))
            gz = const((spec.batch if batched else 1) * slices)
        one = const(1)
        threads = const(plan.num_subgroups * 16)
        ir.Operation.create(
            "gpu.launch_func",
            operands=[gx, gy, gz, threads, one, one, spec.a, spec.b, spec.c],
            attributes={
                "kernel": ir.SymbolRefAttr.get([mod_name, kname]),
                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0]),
            },
        )
