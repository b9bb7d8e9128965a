"""The linalg ops a lowering pipeline left on the host (each with its remark: a form it does not lower,
e.g. an attention chain it did not fuse or a dequantization with 8-row groups) become loops that the
simulator's host interpreter runs: `linalg.softmax` decomposed (`softmax_reference`), then upstream
`convert-linalg-to-loops`. Interpreted loops are slow (~0.1 ms an iteration), so a nest of more than
`MAX_HOST_ITERATIONS` iterations is refused up front rather than run for minutes."""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import PassManager

from ..passes.utils.ir_walk import functions, walk
from .softmax_reference import decompose_softmax

MAX_HOST_ITERATIONS = 1 << 17     # ~13 s (a 4D attention left unfused: 1.26 M iterations, 128 s)
_BODY_OPS = {"linalg.yield", "linalg.index"}


def lower_host_linalg(module, entry: str | None = None) -> str | None:
    """Lower the host linalg ops of `module` in place; None when done (or there was none), else why not. With
    `entry`, only what that function runs counts (itself and the functions it calls): another function's
    leftovers are never executed."""
    host = _reachable(functions(module, ("func.func",)), entry)
    names = sorted({op.name for f in host for op in walk(f) if op.name.startswith("linalg.")} - _BODY_OPS)
    if not names:
        return None
    before = sum(_iterations(op) for f in host for op in _top_loops(f))   # the program's own loops
    with module.context, module.operation.location:
        problems = decompose_softmax(module) if "linalg.softmax" in names else []
        if problems:
            return problems[0]
        PassManager.parse("builtin.module(func.func(convert-linalg-to-loops))").run(module.operation)
    host = _reachable(functions(module, ("func.func",)), entry)      # handles renewed after the pass
    n = sum(_iterations(op) for f in host for op in _top_loops(f)) - before
    if n > MAX_HOST_ITERATIONS:
        return (f"the pipeline left {', '.join(names)} on the host (the remarks above say why); as loops they run "
                f"{n:,} iterations, more than the simulator's host interpreter takes ({MAX_HOST_ITERATIONS:,})")
    return None


def _reachable(funcs, entry):
    """The func.func ops `entry` runs: itself and, transitively, its callees (all of `funcs` without entry)."""
    if entry is None:
        return list(funcs)
    by_name = {ir.StringAttr(f.attributes["sym_name"]).value: f for f in funcs}
    todo, seen = [entry], []
    while todo:
        name = todo.pop()
        f = by_name.get(name)
        if f is None or f in seen:
            continue
        seen.append(f)
        todo += [ir.FlatSymbolRefAttr(op.attributes["callee"]).value for op in walk(f) if op.name == "func.call"]
    return seen


def _top_loops(op):
    for child in walk(op, into=lambda o: o.name != "scf.for"):
        if child.name == "scf.for":
            yield child


def _const(v):
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return None
    return ir.IntegerAttr(owner.operation.attributes["value"]).value


def _iterations(loop) -> int:
    """Innermost iterations of the scf.for nest `loop` (0 when a bound is not a constant)."""
    lo, hi, step = (_const(v) for v in list(loop.operands)[:3])
    if None in (lo, hi, step) or step <= 0:
        return 0
    inner = [_iterations(c) for c in _top_loops(loop)]
    return max(0, -(-(hi - lo) // step)) * (sum(inner) if inner else 1)
