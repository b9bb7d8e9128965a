"""Pass `convert-linalg-to-xetile`: outline each matmul-class linalg op into a GPU kernel written in
work-group XeTile (pipeline stage 1), launched from the host function with `gpu.launch_func`.

The GEMM planner chooses tiles, subgroup layout, K step, prefetch distance and split-K per shape
and type; every choice can be overridden by pass options. A `linalg.fill` of C before the matmul and
the element-wise linalg ops after it (bias, activations, alpha/beta scaling) are fused into the
kernel (`gemm_epilogue.py`); temporaries that become dead are erased. Stand-alone memory-bound ops
(element-wise ops, reductions; gemv and ger: `gemv.py`, `ger.py`) get kernels of their own
(`memory_bound.py`); a dequantizing gemv becomes the M = 1 GEMM first (`gemv_as_gemm.py`, option
`dequant-gemv`). Unsupported ops are left untouched with a remark (unsupported matmuls are
rejected with an error when `strict` is set).

Named pipelines: `xe-bufferize` (one-shot bufferization for tensor programs) and
`xe-linalg-to-xetile` (xe-bufferize, then this pass).
"""
from __future__ import annotations

import contextlib
import math
import sys

from mlir import ir
from mlir.dialects import arith, memref

from ...arch import XeArch
from ...diagnostics import DiagnosticError
from ...passes.registry import Option, register_pass, register_pipeline
from ...passes.utils.arch_option import arch_option, pass_arch, record_told_arch
from ...passes.utils.ir_walk import walk
from . import dequant, gemv, gemv_as_gemm, ger
from .attention_fuse import emit_attention, fuse_attention
from .gemm_epilogue import Fusion, KernelIO, NotFusible, plan_fusion, rewrite_host
from .gemm_kernel import kernel_text
from . import col_major, loop_sizes
from .linalg_match import NotAMatmul, is_contraction_like, match_matmul
from .memory_bound import MemoryBound
from .plan_model import plan_model_line, record_plan_models

_OPTIONS = [
    arch_option(),
    Option("wg-tile", str, "", "work-group tile MxN, e.g. 256x256 (default: planner)"),
    Option("sg-layout", str, "", "subgroup layout RxC, e.g. 8x4 (default: planner)"),
    Option("k-step", int, 0, "K step of the main loop (0: planner)"),
    Option("prefetch-distance", int, -1, "K steps prefetched ahead (-1: planner)"),
    Option("k-slices", int, 0, "split-K factor (0: planner)"),
    Option("local-k-slices", int, 0, "subgroup groups splitting K inside a work-group, reduced through SLM "
           "(0: planner, 1: off)"),
    Option("print-plan", bool, False, "print each GEMM plan to stderr"),
    Option("dequant-gemv", str, "dpas", "a dequantizing linalg.matvec / vecmat: dpas (the M = 1 DPAS GEMM kernel, "
           "faster with IGC's code) or vector (the vector-FMA gemv kernel)", choices=gemv_as_gemm.MODES),
    Option("strict", bool, False, "error (instead of remark) on matmuls that cannot be lowered"),
]


def _overrides(options) -> dict:
    o = {}
    get = options.get
    for opt, key, example in (("wg-tile", "wg_tile", "256x256"), ("sg-layout", "sg_layout", "8x4")):
        text = get(opt)
        if text:
            try:
                o[key] = tuple(int(x) for x in text.lower().split("x"))
            except ValueError:
                raise ValueError(f"option {opt}: expected two sizes like {example}, got '{text}'") from None
    for opt, key, planner in (("k-step", "k_step", 0), ("prefetch-distance", "prefetch_distance", -1),
                              ("k-slices", "k_slices", 0), ("local-k-slices", "local_k_slices", 0)):
        value = get(opt)
        if value is None or value == planner:
            continue
        if value < 0:
            raise ValueError(f"option {opt}: expected {'>= 0' if planner < 0 else '> 0'} ({planner}: the planner "
                             f"chooses), got {value}")
        o[key] = value
    return o


def plan_for(spec, options, hw: XeArch, extra: dict | None = None):
    from .gemm_plan import plan_gemm

    overrides = dict(_overrides(options))
    overrides.update(extra or {})
    return plan_gemm(spec.m, spec.n, spec.k, spec.a_type, spec.b_type, spec.c_type,
                     arch=hw, batch=spec.batch if spec.batch and spec.batch > 0 else 1,
                     transpose_a=spec.transpose_a, transpose_b=spec.transpose_b,
                     overrides=overrides or None)


