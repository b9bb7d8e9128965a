"""Pass registry tests: option declaration and typing, textual pipeline parsing, the Pipeline API
mixing Python passes with upstream passes, diagnostics and failure reporting, named pipelines,
lazy pass-module loading, IR printing and timing."""
import sys
import textwrap

import pytest
from mlir import ir

import xedialects
from xedialects.diagnostics import Diagnostic, DiagnosticCollector, DiagnosticError
from xedialects.passes import (
    Option,
    PassFailure,
    PassInternalError,
    PassPipelineError,
    Pipeline,
    lookup,
    register_pass,
    register_pipeline,
    registered_passes,
    registered_pipelines,
    run,
)
from xedialects.passes.manager import registry
from xedialects.syntax import parse_source, print_operation

# ---- test-only passes --------------------------------------------------------------------------
_LOG = []


@register_pass("test-reg-annotate", "Set test.tag on every function (test only)",
               options=[Option("tag", str, "t", "tag prefix"),
                        Option("count", int, 0, "number appended to the tag"),
                        Option("scale", float, 1.0, "a float"),
                        Option("loud", bool, False, "emit a remark per function"),
                        Option("sizes", list[int], [8, 16], "a list"),
                        Option("mode", str, "fast", "a choice", choices=("fast", "slow"))])
def annotate(module_op, options, ctx):
    _LOG.append(("annotate", dict(options)))
    for op in module_op.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "func.func":
            op.attributes["test.tag"] = ir.StringAttr.get(f"{options.tag}{options['count']}")
            if options.loud:
                ctx.remark(op, f"tagged {options.tag}{options.count}")
                ctx.warning(op, "a warning", notes=[(op, "a note")])


@register_pass("test-reg-fail", "Report an error at every function (test only)",
               options=[Option("message", str, "nope", "the message")])
def fail_everywhere(module_op, options, ctx):
    for op in module_op.regions[0].blocks[0].operations:
        ctx.error(op, options.message)


@register_pass("test-reg-raise-diag", "Raise a DiagnosticError (test only)")
def raise_diag(module_op, options, ctx):
    raise DiagnosticError([Diagnostic("error", "raised diagnostic", "x.mlir", 3, 4)])


@register_pass("test-reg-crash", "Raise a Python exception (test only)")
def crash(module_op, options, ctx):
    raise KeyError("bug in pass")


@register_pass("test-reg-break-ir", "Produce structurally invalid IR (test only)")
def break_ir(module_op, options, ctx):
    for op in module_op.regions[0].blocks[0].operations:
        if op.operation.name == "func.func":
            ret = op.operation.regions[0].blocks[0].operations[-1]
            ret.operation.erase()  # a block without terminator


@register_pass("test-reg-needs-xegpu", "Declares our own dialect as dependent (test only)",
               dependent_dialects=["xegpu", "vector"])
def needs_xegpu(module_op, options, ctx):
    pass


register_pipeline("test-reg-pipeline", "canonicalize then annotate (test only)",
                  "builtin.module(canonicalize, test-reg-annotate{tag=pipe count=1})")
register_pipeline("test-reg-bare-pipeline", "bare element list (test only)", "cse, canonicalize")
register_pipeline("test-reg-loop", "includes itself (test only)", "builtin.module(test-reg-loop)")

SRC = textwrap.dedent("""\
    func.func @f(%x: i32) -> i32 {
      %unused = arith.constant 7 : i32
      %a = arith.addi %x, %x : i32
      %b = arith.addi %x, %x : i32
      %c = arith.addi %a, %b : i32
      return %c : i32
    }
    """)


@pytest.fixture
def module():
    ctx = xedialects.make_context()
    return parse_source(SRC, "in.mlir", ctx)


def text(m):
    return print_operation(m.operation)


