"""Static kernel report for XeGPU kernels (pass `xe-kernel-report`, `xe-opt --xe-kernel-report`).

Per `gpu.func`, read from the IR without running it:
* the K loop (the scf.for whose body issues the most DPAS) and, per K step: DPAS count, 2D block
  loads / stores / prefetches (plus scattered gathers / scatters / atomics), bytes loaded and the
  bytes loaded per DPAS;
* an estimate of the registers of one subgroup (registers.py: the largest set of simultaneously
  live vectors and block descriptors, in whole GRFs), compared with the register file (128 GRFs,
  or 256 in large-GRF mode) of the architecture table, and the kernel's GRF mode
  (`registers.grf_mode`: the planner's `xe.grf_mode` or the estimate, the larger wins -- the mode
  convert-xegpu-to-spirv records in the SPIR-V metadata; the performance model's occupancy uses it);
* shared local memory (workgroup attributions and memref.alloc in address space 3) and named
  barriers (`xegpu.alloc_nbarrier`);
* the global-memory bytes of one launch (kernel_bytes.py: every access of every subgroup over the
  grid, edges clipped), the HBM bytes and the bandwidth bound at the arch table's HBM bandwidth;
* the performance model (perf_model.py): predicted time, TFLOP/s and the bound of one launch
  (grid from `gpu.launch_func`), with every constant and its source in the arch table.

`kernel_report(module) -> list[dict]`, `format_report(reports) -> str`. The arch is the one the
module's kernels were lowered for (`xe.arch`, arch/recorded.py) unless told otherwise, and the
prediction is the planner's own (`xe.model`, model_record.py) when the kernel carries it. The pass
writes the report to stderr (or `file=PATH`), never to stdout with the IR, and leaves the IR unchanged.
"""
from __future__ import annotations

import json
import math
import sys

from mlir import ir

from ...xegpu.ops import AllocNbarrierOp
from ..utils.ir_walk import functions, walk as _walk
from ...core.memory_space import is_slm_memref
from ...core.typeinfo import vector_info as _vec
from .launch_sizes import const_int as _const_int, launches
from .registers import GrfModeError, _bits, _is_simt, estimate_grfs, grf_mode


def _sym(op):
    try:
        return ir.StringAttr(op.attributes["sym_name"]).value
    except (KeyError, ValueError):
        return "?"


def _tdesc_block(t):
    """(shape, element type) of a tensor_desc type, read from its generic text."""
    from ...core.typeinfo import our_type

    tv = our_type(t)
    if tv is None or not str(t).startswith("!xegpu.tensor_desc"):
        return None
    return tuple(tv.shape), str(tv.element_type)


def _counts(block_ops):
    c = {}
    for op in block_ops:
        c[op.name] = c.get(op.name, 0) + 1
    return c


def _direct_ops(loop):
    """Ops of a loop body, including nested non-loop regions (scf.if), excluding nested loops."""
    return list(_walk(loop, into=lambda op: op.name not in ("scf.for", "scf.while", "scf.parallel")))


def _slm_bytes(func):
    total = 0
    seen = []
    for op in _walk(func):
        if op.name in ("memref.alloc", "memref.alloca"):
            t = op.results[0].type
            if is_slm_memref(t):
                total += _memref_bytes(t)
                seen.append(str(t))
    # workgroup attributions: gpu.func block arguments after the function inputs
    try:
        nin = len(ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs)
        for a in list(func.regions[0].blocks[0].arguments)[nin:]:
            if is_slm_memref(a.type):
                total += _memref_bytes(a.type)
                seen.append(str(a.type))
    except (KeyError, ValueError, IndexError):
        pass
    return total, seen


def _memref_bytes(t):
    try:
        m = ir.MemRefType(t)
    except (ValueError, TypeError):
        return 0
    if not m.has_static_shape:
        return 0
    return math.prod(m.shape) * _bits(str(m.element_type)) // 8


def _block_bytes(op):
    """Bytes moved by one XeGPU memory op (the whole subgroup block)."""
    td = None
    for v in op.operands:
        td = _tdesc_block(v.type)
        if td is not None:
            break
    if td is None:
        return 0
    shape, elt = td
    return math.prod(shape) * _bits(elt) // 8


