"""The host side of a linalg op lowered to kernels: the kernel arguments of a one-input
one-output op, index constants, and the gpu.launch_func that replaces the op (shared by the
reduce, full-reduce, softmax and gemv lowerings)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith


class SourceOutputIO:
    """The kernel arguments of an op that reads one buffer and writes one: (source, output)."""

    def __init__(self, form):
        self.host_args = [form.src, form.out]


def index_const(v: int):
    """An arith.constant of index type at the current insertion point."""
    return arith.ConstantOp(ir.IndexType.get(), v).result


def launch_func(mod_name: str, kname: str, grid, block, args):
    """gpu.launch_func @mod_name::@kname on a (x, y, z) `grid` of work-groups of (x, y, z) `block`
    work-items, passing `args`; no async tokens, no dynamic shared memory, no cluster sizes."""
    args = list(args)
    return ir.Operation.create(
        "gpu.launch_func",
        operands=[*grid, *block] + args,
        attributes={
            "kernel": ir.SymbolRefAttr.get([mod_name, kname]),
            "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, len(args), 0]),
        })