# ---- options -----------------------------------------------------------------------------------
def test_option_types_and_defaults():
    info = lookup("test-reg-annotate")
    opts = info.make_options()
    assert opts == {"tag": "t", "count": 0, "scale": 1.0, "loud": False, "sizes": [8, 16], "mode": "fast"}
    assert opts.count == 0 and opts["sizes"] == [8, 16]
    opts = info.make_options("tag=x count=0x10 scale=2 loud sizes=1,2,3 mode=slow")
    assert opts == {"tag": "x", "count": 16, "scale": 2.0, "loud": True, "sizes": [1, 2, 3], "mode": "slow"}
    assert type(opts.scale) is float


def test_option_text_comma_separated_and_quotes():
    info = lookup("test-reg-annotate")
    opts = info.make_options("tag=a,count=3,sizes=4,5,loud=false")
    assert (opts.tag, opts.count, opts.sizes, opts.loud) == ("a", 3, [4, 5], False)
    opts = info.make_options("tag='with space' count=-2")
    assert (opts.tag, opts.count) == ("with space", -2)
    opts = info.make_options('tag="x,y"')
    assert opts.tag == "x,y"


def test_option_mapping_with_underscores_and_typed_values():
    info = lookup("test-reg-annotate")
    opts = info.make_options({"count": 4, "loud": True, "sizes": (2, 4)})
    assert (opts.count, opts.loud, opts.sizes) == (4, True, [2, 4])


@pytest.mark.parametrize("text,needle", [
    ("bogus=1", "has no option 'bogus'"),
    ("cuont=1", "did you mean 'count'?"),
    ("count=abc", "invalid value 'abc' for option 'count'"),
    ("count=1.5", "expected an integer"),
    ("loud=maybe", "expected a boolean"),
    ("scale=fast", "expected a number"),
    ("mode=medium", "expected one of fast, slow"),
    ("sizes=1,x", "invalid value"),
    ("tag", "needs a value"),
    ("tag='open", "unterminated quote"),
])
def test_option_errors_list_valid_options(text, needle):
    info = lookup("test-reg-annotate")
    with pytest.raises(PassPipelineError) as e:
        info.make_options(text)
    msg = str(e.value)
    assert needle in msg
    if "no option" in needle or "did you mean" in needle:
        assert "valid options: tag=<string> (default: t); count=<int> (default: 0)" in msg
    assert isinstance(e.value, ValueError) and isinstance(e.value, DiagnosticError)


def test_option_declaration_errors():
    with pytest.raises(ValueError):
        Option("n", int, "abc")
    with pytest.raises(ValueError):
        Option("n", dict, {})
    with pytest.raises(ValueError):
        Option("bad name", int, 0)
    with pytest.raises(ValueError):
        register_pass("test-reg-dup-opts", "x", options=[Option("a", int, 0), Option("a", int, 1)])
    with pytest.raises(ValueError):
        @register_pass("test-reg-annotate", "someone else's pass with the same name")
        def other(module_op, options, ctx):
            pass


# ---- pipeline text -----------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("builtin.module(canonicalize, cse)", "builtin.module(canonicalize,cse)"),
    ("canonicalize,cse", "builtin.module(canonicalize,cse)"),
    ("func.func(cse)", "builtin.module(func.func(cse))"),
    ("builtin.module(canonicalize{max-iterations=3 top-down=false}, func.func(cse, canonicalize))",
     "builtin.module(canonicalize{max-iterations=3 top-down=false},func.func(cse,canonicalize))"),
    ("builtin.module(test-reg-annotate{tag='a b' count=2}, gpu.module(cse))",
     "builtin.module(test-reg-annotate{tag='a b' count=2},gpu.module(cse))"),
    ("builtin.module()", "builtin.module()"),
    ("", "builtin.module()"),
])
def test_pipeline_parse_render(text, expected):
    assert str(Pipeline(text)) == expected


@pytest.mark.parametrize("text,col,needle", [
    ("builtin.module(cse", 19, "expected ',' or ')'"),
    ("builtin.module(cse,)", 20, "expected a pass name"),
    ("builtin.module(canonicalize{max-iterations=3)", 28, "missing closing '}'"),
    ("builtin.module(cse) extra", 21, "expected ','"),
])
def test_pipeline_syntax_errors_have_columns(text, col, needle):
    with pytest.raises(PassPipelineError) as e:
        Pipeline(text)
    d = e.value.diagnostics[0]
    assert (d.filename, d.line, d.col) == ("<pass-pipeline>", 1, col)
    assert needle in d.message


