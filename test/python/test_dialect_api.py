"""Python API of the dialects: context factory, type/attribute builders and accessors, op builders."""
import re

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
        assert str(t) == "!xegpu.tensor_desc<16xbf16, #xegpu.tdesc_attr<memory_scope = slm, boundary_check = false>>"


def test_type_accessors_are_cached():
    import xedialects.core.dialect as d

    with xedialects.make_context():
        t = TileType.get([8, 16], "bf16")
        TileType(t)
        n = len(d._TYPE_CACHE)
        for _ in range(1000):
            TileType(t).shape
        assert len(d._TYPE_CACHE) == n


_TILE_SRC = """func.func @f(%A: memref<64x64xbf16>) {
  %t = xetile.init_tile %A[0, 0] : memref<64x64xbf16> -> !xetile.tile<8x16xbf16, #xetile.tile_attr<wg_map = <sg_layout = [1, 1], sg_data = [8, 16]>>>
  xetile.prefetch_tile %t : !xetile.tile<8x16xbf16, #xetile.tile_attr<wg_map = <sg_layout = [1, 1], sg_data = [8, 16]>>>
  return
}
"""
_TILE_T = "!xetile.tile<8x16xbf16, #xetile.tile_attr<wg_map = <sg_layout = [1, 1], sg_data = [8, 16]>>>"


def test_str_of_ir_is_the_readable_syntax():
    """print(module), str(op), print(value.type) and repr show the RFC syntax in our contexts; MLIR's
    encoding stays available (get_asm, print_ir(generic=True)); other contexts print as before."""
    m = xedialects.parse(_TILE_SRC)
    assert str(m) == xedialects.print_ir(m) and "array<i64" not in str(m)
    block = m.body.operations[0].regions[0].blocks[0]
    init = block.operations[0]
    assert str(init) == f"%0 = xetile.init_tile %arg0[0, 0] : memref<64x64xbf16> -> {_TILE_T}"
    assert str(init.result.type) == _TILE_T and repr(init.result.type) == f"Type({_TILE_T})"
    assert str(init.result).startswith("OpResult(%0 = xetile.init_tile %arg0[0, 0]")
    attr = ir.Attribute.parse("#xetile.wg_map<array<i64: 2, 2>, array<i64: 32, 16>>", m.context)
    assert str(attr) == "#xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 16]>"
    assert "array<i64: 8, 16>, bf16" in init.get_asm() and "array<i64" in xedialects.print_ir(m, generic=True)
    assert "Type(!xetile.tile<8x16xbf16" in repr([init.result.type])
    with ir.Context():  # upstream's own xegpu, in a plain context: untouched
        t = ir.Type.parse("!xegpu.tensor_desc<8x16xf16>")
        assert str(t) == "!xegpu.tensor_desc<8x16xf16>" and repr(t) == "Type(!xegpu.tensor_desc<8x16xf16>)"


def test_repr_of_types_and_attributes_holding_ours_is_readable():
    """The concrete classes with a repr of their own (TypeAttr, ArrayAttr, DictAttr, FunctionType, ...)
    show our types readable too, as Type(...) does (they printed MLIR's encoding)."""
    m = xedialects.parse(_TILE_SRC)
    t = m.body.operations[0].regions[0].blocks[0].operations[0].result.type
    with m.context:
        ta = ir.TypeAttr.get(t)
        assert repr(ta) == f"TypeAttr({_TILE_T})" and repr(ir.ArrayAttr.get([ta])) == f"ArrayAttr([{_TILE_T}])"
        assert repr(ir.DictAttr.get({"t": ta})) == f"DictAttr({{t = {_TILE_T}}})"
        assert repr(ir.FunctionType.get([t], [])) == f"FunctionType(({_TILE_T}) -> ())"


