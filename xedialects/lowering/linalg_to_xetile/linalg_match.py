"""Recognise matmul-class linalg ops on memrefs and describe them as a `MatmulSpec`.

Covers `linalg.matmul` (with or without transposing `indexing_maps`), `linalg.batch_matmul` and
`linalg.generic` ops whose maps and body form a (batched) matmul. The body (also the one MLIR
builds for the named ops) must compute `acc + ext(a) * ext(b)` exactly, with signed or float
extensions only (unsigned `cast` semantics are not supported). Anything else is left alone; the
`NotAMatmul` reason becomes the remark (or, with `strict`, the error) of the pass. `matmul_maps`, the
iterators, body and maps alone, takes any number of batch loops (attention's 4D (batch, heads) form).
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ...core.typeinfo import memref_info

SUPPORTED_TYPES = {
    ("bf16", "bf16", "f32"), ("f16", "f16", "f32"), ("f16", "f16", "f16"),
    ("f32", "f32", "f32"), ("tf32", "tf32", "f32"), ("i8", "i8", "i32"), ("bf16", "bf16", "bf16"),
}

MATMUL_NAMES = ("linalg.matmul", "linalg.batch_matmul", "linalg.generic")
# other contractions: reported (not lowered) instead of silently skipped; convert.py sends the gemv
# ones (matvec, vecmat, batch_matvec, batch_vecmat) to gemv.py first
OTHER_CONTRACTIONS = frozenset(f"linalg.{n}" for n in (
    "matvec", "vecmat", "batch_matvec", "batch_vecmat", "batch_reduce_matmul", "dot", "contract",
    "quantized_matmul", "quantized_batch_matmul", "mmt4d", "batch_mmt4d", "matmul_transpose_a",
    "matmul_transpose_b", "batch_matmul_transpose_a", "batch_matmul_transpose_b"))
_CASTS = ("arith.extf", "arith.extsi", "arith.sitofp", "arith.truncf")
_UNSIGNED = ("arith.extui", "arith.uitofp")


@dataclass
class MatmulSpec:
    op: object
    a: object
    b: object
    c: object
    a_type: str
    b_type: str
    c_type: str
    m: int | None
    n: int | None
    k: int | None
    batch: int | None  # None: not batched; else batch size (may be -1 for dynamic)
    transpose_a: bool
    transpose_b: bool

    @property
    def dynamic(self) -> bool:
        return None in (self.m, self.n, self.k)


class NotAMatmul(Exception):
    """The op is not a matmul we lower; `reason` says why (used for remarks)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _maps(op):
    attr = op.attributes["indexing_maps"]
    return [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(attr)]


def _results(amap):
    return [str(e) for e in amap.results]


def is_contraction_like(op) -> bool:
    """A matmul-class op name, or a linalg.generic with a reduction iterator: the ops for which
    a failed match deserves a remark (element-wise generics are not matmuls at all)."""
    if op.name in ("linalg.matmul", "linalg.batch_matmul") or op.name in OTHER_CONTRACTIONS:
        return True
    if op.name != "linalg.generic" or "iterator_types" not in op.attributes:
        return False
    return any("reduction" in str(x) for x in ir.ArrayAttr(op.attributes["iterator_types"]))


def _defining(v):
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _check_body(op) -> None:
    """The region must yield `acc + cast(a) * cast(b)` (float or signed integer arithmetic)."""
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        raise NotAMatmul(f"{op.name} has no single-block body")
    block = op.regions[0].blocks[0]
    args = list(block.arguments)
    if len(args) != 3:
        raise NotAMatmul(f"{op.name} body takes {len(args)} arguments, expected 3 (a, b, acc)")
    names = [o.operation.name for o in block.operations]
    unsigned = [n for n in names if n in _UNSIGNED]
    if unsigned:
        raise NotAMatmul(f"unsigned extension ({unsigned[0]}) in the body: only signed i8 x i8 -> i32 "
                         "(and float) matmuls are supported")
    term = list(block.operations)[-1].operation
    if term.name != "linalg.yield" or len(term.operands) != 1:
        raise NotAMatmul(f"{op.name} body does not yield one value")

    def strip(v):
        while True:
            d = _defining(v)
            if d is None or d.name not in _CASTS:
                return v
            v = d.operands[0]

    add = _defining(term.operands[0])
    if add is None or add.name not in ("arith.addf", "arith.addi"):
        raise NotAMatmul(f"{op.name} body is not multiply-accumulate (it yields "
                         f"{add.name if add else 'a block argument'}, not arith.addf/addi)")
    x, y = add.operands
    acc = args[2]
    if strip(x) == acc:
        prod = y
    elif strip(y) == acc:
        prod = x
    else:
        raise NotAMatmul(f"{op.name} body is not multiply-accumulate (the sum does not add the output value)")
    mul = _defining(strip(prod))
    if mul is None or mul.name not in ("arith.mulf", "arith.muli"):
        raise NotAMatmul(f"{op.name} body is not multiply-accumulate (the added value is not a product)")
    ops = {strip(v) for v in mul.operands}
    if ops != {args[0], args[1]}:
        raise NotAMatmul(f"{op.name} body is not multiply-accumulate (the product is not input x input)")


