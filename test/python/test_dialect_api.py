"""Python API of the dialects: context factory, type/attribute builders and accessors, op builders."""
import pytest
from mlir import ir
from mlir.dialects import func

import xedialects
from xedialects import DiagnosticError
from xedialects.xegpu.attributes import TensorDescType
from xedialects.xetile.attributes import TileType
from xedialects.xetile.ops import InitTileOp, LoadTileOp, TileMmaOp


def test_many_contexts():
    for _ in range(20):
        ctx = xedialects.make_context()
        m = xedialects.parse("func.func @f(%t: !xetile.tile<8x16xbf16>) { return }", context=ctx)
        assert "!xetile.tile<8x16xbf16>" in xedialects.print_ir(m)


def test_upstream_dialects_loaded_and_not_upstream_xegpu():
    ctx = xedialects.make_context()
    for name in ("func", "arith", "math", "memref", "vector", "scf", "gpu", "linalg", "spirv", "llvm"):
        assert ctx.dialects[name] is not None
    # our xegpu is the IRDL one: its tensor_desc syntax is ours, not upstream's
    m = xedialects.parse("func.func @f(%d: !xegpu.tensor_desc<8x16xbf16>) { return }", context=ctx)
    assert "array<i64: 8, 16>" in m.operation.get_asm(print_generic_op_form=True)


def test_tile_type_builder_and_accessors():
    with xedialects.make_context():
        t = TileType.get([64, 32], "bf16", order=[0, 1], inner_blocks=[16, 16],
                         wg_map=dict(sg_layout=[2, 2], sg_data=[32, 16]))
        v = TileType(t)
        assert v.shape == (64, 32) and v.element_type == "bf16"
        assert v.order == (0, 1) and v.inner_blocks == (16, 16)
        assert v.wg_map.sg_layout == (2, 2) and v.wg_map.sg_data == (32, 16)
        assert v.sg_map is None and v.memory_space == 0 and not v.scattered
        # defaults are canonical: an all-default attribute is the plain tile type
        assert TileType.get([8, 16], "f32", order=[1, 0]) == TileType.get([8, 16], "f32")
        assert TileType(v.with_fields(inner_blocks=None, order=(1, 0), wg_map=None)).value.attr is None


def test_tile_type_rejects_bad_values():
    with xedialects.make_context():
        with pytest.raises(ValueError, match="sg_layout"):
            TileType.get([8, 16], "bf16", wg_map=dict(sg_layout=[2], sg_data=[4, 4]))
        with pytest.raises(ValueError, match="shape"):
            TileType.get([0, 16], "bf16")


def test_tensor_desc_accessors():
    with xedialects.make_context():
        t = TensorDescType.get([16], "bf16", memory_scope="slm", boundary_check=False)
        v = TensorDescType(t)
        assert v.memory_scope == "slm" and v.boundary_check is False and v.chunk_size_per_lane == 1
        assert str(t).startswith("!xegpu.tensor_desc<array<i64: 16>, bf16")


def test_type_accessors_are_cached():
    import xedialects.core.dialect as d

    with xedialects.make_context():
        t = TileType.get([8, 16], "bf16")
        TileType(t)
        n = len(d._TYPE_CACHE)
        for _ in range(1000):
            TileType(t).shape
        assert len(d._TYPE_CACHE) == n