def test_diagnostics_are_readable():
    bad = _TILE_SRC.replace("xetile.prefetch_tile %t : !xetile.tile<8x16xbf16, #xetile.tile_attr<wg_map = <sg_layout = [1, 1], sg_data = [8, 16]>>>",
                            "xetile.prefetch_tile %t : !xetile.tile<8x16xbf16>")
    with pytest.raises(DiagnosticError) as e:
        xedialects.parse(bad, "k.mlir")
    d = e.value.diagnostics[0]
    assert (d.filename, d.line) == ("k.mlir", 3) and d.message == (
        f"use of value '%t' expects different type than prior uses: '!xetile.tile<8x16xbf16>' vs '{_TILE_T}'")
    # a message quoting upstream's xegpu (not our encoding) keeps it; ours around it still converts
    d = xedialects.Diagnostic("error", "!xegpu.tensor_desc<8x16xf16, #xegpu.layout<lane_layout = [1, 16]>> vs "
                                       "!xetile.tile<array<i64: 8, 16>, bf16, unit> in #xetile.cache_hint")
    assert d.message == ("!xegpu.tensor_desc<8x16xf16, #xegpu.layout<lane_layout = [1, 16]>> vs "
                         "!xetile.tile<8x16xbf16> in #xetile.cache_hint")


def test_mlir_parser_and_verifier_errors_are_readable_and_name_xedialects_parse():
    m = xedialects.parse(_TILE_SRC)
    with m.context:
        for parse, text in ((ir.Module.parse, str(m)), (ir.Type.parse, "!xetile.tile<8x16xbf16>")):
            with pytest.raises(ir.MLIRError, match=r"xedialects\.parse\(text\) reads the readable syntax"):
                parse(text)
        assert str(ir.Module.parse(m.operation.get_asm())) == str(m)  # MLIR reads its encoding
        with pytest.raises(ir.MLIRError) as e:
            ir.Module.parse("func.func @f() { bogus.op }")  # no xetile/xegpu: upstream's error alone
        assert "xedialects" not in str(e.value)
        with ir.Location.unknown():
            tile, desc = TileType.get([8, 16], "bf16"), TensorDescType.get([8, 16], "bf16")
            bad = ir.Module.create()
            with ir.InsertionPoint(bad.body):
                f = func.FuncOp("r", ([desc], [tile]))
                with ir.InsertionPoint(f.add_entry_block()):
                    func.ReturnOp([f.entry_block.arguments[0]])
        mismatch = "('!xegpu.tensor_desc<8x16xbf16>') doesn't match function result type ('!xetile.tile<8x16xbf16>')"
        with pytest.raises(ir.MLIRError) as e:
            bad.operation.verify()  # upstream's verifier, its message in readable syntax
        assert mismatch in str(e.value) and "array<i64" not in str(e.value)
        with pytest.raises(DiagnosticError, match=re.escape(mismatch)):
            xedialects.verify(bad)


def test_verify_is_mlir_verifier_plus_rfc_rules():
    ctx = xedialects.make_context()
    src = ('"func.func"() <{function_type = (!xetile.tile<array<i64: 8, 16>, bf16, unit>) -> (), sym_name = "f"}> ({\n'
           '^bb0(%t: !xetile.tile<array<i64: 8, 16>, bf16, unit>):\n'
           '  "xetile.prefetch_tile"(%t) {locality = 7 : i32} : (!xetile.tile<array<i64: 8, 16>, bf16, unit>) -> ()\n'
           '  "func.return"() : () -> ()\n}) : () -> ()\n')
    with ctx:
        op = ir.Operation.parse(src, source_name="k.mlir")
        assert op.verify() is True  # MLIR's verifier alone does not know the RFC rules
        with pytest.raises(DiagnosticError) as e:
            xedialects.verify(op)
        d = e.value.diagnostics[0]
        assert (d.filename, d.line, d.col) == ("k.mlir", 3, 3) and "locality must be in [0, 3]" in d.message
        good = xedialects.parse(_TILE_SRC, context=ctx)
        assert xedialects.verify(good) is True and xedialects.verify(good.body.operations[0]) is True
        with ir.Location.unknown():
            m = ir.Module.create()
            with ir.InsertionPoint(m.body):
                f = func.FuncOp("g", ([], []))
                f.add_entry_block()  # no terminator: MLIR's verifier fails, as a located DiagnosticError
        with pytest.raises(DiagnosticError, match="terminator|empty block"):
            xedialects.verify(m)


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