_FORCE_PRINT_PLAN = [False]


@contextlib.contextmanager
def plan_printing(enabled: bool = True):
    """Within this context every convert-linalg-to-xetile run prints its GEMM plans, as with
    `print-plan=1` (what `xe-opt --xe-print-plan` uses for any pipeline containing the pass)."""
    old = _FORCE_PRINT_PLAN[0]
    _FORCE_PRINT_PLAN[0] = bool(enabled) or old
    try:
        yield
    finally:
        _FORCE_PRINT_PLAN[0] = old


_PLAN_SINKS: list[dict] = []


@contextlib.contextmanager
def plan_recording():
    """Within this context every convert-linalg-to-xetile run records its GEMM plans: yields a dict
    kernel name -> GemmPlan, filled as the pass runs (what `--xe-draw` draws from)."""
    sink: dict = {}
    _PLAN_SINKS.append(sink)
    try:
        yield sink
    finally:
        _PLAN_SINKS.remove(sink)


def _host_funcs(module_op):
    for op in module_op.regions[0].blocks[0].operations:
        if op.operation.name == "func.func":
            yield op.operation


def _plan_with_fusion(spec, fusion, options, hw: XeArch, extra: dict | None = None):
    """The plan for `spec`; split-K (atomic partial sums) and a fused fill/epilogue exclude each
    other: an explicit k-slices > 1 drops the fusion, otherwise the plan keeps K whole."""
    extra = extra or {}
    plan = plan_for(spec, options, hw, extra)
    if not fusion.fused or plan.k_slices <= 1:
        return plan, fusion
    if (options["k-slices"] or 0) > 1:
        dropped = Fusion.unfused(spec)
        dropped.dequant = fusion.dequant       # the B path keeps its dequantization (split-K does not touch B)
        dropped.notes = fusion.notes + [(spec.op, f"fill/epilogue not fused: k-slices={plan.k_slices} adds partial "
                                                  "results atomically, the fused ops need the complete sum")]
        return plan, dropped
    plan = plan_for(spec, options, hw, {**extra, "k_slices": 1})
    plan.overrides.pop("k_slices", None)
    plan.reasons = [r for r in plan.reasons if not r.startswith("k_slices 1: override")]
    plan.reasons.append("no split-K: the fused fill/epilogue needs the complete sum in one work-group "
                        "(split-K adds partial results atomically)")
    return plan, fusion


@register_pass("convert-linalg-to-xetile", "Outline matmul-class linalg ops into work-group XeTile GPU kernels",
               options=_OPTIONS, dependent_dialects=["gpu", "scf", "arith", "memref"])
