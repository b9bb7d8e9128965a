"""Pass `convert-xegpu-to-spirv{target=pvc|portable arch=pvc|bmg}`: XeGPU kernels, VC mode (pipeline
stage 4) or SIMT mode (lane level: `kernel_simt`), to SPIR-V (Physical64 / OpenCL, Kernel capability),
plus the named pipelines `xe-gemm-to-spirv` (= xe-gemm-to-xegpu, then this pass) and
`xe-gemm-to-spirv-portable`.

For every `gpu.module` the pass
1. lowers a copy of each kernel in a scratch module (`kernel_lowering.KernelLowering`, or
   `kernel_simt.LaneKernelLowering` for a lane-level kernel): subgroup vectors become per-lane
   registers, XeGPU ops become scalar upstream ops, `spirv.*` ops and calls of imported Intel builtins
   (target pvc: DPAS and 2D block IO builtins, split barriers);
2. runs upstream MLIR there: convert-gpu-to-spirv{use-64bit-index} (GPU, arith, scf, math, ...),
   spirv-lower-abi-attrs (entry point, LocalSize, SubgroupSize 16) and spirv-update-vce (the
   minimal version / capabilities / extensions of each module);
3. puts the resulting `spirv.module @__spv__<name>` first into the original gpu.module, whose
   kernels and the host's gpu.launch_func stay as they were (the host side remains a meaningful,
   simulatable program; the SPIR-V module is what a runtime loads). The kernel ABI (argument
   kinds, work-group size, GRF mode, ...) is attached to the spirv.module as `xe.kernel_abi` (JSON
   per kernel) for `spirv_export`.

The GRF mode of a kernel (target pvc) is decided here, once, on the XeGPU kernel before it is
lowered (`kernel_grf_mode`: the planner's `xe.grf_mode` on the gpu.func or the register estimate
of passes/analysis/registers.py, the larger wins); the export makes "large" a build option of the
module (docs/spirv.md). Portable kernels record "default".

Target environments (docs/spirv.md): `portable` uses only what Intel's OpenCL CPU runtime
supports (SPIR-V <= 1.4, subgroup shuffles, float atomics, 16-lane subgroups); `pvc` adds the
Intel builtins and SPV_INTEL_split_barrier. The `pvc` flavour serves every Intel architecture
with DPAS and 2D block IO (Xe-HPC and Xe2 share the builtins); `arch=` names the hardware table
whose 2D block surface rules the guarded block accesses test (`xe-gemm-to-spirv{arch=bmg}`).
"""
from __future__ import annotations

import json
import re

from mlir import ir, passmanager

from ...arch import XeArch, get_arch
from ...passes.analysis.registers import GRF_MODE_ATTR, GrfModeError, grf_mode
from ...passes.registry import Option, register_pass, register_pipeline
from ...passes.utils.arch_option import arch_option, pass_arch, record_told_arch
from .spirv_lanes import LoweringError
from .float_minmax import expand_float_minmax
from .kernel_lowering import KernelLowering
from .kernel_simt import LaneKernelLowering, is_lane_level

TARGETS = ("pvc", "portable")

_COMMON_CAPS = ["Kernel", "Addresses", "Linkage", "Int64", "Int16", "Int8", "Float16", "Float64", "Vector16",
                "GroupNonUniform", "GroupNonUniformShuffle", "GroupNonUniformArithmetic", "SubgroupDispatch",
                "AtomicFloat32AddEXT"]
_COMMON_EXTS = ["SPV_EXT_shader_atomic_float_add"]
_TARGET_EXTRA = {"pvc": (["SplitBarrierINTEL"], ["SPV_INTEL_split_barrier"]), "portable": ([], [])}
ABI_ATTR = "xe.kernel_abi"


def target_env(target: str, hw: XeArch | None = None) -> str:
    """The `#spirv.target_env` of a target (what the module may use; it declares only what it does).
    The Intel flavour takes the subgroup and work-group sizes from the arch table; portable (and no
    table) keeps 16 lanes and 1024 work-items."""
    caps, exts = list(_COMMON_CAPS), list(_COMMON_EXTS)
    extra = _TARGET_EXTRA[target]
    caps += extra[0]
    exts += extra[1]
    sg, wg = (hw.subgroup_size, hw.max_workgroup_size) if hw is not None and target == "pvc" else (16, 1024)
    return (f"#spirv.target_env<#spirv.vce<v1.4, [{', '.join(caps)}], [{', '.join(exts)}]>, api=OpenCL, "
            f"#spirv.resource_limits<subgroup_size = {sg}, max_compute_workgroup_invocations = {wg}, "
            f"max_compute_workgroup_size = [{wg}, {wg}, 64]>>")


