"""The CPU reference's fast path for large contractions: tiled and vectorized by upstream MLIR.

`vectorize_contractions(mod)` rewrites, in the reference's upstream clone, every large linalg
contraction (a GEMM, batched or transposed) with transform-dialect scripts: cache tiles, then
register tiles of 8x32 outputs by 8 reduction steps (loops peeled so that all but the last
partial tiles are full), the full ones vectorized to `vector.contract` and lowered to outer
products (FMAs). Partial tiles and everything else stay on `convert-linalg-to-loops`. Numerics
and thresholds: docs/numerics.md "The CPU reference".
"""
from __future__ import annotations

from mlir import ir

from ..passes.utils.ir_walk import walk

# a contraction whose iteration space has fewer points stays on scalar loops: the schedule's
# compile time (~0.1 s) would cost more than it saves (256^3 runs in ~0.06 s as loops)
MIN_POINTS = 1 << 25
# output element types the fast path accumulates in (f16/bf16 accumulators stay on loops)
_ACCUMULATORS = ("f32", "f64", "i32", "i64")
_OUTER = {"m": 32, "n": 256, "k": 128}      # cache tiles (measured at 2048^3: bench/reference_cpu.py)
_INNER = {"m": 8, "n": 32, "k": 8}          # register tiles: 8 rows x 32 lanes of f32 accumulators
_TAG = "__xe_reference_fast"
_VEC = "__xe_reference_vectorize"
# lowering of the vectorized tiles, inserted after convert-linalg-to-loops in reference.PIPELINE
VECTOR_LOWERING = "convert-vector-to-scf{full-unroll=true},lower-affine,"


def _roles(op):
    """{loop dim: 'm'|'n'|'k'} of a static contraction `op` (a linalg.generic), or None when the
    op is not one the schedule handles."""
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    iters = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    if not all(m.is_projected_permutation for m in maps) or "#linalg.iterator_type<reduction>" not in iters:
        return None
    out = maps[-1].results
    if len(out) < 2 or len(op.results):
        return None
    n, m = ir.AffineDimExpr(out[-1]).position, ir.AffineDimExpr(out[-2]).position
    if "reduction" in iters[n] or "reduction" in iters[m]:
        return None
    k = max(i for i, t in enumerate(iters) if "reduction" in t)
    return {m: "m", n: "n", k: "k"}


def _loop_sizes(op):
    """Static loop ranges of `op` (None when an operand is not a static memref)."""
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    sizes = {}
    for v, amap in zip(op.operands, maps):
        if not isinstance(v.type, ir.MemRefType) or not ir.MemRefType(v.type).has_static_shape:
            return None
        for e, s in zip(amap.results, ir.MemRefType(v.type).shape):
            sizes[ir.AffineDimExpr(e).position] = s
    return [sizes.get(i) for i in range(amap.n_dims)]


def _candidates(mod, min_points: int):
    """(op, roles, loop sizes) of the generic contractions of at least `min_points` iterations
    the schedule handles."""
    found = []
    for op in walk(mod.operation):
        if op.name != "linalg.generic":
            continue
        out = op.operands[len(op.operands) - 1].type
        if not isinstance(out, ir.MemRefType) or str(ir.MemRefType(out).element_type) not in _ACCUMULATORS:
            continue
        roles = _roles(op)
        sizes = _loop_sizes(op) if roles else None
        if sizes is None or None in sizes:
            continue
        points = 1
        for s in sizes:
            points *= s
        if points >= min_points:
            found.append((op, roles, sizes))
    return found


def _tiles(roles, sizes, table):
    return [min(table[roles[i]], s) if i in roles else 1 for i, s in enumerate(sizes)]


_ANY = "!transform.any_op"
_FOR = '!transform.op<"scf.for">'


def _script(body: list) -> str:
    return "\n".join(["module attributes {transform.with_named_sequence} {",
                      f"  transform.named_sequence @__transform_main(%root: {_ANY} {{transform.readonly}}) {{",
                      *body, "    transform.yield", "  }", "}"])


