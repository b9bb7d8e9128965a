"""Scalar `index` dialect ops in a lowered kernel (mixin of `kernel_lowering.KernelLowering`):
each becomes its arith op (IMEX's kernels compute subgroup coordinates with `index.floordivs`,
`index.and`, ...), which the upstream SPIR-V conversion knows; the rounding divisions, which it
does not, are expanded into truncating divisions and corrections."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .spirv_lanes import LoweringError

_ARITH = {
    "index.add": "arith.addi", "index.sub": "arith.subi", "index.mul": "arith.muli",
    "index.divs": "arith.divsi", "index.divu": "arith.divui", "index.rems": "arith.remsi",
    "index.remu": "arith.remui", "index.maxs": "arith.maxsi", "index.maxu": "arith.maxui",
    "index.mins": "arith.minsi", "index.minu": "arith.minui", "index.and": "arith.andi",
    "index.or": "arith.ori", "index.xor": "arith.xori", "index.shl": "arith.shli",
    "index.shrs": "arith.shrsi", "index.shru": "arith.shrui",
}


def _binary(name):
    def h(self, op):
        a, b = (self.scalar(v, op) for v in op.operands)
        return [_create(_ARITH[name], a, b)]
    return h


def _create(name, a, b):
    return ir.Operation.create(name, results=[a.type], operands=[a, b]).results[0]


def _signed_rounding_div(self, op, toward_sign_of_b: bool):
    """Signed a / b rounded down (floordivs) or up (ceildivs) from the truncating division: the
    quotient moves by one (up when `toward_sign_of_b`, else down) when the remainder is nonzero and
    its sign equals (ceil) / differs from (floor) b's sign."""
    a, b = (self.scalar(v, op) for v in op.operands)
    q, r = _create("arith.divsi", a, b), _create("arith.remsi", a, b)
    zero = arith.ConstantOp(a.type, 0).result
    nz = arith.CmpIOp(arith.CmpIPredicate.ne, r, zero).result
    signs = (arith.CmpIOp(arith.CmpIPredicate.slt, r, zero).result,
             arith.CmpIOp(arith.CmpIPredicate.slt, b, zero).result)
    if toward_sign_of_b:
        cond = arith.CmpIOp(arith.CmpIPredicate.eq, *signs).result
    else:
        cond = arith.XOrIOp(*signs).result
    one = arith.ConstantOp(a.type, 1).result
    moved = _create("arith.addi" if toward_sign_of_b else "arith.subi", q, one)
    return arith.SelectOp(arith.AndIOp(nz, cond).result, moved, q).result


class IndexLowering:
    """index.* scalar ops as arith ops."""

    def h_index_constant(self, op):
        return [arith.ConstantOp(ir.IndexType.get(), ir.IntegerAttr(op.attributes["value"]).value).result]

    def h_index_floordivs(self, op):
        """q = a / b truncated, minus 1 when the remainder is nonzero and its sign differs from b's."""
        return [_signed_rounding_div(self, op, toward_sign_of_b=False)]

    def h_index_ceildivs(self, op):
        """q = a / b truncated, plus 1 when the remainder is nonzero and has b's sign."""
        return [_signed_rounding_div(self, op, toward_sign_of_b=True)]

    def h_index_ceildivu(self, op):
        a, b = (self.scalar(v, op) for v in op.operands)
        q, r = _create("arith.divui", a, b), _create("arith.remui", a, b)
        zero = arith.ConstantOp(a.type, 0).result
        one = arith.ConstantOp(a.type, 1).result
        return [arith.SelectOp(arith.CmpIOp(arith.CmpIPredicate.ne, r, zero).result,
                               _create("arith.addi", q, one), q).result]

    def h_index_cmp(self, op):
        a, b = (self.scalar(v, op) for v in op.operands)
        pred = str(op.attributes["pred"]).split("<")[-1].rstrip(">").strip()
        if pred not in ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"):
            raise LoweringError(op, f"index.cmp predicate {pred}")
        return [arith.CmpIOp(getattr(arith.CmpIPredicate, pred), a, b).result]

    def h_index_casts(self, op):
        return [arith.IndexCastOp(op.results[0].type, self.scalar(op.operands[0], op)).result]

    def h_index_castu(self, op):
        return [arith.IndexCastUIOp(op.results[0].type, self.scalar(op.operands[0], op)).result]


for _name in _ARITH:
    setattr(IndexLowering, "h_" + _name.replace(".", "_"), _binary(_name))