def convert_linalg_to_xetile(module_op, options, ctx):
    from ...syntax import parse_source

    module_op = module_op.operation
    hw = pass_arch(module_op, options, ctx)
    if hw is None:
        return False
    report = ctx.error if options["strict"] else ctx.remark
    printing = options["print-plan"] or _FORCE_PRINT_PLAN[0]
    converted = 0
    for func in list(_host_funcs(module_op)):
        fname = ir.StringAttr(func.attributes["sym_name"]).value
        kernels_text = []
        launches = []
        claimed = set()
        mb = MemoryBound(fname, hw, ctx, report, printing)
        empty = []
        attention = fuse_attention(func, fname, hw, ctx, printing, claimed)
        for op in [o for o in walk(func) if o.name in col_major.MATMUL_NAMES and o not in claimed]:
            col_major.normalize(op)        # column-major operands read through transposed views
        form_notes = gemv_as_gemm.rewrite(func, options["dequant-gemv"])   # dequantizing gemvs as M = 1 GEMMs
        dequants = _dequant_producers(func, ctx)
        claimed.update(dq.op for dq in dequants.values())
        for op in list(walk(func)):
            if not op.name.startswith("linalg.") or op in claimed:
                continue
            bad = loop_sizes.inconsistent_sizes(op)
            if bad:                        # upstream's verifier lets a size 0 disagree with the others
                ctx.error(op, bad)
                claimed.update(walk(op))
                continue
            if _empty_iteration_space(op):
                ctx.remark(op, f"'{op.name}' has a zero-sized operand: its iteration space is empty and it changes "
                               "nothing (removed)")
                empty.append(op)
                claimed.update(walk(op))       # its body is not looked at (and is erased with it)
                continue
            try:
                spec = match_matmul(op)
            except NotAMatmul as e:
                if gemv.is_gemv(op):
                    gemv.consider(mb, op, len(launches) + len(mb.kernels), dequants.get(op), form_notes.get(op))
                elif is_contraction_like(op):
                    report(op, f"not lowered to XeTile: {e.reason}")
                elif ger.is_ger(op):
                    ger.consider(mb, op, len(launches) + len(mb.kernels))
                else:
                    mb.consider(op, len(launches) + len(mb.kernels))
                continue
            fusion = plan_fusion(spec)
            fusion.dequant = dequants.get(op)
            try:
                plan, fusion = _plan_with_fusion(spec, fusion, options, hw)
                for extra, why in _dequant_replans(plan, fusion.dequant, options):
                    try:
                        new = _plan_with_fusion(spec, fusion, options, hw, extra)
                    except ValueError:
                        continue                # e.g. too many subgroups: the next candidate
                    plan, fusion = new
                    for key in extra:
                        plan.overrides.pop(key, None)
                    plan.reasons = [r for r in plan.reasons if r.split(" ", 1)[0] not in extra or "override" not in r]
                    plan.reasons.append(why)
                    break
                if fusion.dequant is not None:
                    plan.b_storage_type = fusion.dequant.wtype     # the model counts the weights' bytes
                    why = dequant.decode_reason(plan, hw)
                    if why:
                        plan.reasons.append(why)
            except ValueError as e:
                ctx.error(op, f"GEMM plan: {e}")
                continue
            for where, msg in fusion.notes:
                ctx.remark(where, msg)
                mb.noted.add(where)
            if printing:
                extra = "\n".join(x for x in (fusion.describe(), fusion.dequant and fusion.dequant.describe(),
                                              form_notes.get(op)) if x)
                model = plan_model_line(plan, hw)
                print(f"// GEMM plan for {op.name} at {op.location}\n{plan.describe()}"
                      + (f"\n{extra}" if extra else "") + (f"\n{model}" if model else ""), file=sys.stderr)
            kname = f"{fname}_{len(launches) + len(mb.kernels)}"
            for sink in _PLAN_SINKS:
                sink[kname] = plan
            if fusion.dequant is not None:
                dequant.host_view(fusion.dequant)      # i4: the packed bytes' view the kernel takes
            io = KernelIO(spec, fusion)
            kernels_text.append(kernel_text(spec, plan, kname, io))
            launches.append((spec, plan, kname, io))
            claimed.update(e.op for e in fusion.ops)
            if fusion.fill is not None:
                claimed.add(fusion.fill)
        for op in empty:
            op.erase()
        if not launches and not mb.kernels and not attention:
            continue
        mod_name = f"{fname}_kernels"
        kernels_text += [k.text for k in mb.kernels] + [a[3] for a in attention]
        text = f"gpu.module @{mod_name} {{\n" + "\n".join(kernels_text) + "\n}\n"
        try:
            kmod = parse_source(text, f"<xetile kernels of @{fname}>", module_op.context)
        except DiagnosticError as e:  # a planner/generator bug: report it at the matmul
            where = launches[0][0].op if launches else mb.kernels[0].op if mb.kernels else attention[0][0].qk
            ctx.error(where, "internal error: generated kernel does not verify:\n" + str(e))
            return
        gpu_mod = kmod.body.operations[0].operation
        module_op.regions[0].blocks[0].append(gpu_mod)
        record_plan_models(gpu_mod, [(plan, kname) for _, plan, kname, _ in launches], hw)
        for spec, plan, kname, io in launches:
            launch = _emit_launch(spec, plan, mod_name, kname, io)
            rewrite_host(io.fusion, launch, io.host_args)
            if io.fusion.dequant is not None:
                dequant.erase_host(io.fusion.dequant)
            converted += 1
        converted += mb.emit(mod_name)
        converted += emit_attention(attention, mod_name)
    if converted:
        module_op.attributes["gpu.container_module"] = ir.UnitAttr.get(module_op.context)
    record_told_arch(module_op, options, hw)