def test_build_ops_and_verify():
    ctx = xedialects.make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        bf16 = ir.BF16Type.get()
        mref = ir.MemRefType.get([128, 128], bf16)
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("k", ([mref, ir.IndexType.get()], []))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                A, i = entry.arguments
                tile_t = TileType.get([32, 16], "bf16")
                init = InitTileOp.build(source=A, offsets=[i, 0], result_types=[tile_t])
                load = LoadTileOp.build(tile=init.result, result_types=[ir.VectorType.get([32, 16], bf16)])
                b = LoadTileOp.build(tile=init.result, transpose=[1, 0],
                                     result_types=[ir.VectorType.get([16, 32], bf16)])
                TileMmaOp.build(a=load.result, b=b.result,
                                result_types=[ir.VectorType.get([32, 32], ir.F32Type.get())])
                func.ReturnOp([])
        text = xedialects.print_ir(module)
        assert "xetile.init_tile %arg0[%arg1, 0] : memref<128x128xbf16> -> !xetile.tile<32x16xbf16>" in text
        assert "{transpose = [1, 0]}" in text
        assert InitTileOp(init.op).mixed("offsets", "static_offsets")[1] == 0
        assert LoadTileOp(b.op).transpose == (1, 0)
        assert xedialects.parse(text, context=ctx) is not None  # verifies


def test_builder_argument_errors():
    with xedialects.make_context(), ir.Location.unknown():
        with pytest.raises(ValueError, match="operand 'tile' is required"):
            LoadTileOp.build(result_types=[])
        with pytest.raises(ValueError, match="unknown argument"):
            LoadTileOp.build(tile=None, bogus=1)


def test_errors_have_locations():
    src = "func.func @f(%A: memref<128x128xf16>) {\n  %t = xetile.init_tile %A[0, 0] : memref<128x128xf16> -> !xetile.tile<8x16xbf16>\n  return\n}\n"
    with pytest.raises(DiagnosticError) as e:
        xedialects.parse(src, "k.mlir")
    d = e.value.diagnostics[0]
    assert (d.filename, d.line, d.col) == ("k.mlir", 2, 8)  # the op name, as in mlir-opt
    assert "does not match the memref element type f16" in d.message


def test_syntax_error_location():
    src = "func.func @f(%A: memref<128x128xbf16>) {\n  %t = xetile.init_tile %A[0, 0] : memref<128x128xbf16> !xetile.tile<8x16xbf16>\n  return\n}\n"
    with pytest.raises(DiagnosticError) as e:
        xedialects.parse(src, "k.mlir")
    d = e.value.diagnostics[0]
    assert (d.line, d.col) == (2, 57) and "expected '->'" in d.message


def test_locations_survive():
    src = 'func.func @f(%t: !xetile.tile<8x16xf32>) {\n  xetile.prefetch_tile %t : !xetile.tile<8x16xf32> loc("here.py":7:3)\n  return\n}\n'
    m = xedialects.parse(src)
    out = xedialects.print_ir(m, debuginfo=True)
    assert 'loc("here.py":7:3)' in out and "xetile.prefetch_tile" in out


