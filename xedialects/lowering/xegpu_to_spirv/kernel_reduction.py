"""Vector reductions in a lowered kernel (mixin of `kernel_lowering.KernelLowering`):
`vector.multi_reduction` and `vector.reduction` of every kind. Each lane first combines the
registers holding its elements; elements spread over lanes are combined by a subgroup reduction
(`spirv.GroupNonUniform<Op> Reduce`); docs/spirv.md ("Reductions") has the rules (NaN handling,
compute types).
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith

from .kernel_values import i64_type, int_list
from .spirv_lanes import DVal, LoweringError, bits_of, is_float, storage_type
from .spirv_layout import LANES


class ReductionLowering:
    """vector.multi_reduction and vector.reduction."""

    def h_vector_multi_reduction(self, op):
        src = self.dval(op.operands[0])
        acc = self.get(op.operands[1])
        dims = set(int_list(op.attributes["reduction_dims"]))
        keep = [d for d in range(len(src.shape)) if d not in dims]
        idx = np.indices(src.shape)
        if keep:
            out_of = np.ravel_multi_index(tuple(idx[d] for d in keep), tuple(src.shape[d] for d in keep))
        else:
            out_of = np.zeros(src.shape, dtype=np.int64)
        return [self.reduce(op, _kind(op), src, out_of.reshape(-1), acc)]

    def h_vector_reduction(self, op):
        src = self.dval(op.operands[0])
        acc = self.scalar(op.operands[1], op) if len(op.operands) > 1 else None
        return [self.reduce(op, _kind(op), src, np.zeros(src.layout.size, dtype=np.int64), acc)]

    def reduce(self, op, kind, src: DVal, out_of, acc):
        """Reduce the elements of `src` into the output elements `out_of[e]` (flat, per source
        element) and combine each with `acc` (a DVal of the output shape, a scalar or None), as
        `combine(reduce(src), acc)`. Per output element, each lane first combines the registers that
        hold its elements (register ops); when the elements are spread over several lanes a
        subgroup reduction (`spirv.GroupNonUniform<Op> Reduce`, the lanes without elements
        contributing the identity) gives the value in every lane. A vector result takes the
        layout of `acc`; a scalar result is equal in every lane. bf16/f16 reduce in f32 (rounded
        once, as the simulator), integers narrower than 32 bits in i32, index in i64."""
        L = self.lanes
        elt = src.elt
        spec = _REDUCTIONS.get(kind)
        flt = is_float(elt)
        if spec is None or spec[0 if flt else 1] is None:
            raise LoweringError(op, f"reduction kind '{kind}' on {elt} is not supported by convert-xegpu-to-spirv")
        arith_name, group_name = spec[0 if flt else 1], spec[2 if flt else 3]
        ct, to_c, from_c = self.reduce_types(elt, kind)
        ident = L.const(ct, _reduction_identity(kind, ct))
        conv = {}

        def reg(s):
            if s not in conv:
                v = src.vals[s] if src.vals[s] is not None else L.zero(elt)
                conv[s] = to_c(v)
            return conv[s]

        def comb(a, b):
            if a is None:
                return b
            return ir.Operation.create(arith_name, results=[ct], operands=[a, b]).results[0]

        def subgroup(name, v):
            return ir.Operation.create(name, results=[v.type], operands=[v], attributes={
                "execution_scope": ir.Attribute.parse("#spirv.scope<Subgroup>"),
                "group_operation": ir.Attribute.parse("#spirv.group_operation<Reduce>")}).results[0]

        def group(v):
            r = subgroup(group_name, v)
            if kind in ("minimumf", "maximumf"):
                # GroupNonUniformFMin/FMax skip NaNs (minnum); these kinds propagate them
                i32 = ir.IntegerType.get_signless(32)
                nan = arith.ExtUIOp(i32, arith.CmpFOp(arith.CmpFPredicate.UNO, v, v).result).result
                anynan = arith.CmpIOp(arith.CmpIPredicate.ne, subgroup("spirv.GroupNonUniformUMax", nan),
                                      L.i32(0)).result
                r = arith.SelectOp(anynan, L.const(ct, float("nan")), r).result
            return r

        per: dict = {}            # output element -> {lane: [slots]}
        for e, (ln, sl) in enumerate(zip(src.layout.lanes.reshape(-1), src.layout.slots.reshape(-1))):
            per.setdefault(int(out_of[e]), {}).setdefault(int(ln), []).append(int(sl))

        def masked_partial(lanes_slots):
            """Lane l: the combination of its elements (the identity in lanes without any)."""
            by_slot: dict = {}
            for ln, sls in lanes_slots.items():
                for sl in sls:
                    by_slot.setdefault(sl, set()).add(ln)
            p = None
            for sl, lns in sorted(by_slot.items()):
                v = reg(sl)
                if len(lns) < LANES:
                    v = arith.SelectOp(L.lane_in(lns), v, ident).result
                p = comb(p, v)
            return p

        def full_reduce(lanes_slots):
            """The combination of all elements of one output, equal in every lane."""
            if len(lanes_slots) == 1:
                (ln, sls), = lanes_slots.items()
                p = None
                for sl in sls:
                    p = comb(p, reg(sl))
                # a lane-level kernel's value is the work-item's own: no broadcast from the holding lane
                return p if self.lane_private else L.shuffle(p, ln)
            return group(masked_partial(lanes_slots))

        if not isinstance(acc, DVal):            # a scalar result
            r = full_reduce(per.get(0, {}))
            if acc is not None:
                r = comb(r, to_c(acc))
            return from_c(r)
        lay = acc.layout
        vals = []
        for t in range(lay.nslots):
            outs = lay.lane_elements(t)          # lane -> output element held in register t
            if not outs:
                vals.append(None)
                continue
            a = acc.vals[t] if acc.vals[t] is not None else L.zero(acc.elt)
            a = to_c(a)
            if all(set(per.get(o, {})) <= {ln} for ln, o in outs.items()):
                # every output element reduces within the lane that holds it: register ops only
                lists = {ln: per.get(o, {}).get(ln, []) for ln, o in outs.items()}
                r = None
                for k in range(max(len(x) for x in lists.values())):
                    table = {ln: x[k] for ln, x in lists.items() if k < len(x)}
                    r = comb(r, self._select_slots(table, set(outs), reg, ident))
                vals.append(from_c(comb(r, a) if r is not None else a))
                continue
            r = None
            for ln, o in sorted(outs.items()):
                g = full_reduce(per.get(o, {}))
                r = g if r is None else arith.SelectOp(L.lane_in([ln]), g, r).result
            vals.append(from_c(comb(r, a)))
        return DVal(lay, vals, elt)

    def _select_slots(self, table, lanes, reg, ident):
        """A register whose value in lane l is reg(table[l]) (the identity in `lanes` not in
        `table`; other lanes: anything)."""
        by_slot: dict = {}
        for ln, sl in table.items():
            by_slot.setdefault(sl, []).append(ln)
        groups = sorted(by_slot.items(), key=lambda kv: -len(kv[1]))
        v = reg(groups[0][0])
        for sl, lns in groups[1:]:
            v = arith.SelectOp(self.lanes.lane_in(lns), reg(sl), v).result
        missing = sorted(set(lanes) - set(table))
        if missing:
            v = arith.SelectOp(self.lanes.lane_in(missing), ident, v).result
        return v

    def reduce_types(self, elt, kind):
        """(compute type, to compute type, from compute type) of a reduction over `elt`."""
        L = self.lanes
        st = storage_type(elt)
        if is_float(elt):
            if elt in ("bf16", "f16"):
                return ir.F32Type.get(), (lambda v: L.to_f32(v, elt)), (lambda v: L.from_f32(v, elt))
            return st, (lambda v: v), (lambda v: v)
        if elt == "index":
            i64 = i64_type()
            return (i64, lambda v: arith.IndexCastOp(i64, v).result,
                    lambda v: arith.IndexCastOp(ir.IndexType.get(), v).result)
        bits = bits_of(elt)
        if bits >= 32:
            return st, (lambda v: v), (lambda v: v)
        i32 = ir.IntegerType.get_signless(32)
        ext = arith.ExtUIOp if kind in ("minui", "maxui") else arith.ExtSIOp
        return i32, (lambda v: ext(i32, v).result), (lambda v: arith.TruncIOp(st, v).result)


# kind: (float combine, integer combine, float subgroup reduction, integer subgroup reduction)
_REDUCTIONS = {
    "add": ("arith.addf", "arith.addi", "spirv.GroupNonUniformFAdd", "spirv.GroupNonUniformIAdd"),
    "mul": ("arith.mulf", "arith.muli", "spirv.GroupNonUniformFMul", "spirv.GroupNonUniformIMul"),
    "minnumf": ("arith.minnumf", None, "spirv.GroupNonUniformFMin", None),
    "maxnumf": ("arith.maxnumf", None, "spirv.GroupNonUniformFMax", None),
    "minimumf": ("arith.minimumf", None, "spirv.GroupNonUniformFMin", None),
    "maximumf": ("arith.maximumf", None, "spirv.GroupNonUniformFMax", None),
    "minsi": (None, "arith.minsi", None, "spirv.GroupNonUniformSMin"),
    "maxsi": (None, "arith.maxsi", None, "spirv.GroupNonUniformSMax"),
    "minui": (None, "arith.minui", None, "spirv.GroupNonUniformUMin"),
    "maxui": (None, "arith.maxui", None, "spirv.GroupNonUniformUMax"),
    "and": (None, "arith.andi", None, "spirv.GroupNonUniformBitwiseAnd"),
    "or": (None, "arith.ori", None, "spirv.GroupNonUniformBitwiseOr"),
    "xor": (None, "arith.xori", None, "spirv.GroupNonUniformBitwiseXor"),
}


def _kind(op) -> str:
    """The kind of a vector reduction (`#vector.kind<add>` -> "add")."""
    text = str(op.attributes["kind"])
    return text[text.index("<") + 1:text.rindex(">")] if "<" in text else text


def _reduction_identity(kind, t):
    """The identity of a reduction kind in type `t` (the value of lanes without elements)."""
    if isinstance(t, ir.IntegerType):
        w = ir.IntegerType(t).width
        return {"add": 0, "mul": 1, "minsi": (1 << (w - 1)) - 1, "maxsi": -(1 << (w - 1)), "minui": -1,
                "maxui": 0, "and": -1, "or": 0, "xor": 0}[kind]
    return {"add": 0.0, "mul": 1.0, "minnumf": float("inf"), "minimumf": float("inf"),
            "maxnumf": float("-inf"), "maximumf": float("-inf")}[kind]
