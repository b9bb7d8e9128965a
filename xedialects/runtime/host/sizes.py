"""Memref sizes of host code checked before any type reaches LLVM.

Upstream MLIR asserts (`integer overflow in size computation`) when it computes the strides of a
memref type whose element count overflows int64, and LLVM's allocation size wraps silently when the
byte count does. `check_host_types(module)` walks the host functions (top-level `func.func`, their
nested ops, block arguments and declarations) and `memref.global`s and reports, at the op, a memref
type whose static size cannot be counted in 64 bits, and an allocation (`memref.alloc`,
`memref.alloca`, `gpu.alloc`, `memref.global`) larger than a 64-bit host's address space (128 TiB).
Dynamic sizes are checked when the program runs (guards.py, buffers.py).
"""
from __future__ import annotations

from mlir import ir

from ...diagnostics import DiagnosticError, at
from ...passes.utils.ir_walk import walk

INT64_LIMIT = 2 ** 63 - 1
ADDRESS_SPACE = 2 ** 47        # bytes a user process can map on x86-64 (and AArch64 with 48-bit VAs)
_ALLOCATING = ("memref.alloc", "memref.alloca", "gpu.alloc")


def element_bytes(t) -> int:
    """Bytes of one element of type `t` (sub-byte integers take a byte, as in memory)."""
    if isinstance(t, ir.IndexType):
        return 8
    if isinstance(t, ir.IntegerType):
        return max(1, (t.width + 7) // 8)
    if isinstance(t, ir.ComplexType):
        return 2 * element_bytes(t.element_type)
    if isinstance(t, ir.VectorType):
        n = 1
        for d in t.shape:
            n *= max(d, 1)
        return n * element_bytes(t.element_type)
    if isinstance(t, ir.FloatType):
        return max(1, (t.width + 7) // 8)
    return 8


def static_size(t) -> tuple[int, int] | None:
    """(elements, bytes) of a memref type's static dimensions (dynamic ones count 1); None for
    other types."""
    if not isinstance(t, ir.MemRefType):
        return None
    n = 1
    for d in t.shape:
        if d >= 0:
            n *= d
    return n, n * element_bytes(t.element_type)


def _problem(t, alloc: str | None) -> str | None:
    size = static_size(t)
    if size is None:
        return None
    n, nbytes = size
    if n > INT64_LIMIT or nbytes > INT64_LIMIT:
        return (f"{t} has {n} elements ({nbytes} bytes): more than a 64-bit size can count "
                "(upstream MLIR and LLVM compute sizes in int64)")
    if alloc and nbytes > ADDRESS_SPACE:
        return (f"{alloc} of {t}: {nbytes} bytes ({nbytes / 2 ** 40:.0f} TiB) cannot be allocated, more than the "
                f"{ADDRESS_SPACE // 2 ** 40} TiB address space of the host")
    return None


def check_host_types(module) -> None:
    """DiagnosticError at the first op of the host code whose memref type is too large (see the
    module docstring); kernels (gpu.module) are not walked."""
    op = module.operation if hasattr(module, "operation") else module
    seen = set()

    def check(t, where, alloc=None):
        key = (t, alloc)
        if key in seen:
            return
        seen.add(key)
        msg = _problem(t, alloc)
        if msg:
            raise DiagnosticError([at(where.location, "error", msg)])

    for top in op.regions[0].blocks[0].operations:
        top = top.operation
        if top.name == "memref.global":
            check(ir.TypeAttr(top.attributes["type"]).value, top, "memref.global")
        if top.name != "func.func":
            continue
        ftype = ir.FunctionType(ir.TypeAttr(top.attributes["function_type"]).value)
        for t in list(ftype.inputs) + list(ftype.results):
            check(t, top)
        for inner in walk(top):
            alloc = inner.name if inner.name in _ALLOCATING else None
            for r in inner.results:
                check(r.type, inner, alloc)
            for region in inner.regions:
                for block in region.blocks:
                    for a in block.arguments:
                        check(a.type, inner)