def test_unknown_pass_and_nested_python_pass(module):
    with pytest.raises(PassPipelineError) as e:
        run(module, "builtin.module(canonicalize, test-reg-anotate)")
    assert "unknown pass or pass pipeline 'test-reg-anotate'" in str(e.value)
    assert "did you mean 'test-reg-annotate'" in str(e.value)
    assert e.value.diagnostics[0].col == 30
    with pytest.raises(PassPipelineError) as e:
        run(module, "builtin.module(func.func(cse, test-reg-annotate))")
    assert "'test-reg-annotate' runs on 'builtin.module' and cannot be nested in 'func.func(...)'" in str(e.value)


def test_upstream_option_errors(module):
    with pytest.raises(PassPipelineError) as e:
        run(module, "builtin.module(canonicalize{bogus=1})")
    msg = str(e.value)
    assert "invalid options for pass 'canonicalize': no such option bogus" in msg
    assert "max-iterations=10" in msg  # the valid options, with defaults
    with pytest.raises(PassPipelineError) as e:
        run(module, "builtin.module(canonicalize{max-iterations=abc})")
    assert "'abc' value invalid" in str(e.value)


# ---- running -----------------------------------------------------------------------------------
def test_pipeline_api_mixes_python_and_upstream_passes(module):
    _LOG.clear()
    p = Pipeline().add("canonicalize").add("test-reg-annotate", tag="x", count=2).add("func.func(cse)")
    assert str(p) == "builtin.module(canonicalize,test-reg-annotate{tag=x count=2 scale=1.0 loud=false " \
                     "sizes=8,16 mode=fast},func.func(cse))"
    assert p.run(module) is module
    out = text(module)
    assert 'test.tag = "x2"' in out
    assert "arith.constant" not in out           # canonicalize ran
    assert out.count("arith.addi") == 2          # cse ran
    assert _LOG == [("annotate", {"tag": "x", "count": 2, "scale": 1.0, "loud": False, "sizes": [8, 16],
                                  "mode": "fast"})]


def test_run_textual_pipeline_and_python_pass_order(module):
    _LOG.clear()
    run(module, "builtin.module(test-reg-annotate{tag=a count=1}, canonicalize, test-reg-annotate{tag=b,count=2})")
    assert [entry[1]["tag"] for entry in _LOG] == ["a", "b"]
    assert 'test.tag = "b2"' in text(module)


def test_upstream_options_from_api(module):
    p = Pipeline().add("canonicalize", max_iterations=3, top_down=False)
    assert str(p) == "builtin.module(canonicalize{max-iterations=3 top-down=false})"
    p.run(module)
    p = Pipeline().add("canonicalize", "max-iterations=2,region-simplify=disabled")
    assert str(p) == "builtin.module(canonicalize{max-iterations=2 region-simplify=disabled})"
    p.run(module)


def test_remarks_and_warnings_go_to_collector(module):
    col = DiagnosticCollector()
    run(module, "builtin.module(test-reg-annotate{loud=true tag=q})", collector=col)
    sev = [(d.severity, d.message, d.filename, d.line) for d in col.diagnostics]
    assert sev == [("remark", "tagged q0", "in.mlir", 1), ("warning", "a warning", "in.mlir", 1)]
    assert col.diagnostics[1].notes[0].message == "a note"
    assert not col.has_errors


def test_remarks_without_collector_go_to_stderr(module, capfd):
    run(module, "builtin.module(test-reg-annotate{loud=true})")
    err = capfd.readouterr().err
    assert "in.mlir:1:1: remark: tagged t0" in err