def identity_layout(v) -> bool:
    """Whether memref value `v` has the identity (row-major, offset 0) layout."""
    layout = ir.MemRefType(v.type).layout
    if layout is None:
        return True
    try:
        amap = ir.AffineMapAttr(layout).value
    except (ValueError, TypeError):
        return False
    return amap == ir.AffineMap.get_identity(amap.n_dims, amap.context)


def _layout_ok(v) -> bool:
    """Dynamic-shape operands are addressed with memref.dim sizes: they need the identity layout."""
    info = memref_info(v)
    if all(s is not None for s in info[0]):
        return info[2] is not None
    return identity_layout(v)


def _check_form(op) -> None:
    """A matmul-class op (`MATMUL_NAMES`) with two inputs, one output and indexing maps; else NotAMatmul."""
    if op.name not in MATMUL_NAMES:
        raise NotAMatmul(f"'{op.name}' is not a supported matmul form (supported: linalg.matmul, "
                         "linalg.batch_matmul, matmul-shaped linalg.generic)")
    if len(op.operands) != 3:
        raise NotAMatmul("expects two inputs and one output")
    if "indexing_maps" not in op.attributes:
        raise NotAMatmul(f"{op.name} has no indexing_maps")


def matmul_maps(op, n_batch: int) -> tuple[bool, bool]:
    """(transpose_a, transpose_b) of a matmul-class op (`MATMUL_NAMES`, two inputs, one output) with
    `n_batch` leading batch loops: a generic's iterators, the body (`_check_body`) and the maps
    batch x (M x K | K x M) . (K x N | N x K) -> batch x M x N; else NotAMatmul. `match_matmul` takes 0 or 1
    batch loop; attention's Q.K^T and P.V (attention_match) 1 or 2 (batch, heads)."""
    _check_form(op)
    if op.name == "linalg.generic":
        iters = [str(x).split("<")[-1].rstrip(">") for x in ir.ArrayAttr(op.attributes["iterator_types"])]
        if iters != ["parallel"] * (n_batch + 2) + ["reduction"]:
            raise NotAMatmul("linalg.generic is not a matmul (iterators)")
    _check_body(op)
    pre = [f"d{i}" for i in range(n_batch)]
    m_, n_, k_ = (f"d{n_batch + i}" for i in range(3))
    ra, rb, rc = (_results(x) for x in _maps(op))
    if rc != pre + [m_, n_]:
        raise NotAMatmul(f"unsupported output map {rc}")
    if ra == pre + [m_, k_]:
        ta = False
    elif ra == pre + [k_, m_]:
        ta = True
    else:
        raise NotAMatmul(f"unsupported A map {ra}")
    if rb == pre + [k_, n_]:
        tb = False
    elif rb == pre + [n_, k_]:
        tb = True
    else:
        raise NotAMatmul(f"unsupported B map {rb}")
    return ta, tb


def match_matmul(op) -> MatmulSpec:
    _check_form(op)
    a, b, c = op.operands
    infos = [memref_info(v) for v in (a, b, c)]
    if any(i is None for i in infos):
        raise NotAMatmul("operands must be memrefs (bufferize tensors first, e.g. with the xe-bufferize "
                         "or xe-linalg-to-xetile pipeline)")
    n_loops = _maps(op)[0].n_dims
    if n_loops not in (3, 4):
        raise NotAMatmul(f"{n_loops} loops: only 2D (M, N, K) matmuls on rank-2 memrefs and batched ones on "
                         "rank-3 memrefs are supported")
    batched = n_loops == 4
    ta, tb = matmul_maps(op, n_loops - 3)
    (sa, ea, _, spa), (sb, eb, _, spb), (sc, ec, _, spc) = infos
    rank = 3 if batched else 2
    if not (len(sa) == len(sb) == len(sc) == rank):
        raise NotAMatmul(f"expects rank-{rank} memrefs, got ranks {len(sa)}, {len(sb)}, {len(sc)}")
    if (ea, eb, ec) not in SUPPORTED_TYPES:
        raise NotAMatmul(f"unsupported element types {ea} x {eb} -> {ec}; supported: "
                         + ", ".join(f"{x}x{y}->{z}" for x, y, z in sorted(SUPPORTED_TYPES)))
    if any(s not in (None, "0", "0 : i64", "0 : i32") for s in (spa, spb, spc)):
        raise NotAMatmul("operands must be in global memory (memory space 0)")
    for nm, v, info in (("A", a, infos[0]), ("B", b, infos[1]), ("C", c, infos[2])):
        if not _layout_ok(v):
            raise NotAMatmul(f"operand {nm} ({v.type}): dynamic-shape operands need the identity layout and "
                             "static ones a strided layout")
        strides = info[2]
        if strides and strides[-1] != 1 and (info[0][-1] or 0) > 1:
            raise NotAMatmul(f"operand {nm} ({v.type}): its innermost dimension is not contiguous (stride "
                             f"{strides[-1]}); the 2D block loads and stores read rows of unit stride (a column-major "
                             "operand, the dimension before it contiguous, is read through a transposed view)")
    sa2, sc2 = sa[-2:], sc[-2:]
    m = sc2[0]
    n = sc2[1]
    k = sa2[0] if ta else sa2[1]
    return MatmulSpec(op, a, b, c, ea, eb, ec, m, n, k,
                      (sc[0] if sc[0] is not None else -1) if batched else None, ta, tb)
