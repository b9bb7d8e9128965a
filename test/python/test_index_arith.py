"""passes.utils.index_arith: known operands fold to Python ints, the rest becomes arith ops on index
values, constants come from the user's index_constant (once each, where it puts them)."""
import pytest
from mlir import ir
from mlir.dialects import arith, func

from xedialects.passes.utils.index_arith import IndexArith


class _Entry(IndexArith):
    """Constants once each at the start of the function's entry block (as the three users do)."""

    def __init__(self, fn):
        self.entry = fn.entry_block
        self.consts = {}

    def index_constant(self, value):
        if value not in self.consts:
            with ir.InsertionPoint.at_block_begin(self.entry):
                self.consts[value] = arith.ConstantOp(ir.IndexType.get(), value).result
        return self.consts[value]


@pytest.fixture
def body():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        idx = ir.IndexType.get()
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("f", ir.FunctionType.get([idx], [idx]))
        block = fn.add_entry_block()
        yield module, block, _Entry(fn)


def test_known_operands_fold_to_ints(body):
    module, block, ix = body
    x = block.arguments[0]
    assert (ix.add(3, 4), ix.sub(9, 4), ix.mul(3, 4), ix.divui(9, 4), ix.remui(9, 4)) == (7, 5, 12, 2, 1)
    assert ix.add(x, 0) is x and ix.add(0, x) is x and ix.sub(x, 0) is x
    assert ix.mul(x, 1) is x and ix.mul(1, x) is x and ix.divui(x, 1) is x
    assert ix.mul(x, 0) == 0 and ix.mul(0, x) == 0 and ix.remui(x, 1) == 0
    assert len(block.operations) == 0 and ix.consts == {}


def test_the_rest_is_arith_on_index_values_with_constants_once(body):
    module, block, ix = body
    x = block.arguments[0]
    with ir.InsertionPoint(block):
        r = ix.remui(ix.divui(ix.add(ix.mul(x, 8), 16), 8), 8)
        assert ix.folded(ix.index(5)) == 5 and ix.folded(r) is r
        func.ReturnOp([r])
    assert module.operation.verify()
    text = str(module)
    ops = [o.operation.name for o in block.operations]
    assert ops == ["arith.constant", "arith.constant", "arith.constant", "arith.muli", "arith.addi",
                   "arith.divui", "arith.remui", "func.return"], text
    assert "arith.muli %arg0, %c8" in text and "arith.divui" in text and text.count("arith.constant 8 ") == 1


def test_a_user_must_say_where_constants_go():
    class NoConstants(IndexArith):
        pass

    with pytest.raises(TypeError, match="index_constant"):
        NoConstants()
