"""A dequantizing linalg.vecmat / linalg.matvec rewritten as the M = 1 linalg.matmul before the GEMM matching
runs, so that the fused DPAS GEMM kernel takes it (docs/quantized-gemm.md "gemv"): x and y become 1 x K and 1 x N
`memref.expand_shape` views, a vecmat's K x N matrix is B, a matvec's N x K one is B read transposed (y = x^T
W^T). Every gemv whose dequantization the gemv kernel fuses passes the GEMM's checks (same types, identity 1D x
and y, the same `dequant.recognize_generic` roles). `dequant-gemv=vector` keeps the vector-FMA gemv kernel
(dequant_gemv.py).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg, memref

from .dequant import NotDequant, gemv_producer, recognize_gemv
from .gemm_epilogue import NotFusible, _defining
from .gemv import match_gemv

MODES = ("dpas", "vector")
# IGC 2.40 code in the perf model, 4096 x 4096 at M = 1 (docs/quantized-gemm.md "Figures")
IGC_FIGURES = ("IGC 2.40, 4096 x 4096: pvc W8A16 8.5 us against the gemv's 16.7 us, W4A16 9.1 (N x K) / 11.9 "
               "(K x N) against 17.7 us; bmg 43-46 us against 77-127 us")
DPAS_NOTE = (f"  form             : the dequantizing gemv as the M = 1 DPAS GEMM (dequant-gemv=dpas; {IGC_FIGURES}; "
             "dequant-gemv=vector keeps the vector-FMA gemv)")
VECTOR_NOTE = (f"  form             : the vector-FMA gemv kernel (dequant-gemv=vector; the default M = 1 DPAS GEMM "
               f"is faster: {IGC_FIGURES})")


def _row_view(v):
    """memref.expand_shape of the 1D `v` into 1 x n, placed right after `v`'s definition (at its block's start
    for a block argument): it dominates every use of `v`."""
    t = ir.MemRefType(v.type)
    (n,) = t.shape
    rt = ir.MemRefType.get([1, n], t.element_type, memory_space=t.memory_space)
    d = _defining(v)
    block = v.owner if d is None else d.block
    first = block.operations[0].operation
    with ir.InsertionPoint(first), first.location:
        view = memref.ExpandShapeOp(rt, v, ir.ArrayAttr.get([ir.ArrayAttr.get(
            [ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i) for i in (0, 1)])]), [], [1, n])
    if d is not None:
        view.operation.move_after(d)
    return view.result


def _as_matmul(form):
    """Replace the gemv by linalg.matmul(x as 1 x K, W) -> y as 1 x N (W read transposed for a matvec); a fused
    fill of y fills y's view."""
    op = form.op
    xv, yv = _row_view(form.x), _row_view(form.y)
    if form.fill is not None:
        form.fill.operands[1] = yv
    with ir.InsertionPoint(op), op.location:
        d = [ir.AffineDimExpr.get(i) for i in range(3)]
        b = [d[1], d[2]] if form.dim == 1 else [d[2], d[1]]     # matvec: W is N x K, B = W^T
        maps = [ir.AffineMap.get(3, 0, r) for r in ([d[0], d[2]], b, [d[0], d[1]])]
        mm = linalg.matmul(xv, form.a, outs=[yv], indexing_maps=maps)
    op.erase()
    return _defining(mm) if isinstance(mm, ir.Value) else mm.operation


def rewrite(func, mode: str) -> dict:
    """Rewrite the fusible dequantizing gemvs of `func` as M = 1 matmuls (mode "dpas"); returns op -> the form
    note --xe-print-plan prints for it (the new matmul, or the gemv kept as the vector-FMA kernel)."""
    from ...passes.utils.ir_walk import walk

    notes = {}
    for op in [o for o in walk(func) if o.name in ("linalg.matvec", "linalg.vecmat")]:
        gen = gemv_producer(op)
        if gen is None:
            continue
        try:
            form = match_gemv(op)
            recognize_gemv(form, gen)
        except (NotFusible, NotDequant):
            continue                   # not fused into the gemv either: its remarks come as before
        if mode == "vector":
            notes[op] = VECTOR_NOTE
        else:
            notes[_as_matmul(form)] = DPAS_NOTE
    return notes
