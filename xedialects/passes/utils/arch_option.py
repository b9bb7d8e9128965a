"""The `arch` option of our passes and the arch recorded in the IR (`xe.arch` on each gpu.module,
xedialects/arch/recorded.py): one rule for every pass that takes `arch=`.

* told `arch=NAME` (pipeline text, `Pipeline.add`, or forwarded by a named pipeline such as
  `xe-gemm-to-xegpu{arch=bmg}`): the pass uses NAME and records it on the gpu.modules it leaves
  (`record_told_arch`); when the module recorded another arch, a remark says the option wins;
* not told: the module's recorded arch, else pvc.

    arch = pass_arch(module_op, options, ctx)      # XeArch, or None after a located error
    ...
    record_told_arch(module_op, options, arch)
"""
from __future__ import annotations

from ...arch import ARCHS, ArchError, XeArch
from ...arch.recorded import record_arch, resolve_arch
from ..registry import Option

ARCH_HELP = f"target architecture, one of {'|'.join(ARCHS)} (default: the module's recorded xe.arch, else pvc)"


def arch_option(detail: str = "") -> Option:
    """The `arch` option every arch-aware pass declares (default pvc when nothing is recorded)."""
    return Option("arch", str, "pvc", ARCH_HELP + (f"; {detail}" if detail else ""))


def told_arch(options) -> str | None:
    """The arch the pass was told (None when the option holds its default)."""
    given = getattr(options, "is_given", None)
    value = options.get("arch") if isinstance(options, dict) else None
    if given is None:                      # a plain dict (direct calls): a value is an instruction
        return value or None
    return value if given("arch") and value else None


def pass_arch(module_op, options, ctx) -> XeArch | None:
    """The XeArch the pass uses (told, else recorded, else pvc); a remark when the option overrides a
    different recorded arch; None after a located error for an unknown name."""
    try:
        choice = resolve_arch(module_op, told_arch(options))
    except ArchError as e:
        ctx.error(module_op, str(e))
        return None
    if choice.note:
        ctx.remark(module_op, f"{ctx.pass_name}: {choice.note}")
    return choice.arch


def record_told_arch(module_op, options, arch) -> None:
    """Record `arch` as xe.arch on every gpu.module of the module when the pass was told an arch."""
    if told_arch(options):
        record_arch(module_op, arch)
