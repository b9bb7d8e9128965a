"""Intel's GPU compiler (IGC, driven by `ocloc`) in the loop: install it, compile our SPIR-V for a device,
read the machine code back (docs/igc.md).

    from xedialects.runtime.igc import compile_spirv, find_toolchain, install
    install()                                   # once: into the user cache (xe-opt --install-igc)
    build = compile_spirv(spirv, "pvc", "-ze-opt-large-register-file")
    build.kernels["gemm_0"].spill_bytes, build.kernels["gemm_0"].k_loop.dpas

`toolchain` finds ocloc, `install` fetches it, `ocloc` compiles, `isa` reads the assembly, `zebin` the
binary's symbols; `device_build` compiles a module with the build options of its metadata.
"""
from .device_build import build_module, device_for_arch
from .isa import Counts, KernelIsa, parse_asm
from .ocloc import DeviceBuild, compile_spirv
from .toolchain import IgcError, IgcNotInstalled, Toolchain, find_toolchain, igc_available
from .zebin import undefined_symbols


def install(*args, **kwargs):
    """Install IGC into the user cache (install.install)."""
    from .install import install as _install

    return _install(*args, **kwargs)


__all__ = ["Counts", "DeviceBuild", "IgcError", "IgcNotInstalled", "KernelIsa", "Toolchain", "build_module",
           "compile_spirv", "device_for_arch", "find_toolchain", "igc_available", "install", "parse_asm",
           "undefined_symbols"]
