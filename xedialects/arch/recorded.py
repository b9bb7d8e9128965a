"""The architecture recorded in the IR (`xe.arch` on a `gpu.module`): which hardware table a module's
kernels were lowered for, so that later tools use the same one (docs/arch.md "The arch in the IR").

A pass told `arch=NAME` records it on every `gpu.module` it lowers (`record_arch`); a pass, the
kernel report, the performance model and the simulator not told an arch use the recorded one
(`resolve_arch`), else pvc (the default). An explicit arch that differs from the recorded one wins,
and the caller says so with a remark (`ArchChoice.note`). A module converted to SPIR-V also carries
the arch in its kernel metadata (`__arch__` of `xe.kernel_abi`), read when no gpu.module records it.

    choice = resolve_arch(module, explicit="")        # ArchChoice(arch=<XeArch bmg>, source=..., note=None)
    record_arch(module, "bmg")                          # gpu.module @k attributes {xe.arch = "bmg"}
"""
from __future__ import annotations

from dataclasses import dataclass

from . import XeArch, get_arch

ARCH_ATTR = "xe.arch"
_ABI_ATTR = "xe.kernel_abi"     # convert-xegpu-to-spirv's metadata on each spirv.module (its "__arch__")
DEFAULT_ARCH = "pvc"


@dataclass(frozen=True)
class ArchChoice:
    """The table a tool uses, where it came from ("option", "recorded", "default"), and a remark to
    print when an explicit option overrides a different recorded arch (else None)."""

    arch: XeArch
    source: str
    note: str | None = None


def _op(module):
    return module.operation if hasattr(module, "operation") else module


def _gpu_modules(op):
    """Every gpu.module nested in `op` (itself included)."""
    if op.name == "gpu.module":
        yield op
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                if child.name in ("gpu.module", "builtin.module"):
                    yield from _gpu_modules(child)


def _attr_str(op, name):
    from mlir import ir

    if name not in op.attributes:
        return None
    try:
        return ir.StringAttr(op.attributes[name]).value
    except (ValueError, TypeError):
        return None


def _spirv_arch(gpu_module) -> str | None:
    from mlir import ir

    for region in gpu_module.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                if child.name == "spirv.module" and _ABI_ATTR in child.attributes:
                    abi = ir.DictAttr(child.attributes[_ABI_ATTR])
                    if "__arch__" in abi:
                        return ir.StringAttr(abi["__arch__"]).value
    return None


def recorded_archs(module) -> list[str]:
    """The distinct architectures the gpu.modules of `module` record (xe.arch, else their SPIR-V
    metadata's), in order; empty when none records one."""
    out = []
    for g in _gpu_modules(_op(module)):
        name = _attr_str(g, ARCH_ATTR) or _spirv_arch(g)
        if name and name not in out:
            out.append(name)
    return out


def recorded_arch(module) -> str | None:
    """The architecture `module`'s kernels were lowered for (the first gpu.module's record), or None."""
    names = recorded_archs(module)
    return names[0] if names else None


def resolve_arch(module, explicit=None) -> ArchChoice:
    """The table to use for `module`: `explicit` (a name or XeArch; None or "" = not given) when given,
    else the recorded arch, else pvc. Raises ArchError for an unknown name. When an explicit arch
    differs from a recorded one, `note` says that the option wins."""
    recorded = recorded_archs(module)
    if explicit:
        arch = get_arch(explicit)
        others = [r for r in recorded if _same(r, arch) is False]
        note = None
        if others:
            note = (f"arch={arch.name} overrides the module's recorded {ARCH_ATTR} = \"{others[0]}\" "
                    f"(the arch its kernels were lowered for)")
        return ArchChoice(arch, "option", note)
    if recorded:
        note = None
        if len(recorded) > 1:
            note = (f"the module's gpu.modules record different architectures ({', '.join(recorded)}); "
                    f"using {recorded[0]} (give arch= to choose)")
        return ArchChoice(get_arch(recorded[0]), "recorded", note)
    return ArchChoice(get_arch(DEFAULT_ARCH), "default")


def _same(name, arch: XeArch):
    try:
        return get_arch(name).name == arch.name
    except ValueError:
        return False


def record_arch(module, arch) -> int:
    """Set `xe.arch` = the table's name on every gpu.module of `module`; the count set."""
    from mlir import ir

    name = get_arch(arch).name
    n = 0
    for g in _gpu_modules(_op(module)):
        with g.context:
            g.attributes[ARCH_ATTR] = ir.StringAttr.get(name)
        n += 1
    return n
