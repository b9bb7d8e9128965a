"""Index arithmetic that folds constants, shared by the passes and conversions that compute offsets
(`convert-xetile-to-xegpu`'s `Converter`, `xetile-wg-to-sg`'s subgroup ids, `convert-xegpu-to-spirv`'s
`Lanes`, `xegpu-simt-distribute`'s block IO).

An operand is a Python int (a known constant) or an `index` `ir.Value`. Known results stay ints
(`3 + 4` is `7`; `x + 0`, `x * 1`, `x / 1` are `x`; `x * 0` and `x % 1` are `0`) and only the rest
becomes `arith.addi` / `subi` / `muli` / `divui` / `remui` at the current insertion point. Where a
constant operand goes is the user's choice: the class mixing `IndexArith` in defines
`index_constant(value)` (the first three create each constant once, at the function entry; block IO
where the op goes).
"""
from __future__ import annotations

from abc import ABC, abstractmethod

from mlir import ir
from mlir.dialects import arith


class IndexArith(ABC):
    """Mixin: folding index arithmetic on ints and `index` values (see the module docstring)."""

    @abstractmethod
    def index_constant(self, value: int) -> ir.Value:
        """The `arith.constant value : index` of this function (each user decides where it goes)."""

    def index(self, v) -> ir.Value:
        """An index Value for an int (its constant) or a Value (itself)."""
        return v if isinstance(v, ir.Value) else self.index_constant(int(v))

    @staticmethod
    def folded(v):
        """An int for a value defined by an index `arith.constant`, else `v` itself."""
        if isinstance(v, ir.Value):
            owner = v.owner
            if isinstance(owner, ir.OpView):
                owner = owner.operation
            if isinstance(owner, ir.Operation) and owner.name == "arith.constant" and str(v.type) == "index":
                return ir.IntegerAttr(owner.attributes["value"]).value
        return v

    def add(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(b, int) and b == 0:
            return a
        if isinstance(a, int) and a == 0:
            return b
        return arith.AddIOp(self.index(a), self.index(b)).result

    def sub(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        if isinstance(b, int) and b == 0:
            return a
        return arith.SubIOp(self.index(a), self.index(b)).result

    def mul(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if (isinstance(b, int) and b == 0) or (isinstance(a, int) and a == 0):
            return 0
        if isinstance(b, int) and b == 1:
            return a
        if isinstance(a, int) and a == 1:
            return b
        return arith.MulIOp(self.index(a), self.index(b)).result

    def divui(self, a, b):
        """Unsigned a / b (b > 0)."""
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        if isinstance(b, int) and b == 1:
            return a
        return arith.DivUIOp(self.index(a), self.index(b)).result

    def remui(self, a, b):
        """Unsigned a mod b (b > 0)."""
        if isinstance(a, int) and isinstance(b, int):
            return a % b
        if isinstance(b, int) and b == 1:
            return 0
        return arith.RemUIOp(self.index(a), self.index(b)).result
