"""Kernels written with unstructured branches that are really straight-line code (IMEX's programs
start some kernels with `cf.br ^bb1`): the simulator executes single-block bodies, so gpu.modules
holding a multi-block gpu.func are canonicalized (upstream `canonicalize`, which merges a block
into its only predecessor). Kernels with real branching stay multi-block and are reported by the
simulator.
"""
from __future__ import annotations

from mlir import ir


def straighten_kernels(module) -> int:
    """Canonicalize the gpu.modules whose kernels have more than one block; returns how many."""
    from mlir import passmanager

    body = module.body
    count = 0
    for gm in body.operations:
        gm = gm.operation
        if gm.name != "gpu.module":
            continue
        funcs = [f.operation for f in gm.regions[0].blocks[0].operations]
        if any(f.name == "gpu.func" and len(list(f.regions[0].blocks)) > 1 for f in funcs):
            count += 1
    if count:
        with module.context, ir.Location.unknown():
            passmanager.PassManager.parse("builtin.module(gpu.module(canonicalize))").run(module.operation)
    return count