def _dequant_replans(plan, dq, options) -> list[tuple[dict, str]]:
    """Plan overrides (with their reasons), best first, for a dequantizing kernel whose planner plan does
    not fit: a per-group dequantization reads one scale row per K step (the step divides the group); a
    subgroup dequantizes at most dequant.MAX_B_PIECE elements of B per step (dequant.register_pieces).
    Empty: the planner's plan fits; options the user set are kept."""
    if dq is None:
        return []
    if dq.group and dq.group % plan.k_step:
        if options["k-step"]:
            raise ValueError(f"k-step {plan.k_step} does not divide the dequantization group {dq.group} (one scale "
                             "row per K step)")
        ks = math.gcd(dq.group, plan.k_step)
        return [({"k_step": ks}, f"k_step {ks}: divides the dequantization group {dq.group} (one scale row per K "
                                 "step)")]
    if options["k-step"]:
        return []
    user = {"wg_tile": options.get("wg-tile"), "sg_layout": options.get("sg-layout")}
    return [(x, why) for x, why in dequant.register_pieces(plan, dq.wtype, dq.nk) if not any(user.get(k) for k in x)]


def _dequant_producers(func, ctx) -> dict:
    """matmul or gemv op -> the dequant.Dequant fused into its B path / its gemv kernel's A tile; a
    dequantizing producer that is not in the fused form gets a remark (it keeps its own kernel)."""
    out = {}
    for op in walk(func):
        gen = dequant.gemv_producer(op)
        if gen is not None:
            try:
                out[op] = dequant.recognize_gemv(gemv.match_gemv(op), gen)
            except NotFusible:
                pass                       # the gemv itself is not lowered (gemv.consider says why)
            except dequant.NotDequant as e:
                ctx.remark(gen, f"dequantization not fused into '{op.name}': {e.reason}")
            continue
        if op.name not in col_major.MATMUL_NAMES:
            continue
        try:
            spec = match_matmul(op)
            dq = dequant.recognize(spec)
        except NotAMatmul:
            continue
        except dequant.NotDequant as e:
            ctx.remark(dequant.producer(spec), f"dequantization not fused into the GEMM: {e.reason}")
            continue
        if dq is not None:
            out[op] = dq
    return out


def _empty_iteration_space(op) -> bool:
    """A linalg op on memrefs (no results) with a static size 0 in an operand: every operand dimension is
    a loop of the op, so one loop runs zero times and the op writes nothing (reductions included: the
    output keeps its value)."""
    if len(op.results):
        return False
    for v in op.operands:
        if isinstance(v.type, ir.MemRefType) and any(d == 0 for d in v.type.shape):
            return True
    return False


def _emit_launch(spec, plan, mod_name, kname, io):
    """gpu.launch_func of the kernel, placed where the last fused op was (the matmul when nothing
    is fused): every host value the kernel takes dominates that point."""
    op = spec.op
    anchor = io.fusion.anchor
    with op.context, ir.InsertionPoint(anchor), op.location:
        idx = ir.IndexType.get()

        def const(v):
            return arith.ConstantOp(idx, v).result

        wm, wn = plan.wg_tile
        slices = max(1, getattr(plan, "k_slices", 1) or 1)
        batched = spec.batch is not None
        r = 1 if batched else 0
        if spec.dynamic or (batched and spec.batch < 0):
            m = memref.DimOp(spec.a, const(r + (1 if spec.transpose_a else 0))).result
            n = memref.DimOp(spec.b, const(r + (0 if spec.transpose_b else 1))).result
            gy = arith.CeilDivUIOp(m, const(wm)).result
            gx = arith.CeilDivUIOp(n, const(wn)).result
            if batched:
                b = memref.DimOp(spec.a, const(0)).result
                gz = arith.MulIOp(b, const(slices)).result
            else:
                gz = const(slices)
        else:
            gx = const(-(-spec.n // wn))
            gy = const(-(-spec.m // wm))
            gz = const((spec.batch if batched else 1) * slices)
        one = const(1)
        threads = const(plan.num_subgroups * 16)
        args = list(io.host_args)
        return ir.Operation.create(
            "gpu.launch_func",
            operands=[gx, gy, gz, threads, one, one] + args,
            attributes={
                "kernel": ir.SymbolRefAttr.get([mod_name, kname]),
                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, len(args), 0]),
            },
        )


# the default way in: tensors are bufferized first (function boundaries included, identity layouts
# so that the kernels see plain row-major memrefs); a no-op on memref programs
register_pipeline(
    "xe-bufferize",
    "One-shot bufferization of tensor programs for the GEMM lowering (function boundaries, identity layouts)",
    "builtin.module(one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map})")
register_pipeline(
    "xe-linalg-to-xetile",
    "linalg matmuls (tensors or memrefs) to work-group XeTile kernels: xe-bufferize, convert-linalg-to-xetile",
    "builtin.module(xe-bufferize, convert-linalg-to-xetile)")