def test_pass_error_is_located_failure(module):
    with pytest.raises(PassFailure) as e:
        run(module, "builtin.module(canonicalize, test-reg-fail{message='bad thing'})")
    f = e.value
    assert f.pass_name == "test-reg-fail"
    assert f.diagnostics[0].format() == "in.mlir: error: pass 'test-reg-fail' failed"
    assert [(d.severity, d.message, d.filename, d.line, d.col) for d in f.located] == \
        [("error", "bad thing", "in.mlir", 1, 1)]
    assert str(f).splitlines() == ["in.mlir: error: pass 'test-reg-fail' failed", "in.mlir:1:1: error: bad thing"]


def test_pass_raising_diagnostic_error(module):
    with pytest.raises(PassFailure) as e:
        run(module, "builtin.module(test-reg-raise-diag)")
    assert e.value.located[0].format() == "x.mlir:3:4: error: raised diagnostic"


def test_pass_crash_is_internal_error(module):
    with pytest.raises(PassInternalError) as e:
        run(module, "builtin.module(canonicalize, test-reg-crash)")
    assert "pass 'test-reg-crash' raised KeyError" in str(e.value)
    assert isinstance(e.value.__cause__, KeyError)


def test_structural_verification_after_python_pass(module):
    with pytest.raises(PassFailure) as e:
        run(module, "builtin.module(test-reg-break-ir, canonicalize)")
    assert e.value.pass_name == "test-reg-break-ir"
    assert any("terminator" in d.message or "empty block" in d.message for d in e.value.located)


def test_semantic_verification_after_python_pass(module, monkeypatch):
    import xedialects.verifier as verify

    calls = []

    def fake_verify(op):
        calls.append(op.name)
        return [Diagnostic("error", "'xetile.fake' op violates a rule", "in.mlir", 2, 3),
                Diagnostic("warning", "just a warning", "in.mlir", 2, 3)]

    monkeypatch.setattr(verify, "verify_module", fake_verify)
    with pytest.raises(PassFailure) as e:
        run(module, "builtin.module(test-reg-annotate)")
    assert calls == ["builtin.module"]
    assert e.value.pass_name == "test-reg-annotate"
    assert [d.message for d in e.value.located] == ["'xetile.fake' op violates a rule"]


def test_semantic_verification_after_trailing_upstream_passes(module, monkeypatch):
    import xedialects.verifier as verify

    monkeypatch.setattr(verify, "verify_module",
                        lambda op: [Diagnostic("error", "rule broken", "in.mlir", 2, 3)])
    with pytest.raises(PassFailure) as e:
        run(module, "builtin.module(canonicalize)")
    assert "does not verify" in e.value.summary.message
    run(module, "builtin.module(canonicalize)", verify=False)


def test_upstream_failure_names_the_stage():
    ctx = xedialects.make_context()
    m = parse_source("module {\n  gpu.module @m {\n  }\n}\n", "g.mlir", ctx)
    with pytest.raises(PassFailure) as e:
        run(m, "builtin.module(test-reg-annotate, gpu-module-to-binary)")
    assert e.value.summary.format() == "g.mlir: error: pass 'gpu-module-to-binary' failed"
    assert e.value.located[0].format().startswith("g.mlir:2:3: error: the module has no target attributes")


def test_named_pipelines(module):
    assert "test-reg-pipeline" in registered_pipelines()
    assert "test-reg-annotate" in registered_passes()
    run(module, "builtin.module(test-reg-pipeline)")
    assert 'test.tag = "pipe1"' in text(module)
    Pipeline().add("test-reg-bare-pipeline").run(module)
    run(module, "builtin.module(func.func(test-reg-bare-pipeline))")
    with pytest.raises(PassPipelineError, match="includes itself"):
        run(module, "builtin.module(test-reg-loop)")
    with pytest.raises(PassPipelineError, match="cannot be nested"):
        run(module, "builtin.module(func.func(test-reg-pipeline))")
    # a named pipeline's options go to its passes that declare them (xe-gemm-to-spirv{arch=bmg})
    with pytest.raises(PassPipelineError, match="has no pass with option 'x'"):
        Pipeline().add("test-reg-pipeline", x=1)
    run(module, "builtin.module(test-reg-pipeline{count=5})")
    assert 'test.tag = "pipe5"' in text(module)
    with pytest.raises(PassPipelineError, match="takes no options"):
        Pipeline().add("test-reg-bare-pipeline", x=1)


