"""Row and column blocks of a GEMM-like reference function, computed on their own.

A function whose body is linalg ops on its memref arguments (plain layouts, projected-permutation
maps) has loop dimensions that are "the same loop" across ops through the argument dimensions they
index. When the output's two last dimensions belong to loops that are parallel in every op (a GEMM
with a fill or element-wise epilogue: rows M, columns N), each output element depends only on the
argument elements of its own row and column; `plan` finds those two loops and `block_text` writes
the function for one block of rows by columns (static sizes). reference.run_reference runs blocks
to check only what a sampled simulation wrote, and row halves in parallel threads.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from ..passes.utils.ir_walk import walk

_ALLOWED = ("linalg.generic", "arith.constant", "func.return")


@dataclass(frozen=True)
class SlicePlan:
    dims: tuple          # per argument: (row dim, col dim) of the argument (None when it has none); None: scalar
    rows: int            # the number of rows (the output's second-last size)
    cols: int            # the number of columns (the output's last size)


def _join(label: dict, a, b) -> None:
    """Put keys a and b (('arg', i, d), ('loop', op, d)) in one class: `label` maps each key to its
    class's name, and b's class takes a's (a few dozen keys: relabelling is cheap)."""
    la, lb = label.setdefault(a, a), label.setdefault(b, b)
    if la != lb:
        for k, v in label.items():
            if v == lb:
                label[k] = la


def _entry(mod, entry):
    return next(op.operation for op in mod.body.operations if op.operation.name == "func.func"
                and ir.StringAttr(op.operation.attributes["sym_name"]).value == entry)


def _plain(t) -> bool:
    """A static memref type with the row-major layout (blocks are contiguous copies)."""
    return t.has_static_shape and t.layout == ir.AffineMapAttr.get(ir.AffineMap.get_identity(t.rank))


def plan(text: str, entry: str) -> SlicePlan | None:
    """The row/column plan of host function @entry in `text` (reference.extract_host_functions),
    or None when its elements cannot be computed by blocks (module docstring)."""
    from mlir import passmanager

    with ir.Context(), ir.Location.unknown():
        try:
            mod = ir.Module.parse(text)
            passmanager.PassManager.parse("builtin.module(func.func(linalg-generalize-named-ops))").run(mod.operation)
        except Exception:           # reference._compile reports what upstream refuses
            return None
        fn = _entry(mod, entry)
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        if len(ftype.results) or not fn.regions[0].blocks:
            return None
        args = list(fn.regions[0].blocks[0].arguments)
        for t in ftype.inputs:
            if isinstance(t, ir.MemRefType) and not _plain(ir.MemRefType(t)):
                return None
        label, parallel, last = {}, {}, None
        for n, op in enumerate(walk(fn, into=lambda o: o.name != "linalg.generic")):
            if op.name not in _ALLOWED:
                return None
            if op.name != "linalg.generic":
                continue
            maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
            iters = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
            for d, it in enumerate(iters):
                parallel[("loop", n, d)] = "parallel" in it
            for v, amap in zip(op.operands, maps):
                if not isinstance(v.type, ir.MemRefType):
                    continue
                i = next((j for j, a in enumerate(args) if a == v), None)
                if i is None or not amap.is_projected_permutation:      # a local buffer, a convolution
                    return None
                for k, e in enumerate(amap.results):
                    _join(label, ("arg", i, k), ("loop", n, ir.AffineDimExpr(e).position))
            last = op.operands[len(op.operands) - 1]
        if last is None or not isinstance(last.type, ir.MemRefType) or ir.MemRefType(last.type).rank < 2:
            return None
        out = next(j for j, a in enumerate(args) if a == last)
        rank = ir.MemRefType(last.type).rank
        row, col = label[("arg", out, rank - 2)], label[("arg", out, rank - 1)]
        if row == col or not all(ok for k, ok in parallel.items() if label.get(k, k) in (row, col)):
            return None
        dims = []
        for i, t in enumerate(ftype.inputs):
            if not isinstance(t, ir.MemRefType):
                dims.append(None)
                continue
            mine = [label.get(("arg", i, k), ("arg", i, k)) for k in range(ir.MemRefType(t).rank)]
            if mine.count(row) > 1 or mine.count(col) > 1:
                return None
            dims.append((mine.index(row) if row in mine else None, mine.index(col) if col in mine else None))
        shape = ir.MemRefType(last.type).shape
        return SlicePlan(tuple(dims), shape[-2], shape[-1])


def block_text(text: str, entry: str, p: SlicePlan, nrows: int, ncols: int) -> str:
    """`text` with @entry's arguments cut to blocks of `nrows` x `ncols` (static sizes)."""
    with ir.Context(), ir.Location.unknown():
        mod = ir.Module.parse(text)
        fn = _entry(mod, entry)
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        new = []
        for a, t, d in zip(fn.regions[0].blocks[0].arguments, ftype.inputs, p.dims):
            if d is not None:
                mt = ir.MemRefType(t)
                shape = list(mt.shape)
                if d[0] is not None:
                    shape[d[0]] = nrows
                if d[1] is not None:
                    shape[d[1]] = ncols
                t = ir.MemRefType.get(shape, mt.element_type, memory_space=mt.memory_space)
                a.set_type(t)
            new.append(t)
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(new, []))
        return str(mod)


def index(p: SlicePlan, i: int, rank: int, r0: int, nrows: int, c0: int, ncols: int):
    """The numpy index of argument i's block rows r0.. by columns c0.."""
    idx = [slice(None)] * rank
    d = p.dims[i]
    if d[0] is not None:
        idx[d[0]] = slice(r0, r0 + nrows)
    if d[1] is not None:
        idx[d[1]] = slice(c0, c0 + ncols)
    return tuple(idx)


def _starts(total: int, size: int, wanted: np.ndarray) -> list[int]:
    """Starts of the blocks of `size` (the last one moved back to end at `total`) that hold a
    wanted index (bool per index)."""
    starts = []
    for s in range(0, total, size):
        s = min(s, total - size)
        if wanted[s:s + size].any():
            starts.append(s)
    return starts


def blocks(p: SlicePlan, masks: dict, shapes: list, size: int) -> list | None:
    """(r0, c0) of the `size` x `size` blocks (at most the whole) holding every element the
    masks ({argument index: flat bool mask}) select; None when a masked argument has no row or
    column dimension (it is then checked from the whole reference)."""
    nr, nc = min(size, p.rows), min(size, p.cols)
    want = np.zeros((p.rows, p.cols), dtype=bool)
    for i, m in masks.items():
        d = p.dims[i]
        if d is None or d[0] is None or d[1] is None:
            return None
        sel = np.asarray(m).reshape(shapes[i])
        other = tuple(k for k in range(sel.ndim) if k not in d)
        sel = sel.any(axis=other) if other else sel
        want |= sel if d[0] < d[1] else sel.T
    out = []
    for r0 in _starts(p.rows, nr, want.any(axis=1)):
        for c0 in _starts(p.cols, nc, want[r0:r0 + nr].any(axis=0)):
            out.append((r0, c0))
    return out
