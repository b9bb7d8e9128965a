"""Recognise matmul-class linalg ops on memrefs and describe them as a `MatmulSpec`.

Covers `linalg.matmul` (with or without transposing `indexing_maps`), `linalg.batch_matmul` and
`linalg.generic` ops whose maps and body form a (batched) matmul. Anything else is left alone.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..core.typeinfo import memref_info

SUPPORTED_TYPES = {
    ("bf16", "bf16", "f32"), ("f16", "f16", "f32"), ("f16", "f16", "f16"),
    ("f32", "f32", "f32"), ("i8", "i8", "i32"), ("bf16", "bf16", "bf16"),
}


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


def match_matmul(op) -> MatmulSpec:
    name = op.name
    if name not in ("linalg.matmul", "linalg.batch_matmul", "linalg.generic"):
        raise NotAMatmul("not a matmul-class op")
    if len(op.operands) != 3:
        raise NotAMatmul("expects two inputs and one output")
    a, b, c = op.operands
    infos = [memref_info(v) for v in (a, b, c)]
    if any(i is None for i in infos):
        raise NotAMatmul("operands must be memrefs (bufferize tensors first)")
    maps = _maps(op)
    batched = maps[0].n_dims == 4
    if name == "linalg.generic":
        iters = [str(x) for x in ir.ArrayAttr(op.attributes["iterator_types"])]
        want = (["parallel"] if batched else []) + ["parallel", "parallel", "reduction"]
        if [s.split("<")[-1].rstrip(">") for s in iters] != want:
            raise NotAMatmul("linalg.generic is not a matmul (iterators)")
        body = [o.name for o in op.regions[0].blocks[0].operations]
        if not ({"arith.mulf", "arith.muli"} & set(body) and {"arith.addf", "arith.addi"} & set(body)):
            raise NotAMatmul("linalg.generic body is not multiply-accumulate")
    d = (lambda i: f"d{i + 1}") if batched else (lambda i: f"d{i}")
    m_, n_, k_ = d(0), d(1), d(2)
    ra, rb, rc = (_results(x) for x in maps)
    pre = ["d0"] if batched else []
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
    (sa, ea, _, _), (sb, eb, _, _), (sc, ec, _, _) = infos
    rank = 3 if batched else 2
    if not (len(sa) == len(sb) == len(sc) == rank):
        raise NotAMatmul(f"expects rank-{rank} memrefs")
    if (ea, eb, ec) not in SUPPORTED_TYPES:
        raise NotAMatmul(f"unsupported element types {ea} x {eb} -> {ec}; supported: "
                         + ", ".join(f"{x}x{y}->{z}" for x, y, z in sorted(SUPPORTED_TYPES)))
    sa2, sb2, sc2 = sa[-2:], sb[-2:], sc[-2:]
    m = sc2[0]
    n = sc2[1]
    k = sa2[0] if ta else sa2[1]
    return MatmulSpec(op, a, b, c, ea, eb, ec, m, n, k,
                      (sc[0] if sc[0] is not None else -1) if batched else None, ta, tb)