def test_dependent_dialects_skip_our_dialects(module):
    run(module, "builtin.module(test-reg-needs-xegpu)")


def test_compiled_pipeline_reuse(module):
    ctx = module.context
    compiled = Pipeline("builtin.module(test-reg-annotate{tag=r}, canonicalize)").compile(ctx)
    try:
        for _ in range(2):
            m = parse_source(SRC, "in.mlir", ctx)
            compiled.run(m)
            assert 'test.tag = "r0"' in text(m)
    finally:
        compiled.close()


def test_print_ir_after_all_and_timing(module, capfd):
    run(module, "builtin.module(canonicalize, test-reg-annotate)", print_ir_after_all=True, timing=True)
    err = capfd.readouterr().err
    assert "// -----// IR Dump After Canonicalizer (canonicalize) //----- //" in err
    assert "// -----// IR Dump After TestRegAnnotate (test-reg-annotate) //----- //" in err
    assert "Execution time report" in err and "TestRegAnnotate" in err


def test_print_ir_uses_readable_syntax(capfd):
    ctx = xedialects.make_context()
    src = textwrap.dedent("""\
        func.func @k(%A: memref<128x128xbf16>) {
          %t = xetile.init_tile %A[0, 0] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16>
          %v = xetile.load_tile %t : !xetile.tile<8x16xbf16> -> vector<8x16xbf16>
          xetile.store_tile %v, %t : vector<8x16xbf16>, !xetile.tile<8x16xbf16>
          return
        }
        """)
    m = parse_source(src, "k.mlir", ctx)
    run(m, "builtin.module(canonicalize)", print_ir_before_all=True)
    err = capfd.readouterr().err
    assert "// -----// IR Dump Before Canonicalizer (canonicalize) //----- //" in err
    assert "xetile.init_tile %arg0[0, 0] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16>" in err
    assert '"xetile.init_tile"' not in err
    run(m, "builtin.module(canonicalize)", print_ir_after_all=True, generic=True)
    assert '"xetile.init_tile"' in capfd.readouterr().err


def test_lazy_pass_module_loading(tmp_path, monkeypatch):
    from xedialects.passes import pass_modules

    (tmp_path / "xe_test_lazy_passes.py").write_text(textwrap.dedent("""\
        from xedialects.passes import register_pass

        @register_pass("test-reg-lazy", "registered by a lazily imported module")
        def lazy(module_op, options, ctx):
            pass
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(pass_modules, "PASS_MODULES", pass_modules.PASS_MODULES + ["xe_test_lazy_passes",
                                                                                   "xe_test_missing_module"])
    monkeypatch.delenv("XE_OPT_DEBUG", raising=False)
    assert "xe_test_lazy_passes" not in sys.modules
    assert lookup("test-reg-lazy") is not None
    assert "xe_test_lazy_passes" in sys.modules
    errors = registry.load_pass_modules()
    assert "xe_test_missing_module" in errors
    with pytest.raises(PassPipelineError) as e:
        Pipeline("builtin.module(test-reg-nothing)").compile(xedialects.make_context())
    assert "xe_test_missing_module" in str(e.value)  # the broken module is named
    monkeypatch.setattr(registry, "_LOAD_ERRORS", {})


def test_pass_modules_are_not_imported_by_plain_import():
    import subprocess

    code = ("import sys, xedialects, xedialects.passes; from xedialects.syntax import parse_source; "
            "from xedialects.passes.pass_modules import PASS_MODULES; "
            "parse_source('func.func @f() { return }', 'x', xedialects.make_context()); "
            "print(any(m in sys.modules for m in PASS_MODULES))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=str(__import__('pathlib').Path(__file__).resolve().parents[2]))
    assert out.stdout.strip() == "False"
