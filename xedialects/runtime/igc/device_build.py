"""Compile an exported SPIR-V module (binary + metadata, lowering/xegpu_to_spirv/spirv_export.py) for the
device of an architecture, with the build options its metadata asks for (the GRF mode)."""
from __future__ import annotations

from ...arch import ArchError, get_arch
from .ocloc import DEFAULT_TIMEOUT, DeviceBuild, compile_spirv
from .toolchain import IgcError


def device_for_arch(arch: str) -> str:
    """ocloc's device name of an architecture of ours (the arch table's `igc_device`)."""
    try:
        hw = get_arch(arch)
    except ArchError as e:
        raise IgcError(str(e)) from None
    if not hw.igc_device:
        raise IgcError(f"the '{arch}' architecture table names no IGC device")
    return hw.igc_device


def build_module(spirv: bytes, meta: dict, arch: str | None = None, *, extra_options: str = "",
                 timeout: float = DEFAULT_TIMEOUT, toolchain=None) -> DeviceBuild:
    """IGC's build of an exported module: for `arch` (default: the metadata's "arch", else pvc) with the
    metadata's "build_options" (plus `extra_options`)."""
    arch = arch or meta.get("arch") or "pvc"
    options = " ".join(o for o in (meta.get("build_options", ""), extra_options) if o)
    names = [k["name"] for k in meta.get("kernels", [])]
    return compile_spirv(spirv, device_for_arch(arch), options, kernels=names, timeout=timeout, toolchain=toolchain)


def kernel_location(module, kernel: str | None):
    """The location of kernel `kernel` (its gpu.func or spirv.func) in `module`, else the module's."""
    from ...passes.utils.ir_walk import walk

    op = module.operation if hasattr(module, "operation") else module
    if kernel:
        for o in walk(op):
            if o.name in ("gpu.func", "spirv.func") and "sym_name" in o.attributes \
                    and str(o.attributes["sym_name"]).strip('"') == kernel:
                return o.location
    return op.location


def build_ir_module(module, arch: str | None = None, target: str = "pvc", *, extra_options: str = "",
                    timeout: float = DEFAULT_TIMEOUT) -> tuple[DeviceBuild, dict]:
    """(IGC's build, metadata) of an MLIR module at any stage export_spirv takes (converted for `arch`
    when it still has to be; default: the module's recorded xe.arch, else pvc). IGC's failures become a
    DiagnosticError located at the failing kernel."""
    from ...diagnostics import DiagnosticError, at
    from ...lowering.xegpu_to_spirv.spirv_export import export_spirv

    binary, meta = export_spirv(module, target, arch)
    try:
        return build_module(binary, meta, arch, extra_options=extra_options, timeout=timeout), meta
    except IgcError as e:
        raise DiagnosticError([at(kernel_location(module, e.kernel), "error", str(e))]) from None


def isa_text(build: DeviceBuild) -> str:
    """IGC's assembly of every kernel of a build, each under a one-line heading."""
    parts = []
    for name in sorted(build.asm):
        k = build.kernels[name]
        parts.append(f"// ===== kernel {name}: {build.device}{' ' + build.options if build.options else ''}, "
                     f"SIMD{k.simd}, {k.grf_count} GRFs, spill {k.spill_bytes} B, {k.total.instructions} instructions\n"
                     + build.asm[name].rstrip("\n") + "\n")
    return "\n".join(parts)
