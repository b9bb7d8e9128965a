"""Memory spaces of memref types, read through the MLIR Python API (not the printed type): shared
local memory is memory space 3 (any integer type) or `#gpu.address_space<workgroup>`. One copy
shared by the dialect verifiers, the analyses and the lowerings that tell SLM buffers from global ones."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import gpu

SLM_SPACE = 3   # the numeric memory space of shared local memory (SPIR-V Workgroup storage)


def is_slm_space(space) -> bool:
    """True for the memory space attribute of shared local memory (None, the default global
    space, is not)."""
    if space is None:
        return False
    if isinstance(space, ir.IntegerAttr):
        return space.value == SLM_SPACE
    workgroup = ir.AttrBuilder.get("GPU_AddressSpaceAttr")(gpu.AddressSpace.Workgroup, space.context)
    return space == workgroup


def is_global_space(space) -> bool:
    """True for a global (cross-work-group) memory space: None (the default), integer 0 or 1 of any
    integer type, or `#gpu.address_space<global>`."""
    if space is None:
        return True
    if isinstance(space, ir.IntegerAttr):
        return space.value in (0, 1)
    glob = ir.AttrBuilder.get("GPU_AddressSpaceAttr")(gpu.AddressSpace.Global, space.context)
    return space == glob


def is_slm_memref(t) -> bool:
    """True for a memref type in shared local memory; False for any other type."""
    return isinstance(t, ir.MemRefType) and is_slm_space(t.memory_space)