def _in_func(sig):
    """(module, block) of `func.func @f(sig)`, for building ops into its body."""
    m = xedialects.parse(f"func.func @f({sig}) {{ return }}")
    return m, m.body.operations[0].regions[0].blocks[0]


def test_op_classes_carry_docstrings_and_signatures():
    """help(LoadTileOp) / help(LoadTileOp.build) show the RFC summary, operands, attributes with their kinds
    and Python types, results with how they are derived, the syntax, and a keyword signature."""
    import inspect

    from xedialects.xegpu.ops import LoadNdOp

    doc = LoadTileOp.__doc__
    assert doc.startswith("xetile.load_tile: Load a tile into a 2D (or blocked 4D) vector")
    assert "  tile: !xetile.tile" in doc and "xetile.load_tile $tile attr-dict `:` type($tile) `->` type($result)" in doc
    assert "  transpose: list of integers, optional (list[int])" in doc
    assert "a number (typed as tile's elements)" in doc and "result: vector (derived when it can be: The tile's" in doc
    sig = inspect.signature(LoadTileOp.build)
    assert str(sig).startswith("(*, tile: ir.Value, padding: str | float = None, transpose: list[int] = None")
    assert sig.parameters["result_types"].default is None      # derivable: optional
    isig = inspect.signature(InitTileOp.build)
    assert isig.parameters["source"].default is inspect.Parameter.empty
    assert isig.parameters["offsets"].annotation.text == "list[int | ir.Value]" and "static_offsets" not in isig.parameters
    assert isig.parameters["result_types"].default is inspect.Parameter.empty   # never derivable
    assert "Create a tile: a 2D region of a memref" in InitTileOp.__doc__       # the class's own text kept
    assert "l1_hint: cache hint, optional (str: 'cached' | 'uncached'" in LoadNdOp.__doc__
    assert "Create xegpu.load_nd" in LoadNdOp.build.__doc__ and LoadNdOp.build.__qualname__ == "LoadNdOp.build"


def test_attributes_take_the_python_values_their_kind_implies():
    """padding=0 / 0.0 (typed as the tile's elements), numpy ints and tuples for int lists, enum keywords;
    a wrong value is a ValueError naming the op, the attribute, the kind expected and the value given."""
    import numpy as np

    from xedialects.xegpu.ops import LoadNdOp, PrefetchNdOp

    m, blk = _in_func("%t: !xetile.tile<32x16xbf16>, %ti: !xetile.tile<8x16xi8>, %d: !xegpu.tensor_desc<8x16xf16>")
    t, ti, d = blk.arguments
    with m.context, ir.Location.unknown(), ir.InsertionPoint.at_block_begin(blk):
        for pad in (0, 0.0, np.float32(0.5)):
            op = LoadTileOp.build(tile=t, padding=pad, transpose=(np.int64(1), 0))
            assert str(op.op.attributes["padding"]) in ("0.000000e+00 : bf16", "5.000000e-01 : bf16")
            assert op.transpose == (1, 0) and not list(op.verify())
        assert LoadTileOp.build(tile=ti, padding=3).padding == "3 : i8"
        assert LoadNdOp.build(tdesc=d, mode="vc", vnni_axis=np.int32(0), l1_hint="cached").vnni_axis == 0
        bad = {"padding='zero'": (dict(tile=t, padding="zero"), r"xetile.load_tile: attribute 'padding' expects "
                                  r"attribute \(str \(MLIR attribute text.*\), got 'zero'"),
               "padding=0.5 on i8": (dict(tile=ti, padding=0.5), r"'padding'.*got 0.5: 0.5 is not an integer"),
               "transpose=[1]": (dict(tile=t, transpose=[1]), r"'transpose' expects list of integers \(list\[int\]\), "
                                 r"got \[1\]: expected 2 integers"),
               "transpose=1.5": (dict(tile=t, transpose=[1.5, 0]), r"got \[1.5, 0\]: expected a list of integers"),
               "l1_hint": (dict(tile=t, l1_hint="fast"), r"'l1_hint' expects #xetile.cache_hint .*got 'fast': expected "
                           r"one of cached")}
        for what, (kw, msg) in bad.items():
            with pytest.raises(ValueError, match=msg):
                LoadTileOp.build(**kw)
        with pytest.raises(ValueError, match=r"xegpu.prefetch_nd: attribute 'mode' expects mode .*got 'simd'"):
            PrefetchNdOp.build(tdesc=d, mode="simd")


