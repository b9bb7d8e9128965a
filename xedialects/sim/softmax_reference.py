"""The CPU reference's decomposition of `linalg.softmax` on memrefs (upstream decomposes it only on
tensors, through its AggregatedOpInterface, and the reference sees bufferized programs): each
softmax becomes a call of a private function doing row max, sum of exp(x - max) and the divide
with three `linalg.generic`s (f16/bf16 exponentials and sums in f32, the result rounded once)."""
from __future__ import annotations

from mlir import ir

from ..passes.utils.ir_walk import walk

_NARROW = ("f16", "bf16")


def _helper_text(name: str, ti: str, to: str, shape, elt: str, dim: int) -> str:
    r = len(shape)
    ds = [f"d{i}" for i in range(r)]
    ident = f"affine_map<({', '.join(ds)}) -> ({', '.join(ds)})>"
    red = f"affine_map<({', '.join(ds)}) -> ({', '.join(d for i, d in enumerate(ds) if i != dim)})>"
    iters_red = ", ".join('"reduction"' if i == dim else '"parallel"' for i in range(r))
    iters_par = ", ".join(['"parallel"'] * r)
    kept = [(i, s) for i, s in enumerate(shape) if i != dim]
    rshape = "x".join("?" if s is None else str(s) for _, s in kept)
    dyn = [i for i, s in kept if s is None]
    acc = "f32" if elt in _NARROW else elt
    mt = f"memref<{rshape + 'x' if kept else ''}{elt}>"
    st = f"memref<{rshape + 'x' if kept else ''}{acc}>"
    L = [f"func.func private @{name}(%in: {ti}, %out: {to}) {{"]
    for i in dyn:
        L.append(f"  %c{i} = arith.constant {i} : index")
        L.append(f"  %n{i} = memref.dim %in, %c{i} : {ti}")
    sizes = ", ".join(f"%n{i}" for i in dyn)
    L.append(f"  %mx = memref.alloc({sizes}) : {mt}")
    L.append(f"  %sum = memref.alloc({sizes}) : {st}")
    ninf = {"f32": "0xFF800000", "f16": "0xFC00", "bf16": "0xFF80", "f64": "0xFFF0000000000000"}[elt]
    L.append(f"  %ninf = arith.constant {ninf} : {elt}")
    L.append(f"  %zero = arith.constant 0.0 : {acc}")
    L.append(f"  linalg.fill ins(%ninf : {elt}) outs(%mx : {mt})")
    L.append(f"  linalg.fill ins(%zero : {acc}) outs(%sum : {st})")

    def ext(v):
        return (f"      %{v}w = arith.extf %{v} : {elt} to f32", f"%{v}w") if elt in _NARROW else ("", f"%{v}")

    L.append(f"  linalg.generic {{indexing_maps = [{ident}, {red}], iterator_types = [{iters_red}]}} "
             f"ins(%in : {ti}) outs(%mx : {mt}) {{")
    L.append(f"    ^bb0(%x: {elt}, %m: {elt}):")
    L.append(f"      %r = arith.maxnumf %x, %m : {elt}")
    L.append(f"      linalg.yield %r : {elt}")
    L.append("  }")
    ex, xw = ext("x")
    em, mw = ext("m")
    L.append(f"  linalg.generic {{indexing_maps = [{ident}, {red}, {red}], iterator_types = [{iters_red}]}} "
             f"ins(%in, %mx : {ti}, {mt}) outs(%sum : {st}) {{")
    L.append(f"    ^bb0(%x: {elt}, %m: {elt}, %s: {acc}):")
    L += [t for t in (ex, em) if t]
    L.append(f"      %d = arith.subf {xw}, {mw} : {acc}")
    L.append(f"      %e = math.exp %d : {acc}")
    L.append(f"      %r = arith.addf %s, %e : {acc}")
    L.append(f"      linalg.yield %r : {acc}")
    L.append("  }")
    L.append(f"  linalg.generic {{indexing_maps = [{ident}, {red}, {red}, {ident}], iterator_types = [{iters_par}]}} "
             f"ins(%in, %mx, %sum : {ti}, {mt}, {st}) outs(%out : {to}) {{")
    L.append(f"    ^bb0(%x: {elt}, %m: {elt}, %s: {acc}, %o: {elt}):")
    L += [t for t in (ex, em) if t]
    L.append(f"      %d = arith.subf {xw}, {mw} : {acc}")
    L.append(f"      %e = math.exp %d : {acc}")
    L.append(f"      %q = arith.divf %e, %s : {acc}")
    if elt in _NARROW:
        L.append(f"      %r = arith.truncf %q : f32 to {elt}")
        L.append(f"      linalg.yield %r : {elt}")
    else:
        L.append(f"      linalg.yield %q : {elt}")
    L.append("  }")
    L.append(f"  memref.dealloc %mx : {mt}")
    L.append(f"  memref.dealloc %sum : {st}")
    L.append("  return")
    L.append("}")
    return "\n".join(L)


def decompose_softmax(mod) -> list[str]:
    """Replace every memref `linalg.softmax` of `mod` (in its context) by a call of a helper
    function; returns the problems found (softmax forms it cannot decompose)."""
    problems = []
    ops = [op for op in walk(mod.operation) if op.name == "linalg.softmax"]
    for n, op in enumerate(ops):
        src, out = op.operands[0], op.operands[1]
        if not isinstance(src.type, ir.MemRefType) or len(op.results):
            problems.append(f"'linalg.softmax' on {src.type} (the reference runs bufferized programs: memrefs)")
            continue
        mt = ir.MemRefType(src.type)
        elt = str(mt.element_type)
        if elt not in ("f32", "f16", "bf16", "f64"):
            problems.append(f"'linalg.softmax' on {elt}")
            continue
        dim = ir.IntegerAttr(op.attributes["dimension"]).value
        shape = [None if ir.ShapedType.is_dynamic_size(s) else s for s in mt.shape]
        name = f"__xe_reference_softmax_{n}"
        text = _helper_text(name, str(src.type), str(out.type), shape, elt, dim)
        helper = ir.Module.parse("module {\n" + text + "\n}\n")
        fn = helper.body.operations[0].operation
        mod.body.append(fn)
        with ir.InsertionPoint(op), op.location:
            ir.Operation.create("func.call", operands=[src, out],
                                attributes={"callee": ir.FlatSymbolRefAttr.get(name)})
        op.erase()
    return problems
