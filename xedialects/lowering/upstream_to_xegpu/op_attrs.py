"""What every upstream-op translation reads from an op: its attributes, cache hints and the error
for what our xegpu cannot express.

Shared by the subgroup-level (`sg_ops`), matrix (`matrix_ops`), lane-level (`simt_ops`) and
`xevm.mma` (`xevm_ops`) translations.
"""
from __future__ import annotations

from mlir import ir

DYNAMIC = -9223372036854775808
HINTS = ("l1_hint", "l2_hint", "l3_hint")


class ImportOpError(Exception):
    """An op (or an attribute of it) our dialect cannot express."""


def attr(op, name):
    return op.attributes[name] if name in op.attributes else None


def ints(a) -> list[int]:
    return list(ir.DenseI64ArrayAttr(a)) if a is not None else []


def hint(a) -> str:
    """`#xegpu.cache_hint<cached>` -> `cached`."""
    s = str(a)
    return s[s.index("<") + 1:s.rindex(">")]


def props(op, extra=(), mode="vc") -> str:
    items = [f"mode = {mode}"] if mode else []
    items += list(extra)
    items += [f"{h} = {hint(op.attributes[h])}" for h in HINTS if attr(op, h) is not None]
    return " {" + ", ".join(items) + "}" if items else ""


def check_attrs(op, allowed) -> None:
    """Located error for an inherent attribute the translation does not understand."""
    known = set(allowed) | {"operandSegmentSizes", "layout", "layout_a", "layout_b", "layout_cd",
                            "layout_result_0", "layout_operand_0", "layout_operand_1", "layout_operand_2",
                            "layout_operand_3", "a_layout", "b_layout", "c_layout"}
    attrs = op.attributes
    for na in (attrs[i] for i in range(len(attrs))):
        if na.name not in known and not na.name.startswith(("layout_", "__")):
            raise ImportOpError(f"'{op.name}' attribute '{na.name}' ({na.attr}) has no equivalent in our xegpu")
