"""Upstream's route from our VC-mode XeGPU to a SPIR-V binary: export (`export_upstream`), upstream
mlir-opt passes down to the LLVM dialect (`DISTRIBUTE`, `UPSTREAM_PIPELINE`), mlir-translate, opt,
the LLVM IR fix-ups (text.py; the builtin names LLVM 22 misspells: builtin_names.py), llvm-as, the
Khronos translator llvm-spirv, spirv-val. Who distributes the subgroup to lanes (`distribute`):
upstream's passes, or our xegpu-simt-distribute and the lane-level export (`export_upstream_lanes`),
or ours when upstream's fail (auto, with a remark).
Any failure is a DiagnosticError located at our kernel (gpu.func) with the tool's message."""
from __future__ import annotations

import os
import re
import tempfile
from collections import OrderedDict
from dataclasses import dataclass

from ...diagnostics import Diagnostic, DiagnosticError, at
from ..xegpu_to_upstream import export_upstream
from . import text as T
from . import tools
from .builtin_names import correct_builtin_names

# what upstream's gpu-lower-to-xevm-pipeline runs for subgroup-level xegpu (LLVM 22), on the device
# side only, in two mlir-opt runs: lane layouts, block-load optimisation (16-bit transposes as 32-bit
# ones), layouts again and distribution to lanes (no canonicalize before it:
# it folds the exported constant offsets into literals, which LLVM 22's distribution rejects); the
# uniform warp ops distribution leaves are inlined (text.py); then XeVM and the LLVM dialect
# (math-expand-ops / arith-expand: tanh, maximumf without intrinsics the translator lacks)
DISTRIBUTE = ("builtin.module(gpu.module(xegpu-propagate-layout{layout-kind=lane}, xegpu-optimize-block-loads, "
              "xegpu-propagate-layout{layout-kind=lane}, xegpu-subgroup-distribute))")
GPU_PASSES = ("canonicalize", "cse",
              "loop-invariant-code-motion", "cse", "xegpu-vector-linearize", "convert-math-to-xevm",
              "math-expand-ops", "arith-expand",
              "convert-xegpu-to-xevm", "convert-gpu-to-llvm-spv{use-64bit-index=true}", "cse",
              "reconcile-unrealized-casts")
MODULE_PASSES = ("convert-scf-to-cf", "expand-strided-metadata", "lower-affine", "convert-vector-to-llvm",
                 "convert-to-llvm", "reconcile-unrealized-casts")
UPSTREAM_PIPELINE = ("builtin.module(gpu.module(" + ",".join(GPU_PASSES) + ")," + ",".join(MODULE_PASSES) +
                     ",gpu.module(canonicalize,cse,convert-xevm-to-llvm))")
# LLVM IR clean-up before the translator: SROA/instcombine fold upstream's out-parameter allocas,
# the scalarizer splits vectors wider than 256 bits (upstream's per-lane B of two K steps is a
# <32 x bf16>; SPIR-V vectors stop at 16 elements); instnamer names every value for hoist_allocas;
# instcombine without its fixpoint check (LLVM 22 makes a second round needed on the lane-level
# export of the unaligned GEMMs a fatal error)
_INSTCOMBINE = "instcombine<no-verify-fixpoint>"
OPT_PASSES = f"sroa,{_INSTCOMBINE},scalarizer<load-store;min-bits=256>,{_INSTCOMBINE},instnamer"
OPT_PASSES_SCALAR = f"sroa,{_INSTCOMBINE},scalarizer<load-store>,{_INSTCOMBINE},instnamer"
# the translator's SPIR-V: OpenCL kernel, version 1.4 like our pvc binaries
LLVM_SPIRV_ARGS = ["--spirv-max-version=1.4"]


@dataclass
class RouteResult:
    upstream: str      # the exported xegpu text (subgroup level; lane level when distributed by ours)
    lowered: str       # after upstream's passes (LLVM dialect, host and device)
    llvm_ir: str       # the LLVM IR handed to llvm-spirv (after the fix-ups)
    binary: bytes      # the SPIR-V module (spirv-val clean)
    distributed_by: str = "upstream"   # whose subgroup-to-lane distribution: "upstream" or "xedialects"
    remarks: tuple = ()                # Diagnostics (remarks) of the route, e.g. the fallback