def _dpas_ops(op, a) -> int:
    """Operations of one DPAS, 2 x M x N x K (1 FMA = 2 ops): M = rows of the result (VC: first
    dimension; SIMT: the work-item fragment), N = 16 (execution size), K from the A element bits
    (8 x 32 / bits, the DPAS table)."""
    va, vr = _vec(op.operands[0].type), _vec(op.results[0].type)
    if va is None or vr is None:
        return 0
    simt = len(vr[0]) <= 1
    m = (vr[0][0] if vr[0] else 1) if simt else math.prod(vr[0][:-1])
    k = a.dpas.k_for_bits(max(1, min(a.dpas.channel_bits, _bits(va[1]))))
    return 2 * m * a.dpas.exec_size * k


def _vector_elems(ops) -> int:
    """Elements produced by vector arith/math ops (the non-DPAS vector-engine work), per subgroup."""
    n = 0
    for o in ops:
        if o.name.split(".")[0] in ("arith", "math") and o.name != "arith.constant" and o.results:
            v = _vec(o.results[0].type)
            if v is not None:
                n += math.prod(v[0]) if v[0] else 1
    return n


def _known_block_size(func):
    try:
        return tuple(int(x) for x in ir.DenseI32ArrayAttr(func.attributes["known_block_size"]))
    except (KeyError, ValueError, TypeError):
        return None


def kernel_report(module, arch=None, isa: bool = False, from_ir: bool = False) -> list[dict]:
    """One dict per gpu.func of `module` (ir.Module or operation). `arch` (a name or XeArch) defaults to
    the one the module's kernels were lowered for (`xe.arch`, xedialects/arch/recorded.py), else pvc.
    The prediction ("perf") is the planner's model when the kernel carries its record (`xe.model`,
    model_record.py) for this arch and the IR agrees with it, else it is made from the IR counts
    (`from_ir` forces that). With `isa`, each kernel's row of IGC's machine code (isa_report.py) is
    its "isa" entry and the performance model uses it."""
    from ...arch.recorded import resolve_arch

    a = resolve_arch(module, arch).arch
    op = module.operation if hasattr(module, "operation") else module
    reports = []
    isa_rows = {}
    if isa:
        from .isa_report import isa_reports

        isa_rows = isa_reports(op, a)
    from .kernel_bytes import format_bytes, kernel_bytes
    from .model_record import mismatch, recorded_work
    from .perf_model import format_prediction, predict, with_isa, work_from_report

    grids = launches(op)
    launched = {str(o.attributes["kernel"]).rsplit("@", 1)[-1].strip('"') for o in _walk(op)
                if o.name == "gpu.launch_func"}
    for func in functions(op, kinds=("gpu.func",)):
        r = _report_func(func, a)
        r["arch"] = a.name
        if r["kernel"] in isa_rows:
            r["isa"] = isa_rows[r["kernel"]]
        launch = grids.get(r["kernel"])
        if r["mode"] in ("vc", "simt"):
            gm = kernel_bytes(func, launch, a, r["kernel"] in launched)
            r["global_memory"] = dict(gm, lines=format_bytes(gm, a))
        if a.perf is not None and r["mode"] in ("vc", "simt"):
            work, source = _model_work(func, r, launch, a, from_ir, recorded_work, mismatch)
            if work is None:
                work = work_from_report(r, launch, a)
            else:
                work = with_isa(work, r.get("isa"), r["per_k_step"].get("dpas", 0), r.get("k_trips") or 0)
            p = predict(a, work)
            r["perf"] = {"time_s": p.time_s, "tflops": p.tflops, "bound": p.bound, "terms": p.terms,
                         "xe_cores": p.xe_cores, "wg_per_core": p.wg_per_core, "waves": p.waves,
                         "bytes": p.bytes_moved, "gbs": p.gbs, "source": source,
                         "lines": format_prediction(p, source=source)}
        reports.append(r)
    return reports


