"""Lane-level `xevm.mma` -> our SIMT `xegpu.dpas` (the tf32 DPAS of the lane export, which LLVM 22's
xegpu cannot spell, and what convert-xegpu-to-xevm makes of a lane-level dpas).

The per-lane operand orders are those of the OpenCL builtins the mma lowers to
(cl_intel_subgroup_matrix_multiply_accumulate and its tf32 extension), for M = m, N = 16:
- f16 / bf16 (k 16), s8 / u8 (k 32): A as upstream's lane-level dpas A (lane l: column l of each
  row; 8-bit: bytes 2l, 2l + 1), reordered into our packed A like simt_ops' dpas; B lane l =
  column l, rows in order (our VNNI fragment); C / D lane l = column l, rows in order.
- tf32 (k 8, m 8, `intel_sub_group_tf32_tf32_matrix_mad_k8`): A `float4` of lane l, slot j =
  A[2j + l/8][l % 8], which is our tf32 A fragment (`wi_layout [2, 8], wi_data [1, 1]`,
  vector<4x1xf32>): a shape cast; B `float8` lane l = column l; our f32 dpas is the tf32 one.
Operands may be given in their element type or as same-size signless integer vectors (vector<8xi16>
for an f16 A, vector<8xi32> for a 16-bit B: the builtins' short / int types), which are bitcast.
"""
from __future__ import annotations

import re

from .op_attrs import ImportOpError, check_attrs
from .simt_dpas import emit_dpas, packed_a, reorder_a
from .types import element_bits, vector_parts, vector_text

# xevm type -> (k, our element type, accepted accumulator / result types)
_KINDS = {
    "tf32": (8, "f32", ("f32",)),
    "f16": (16, "f16", ("f32", "f16")),
    "bf16": (16, "bf16", ("f32", "bf16")),
    "s8": (32, "i8", ("s32",)),
    "u8": (32, "ui8", ("s32",)),
}
_ACC = {"f32": "f32", "f16": "f16", "bf16": "bf16", "s32": "i32"}
_FIELDS = re.compile(r"\b(\w+)\s*=\s*(\w+)")


def _fields(op, name: str) -> dict:
    if name not in op.attributes:
        raise ImportOpError(f"'xevm.mma' without its '{name}' attribute")
    return dict(_FIELDS.findall(str(op.attributes[name])))


def _as(name: str, t: str, want: str, role: str, tr, lines) -> str:
    """`name` of 1D vector type `t` as `want` (same type: itself; a signless integer vector of the
    same size: vector.bitcast); else a located error naming the operand."""
    if t == want:
        return name
    shape, elt = vector_parts(t)
    wshape, welt = vector_parts(want)
    same_bits = len(shape) == 1 and shape[0] * element_bits(elt) == wshape[0] * element_bits(welt)
    if not (same_bits and re.fullmatch(r"i\d+", elt)):
        raise ImportOpError(f"'xevm.mma' {role} {t}: expected {want} (or a signless integer vector of its size)")
    out = tr.fresh()
    lines.append(f"{out} = vector.bitcast {name} : {t} to {want}")
    return out


def mma(op, tr) -> list[str]:
    check_attrs(op, ("shape", "types"))
    shape, types = _fields(op, "shape"), _fields(op, "types")
    m, n, k = (int(shape.get(x, -1)) for x in "mnk")
    ta, tb, tc, td = types.get("a"), types.get("b"), types.get("c"), types.get("d")
    if ta != tb or ta not in _KINDS:
        raise ImportOpError(f"'xevm.mma' with a = {ta}, b = {tb} is not imported: A and B of one type among "
                            f"{', '.join(_KINDS)}")
    k_want, elt, accs = _KINDS[ta]
    if td not in accs:
        raise ImportOpError(f"'xevm.mma' {ta} with d = {td} is not imported (d: {' or '.join(accs)})")
    has_c = len(op.operands) > 2
    if (tc is not None or has_c) and tc != td:
        raise ImportOpError(f"'xevm.mma' with c = {tc}, d = {td} is not imported: our dpas accumulates in its "
                            "result type")
    if n != 16 or k != k_want or not (1 <= m <= 8) or (ta == "tf32" and m != 8):
        want = "m = 8" if ta == "tf32" else "m <= 8"
        raise ImportOpError(f"'xevm.mma' shape <m = {m}, n = {n}, k = {k}> for {ta} is not imported "
                            f"({want}, n = 16, k = {k_want})")
    acc_elt = _ACC[td]
    a, b = op.operands[0], op.operands[1]
    a_t, b_t = vector_text([m * k // 16], elt), vector_text([k], elt)
    c_t = vector_text([m], acc_elt)
    if str(op.results[0].type) != c_t:
        raise ImportOpError(f"'xevm.mma' result {op.results[0].type}: expected {c_t} for m = {m}, d = {td}")
    lines: list[str] = []
    a_held = a_t.replace("xui8", "xi8")  # u8 A is reordered as i8 (gpu.shuffle takes signless), then bitcast
    an = _as(tr.name(a), str(a.type), a_held, "A", tr, lines)
    bn = _as(tr.name(b), str(b.type), b_t, "B", tr, lines)
    acc = None
    if has_c:
        c = op.operands[2]
        acc = (_as(tr.name(c), str(c.type), c_t, "C", tr, lines), c_t)
    if ta == "tf32":  # the builtin's float4 order is our [2, 8] x [1, 1] fragment's
        a_ours = tr.fresh(), vector_text([m // 2, 1], elt)
        lines.append(f"{a_ours[0]} = vector.shape_cast {an} : {a_t} to {a_ours[1]}")
    elif a_held == a_t:
        a_ours = packed_a(an, a_t, tr, lines)
    else:  # u8: always reordered (our dpas takes a load's own fragment order only straight from the load)
        held, held_t = reorder_a(an, a_held, tr, lines)
        a_ours = tr.fresh(), held_t.replace("xi8", "xui8")
        lines.append(f"{a_ours[0]} = vector.bitcast {held} : {held_t} to {a_ours[1]}")
    emit_dpas(tr, lines, a_ours, (bn, b_t), acc, tr.name(op.results[0]), c_t)
    return lines