def _tiling(ops) -> str:
    """The first transform script: per tagged op, cache tiles, then register tiles whose loops are
    peeled where a cache or register tile can be partial (full tiles, of static sizes, in the main
    loops; innermost loop first: peeling invalidates the handles of the loops nested in it)."""
    body = []
    for i, (roles, sizes) in enumerate(ops):
        outer, inner = _tiles(roles, sizes, _OUTER), _tiles(roles, sizes, _INNER)
        n = len(sizes)
        loops = ", ".join([_ANY] * (n + 1))
        body += [f"    %op{i} = transform.structured.match attributes{{{_TAG} = {i} : i64}} in %root "
                 f": ({_ANY}) -> {_ANY}",
                 f"    %a{i}, %al{i}:{n} = transform.structured.tile_using_for %op{i} tile_sizes {outer} "
                 f": ({_ANY}) -> ({loops})",
                 f"    %b{i}, %bl{i}:{n} = transform.structured.tile_using_for %a{i} tile_sizes {inner} "
                 f": ({_ANY}) -> ({loops})"]
        for d in reversed(range(n)):
            if d in roles and (sizes[d] % outer[d] or sizes[d] % inner[d]):   # partial tiles: min() sizes
                body += [f"    %c{i}_{d} = transform.cast %bl{i}#{d} : {_ANY} to {_FOR}",
                         f"    %m{i}_{d}, %r{i}_{d} = transform.loop.peel %c{i}_{d} : ({_FOR}) -> ({_ANY}, {_ANY})"]
    body += [f"    %f = transform.structured.match ops{{[\"func.func\"]}} in %root : ({_ANY}) -> {_ANY}",
             f"    transform.apply_patterns to %f {{ transform.apply_patterns.canonicalization }} : {_ANY}"]
    return _script(body)


def _vectorizing() -> str:
    """The second transform script: the register tiles marked _VEC vectorized, the reductions
    folded to vector.contract and lowered to outer products (FMAs)."""
    return _script([
        f"    %v = transform.structured.match attributes{{{_VEC}}} in %root : ({_ANY}) -> {_ANY}",
        f"    transform.structured.vectorize %v : {_ANY}",
        f"    %f = transform.structured.match ops{{[\"func.func\"]}} in %root : ({_ANY}) -> {_ANY}",
        "    transform.apply_patterns to %f {",
        "      transform.apply_patterns.vector.reduction_to_contract",
        "      transform.apply_patterns.vector.sink_ops",
        "      transform.apply_patterns.vector.transfer_permutation_patterns",
        "      transform.apply_patterns.canonicalization",
        f"    }} : {_ANY}",
        "    transform.apply_patterns to %f {",
        '      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"',
        "      transform.apply_patterns.vector.transfer_permutation_patterns",
        "      transform.apply_patterns.vector.lower_outerproduct",
        "      transform.apply_patterns.canonicalization",
        f"    }} : {_ANY}"])


def _static(op) -> bool:
    return all(not isinstance(v.type, ir.MemRefType) or ir.MemRefType(v.type).has_static_shape for v in op.operands)


def vectorize_contractions(mod, min_points: int | None = None) -> bool:
    """Tile and vectorize the contractions of `mod` of at least `min_points` iterations (default
    MIN_POINTS; upstream context, linalg on memrefs; named ops are generalized first). True when
    any was rewritten (the lowering then needs VECTOR_LOWERING); a schedule upstream refuses
    raises, and the caller falls back to loops."""
    from mlir import passmanager
    from mlir.dialects.transform import interpreter

    passmanager.PassManager.parse("builtin.module(func.func(linalg-generalize-named-ops))").run(mod.operation)
    found = _candidates(mod, MIN_POINTS if min_points is None else min_points)
    if not found:
        return False
    i64 = ir.IntegerType.get_signless(64)
    for i, (op, _, _) in enumerate(found):
        op.attributes[_TAG] = ir.IntegerAttr.get(i64, i)
    script = ir.Module.parse(_tiling([(r, s) for _, r, s in found]))
    interpreter.apply_named_sequence(mod.operation, script.body.operations[0], script)
    for op in walk(mod.operation):      # full register tiles are vectorized, the peeled rest stays loops
        if op.name == "linalg.generic" and _TAG in op.attributes and _static(op):
            op.attributes[_VEC] = ir.UnitAttr.get()
    script = ir.Module.parse(_vectorizing())
    interpreter.apply_named_sequence(mod.operation, script.body.operations[0], script)
    return True