def _model_work(func, r, launch, a, from_ir, recorded_work, mismatch):
    """(the planner's recorded KernelWork or None, where the prediction's inputs come from)."""
    if from_ir:
        return None, "the IR counts (asked for)"
    rec = recorded_work(func)
    if rec is None:
        return None, "the IR counts (no xe.model from the GEMM planner)"
    if rec.arch != a.name:
        return None, f"the IR counts (the planner's xe.model is for {rec.arch}, this report for {a.name})"
    why = mismatch(rec.work, r, launch)
    if why:
        return None, f"the IR counts (the planner's xe.model no longer matches the kernel: {why})"
    return rec.work, "the planner's model (xe.model, the numbers --xe-print-plan shows)"


def find_k_loop(ops):
    """The K loop among `ops` (every op of a kernel): the scf.for whose own body issues the most
    DPAS / tile_mma (then the most block loads); None without loops."""
    best, best_key = None, (-1, -1)
    for lp in (o for o in ops if o.name == "scf.for"):
        c = _counts(_direct_ops(lp))
        key = (c.get("xegpu.dpas", 0) + c.get("xetile.tile_mma", 0), c.get("xegpu.load_nd", 0))
        if key > best_key:
            best, best_key = lp, key
    return best


def _report_func(func, a) -> dict:
    simt = _is_simt(func)
    all_ops = list(_walk(func))
    totals = _counts(all_ops)
    has_xegpu = any(o.name.startswith("xegpu.") for o in all_ops)
    has_xetile = any(o.name.startswith("xetile.") for o in all_ops)
    mode = "simt" if simt else "vc" if has_xegpu else "xetile" if has_xetile else "none"
    best = find_k_loop(all_ops)
    per_step = {}
    k_step = k_trips = None
    if best is not None:
        body_ops = _direct_ops(best)
        c = _counts(body_ops)
        loaded = sum(_block_bytes(o) for o in body_ops if o.name == "xegpu.load_nd")
        gathered = 0
        for o in body_ops:
            if o.name == "xegpu.load_gather":
                gathered += _block_bytes(o)
        per_step = {
            "dpas": c.get("xegpu.dpas", 0),
            "block_loads": c.get("xegpu.load_nd", 0),
            "block_stores": c.get("xegpu.store_nd", 0),
            "block_prefetches": c.get("xegpu.prefetch_nd", 0),
            "gathers": c.get("xegpu.load_gather", 0),
            "scatters": c.get("xegpu.store_scatter", 0),
            "atomics": c.get("xegpu.atomic_rmw", 0),
            "bytes_loaded": loaded + gathered,
            "bytes_prefetched": sum(_block_bytes(o) for o in body_ops if o.name == "xegpu.prefetch_nd"),
            "tile_mma": c.get("xetile.tile_mma", 0),
        }
        per_step["bytes_per_dpas"] = (per_step["bytes_loaded"] / per_step["dpas"]) if per_step["dpas"] else None
        k_step = _const_int(best.operands[2])
        lb, ub = _const_int(best.operands[0]), _const_int(best.operands[1])
        if k_step and lb is not None and ub is not None:
            k_trips = max(0, -(-(ub - lb) // k_step))
        per_step["dpas_ops"] = sum(_dpas_ops(o, a) for o in body_ops if o.name == "xegpu.dpas")
        per_step["vector_elems"] = _vector_elems(body_ops)
        nested = any(o.name == "scf.for" for o in _walk(best))
    else:
        nested = False
    grfs = estimate_grfs(func, a)
    decision = grf_mode(func, a, grfs)
    if grfs is None:
        fits, grf_limit = "not estimated for XeTile (run convert-xetile-to-xegpu first)", None
    elif grfs <= a.grf_count:
        fits = f"fits the {a.grf_count} GRFs of the default mode"
        grf_limit = a.grf_count
    elif grfs <= a.grf_count_large:
        fits = f"needs large-GRF mode ({a.grf_count_large} GRFs; {a.grf_count} are not enough)"
        grf_limit = a.grf_count_large
    else:
        fits = f"exceeds {a.grf_count_large} GRFs even in large-GRF mode: expect spills"
        grf_limit = None
    slm, slm_types = _slm_bytes(func)
    nbar = 0
    for o in all_ops:
        if o.name == "xegpu.alloc_nbarrier":
            n = _const_int(o.operands[0]) if len(o.operands) else AllocNbarrierOp(o).static_count()
            nbar = max(nbar, n if n is not None else 0)
    # DPAS shapes (M x N x K and types) used by the kernel
    dpas_kinds = {}
    for o in all_ops:
        if o.name == "xegpu.dpas":
            va, vb, vr = _vec(o.operands[0].type), _vec(o.operands[1].type), _vec(o.results[0].type)
            key = f"{va[1]} x {vb[1]} -> {vr[1]}"
            dpas_kinds[key] = dpas_kinds.get(key, 0) + 1
    in_loop = set(_walk(best)) if best is not None else set()
    dpas_ab = next((_vec(o.operands[0].type)[1] for o in all_ops if o.name == "xegpu.dpas"), None)
    return {
        "kernel": _sym(func),
        "k_trips": k_trips,
        "dpas_ab_type": dpas_ab,
        "dpas_ops_total": sum(_dpas_ops(o, a) for o in all_ops if o.name == "xegpu.dpas"),
        "vector_elems_outside_k_loop": _vector_elems([o for o in all_ops if o not in in_loop]),
        "known_block_size": _known_block_size(func),
        "memref_arg_bytes": sum(_memref_bytes(x.type) for x in func.regions[0].blocks[0].arguments
                                if str(x.type).startswith("memref<") and not is_slm_memref(x.type))
        if func.regions[0].blocks else 0,
        "mode": mode,
        "k_loop": best is not None,
        "k_step": k_step,
        "k_loop_has_nested_loops": nested,
        "per_k_step": per_step,
        "dpas_total": totals.get("xegpu.dpas", 0),
        "dpas_types": dpas_kinds,
        "block_loads_total": totals.get("xegpu.load_nd", 0),
        "block_stores_total": totals.get("xegpu.store_nd", 0),
        "block_prefetches_total": totals.get("xegpu.prefetch_nd", 0),
        "est_grfs": grfs,
        "est_register_bytes": grfs * a.grf_bytes if grfs is not None else None,
        "grf_bytes": a.grf_bytes,
        "grf_limit": grf_limit,
        "grf_fit": fits,
        "grf_mode": decision.mode,
        "grf_count": decision.grf_count,
        "grf_mode_planned": decision.planned,
        "slm_bytes": slm,
        "slm_buffers": slm_types,
        "named_barriers": nbar,
        "barriers": totals.get("gpu.barrier", 0),
    }


def format_report(reports) -> str:
    """Readable text of `kernel_report` results (a list of dicts, or one dict)."""
    if isinstance(reports, dict):
        reports = [reports]
    if not reports:
        return NO_KERNELS + "\n"
    lines = []
    for r in reports:
        arch = f" [{r['arch']}]" if r.get("arch") else ""
        lines.append(f"kernel @{r['kernel']} ({r['mode']} mode){arch}")
        ps = r["per_k_step"]
        if r["k_loop"] and ps:
            step = f" (K step {r['k_step']})" if r["k_step"] is not None else ""
            lines.append(f"  per K-loop iteration{step}:")
            lines.append(f"    DPAS: {ps['dpas']}" + (f"   tile_mma: {ps['tile_mma']}" if ps.get("tile_mma") else ""))
            lines.append(f"    2D block loads: {ps['block_loads']}   stores: {ps['block_stores']}   "
                         f"prefetches: {ps['block_prefetches']}")
            if ps["gathers"] or ps["scatters"] or ps["atomics"]:
                lines.append(f"    scattered gathers: {ps['gathers']}   scatters: {ps['scatters']}   "
                             f"atomics: {ps['atomics']}")
            bpd = f"{ps['bytes_per_dpas']:.1f}" if ps["bytes_per_dpas"] is not None else "n/a"
            lines.append(f"    bytes loaded: {ps['bytes_loaded']}   per DPAS: {bpd}   "
                         f"prefetched: {ps['bytes_prefetched']}")
            if r["k_loop_has_nested_loops"]:
                lines.append("    (the K loop contains nested loops; their ops are not counted per step)")
        else:
            lines.append("  no K loop")
        if r["dpas_types"]:
            kinds = ", ".join(f"{k}: {n}" for k, n in sorted(r["dpas_types"].items()))
            lines.append(f"  DPAS in kernel: {r['dpas_total']} ({kinds})")
        lines.append(f"  totals: block loads {r['block_loads_total']}, stores {r['block_stores_total']}, "
                     f"prefetches {r['block_prefetches_total']}")
        mode = ""
        if r["est_grfs"] is not None or r["grf_mode_planned"] is not None:
            planned = f", planned {r['grf_mode_planned']}" if r["grf_mode_planned"] is not None else ""
            mode = f"; kernel GRF mode: {r['grf_mode']} ({r['grf_count']} GRFs{planned})"
        if r["est_grfs"] is None:
            lines.append(f"  registers: {r['grf_fit']}{mode}")
        else:
            lines.append(f"  registers (estimate): {r['est_grfs']} GRFs x {r['grf_bytes']} B = "
                         f"{r['est_register_bytes']} B per subgroup -- {r['grf_fit']}{mode}")
        slm = f"{r['slm_bytes']} B" + (f" ({', '.join(r['slm_buffers'])})" if r["slm_buffers"] else "")
        lines.append(f"  SLM: {slm}   named barriers: {r['named_barriers']}   gpu.barrier: {r['barriers']}")
        if r.get("isa"):
            from .isa_report import isa_lines

            lines += isa_lines(r["isa"])
        if r.get("global_memory"):
            lines += r["global_memory"]["lines"]
        if r.get("perf"):
            lines += r["perf"]["lines"]
    return "\n".join(lines) + "\n"


from ..registry import Option, register_pass  # noqa: E402
from ..utils.arch_option import arch_option, pass_arch  # noqa: E402

NO_KERNELS = ("no kernels (gpu.func) in the module yet: lower it first, e.g. "
              "xe-opt F --xe-gemm-to-xegpu --xe-kernel-report (linalg programs), "
              "or xe-run F --pipeline=xe-gemm-to-xegpu to simulate")


@register_pass("xe-kernel-report",
               "Report per gpu.func (DPAS and block IO per K step, registers, SLM, barriers, global-memory bytes "
               "and bandwidth bound, performance model) on stderr or to file=PATH; the IR is unchanged",
               options=[arch_option("an arch that differs from the recorded one wins, with a remark"),
                        Option("json", bool, False, "JSON instead of text (a list, one object per kernel)"),
                        Option("file", str, "", "write the report to this file instead of stderr (default: "
                               "stderr, never mixed with the IR on stdout; '-': stdout)"),
                        Option("isa", bool, False, "also compile the kernels with IGC for the arch's device "
                               "(pvc SPIR-V, the metadata's build options) and report the machine code: GRF mode, "
                               "spill, instructions, DPAS, block messages, the K loop (docs/igc.md)")])
def xe_kernel_report(module_op, options, ctx):
    from ...diagnostics import DiagnosticError
    from ...output_files import OutputError, check_writable, write_all
    from ...runtime.igc import IgcError

    arch = pass_arch(module_op, options, ctx)
    if arch is None:
        return False
    path = options.get("file", "") if isinstance(options, dict) else ""
    if path and path != "-":
        try:
            check_writable(path)
        except OutputError as e:
            ctx.error(module_op, f"xe-kernel-report: {e}")
            return False
    isa = bool(options.get("isa", False)) if isinstance(options, dict) else False
    try:
        reports = kernel_report(module_op, arch, isa=isa)
    except GrfModeError as e:
        ctx.error(e.op, e.message)
        return False
    except DiagnosticError as e:
        for d in e.diagnostics:
            ctx.emit(d)
        return False
    except IgcError as e:
        ctx.error(module_op, f"xe-kernel-report{{isa=true}}: {e}")
        return False
    as_json = bool(options.get("json", False)) if isinstance(options, dict) else False
    out = json.dumps(reports, indent=2) + "\n" if as_json else format_report(reports)
    if as_json and not reports:
        ctx.remark(module_op, f"xe-kernel-report: {NO_KERNELS}")
    if path and path != "-":
        try:
            write_all([(path, out)])
        except OutputError as e:
            ctx.error(module_op, f"xe-kernel-report: {e}")
            return False
        return True
    stream = sys.stdout if path == "-" else sys.stderr
    stream.write(out)
    stream.flush()
    return True
