"""IMEX's launch convention -> ours.

IMEX's XeTile programs mark kernels `VectorComputeFunctionINTEL`: each GPU "thread" of their
`gpu.launch_func ... threads in (X, Y, Z)` is one subgroup (a hardware thread). Our simulator,
passes and SPIR-V count work-items (16 per subgroup). `normalize_vc_launches` rewrites such a
module in place, before any pipeline: every launch of a VC kernel gets 16 x X work-items in x,
and inside the kernel `gpu.thread_id` (the thread's coordinates), `gpu.block_dim` (thread counts)
and `gpu.global_id` are recomputed from `gpu.subgroup_id` and the real block size. The kernel's
`VectorComputeFunctionINTEL` is replaced by `xe.vc_threads` so it is done once; `gpu.known_block_size`
is scaled like the launch and IMEX's unprefixed `known_block_size` / `known_grid_size` hints (thread
units, not always the launch's) are dropped: the launch decides.
"""
from __future__ import annotations

from mlir import ir

from ...passes.utils.ir_walk import walk

SUBGROUP = 16
_VC = "VectorComputeFunctionINTEL"


def _children(op):
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation


def _name(op):
    return ir.StringAttr(op.attributes["sym_name"]).value


def _dim(op) -> str:
    return str(op.attributes["dimension"]).split()[-1].rstrip(">")


def _rewrite_kernel(kop):
    from mlir.dialects import arith, gpu

    index = ir.IndexType.get()
    ops = [o for o in walk(kop) if o.name in ("gpu.thread_id", "gpu.block_dim", "gpu.global_id")]
    for op in ops:
        with ir.InsertionPoint(op), op.location:
            c16 = arith.ConstantOp(index, SUBGROUP).result

            def bdim(d):
                v = gpu.BlockDimOp(getattr(gpu.Dimension, d)).result
                return arith.DivUIOp(v, c16).result if d == "x" else v

            d = _dim(op)
            if op.name == "gpu.block_dim":
                new = bdim(d)
            else:
                sg = gpu.SubgroupIdOp().result
                bx, by = bdim("x"), bdim("y")
                if d == "x":
                    tid = arith.RemUIOp(sg, bx).result
                elif d == "y":
                    tid = arith.RemUIOp(arith.DivUIOp(sg, bx).result, by).result
                else:
                    tid = arith.DivUIOp(sg, arith.MulIOp(bx, by).result).result
                if op.name == "gpu.thread_id":
                    new = tid
                else:
                    bid = gpu.BlockIdOp(getattr(gpu.Dimension, d)).result
                    new = arith.AddIOp(arith.MulIOp(bid, bdim(d)).result, tid).result
            op.results[0].replace_all_uses_with(new)
        op.erase()
    if "gpu.known_block_size" in kop.attributes:
        dims = list(ir.DenseI32ArrayAttr(kop.attributes["gpu.known_block_size"]))
        kop.attributes["gpu.known_block_size"] = ir.DenseI32ArrayAttr.get([dims[0] * SUBGROUP] + dims[1:])
    for name in ("known_block_size", "known_grid_size"):
        if name in kop.attributes:      # IMEX's hints in its thread units; our lowering reads them as work-items
            del kop.attributes[name]
    del kop.attributes[_VC]
    kop.attributes["xe.vc_threads"] = ir.UnitAttr.get()


def normalize_vc_launches(module) -> int:
    """Rewrite the VC kernels of `module` and their launches (see the module docstring); returns
    how many kernels were rewritten."""
    from mlir.dialects import arith

    with module.context, ir.Location.unknown():
        vc = set()
        top = list(_children(module.operation))
        for gm in top:
            if gm.name != "gpu.module":
                continue
            for f in _children(gm):
                if f.name == "gpu.func" and _VC in f.attributes:
                    vc.add(f"@{_name(gm)}::@{_name(f)}")
                    _rewrite_kernel(f)
        if not vc:
            return 0
        index = ir.IndexType.get()
        for fop in top:
            if fop.name != "func.func":
                continue
            for op in list(walk(fop)):
                if op.name != "gpu.launch_func" or str(op.attributes["kernel"]) not in vc:
                    continue
                sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
                i = sizes[0] + 3                      # block size x, after async deps and the grid
                with ir.InsertionPoint(op), op.location:
                    c16 = arith.ConstantOp(index, SUBGROUP).result
                    op.operands[i] = arith.MulIOp(op.operands[i], c16).result
    return len(vc)