DISTRIBUTE_MODES = ("auto", "upstream", "xedialects")
_CACHE: "OrderedDict[tuple, RouteResult]" = OrderedDict()


def upstream_route(module, *, export_text: str | None = None, distribute: str = "auto") -> RouteResult:
    """The SPIR-V binary of `module` (our context, VC-mode XeGPU) through upstream MLIR's passes.

    distribute: "upstream" -- upstream's layout propagation and subgroup distribution (errors as
    they come); "xedialects" -- our xegpu-simt-distribute, the lane-level export, then upstream's
    passes from convert-xegpu-to-xevm on; "auto" -- upstream's, and ours when upstream's xegpu
    passes fail (a remark at the kernel names upstream's failure). Results are cached per module
    text and mode (xe-opt's output step asks again for what its pass computed).
    Raises DiagnosticError located at the kernel on any failure (export, upstream passes, tools)."""
    module_op = module.operation if hasattr(module, "operation") else module
    if distribute not in DISTRIBUTE_MODES:
        raise ValueError(f"unknown distribute mode {distribute!r} (one of {', '.join(DISTRIBUTE_MODES)})")
    return _cached((str(module_op), distribute), lambda: _route_mode(module_op, export_text, distribute))


def _cached(key, compute) -> RouteResult:
    if key in _CACHE:
        return _CACHE[key]
    result = compute()
    _CACHE[key] = result
    while len(_CACHE) > 8:
        _CACHE.popitem(last=False)
    return result


def _route_mode(module_op, export_text, distribute) -> RouteResult:
    if distribute == "xedialects":
        return _route_lanes(module_op)
    text = export_text if export_text is not None else export_upstream(module_op)
    try:
        return _route(module_op, text)
    except DiagnosticError as e:
        if distribute == "upstream" or not getattr(e, "upstream_passes", False):
            raise
        first = e.diagnostics[0].message
    try:
        result = _route_lanes(module_op)
    except DiagnosticError as lanes_error:  # both roads failed: ours is the error, upstream's a note
        lanes_error.diagnostics[0].notes.append(Diagnostic("note", f"before that, with upstream's distribution: "
                                                                   f"{first}"))
        raise
    loc = _kernel_location(module_op, None)
    why = first.split("failed: ", 1)[-1]
    remark = at(loc, "remark", "xe-gemm-to-spirv-upstream: upstream's subgroup distribution / xegpu lowering "
                f"failed ({why[:300]}); the kernel was distributed by xegpu-simt-distribute, exported at lane "
                "level and lowered from convert-xegpu-to-xevm on")
    result.remarks = (remark,)
    return result


def _route(module_op, text: str) -> RouteResult:
    step, given = "mlir-opt (upstream's xegpu passes)", T.hoist_scalar_loads(T.hoist_views(text))  # given: the input of the step
    try:
        dist = tools.run("mlir-opt", [f"--pass-pipeline={DISTRIBUTE}", "-"], given).stdout
        given = T.transposed_16bit_loads(T.inline_uniform_warps(dist))
        lowered = tools.run("mlir-opt", [f"--pass-pipeline={UPSTREAM_PIPELINE}", "-"], given).stdout
    except (tools.ToolError, T.RouteTextError) as e:
        err = _located(module_op, given, step, str(e))
        err.upstream_passes = True
        raise err from None
    fixed, binary = _to_spirv(module_op, lowered)
    return RouteResult(text, lowered, fixed, binary)


def lane_text(module_op) -> str:
    """The lane-level export of `module_op`: SIMT-mode kernels as they are, VC-mode ones after our
    xegpu-simt-distribute on a copy (the module is left unchanged)."""
    from ...passes import run
    from ..xegpu_to_upstream.lanes import export_upstream_lanes, first_vc_op

    if first_vc_op(module_op) is None:
        return export_upstream_lanes(module_op)
    simt = module_op.clone()
    try:
        run(simt, "builtin.module(xegpu-simt-distribute)")
        return export_upstream_lanes(simt)
    finally:
        simt.erase()


