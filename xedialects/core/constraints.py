"""Type constraints for operands and results: IRDL emission, a Python check, and a buildable type.

A constraint with a `buildable` type (index, i1, i8, i64) lets the readable syntax omit the
operand's type, as ODS does for `I64:$x` operands.
"""
from __future__ import annotations


class TypeConstraint:
    def __init__(self, description: str, irdl_ops, prefixes=(), exact=(), buildable: str | None = None):
        self.description = description
        self._irdl_ops = irdl_ops  # callable(b) -> ssa name
        self.prefixes = tuple(prefixes)
        self.exact = tuple(exact)
        self.buildable = buildable

    def irdl(self, b) -> str:
        return self._irdl_ops(b)

    def matches(self, type_text: str) -> bool:
        if not self.prefixes and not self.exact:
            return True
        return type_text in self.exact or any(type_text.startswith(p) for p in self.prefixes)

    def __or__(self, other: "TypeConstraint") -> "TypeConstraint":
        def emit(b):
            # LLVM 22's IRDL loader aborts on `irdl.any_of`; unions are checked in Python instead.
            return b.op("irdl.any")

        anyp = not (self.prefixes or self.exact) or not (other.prefixes or other.exact)
        return TypeConstraint(
            f"{self.description} or {other.description}", emit,
            () if anyp else self.prefixes + other.prefixes, () if anyp else self.exact + other.exact,
        )


def _is(name):
    return lambda b: b.op(f"irdl.is {name}")


def _base(name):
    return lambda b: b.op(f'irdl.base "{name}"')


AnyType = TypeConstraint("any type", lambda b: b.op("irdl.any"))
Index = TypeConstraint("index", _is("index"), exact=("index",), buildable="index")
I1 = TypeConstraint("i1", _is("i1"), exact=("i1",), buildable="i1")
I8 = TypeConstraint("i8", _is("i8"), exact=("i8",), buildable="i8")
I64 = TypeConstraint("i64", _is("i64"), exact=("i64",), buildable="i64")
AnyVector = TypeConstraint("vector", _base("!builtin.vector"), prefixes=("vector<",))
AnyMemRef = TypeConstraint("memref", _base("!builtin.memref"), prefixes=("memref<",))


def dialect_type(typedef) -> TypeConstraint:
    return TypeConstraint(typedef.mnemonic, typedef.irdl, prefixes=(typedef.mnemonic,))
