"""Recognise scaled dot-product attention in bufferized linalg (stage 1): `S = Q·Kᵀ` (a batch
matmul reading K transposed, or a `linalg.transpose` feeding a plain one; 3D, or a 4D
`linalg.generic` contraction for (batch, heads)), optional element-wise scale and causal mask (top-left,
or bottom-right aligned when Lq != Lk), `linalg.softmax` on the last dimension, `arith.truncf` to the
inputs' type, `O = P·V`. The result is an `AttentionForm` or `NotAttention` with the reason the pass
remarks (docs/attention.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from mlir import ir

from ...core.typeinfo import memref_info
from .linalg_match import NotAMatmul, _maps, _results, identity_layout, matmul_maps

_ZERO = ("0.000000e+00", "0", "0.0")


class NotAttention(Exception):
    """The chain starting at a Q·Kᵀ matmul is not an attention we fuse; `reason` says why."""


@dataclass
class AttentionForm:
    qk: object                 # the S = Q.K^T op (the chain's first op)
    pv: object                 # the O = P.V op (the last)
    q: object
    k: object
    v: object
    out: object
    batch: tuple               # (B*H,) or (B, H)
    lq: int
    lk: int
    d: int                     # head dimension (Q, K, V and O)
    elt: str                   # Q/K/V type (f16 | bf16)
    out_elt: str               # O type (f32, or the inputs' type)
    scale: float = 1.0
    causal: bool = False
    causal_offset: int = 0     # causal: query i sees keys j <= i + causal_offset (0 top-left, Lk - Lq bottom-right)
    mask: object = None        # an additive mask operand: [batch.., Lq, Lk] or [Lq, Lk] (shared by the batch)
    ops: list = field(default_factory=list)      # every op of the chain (fills and transposes included)
    temps: list = field(default_factory=list)    # buffers only the chain uses (S, P, ...), erased with it


def _outs(op):
    if op.name == "linalg.softmax":
        return [op.operands[1]]
    if op.name in ("linalg.fill", "linalg.transpose"):
        return [op.operands[-1]]
    n_in = _num_inputs(op)
    return list(op.operands)[n_in:]


def _ins(op):
    return list(op.operands)[:_num_inputs(op)]


def _num_inputs(op):
    if "operandSegmentSizes" in op.attributes:
        return ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[0]
    return len(op.operands) - 1


def _fill_value(op):
    """The constant a linalg.fill writes, as a string, or None."""
    v = op.operands[0]
    d = v.owner
    if isinstance(d, ir.Block) or d.operation.name != "arith.constant":
        return None
    return str(d.operation.attributes["value"]).split(":")[0].strip()


def _contraction(op, rank):
    """(a, b, c, transpose_b) of a batched matmul with `rank`-D operands (rank - 2 batch dims: linalg_match's
    `matmul_maps`) reading A untransposed, or NotAttention."""
    try:
        ta, tb = matmul_maps(op, rank - 2)
    except NotAMatmul as e:
        raise NotAttention(e.reason) from None
    if ta:
        raise NotAttention(f"'{op.name}' reads its left operand transposed")
    a, b, c = op.operands
    return a, b, c, tb


class _Body:
    """Evaluates the body of an element-wise linalg.generic on scalars: what the recogniser probes
    (scale and causal-mask generics are told apart by their values, not by their spelling)."""

    _CMP = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b, 3: lambda a, b: a <= b,
            4: lambda a, b: a > b, 5: lambda a, b: a >= b, 6: lambda a, b: a < b, 7: lambda a, b: a <= b,
            8: lambda a, b: a > b, 9: lambda a, b: a >= b}

    def __init__(self, op):
        self.block = op.regions[0].blocks[0]

    def __call__(self, args, idx):
        env = dict(zip(self.block.arguments, args))

        def val(v):
            if v in env:
                return env[v]
            d = v.owner
            if isinstance(d, ir.Block) or d.operation.name != "arith.constant":
                raise NotAttention("the element-wise body reads a value defined outside it that is not a constant")
            return _const(d.operation)

        for o in self.block.operations:
            o = o.operation
            n = o.name
            x = [val(v) for v in o.operands]
            if n == "linalg.yield":
                return x
            if n == "arith.constant":
                r = _const(o)
            elif n == "linalg.index":
                r = idx[ir.IntegerAttr(o.attributes["dim"]).value]
            elif n in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
                       "arith.extf"):
                r = x[0]
            elif n == "arith.mulf":
                r = x[0] * x[1]
            elif n == "arith.divf":     # IEEE division (a division by a zero constant is inf or NaN)
                r = x[0] / x[1] if x[1] else (math.copysign(math.inf, x[0]) if x[0] else math.nan)
            elif n in ("arith.addf", "arith.addi"):
                r = x[0] + x[1]
            elif n in ("arith.subf", "arith.subi"):
                r = x[0] - x[1]
            elif n == "arith.negf":
                r = -x[0]
            elif n == "arith.cmpi":
                r = self._CMP[ir.IntegerAttr(o.attributes["predicate"]).value](x[0], x[1])
            elif n == "arith.select":
                r = x[1] if x[0] else x[2]
            elif n in ("arith.maximumf", "arith.maxnumf"):
                r = max(x)
            else:
                raise NotAttention(f"element-wise body op '{n}' is not a scale or a causal mask")
            env[o.results[0]] = r
        raise NotAttention("element-wise body without linalg.yield")


def _const(op):
    a = op.attributes["value"]
    try:
        return ir.FloatAttr(a).value if isinstance(a.type, ir.FloatType) else ir.IntegerAttr(a).value
    except (ValueError, TypeError):
        raise NotAttention(f"constant {a} in an element-wise body is not a scalar number") from None


_PROBE_X = (1.0, -2.5, 3.25)
_PROBE_IJ = [(i, j) for i in range(4) for j in range(4)] + [(100, 37), (37, 100), (64, 65), (65, 64)]


def _mask_probes(lq, lk):
    """((row, column) probes, candidate diagonals) for an Lq x Lk S: probes inside S at its first, middle
    and last rows, first, middle and last columns and each side of the two causal diagonals (column = row,
    top-left; column = row + Lk - Lq, bottom-right). A dynamic shape (refused later) gets fixed probes."""
    if lq is None or lk is None:
        return _PROBE_IJ, (0,)
    diags = sorted({0, lk - lq})
    probes = set()
    for i in {i for i in (0, 1, 2, 3, lq // 2, lq - 2, lq - 1) if 0 <= i < lq}:
        cols = {0, 1, 2, 3, lk // 2, lk - 2, lk - 1} | {i + dg + e for dg in diags for e in (-1, 0, 1, 2)}
        probes |= {(i, j) for j in cols if 0 <= j < lk}
    return sorted(probes), diags


def _additive_step(op, cur, rank):
    """(scale, mask operand) of a two-input element-wise generic x, m -> c * x + m with m an additive mask
    read at [batch.., i, j] or [i, j], or NotAttention."""
    ins = _ins(op)
    if cur not in ins:
        raise NotAttention("the two-input element-wise step on S does not read S")
    si = ins.index(cur)
    mask = ins[1 - si]
    maps = [_results(m) for m in _maps(op)]
    ident = [f"d{i}" for i in range(rank)]
    if maps[si] != ident or maps[2] != ident or maps[1 - si] not in (ident, ident[-2:]):
        raise NotAttention("an additive mask must be read at [batch.., row, column] or [row, column] (maps "
                           f"{maps})")
    info = memref_info(mask)
    if info is None or info[1] not in ("f32", "f16", "bf16") or not identity_layout(mask):
        raise NotAttention(f"the additive mask {mask.type} is not an f32/f16/bf16 memref with the identity layout")
    body = _Body(op)
    scale = None
    for x in _PROBE_X:
        for mv in (0.0, 0.5, -3.0):
            args = [x, mv, 0.0] if si == 0 else [mv, x, 0.0]
            (y,) = body(args, [1] * rank)
            c = (y - mv) / x
            if scale is None:
                scale = c
            elif not math.isclose(c, scale, rel_tol=1e-6, abs_tol=1e-9):
                raise NotAttention("a two-input element-wise step on S is not c * S + mask")
    return scale, mask


def _elementwise_step(op, rank, shape):
    """(scale, diagonal) of a one-input element-wise generic on S of `shape` (Lq, Lk): x -> c * x, optionally
    -inf exactly where column > row + diagonal (a causal mask: diagonal 0 top-left, Lk - Lq bottom-right;
    None without a mask, or when it hides no key of S), or NotAttention."""
    if op.name != "linalg.generic" or _num_inputs(op) != 1 or len(op.operands) != 2:
        raise NotAttention(f"'{op.name}' between Q.K^T and the softmax is not an element-wise linalg.generic of "
                           "S (and an additive mask)")
    iters = [str(x).split("<")[-1].rstrip(">") for x in ir.ArrayAttr(op.attributes["iterator_types"])]
    maps = [_results(m) for m in _maps(op)]
    ident = [f"d{i}" for i in range(rank)]
    if iters != ["parallel"] * rank or maps != [ident, ident]:
        raise NotAttention("an element-wise step on S must have identity maps and parallel iterators")
    body = _Body(op)
    probes, diags = _mask_probes(*shape)
    scale, masked = None, set()
    for i, j in probes:
        for x in _PROBE_X:
            (y,) = body([x, 0.0], [1] * (rank - 2) + [i, j])
            if y == -math.inf:
                masked.add((i, j, x))
                continue
            c = y / x
            if scale is None:
                scale = c
            elif not math.isclose(c, scale, rel_tol=1e-6):
                raise NotAttention("an element-wise step on S is neither x * c nor a causal mask (-inf where "
                                   "column > row) of it")
    scale = 1.0 if scale is None else scale
    if not masked:
        return scale, None
    for dg in diags:
        if masked == {(i, j, x) for i, j in probes for x in _PROBE_X if j > i + dg}:
            return scale, dg
    raise NotAttention("an element-wise step on S writes -inf, but not exactly where column > row (the causal "
                       "mask fused: top-left, or bottom-right where column > row + Lk - Lq)")


def _op(x):
    return x.operation if hasattr(x, "operation") else x


def _later_readers(value, ops, pos):
    """The ops after `pos` in `ops` that read `value` (deallocs aside)."""
    return [o for o in ops[pos + 1:] if value in list(o.operands) and o.name != "memref.dealloc"
            and not (o.name.startswith("linalg.") and value in _outs(o) and value not in _ins(o))]


def _next_reader(value, ops, pos):
    """The one op after `pos` that reads `value`, or None when none or several do (an op that
    rewrites `value` in place ends its current contents: later readers read the new ones)."""
    readers = _later_readers(value, ops, pos)
    if not readers:
        return None
    if len(readers) > 1 and value not in _outs(readers[0]):
        return None
    return readers[0]


def _last_writer(value, ops, pos):
    for o in reversed(ops[:pos]):
        if o.name.startswith("linalg.") and value in _outs(o):
            return o
        if value in list(o.operands) and o.name != "memref.dealloc":
            return o   # something else touches it: not a plain fill
    return None


def _zero_filled(value, ops, pos, what):
    w = _last_writer(value, ops, pos)
    if w is None or w.name != "linalg.fill" or _fill_value(w) not in _ZERO:
        raise NotAttention(f"{what} is not zero-filled (linalg.fill with 0.0) right before its matmul")
    return w


def _is_truncf(op):
    if op.name != "linalg.generic" or _num_inputs(op) != 1 or len(op.operands) != 2:
        return False
    names = [o.operation.name for o in op.regions[0].blocks[0].operations]
    return names == ["arith.truncf", "linalg.yield"]


def could_start(op) -> bool:
    """Whether `op` is a batched matmul whose result reaches a linalg.softmax through single readers
    (element-wise steps between): the ops the pass tries as attention, and remarks on when not."""
    if op.name not in ("linalg.batch_matmul", "linalg.generic") or len(op.operands) != 3:
        return False
    if op.name == "linalg.generic" and "reduction" not in str(op.attributes["iterator_types"]):
        return False
    ops = [o.operation for o in op.block.operations]
    cur, at = op.operands[2], ops.index(op)
    for _ in range(8):
        readers = _later_readers(cur, ops, at)
        if not readers or not readers[0].name.startswith("linalg."):
            return False
        nxt = readers[0]
        if nxt.name == "linalg.softmax":
            return True
        if nxt.name != "linalg.generic" or not _outs(nxt):
            return False
        cur, at = _outs(nxt)[0], ops.index(nxt)
    return False


def match_attention(op) -> AttentionForm:
    """The attention chain that starts at `op` (S = Q.K^T), or NotAttention naming why not."""
    ops = [o.operation for o in op.block.operations]
    pos = ops.index(op)
    s = op.operands[2]
    info = memref_info(s)
    if info is None:
        raise NotAttention("S is not a memref (bufferize first)")
    rank = len(info[0])
    if rank not in (3, 4):
        raise NotAttention(f"S has rank {rank} (3: batch*heads, 4: batch, heads)")
    q, kb, s, tb = _contraction(op, rank)
    chain = [_zero_filled(s, ops, pos, "S"), op]
    k = kb
    if not tb:
        w = _last_writer(kb, ops, pos)
        perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        if w is None or w.name != "linalg.transpose" or \
                list(ir.DenseI64ArrayAttr(w.attributes["permutation"])) != perm:
            raise NotAttention("Q.K^T: K is neither read transposed by the indexing maps nor produced by a "
                               "linalg.transpose of its last two dimensions")
        k = w.operands[0]
        chain.insert(0, w)
    scale, diag, cur, at, mask = 1.0, None, s, pos, None
    softmax = None
    while True:
        nxt = _next_reader(cur, ops, at)
        if nxt is None:
            raise NotAttention(f"an intermediate buffer ({cur.type}) has several readers after it is written "
                               "(the chain needs exactly one: S and P must not be used elsewhere)")
        at = ops.index(nxt)
        chain.append(nxt)
        if softmax is None:
            if nxt.name == "linalg.softmax":
                if ir.IntegerAttr(nxt.attributes["dimension"]).value != rank - 1:
                    raise NotAttention("linalg.softmax is not over the last dimension")
                softmax = nxt
                cur = nxt.operands[1]
                continue
            if nxt.name == "linalg.generic" and _num_inputs(nxt) == 2 and len(nxt.operands) == 3:
                if mask is not None:
                    raise NotAttention("two additive masks (one is fused)")
                sc, mask = _additive_step(nxt, cur, rank)
            else:
                sc, dg = _elementwise_step(nxt, rank, tuple(info[0][-2:]))
                if mask is not None and sc != 1.0:
                    raise NotAttention("a scale after the additive mask (the kernel scales S, then adds the mask)")
                if dg is not None:      # two masks: the keys both leave visible
                    diag = dg if diag is None else min(diag, dg)
            scale *= sc
            cur = _outs(nxt)[0]
            continue
        if _is_truncf(nxt):
            cur = _outs(nxt)[0]
            continue
        break
    pv = chain.pop()
    p, v, o, tb2 = _contraction(pv, rank)
    if p != cur or tb2:
        raise NotAttention("the softmax's result is not the left operand of a plain batched matmul P.V")
    chain.insert(0, _zero_filled(o, ops, ops.index(pv), "O"))
    chain.append(pv)
    readers = _later_readers(o, ops, ops.index(pv))
    if len(readers) == 1 and _is_truncf(readers[0]) and not isinstance(o.owner, ir.Block) \
            and o.owner.operation.name == "memref.alloc":
        chain.append(readers[0])       # O rounded to the inputs' type: the kernel stores it rounded
        o = _outs(readers[0])[0]
    form = _describe(op, pv, q, k, v, o, cur, rank, scale, diag is not None, chain, ops)
    if diag is not None:
        if diag < 0:
            raise NotAttention(f"a bottom-right causal mask with Lq = {form.lq} > Lk = {form.lk} leaves the first "
                               f"{-diag} query rows no key")
        form.causal_offset = diag
    if mask is not None:
        ms = memref_info(mask)[0]
        if None in ms or tuple(ms) not in ((form.lq, form.lk), form.batch + (form.lq, form.lk)):
            raise NotAttention(f"the additive mask {mask.type} is not [batch.., Lq, Lk] or [Lq, Lk]")
        if mask in form.temps:
            raise NotAttention("the additive mask is computed inside the chain")
        form.mask = mask
    return form


def _describe(qk, pv, q, k, v, o, p, rank, scale, causal, chain, ops):
    infos = {n: memref_info(x) for n, x in (("Q", q), ("K", k), ("V", v), ("O", o), ("P", p))}
    for n, i in infos.items():
        if i is None or None in i[0]:
            raise NotAttention(f"{n} has a dynamic shape (static shapes supported)")
        if 0 in i[0]:
            raise NotAttention(f"{n} has a zero-sized dimension ({list(i[0])}): nothing to compute")
    for n, x in (("Q", q), ("K", k), ("V", v), ("O", o)):
        if not identity_layout(x):
            raise NotAttention(f"{n} ({x.type}) needs the identity layout")
    (sq, eq, *_), (sk, ek, *_), (sv, ev, *_), (so, eo, *_), (_, ep, *_) = infos.values()
    if eq not in ("f16", "bf16") or not eq == ek == ev == ep:
        raise NotAttention(f"Q, K, V and P have types {eq}, {ek}, {ev}, {ep} (f16 or bf16 alike supported; P "
                           "rounded to it by arith.truncf)")
    if eo not in ("f32", eq):
        raise NotAttention(f"O has type {eo} (f32 or {eq})")
    nb = rank - 2
    batch = tuple(sq[:nb])
    lq, d = sq[nb:]
    lk = sk[nb]
    if tuple(sk) != batch + (lk, d) or tuple(sv) != batch + (lk, d) or tuple(so) != batch + (lq, d):
        raise NotAttention(f"shapes Q {sq}, K {sk}, V {sv}, O {so}: K and V must be [batch.., Lk, D], O like Q")
    temps = []
    inputs = {q, k, v, o}
    for c in chain:
        for x in _outs(c):
            if x in inputs:
                continue
            d_op = x.owner
            if isinstance(d_op, ir.Block) or d_op.operation.name != "memref.alloc":
                raise NotAttention(f"the intermediate buffer {x.type} is not a local memref.alloc")
            for u in x.uses:
                user = _op(u.owner)
                if user not in chain and user.name != "memref.dealloc":
                    raise NotAttention(f"the intermediate buffer {x.type} is used outside the attention chain")
            if x not in temps:
                temps.append(x)
    return AttentionForm(qk, pv, q, k, v, o, batch, lq, lk, d, eq, eo, scale, causal, ops=chain, temps=temps)


def rounded_probabilities(module_op) -> str | None:
    """The float type attention probabilities are rounded to in `module_op` (a linalg.softmax on
    memrefs whose result an arith.truncf generic reads), or None: `xe-run --check` compares such
    programs with that type's tolerance, since the fused kernel rounds exp(S - m) before it is
    normalised (docs/attention.md "Numerics")."""
    from ...passes.utils.ir_walk import walk

    found = None
    for op in walk(module_op):
        if op.name != "linalg.softmax" or len(op.results):
            continue
        ops = [o.operation for o in op.block.operations]
        for r in _later_readers(op.operands[1], ops, ops.index(op)):
            if _is_truncf(r):
                elt = memref_info(_outs(r)[0])[1]
                found = elt if found is None or elt == "bf16" else found
    return found