def _route_lanes(module_op) -> RouteResult:
    """Our distribution: xegpu-simt-distribute on a copy (VC-mode input), the lane-level export,
    upstream's passes from convert-xegpu-to-xevm on."""
    text = lane_text(module_op)
    step, given = "mlir-opt (upstream's xegpu-to-xevm passes, lane level)", text
    try:
        given = T.transposed_16bit_loads(text)  # the transposed B's 16-row loads as 32-bit ones
        lowered = tools.run("mlir-opt", [f"--pass-pipeline={UPSTREAM_PIPELINE}", "-"], given).stdout
    except (tools.ToolError, T.RouteTextError) as e:
        raise _located(module_op, given, step, str(e)) from None
    fixed, binary = _to_spirv(module_op, lowered)
    return RouteResult(text, lowered, fixed, binary, distributed_by="xedialects")


def _to_spirv(module_op, lowered: str) -> tuple[str, bytes]:
    """upstream's LLVM dialect -> (fixed LLVM IR, spirv-val-clean binary)."""
    step = "mlir-translate"
    try:
        ll = tools.run("mlir-translate", ["--mlir-to-llvmir", "-"], T.device_module(lowered)).stdout
        step = "opt"
        opt = tools.run("opt", [f"-passes={OPT_PASSES}", "-S", "-"], ll).stdout
        if T.wide_vectors(opt):
            opt = tools.run("opt", [f"-passes={OPT_PASSES_SCALAR}", "-S", "-"], ll).stdout
        fixed = T.intrinsics_to_opencl(T.strip_new_attributes(T.hoist_allocas(opt)))
        fixed = T.bool_tables_as_bytes(correct_builtin_names(fixed))
        step = "llvm-as"
        bc = tools.run("llvm-as", ["-", "-o", "-"], fixed, binary_out=True).stdout
        step = "llvm-spirv"
        binary = _translate(bc)
        step = "spirv-val"
        _validate(binary)
    except (tools.ToolError, T.RouteTextError) as e:
        raise _located(module_op, "", step, str(e)) from None
    return fixed, binary


def _translate(bc: bytes) -> bytes:
    with tempfile.TemporaryDirectory(prefix="xe-route-") as d:
        src, dst = os.path.join(d, "k.bc"), os.path.join(d, "k.spv")
        with open(src, "wb") as f:
            f.write(bc)
        tools.run("llvm-spirv", [*LLVM_SPIRV_ARGS, src, "-o", dst])
        with open(dst, "rb") as f:
            return f.read()


def _validate(binary: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="xe-route-") as d:
        path = os.path.join(d, "k.spv")
        with open(path, "wb") as f:
            f.write(binary)
        tools.run("spirv-val", [path])


_STDIN_LOC = re.compile(r"<stdin>:(\d+):(\d+): error: (.*)")


def _located(module_op, text: str, step: str, message: str) -> DiagnosticError:
    """An error at the gpu.func the failure is in (the kernel around the reported line of the
    mlir-opt input `text`, else the first kernel), with the tool's message and that line as note."""
    m = _STDIN_LOC.search(message)
    kernel, note = None, None
    if m:
        lines = text.splitlines()
        ln = int(m.group(1))
        if 1 <= ln <= len(lines):
            note = Diagnostic("note", f"upstream mlir-opt input line {ln}: {lines[ln - 1].strip()[:200]}")
            for back in range(ln - 1, -1, -1):
                f = re.match(r"\s*gpu\.func @([\w$.]+)", lines[back])
                if f:
                    kernel = f.group(1)
                    break
        message = m.group(3)
    loc = _kernel_location(module_op, kernel)
    msg = f"xe-gemm-to-spirv-upstream: {step} failed: {message.strip().splitlines()[0][:400]}"
    d = at(loc, "error", msg) if loc is not None else Diagnostic("error", msg)
    if note is not None:
        d.notes.append(note)
    return DiagnosticError([d])


def _kernel_location(module_op, name):
    found = []

    def visit(op):
        if op.name == "gpu.func":
            sym = str(op.attributes["sym_name"]).strip('"')
            if name is None or sym == name:
                found.append(op.location)
                return _interrupt()
        return _advance()

    module_op.walk(visit)
    return found[0] if found else module_op.location


def _interrupt():
    from mlir import ir
    return ir.WalkResult.INTERRUPT


def _advance():
    from mlir import ir
    return ir.WalkResult.ADVANCE