def _children(op):
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation


def gpu_modules(module_op):
    op = module_op.operation if hasattr(module_op, "operation") else module_op
    return [c for c in _children(op) if c.name == "gpu.module"]


def _symbol(op) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


class _Declarations:
    """Imported builtins of one gpu.module: declared once as `spirv.func ... Import`."""

    def __init__(self, gpu_module):
        self.gm = gpu_module
        self.done: dict = {}

    def __call__(self, builtin) -> str:
        sym = builtin.symbol
        if sym not in self.done:
            body = self.gm.regions[0].blocks[0]
            decl = ir.Operation.parse(builtin.declaration())
            ir.InsertionPoint.at_block_begin(body).insert(decl)
            self.done[sym] = builtin
        return sym


def kernel_grf_mode(func, target: str, hw: XeArch) -> tuple[str, int | None]:
    """(GRF mode, GRFs per subgroup) a kernel's ABI records. Target pvc: `registers.grf_mode` on the
    XeGPU kernel (the planner's `xe.grf_mode` or the register estimate, the larger wins; the
    export turns "large" into the module's build option). Portable SPIR-V runs on any OpenCL
    device (a CPU here): "default", no register count."""
    if target != "pvc":
        return "default", None
    g = grf_mode(func, hw)
    return g.mode, g.grf_count


def convert_gpu_module(gm, target: str, ctx, arch: XeArch | str = "pvc") -> bool:
    """Convert one gpu.module for `target` and the hardware table `arch` (resolved once by the
    pass); returns False after reporting errors on `ctx`."""
    hw = get_arch(arch)
    context = gm.context
    for c in list(_children(gm)):
        if c.name == "spirv.module":
            c.erase()          # re-conversion replaces an earlier result
    scratch = ir.Module.create(gm.location)
    scratch.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
    clone = gm.clone(ip=ir.InsertionPoint(scratch.body))
    clone.attributes["spirv.target_env"] = ir.Attribute.parse(target_env(target, hw))
    declare = _Declarations(clone)
    # the 2D block surface rules of the architecture, resolved once for the module's kernels
    surface = hw.surface if target == "pvc" else None
    infos = []
    ok = True
    for f in list(_children(clone)):
        if f.name != "gpu.func":
            if f.name in ("spirv.func",):
                continue
            ctx.error(f, f"'{f.name}' inside a gpu.module is not supported by convert-xegpu-to-spirv "
                         "(kernels only)")
            ok = False
            continue
        if "gpu.kernel" not in f.attributes:
            ctx.error(f, "device functions (gpu.func without 'kernel') are not supported by "
                         "convert-xegpu-to-spirv; inline them into the kernel")
            ok = False
            continue
        try:
            grf = kernel_grf_mode(f, target, hw)
        except GrfModeError as e:
            ctx.error(e.op, e.message)
            ok = False
            continue
        if GRF_MODE_ATTR in f.attributes:
            del f.attributes[GRF_MODE_ATTR]      # recorded in the ABI; not a SPIR-V attribute
        try:
            with f.location:
                lowering = LaneKernelLowering if is_lane_level(f) else KernelLowering
                _new, info = lowering(f, target, declare, surface).run()
            info.grf_mode, info.grf_count = grf
            infos.append(info)
        except LoweringError as e:
            ctx.error(e.op if e.op is not None else f, e.message)
            ok = False
    if not ok:
        return False
    expand_float_minmax(clone)
    # math-to-spirv first: convert-gpu-to-spirv has no math patterns (erf, exp, ... -> spirv.CL.*); tanh
    # expanded before it, as upstream's XeVM route does (exp and a division: IGC's spirv.CL.tanh was ~4x
    # the instructions; error bound in docs/numerics.md "tanh")
    pipeline = ("builtin.module(gpu.module(gpu.func(canonicalize, cse, math-expand-ops{ops=tanh}, convert-math-to-spirv)), "
                "convert-gpu-to-spirv{use-64bit-index=true}, "
                "gpu.module(spirv.module(spirv-lower-abi-attrs, spirv-update-vce, spirv.func(cse))))")
    pm = passmanager.PassManager.parse(pipeline, context)
    try:
        pm.run(scratch.operation)
    except ir.MLIRError as e:
        from ...diagnostics import from_mlir

        for d in e.error_diagnostics:
            ctx.emit(from_mlir(d))
        ctx.error(gm, "the upstream SPIR-V conversion failed")
        return False
    spv = next((c for c in _children(clone) if c.name == "spirv.module"), None)
    if spv is None:
        ctx.error(gm, "internal: convert-gpu-to-spirv produced no spirv.module")
        return False
    _finish_vce(spv, bool(declare.done))
    _fix_interfaces(spv)
    abi = {i.name: ir.StringAttr.get(json.dumps(i.to_json(), sort_keys=True)) for i in infos}
    abi["__target__"] = ir.StringAttr.get(target)
    if target == "pvc":
        abi["__arch__"] = ir.StringAttr.get(hw.name)
    spv.attributes[ABI_ATTR] = ir.DictAttr.get(abi)
    spv.detach_from_parent()
    body = gm.regions[0].blocks[0]
    ir.InsertionPoint.at_block_begin(body).insert(spv)
    return True


