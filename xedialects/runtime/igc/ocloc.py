"""Compile a SPIR-V module for an Intel GPU with IGC (through `ocloc compile -spirv_input`).

    build = compile_spirv(binary, "pvc", options="-ze-opt-large-register-file")
    build.binary            # the device binary (ZE binary) a driver loads
    build.kernels["gemm_0"] # KernelIsa: GRFs, spill, instructions, DPAS, block messages, K loop
    build.asm["gemm_0"]     # IGC's assembly text
    build.undefined         # imported symbols nobody defines (a driver cannot load the binary)

ocloc runs in a temporary folder with IGC's shader dump on (`IGC_ShaderDumpEnable`,
`IGC_DumpToCustomDir`), which is where the assembly comes from. A rejected module, a crash (a
signal) and a hang (`timeout`) are `IgcError`s naming the kernels and IGC's own message.
"""
from __future__ import annotations

import glob
import os
import re
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field

from .isa import parse_asm
from .toolchain import IgcError, Toolchain, find_toolchain
from .zebin import ZebinError, undefined_symbols

DEFAULT_TIMEOUT = 300.0
IGC_PSEUDO_KERNEL = "Intel_Symbol_Table_Void_Program"   # IGC's holder of a module's symbol table, no kernel


@dataclass
class DeviceBuild:
    """IGC's result for one SPIR-V module and device."""

    device: str
    options: str
    binary: bytes
    log: str
    kernels: dict = field(default_factory=dict)     # kernel name -> KernelIsa (widest SIMD build)
    asm: dict = field(default_factory=dict)         # kernel name -> assembly text
    undefined: list = field(default_factory=list)
    toolchain: Toolchain | None = None

    @property
    def warnings(self) -> list[str]:
        return [ln.strip() for ln in self.log.splitlines() if ln.strip().lower().startswith("warning")]


def _what(kernels) -> str:
    names = list(kernels or [])
    if not names:
        return "the module"
    return ("kernel " if len(names) == 1 else "kernels ") + ", ".join(f"'{k}'" for k in names)


def _failing_kernel(log: str, kernels) -> str | None:
    m = re.search(r"kernel[: ]+'?([A-Za-z_][\w]*)'?", log)
    if m and (not kernels or m.group(1) in kernels):
        return m.group(1)
    return kernels[0] if kernels and len(kernels) == 1 else None


def _igc_message(log: str) -> str:
    lines = [ln.rstrip() for ln in log.splitlines() if ln.strip()]
    keep = [ln for ln in lines if not ln.startswith(("Compilation from IR", "Build failed", "Command was:"))]
    return "\n".join(keep[-20:]) or "(no message)"


def compile_spirv(spirv: bytes, device: str, options: str = "", *, kernels=None, timeout: float = DEFAULT_TIMEOUT,
                  toolchain: Toolchain | None = None) -> DeviceBuild:
    """IGC's device binary and assembly of a SPIR-V module for `device` (an ocloc device name, e.g.
    the arch table's `igc_device`). `kernels` (names) only shape the error messages."""
    tc = toolchain or find_toolchain()
    kernels = list(kernels or [])
    with tempfile.TemporaryDirectory(prefix="xe-igc-") as d:
        src, dump, out = os.path.join(d, "module.spv"), os.path.join(d, "dump"), os.path.join(d, "out")
        with open(src, "wb") as f:
            f.write(spirv)
        argv = [*tc.command, "compile", "-file", src, "-spirv_input", "-device", device,
                "-output", "module", "-out_dir", out, "-output_no_suffix"]
        if options:
            argv += ["-options", options]
        env = dict(os.environ, IGC_ShaderDumpEnable="1", IGC_DumpToCustomDir=dump)
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout or None, env=env,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise IgcError(f"IGC did not finish compiling {_what(kernels)} for {device} within {timeout:g} s",
                           kernels[0] if len(kernels) == 1 else None) from None
        except OSError as e:
            raise IgcError(f"cannot run ocloc ({tc.command[-1]}): {e}") from None
        log = r.stdout + r.stderr
        if r.returncode < 0 or r.returncode >= 128:
            sig = -r.returncode if r.returncode < 0 else r.returncode - 128
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = f"signal {sig}"
            raise IgcError(f"IGC crashed ({name}) compiling {_what(kernels)} for {device}"
                           f"{' with ' + options if options else ''}", _failing_kernel(log, kernels))
        binary_path = os.path.join(out, "module.bin")
        if r.returncode != 0 or not os.path.isfile(binary_path):
            raise IgcError(f"IGC rejected {_what(kernels)} for {device}:\n{_igc_message(log)}",
                           _failing_kernel(log, kernels))
        with open(binary_path, "rb") as f:
            binary = f.read()
        build = DeviceBuild(device, options, binary, log, toolchain=tc)
        try:
            build.undefined = undefined_symbols(binary)
        except ZebinError as e:
            raise IgcError(f"IGC's binary for {device} cannot be read: {e}") from None
        for path in sorted(glob.glob(os.path.join(dump, "*.asm"))):
            m = re.search(r"_simd(\d+)_", os.path.basename(path))
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            isa = parse_asm(text, int(m.group(1)) if m else None)
            if isa.kernel == IGC_PSEUDO_KERNEL:
                continue
            prev = build.kernels.get(isa.kernel)
            if prev is None or (isa.simd or 0) > (prev.simd or 0):
                build.kernels[isa.kernel] = isa
                build.asm[isa.kernel] = text
    return build