_DERIVE_ARGS = ("%t: !xetile.tile<32x16xbf16>, %tb: !xetile.tile<32x32xf16, #xetile.tile_attr<inner_blocks = [8, 16]>>, "
                "%ts: !xetile.tile<1x16xf32, #xetile.tile_attr<scattered = true>>, %m16: vector<1x16xi1>, "
                "%a: vector<8x16xbf16>, %b: vector<16x16xbf16>, %c: vector<8x16xf32>, %v4: vector<2x4x8x16xf16>, "
                "%d: !xegpu.tensor_desc<16x16xbf16>, "
                "%dw: !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>, "
                "%bv: vector<8x16x2xbf16>, %v32: vector<32x16xf32>, %t32: !xetile.tile<32x16xf32>, "
                "%w16: vector<16xf32>, %ds: !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, "
                "%m: vector<16xi1>, "
                "%dg: !xegpu.tensor_desc<16x8xbf16, #xegpu.tdesc_attr<scattered = true, chunk_size_per_lane = 8>>")


def _derived_case(name):
    """(op class, build arguments by block-argument name, the result type the RFC defines) per derived op."""
    from xedialects.xegpu import ops as g
    from xedialects.xetile import ops as x

    return {
        "load_tile": (x.LoadTileOp, dict(tile="t"), "vector<32x16xbf16>"),
        "load_tile transposed": (x.LoadTileOp, dict(tile="t", transpose=[1, 0]), "vector<16x32xbf16>"),
        "load_tile blocked": (x.LoadTileOp, dict(tile="tb"), "vector<4x2x8x16xf16>"),
        "tile_mma": (x.TileMmaOp, dict(a="a", b="b", c="c"), "vector<8x16xf32>"),
        "atomic_rmw_tile": (x.AtomicRmwTileOp, dict(kind="addf", value="v32", tile="t32"), "vector<32x16xf32>"),
        "tile_transpose": (x.TileTransposeOp, dict(vector="a", permutation=[1, 0]), "vector<16x8xbf16>"),
        "tile_reduce": (x.TileReduceOp, dict(kind="add", vector="c", reduction_dims=[1]), "vector<8x1xf32>"),
        "tile_reduce sized": (x.TileReduceOp, dict(kind="add", vector="c", reduction_dims=[1], reduction_size=4),
                              "vector<8x4xf32>"),
        "tile_pack": (x.TilePackOp, dict(vector="v32", inner_blocks=[8, 16]), "vector<4x1x8x16xf32>"),
        "tile_unpack": (x.TileUnpackOp, dict(vector="v4", inner_blocks=[8, 16]), "vector<16x64xf16>"),
        "load_gather": (x.LoadGatherOp, dict(tile="ts", mask="m16"), "vector<1x16xf32>"),
        "xegpu.load_nd vc vnni": (g.LoadNdOp, dict(tdesc="d", mode="vc", vnni_axis=0), "vector<8x16x2xbf16>"),
        "xegpu.load_nd simt": (g.LoadNdOp, dict(tdesc="dw"), "vector<8x1xbf16>"),
        "xegpu.dpas": (g.DpasOp, dict(a="a", b="bv", acc="c", mode="vc"), "vector<8x16xf32>"),
        "xegpu.load_gather vc": (g.LoadGatherOp, dict(tdesc="dg", mask="m", mode="vc", transpose=[1, 0]),
                                 "vector<8x16xbf16>"),
        "xegpu.atomic_rmw": (g.AtomicRmwOp, dict(kind="addf", value="w16", tdesc="ds", mask="m", mode="vc"),
                             "vector<16xf32>"),
    }[name]