def _finish_vce(spv, imports: bool) -> None:
    """Add Linkage when builtins are imported (spirv-update-vce does not derive it from linkage
    attributes). Drop DeviceEnqueue: spirv-update-vce lists it with SubgroupDispatch (which the
    SubgroupSize execution mode needs) because the grammar says SubgroupDispatch implicitly
    declares it; the kernels enqueue nothing, and declaring it explicitly only asks the runtime
    for a feature the module does not use."""
    vce = str(spv.attributes["vce_triple"])
    m = re.fullmatch(r"#spirv\.vce<(v[\d.]+), \[(.*?)\], \[(.*?)\]>", vce)
    if m is None:
        raise RuntimeError(f"unexpected vce triple {vce}")
    caps = [c.strip() for c in m.group(2).split(",") if c.strip()]
    if imports and "Linkage" not in caps:
        caps.append("Linkage")
    caps = [c for c in caps if c != "DeviceEnqueue"]
    exts = [e.strip() for e in m.group(3).split(",") if e.strip()]
    spv.attributes["vce_triple"] = ir.Attribute.parse(
        f"#spirv.vce<{m.group(1)}, [{', '.join(caps)}], [{', '.join(exts)}]>")


def _fix_interfaces(spv) -> None:
    """Before SPIR-V 1.4 an OpEntryPoint lists only its Input/Output variables. spirv-lower-abi-attrs
    lists every variable the kernel uses (right for the 1.4 target env), spirv-update-vce may then
    settle on an older version: drop the others (the shared local memory variables) there."""
    m = re.match(r"#spirv\.vce<v(\d+)\.(\d+),", str(spv.attributes["vce_triple"]))
    if m is None or (int(m.group(1)), int(m.group(2))) >= (1, 4):
        return
    body = spv.regions[0].blocks[0]
    io = set()
    for op in body.operations:
        op = op.operation
        if op.name == "spirv.GlobalVariable":
            t = str(ir.TypeAttr(op.attributes["type"]).value)
            if t.endswith(", Input>") or t.endswith(", Output>"):
                io.add(ir.StringAttr(op.attributes["sym_name"]).value)
    for op in body.operations:
        op = op.operation
        if op.name == "spirv.EntryPoint" and "interface" in op.attributes:
            refs = [r for r in ir.ArrayAttr(op.attributes["interface"]) if ir.FlatSymbolRefAttr(r).value in io]
            op.attributes["interface"] = ir.ArrayAttr.get(refs)


@register_pass("convert-xegpu-to-spirv",
               "Lower VC-mode XeGPU kernels to SPIR-V (OpenCL kernels, subgroup size 16; docs/spirv.md)",
               options=[Option("target", str, "pvc", "pvc: Intel DPAS / 2D block builtins; portable: "
                               "plain SPIR-V for any OpenCL device with 16-lane subgroups", choices=TARGETS),
                        arch_option("the architecture table of the Intel target (2D block surface rules); "
                                    "pvc and bmg use the same builtins")])
def convert_xegpu_to_spirv(module_op, options, ctx):
    target = options.target
    hw = pass_arch(module_op, options, ctx)
    if hw is None:
        return False
    record_told_arch(module_op, options, hw)
    ok = True
    for gm in gpu_modules(module_op):
        ok = convert_gpu_module(gm, target, ctx, hw) and ok
    if not gpu_modules(module_op):
        ctx.warning(module_op, "no gpu.module to convert to SPIR-V")
    return ok


register_pipeline(
    "xe-gemm-to-spirv",
    "linalg.matmul to SPIR-V for Intel GPUs with DPAS and 2D block IO (xe-gemm-to-xegpu, then "
    "convert-xegpu-to-spirv{target=pvc}); {arch=bmg} targets Battlemage",
    "builtin.module(xe-gemm-to-xegpu, convert-xegpu-to-spirv{target=pvc})")
register_pipeline(
    "xe-gemm-to-spirv-portable",
    "linalg.matmul to portable SPIR-V (xe-gemm-to-xegpu, then convert-xegpu-to-spirv{target=portable})",
    "builtin.module(xe-gemm-to-xegpu, convert-xegpu-to-spirv{target=portable})")