def test_irdl_loads_in_upstream_mlir_opt(tmp_path):
    import subprocess
    from xedialects.irdl_gen import irdl_module_text
    from xedialects.mlir_tools import tool_path

    opt = tool_path("mlir-opt")
    f = tmp_path / "xe.irdl.mlir"
    f.write_text(irdl_module_text())
    generic = xedialects.parse("func.func @f(%t: !xetile.tile<8x16xbf16>, %d: !xegpu.tensor_desc<8x16xf32>) { return }")
    r = subprocess.run([str(opt), f"--irdl-file={f}"], input=generic.operation.get_asm(print_generic_op_form=True),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "!xetile.tile<array<i64: 8, 16>, bf16, unit>" in r.stdout


_KERNEL = ("func.func @k(%A: memref<128x128xbf16>, %i: index) {\n"
           "  %t = xetile.init_tile %A[%i, 0] : memref<128x128xbf16> -> !xetile.tile<32x16xbf16>\n"
           "  return\n}\n")


def test_parse_uses_enclosing_context():
    """As upstream's ir.Module.parse: inside `with ctx:` the module lives in ctx, and its ops and values
    combine with everything else built in ctx."""
    ctx = xedialects.make_context()
    with ctx, ir.Location.unknown():
        m = xedialects.parse(_KERNEL)
        assert m.context == ctx and m.operation.context == ctx
        f = m.body.operations[0]
        entry = f.regions[0].blocks[0]
        A, i = entry.arguments
        init = entry.operations[0]
        assert init.result.type == TileType.get([32, 16], "bf16")     # a type built in ctx
        with ir.InsertionPoint(entry.operations[1]):                 # before the return
            load = LoadTileOp.build(tile=init.result, result_types=[ir.VectorType.get([32, 16], ir.BF16Type.get())])
            InitTileOp.build(source=A, offsets=[i, 16], result_types=[TileType.get([32, 16], "bf16")])
        assert m.operation.verify()
        text = xedialects.print_ir(m)
        assert "xetile.load_tile %0 : !xetile.tile<32x16xbf16> -> vector<32x16xbf16>" in text
        assert "xetile.init_tile %arg0[%arg1, 16]" in text
        assert xedialects.parse(text).context == ctx
        # an explicit context still wins over the enclosing one
        other = xedialects.make_context()
        assert xedialects.parse(_KERNEL, context=other).context == other
    # without an enclosing context: a fresh one each time, as before
    m1, m2 = xedialects.parse(_KERNEL), xedialects.parse(_KERNEL)
    assert m1.context != ctx and m1.context != m2.context


def test_parse_registers_dialects_into_enclosing_context():
    """An enclosing context without our dialects gets them (as make_context makes them); a plain
    ir.Context(), which has upstream's own xegpu loaded, is a clear error, not an MLIR abort."""
    ctx = ir.Context(load_on_create_dialects=["builtin"])
    with ctx:
        m = xedialects.parse(_KERNEL)
        assert m.context == ctx and ctx.is_registered_operation("xetile.load_tile")
        assert ctx.is_registered_operation("linalg.matmul")
    with ir.Context():
        with pytest.raises(ValueError, match=r"upstream MLIR's xegpu .*xedialects.make_context\(\)"):
            xedialects.parse(_KERNEL)


def test_mlir_tools_runs_the_wheel_tools(tmp_path):
    """The README's `python -m xedialects.mlir_tools mlir-opt --irdl-file=xe.irdl.mlir`: the wheel's
    mlir-opt (not on PATH) reads our IR in generic form; `--path` prints where it is."""
    import subprocess
    import sys
    from xedialects.irdl_gen import irdl_module_text
    from xedialects.mlir_tools import tool_path

    f = tmp_path / "xe.irdl.mlir"
    f.write_text(irdl_module_text())
    generic = xedialects.parse(_KERNEL).operation.get_asm(print_generic_op_form=True)
    run = [sys.executable, "-m", "xedialects.mlir_tools"]
    r = subprocess.run(run + ["mlir-opt", f"--irdl-file={f}"], input=generic, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert '"xetile.init_tile"' in r.stdout
    r = subprocess.run(run + ["--path", "mlir-opt"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == tool_path("mlir-opt")
    r = subprocess.run(run + ["no-such-tool"], capture_output=True, text=True)
    assert r.returncode == 1 and "no-such-tool not found" in r.stderr


def test_builder_refuses_an_op_without_its_result_types():
    """An op whose result type the definition cannot derive is not built without result_types (it used to
    be created with no result, failing much later); a wrong count is refused too."""
    m = xedialects.parse("func.func @f(%A: memref<64x64xf32>, %t: !xetile.tile<8x16xf32>) { return }")
    with m.context, ir.Location.unknown():
        blk = m.body.operations[0].regions[0].blocks[0]
        with ir.InsertionPoint.at_block_begin(blk):
            with pytest.raises(ValueError, match=r"xetile.init_tile: the type of result 'result' cannot be derived"):
                InitTileOp.build(source=blk.arguments[0], offsets=[0, 0])
            tile = blk.arguments[1].type
            with pytest.raises(ValueError, match=r"2 result type\(s\) given, the op has 1"):
                InitTileOp.build(source=blk.arguments[0], offsets=[0, 0], result_types=[tile, tile])
            op = InitTileOp.build(source=blk.arguments[0], offsets=[0, 0], result_types=[tile])
            assert op.result.type == tile