@pytest.mark.parametrize("case", ["load_tile", "load_tile transposed", "load_tile blocked", "tile_mma", "atomic_rmw_tile",
                                  "tile_transpose", "tile_reduce", "tile_reduce sized", "tile_pack", "tile_unpack",
                                  "load_gather", "xegpu.load_nd vc vnni", "xegpu.load_nd simt", "xegpu.dpas",
                                  "xegpu.load_gather vc", "xegpu.atomic_rmw"])
def test_builder_derives_the_result_type_the_rfc_defines(case):
    """Without result_types, each op gets the result type its RFC rule defines, and the op passes its verifier."""
    cls, kw, expect = _derived_case(case)
    m, blk = _in_func(_DERIVE_ARGS)
    names = [p.split(":")[0].strip().lstrip("%") for p in _DERIVE_ARGS.split(", %")]
    args = dict(zip(names, blk.arguments))
    with m.context, ir.Location.unknown(), ir.InsertionPoint.at_block_begin(blk):
        op = cls.build(**{k: args.get(v, v) if isinstance(v, str) else v for k, v in kw.items()})
        assert str(op.result.type) == expect
        assert not list(op.verify()), list(op.verify())


def test_builder_refuses_what_it_cannot_derive():
    """tile_mma without an accumulator (the result element type is a choice) and a SIMT load_nd without
    sg_map need result_types; the message names the result."""
    from xedialects.xegpu.ops import LoadNdOp

    m, blk = _in_func("%a: vector<8x16xbf16>, %b: vector<16x16xbf16>, %d: !xegpu.tensor_desc<8x16xbf16>")
    a, b, d = blk.arguments
    with m.context, ir.Location.unknown(), ir.InsertionPoint.at_block_begin(blk):
        with pytest.raises(ValueError, match=r"xetile.tile_mma: the type of result 'result' cannot be derived"):
            TileMmaOp.build(a=a, b=b)
        with pytest.raises(ValueError, match=r"xegpu.load_nd: the type of result 'result' cannot be derived"):
            LoadNdOp.build(tdesc=d)
        assert str(TileMmaOp.build(a=a, b=b, result_types=["vector<8x16xf32>"]).result.type) == "vector<8x16xf32>"


def test_builder_names_an_operand_that_is_not_a_value():
    """A Python value where an operand's ir.Value belongs, or a non-integer in a mixed index list, is a
    ValueError naming the op and the operand or its static list (was a raw TypeError or a silent int())."""
    m, blk = _in_func("%a: vector<8x16xbf16>, %A: memref<64x64xf32>")
    a, A = blk.arguments
    with m.context, ir.Location.unknown(), ir.InsertionPoint.at_block_begin(blk):
        with pytest.raises(ValueError, match=r"xetile.tile_mma: operand 'b' expects vector \(an ir.Value\), got 3"):
            TileMmaOp.build(a=a, b=3)
        with pytest.raises(ValueError, match=r"xetile.init_tile: attribute 'static_offsets' expects list of integers "
                                             r"\(list\[int\]\), got \[0.5, 0\]"):
            InitTileOp.build(source=A, offsets=[0.5, 0], result_types=[TileType.get([8, 16], "f32")])
