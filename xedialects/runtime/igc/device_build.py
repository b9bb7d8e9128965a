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
