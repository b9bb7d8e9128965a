"""xe-run's generated arguments: scalars (random like the memrefs, or sizes from --dims) and the
shapes of dynamic memrefs (`--dims A=200x96,...` or named sizes `--dims M=200,K=96,A=MxK,...`).

* a dynamic-shape linalg.matmul lowered with xe-gemm-to-xegpu and checked against the CPU
  reference with each --dims form (also on OpenCL with the portable SPIR-V pipeline);
* a host function with index / i32 / i8 / i64 / f16 / bf16 scalar arguments: generated, given as
  sizes, the same values reach the simulator and the CPU reference (--check) and --output;
* scalar arguments through the GEMM pipeline (alpha * A x B + beta * C, dynamic shapes);
* errors: no size for a dynamic memref (the message's example command line runs), wrong rank,
  static size mismatch, undefined size names, unused sizes, float arguments, bad syntax,
  --dims with --inputs; always `xe-run: error: ...`, exit 1, no traceback.
"""
import os
import shlex
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

from opencl_support import needs_rt
from xedialects.sim.typeinfo import parse_type
from xedialects.tools.xe_run import _split_shape, arg_names, main, parse_dims, random_inputs, resolve_dims

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DYNAMIC_MM = """
func.func @mm(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) {
  linalg.matmul ins(%A, %B : memref<?x?xbf16>, memref<?x?xbf16>) outs(%C : memref<?x?xf32>)
  return
}
"""

# D[i] = n + h + b for i < n, E[i, :] = k + u + w: every scalar reaches the result
SCALARS = """
func.func @f(%D: memref<?xf32>, %E: memref<?x4xi32>, %n: index, %k: i32, %h: f16, %u: i8, %b: bf16, %w: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ni = arith.index_cast %n : index to i32
  %nf = arith.sitofp %ni : i32 to f32
  %hf = arith.extf %h : f16 to f32
  %bf = arith.extf %b : bf16 to f32
  %x = arith.addf %nf, %hf : f32
  %y = arith.addf %x, %bf : f32
  %u32 = arith.extsi %u : i8 to i32
  %s = arith.addi %k, %u32 : i32
  %wi = arith.trunci %w : i64 to i32
  %t = arith.addi %s, %wi : i32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %y, %D[%i] : memref<?xf32>
    scf.for %j = %c0 to %c4 step %c1 {
      memref.store %t, %E[%i, %j] : memref<?x4xi32>
    }
  }
  return
}
"""

ALPHA_BETA = """
func.func @f(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %alpha: f32, %beta: f32) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %t = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<?x?xf32>)
  linalg.matmul ins(%A, %B : memref<?x?xf16>, memref<?x?xf16>) outs(%t : memref<?x?xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<?x?xf32>) outs(%C : memref<?x?xf32>) {
  ^bb0(%p: f32, %old: f32):
    %ap = arith.mulf %alpha, %p : f32
    %bc = arith.mulf %beta, %old : f32
    %r = arith.addf %ap, %bc : f32
    linalg.yield %r : f32
  }
  memref.dealloc %t : memref<?x?xf32>
  return
}
"""


@pytest.fixture
def xe_run(tmp_path, capsys):
    """xe-run in this process: (exit status, stdout, stderr)."""
    def run(src, *args):
        path = tmp_path / "prog.mlir"
        path.write_text(src)
        capsys.readouterr()
        rc = main([str(path), *args])
        out, err = capsys.readouterr()
        return rc, out, err
    return run


# ----------------------------------------------------------------------------------------------
# dynamic shapes


@pytest.mark.parametrize("dims", [
    ["--dims", "A=200x96,B=96x72,C=200x72"],
    ["--dims", "M=200,N=72,K=96,A=MxK,B=KxN,C=MxN"],
    ["--dims", "M=200,N=72", "--dims=K=96,A=MxK", "--dims", "B=KxN,arg2=200x72"],   # repeated; argN
])
def test_dynamic_matmul_sizes_from_dims(xe_run, tmp_path, dims):
    out = tmp_path / "out.npz"
    rc, stdout, stderr = xe_run(DYNAMIC_MM, "--pipeline=xe-gemm-to-xegpu", "--check", *dims, "--output", str(out))
    assert rc == 0, stdout + stderr
    assert stdout.rstrip().endswith("PASS") and "C: max abs error" in stdout
    got = np.load(out)
    assert got["A"].shape == (200, 96) and got["B"].shape == (96, 72) and got["C"].shape == (200, 72)
    a, b = (got[k].view(ml_dtypes.bfloat16).astype(np.float32) for k in "AB")
    assert np.abs(a).max() <= 1 and np.abs(b).max() <= 1


@needs_rt
def test_dynamic_matmul_on_opencl(xe_run):
    rc, stdout, stderr = xe_run(DYNAMIC_MM, "--pipeline=xe-gemm-to-spirv-portable", "--backend=both", "--check",
                                "--dims", "M=100,N=40,K=56,A=MxK,B=KxN,C=MxN")
    assert rc == 0, stdout + stderr
    assert "backends agree" in stdout and stdout.rstrip().endswith("PASS")


def test_static_dims_may_be_repeated_and_must_match(xe_run):
    src = DYNAMIC_MM.replace("memref<?x?xbf16>, %B", "memref<?x96xbf16>, %B").replace(
        "ins(%A, %B : memref<?x?xbf16>", "ins(%A, %B : memref<?x96xbf16>")
    rc, stdout, stderr = xe_run(src, "--check", "--pipeline=xe-gemm-to-xegpu", "--dims", "A=64x96,B=96x32,C=64x32")
    assert rc == 0 and stdout.rstrip().endswith("PASS"), stdout + stderr
    rc, _, stderr = xe_run(src, "--dims", "A=64x95,B=96x32,C=64x32")
    assert rc == 1 and stderr == ("xe-run: error: --dims A=64x95: dimension 1 of %A (memref<?x96xbf16>) is 96, "
                                  "not 95\n")


# ----------------------------------------------------------------------------------------------
# scalar arguments


def test_scalar_arguments_generated_given_and_checked(xe_run, tmp_path):
    out = tmp_path / "out.npz"
    rc, stdout, stderr = xe_run(SCALARS, "--check", "--dims", "n=5,D=n,E=nx4", "--seed", "3", "--output", str(out))
    assert rc == 0 and stdout.rstrip().endswith("PASS"), stdout + stderr
    assert stdout.startswith("scalar arguments: %n = 5 : index, %k = ")
    got = np.load(out)
    n, k, h, u, w = (got[x][()] for x in "nkhuw")
    b = got["b"].view(ml_dtypes.bfloat16)[()]
    assert n == 5 and got["D"].shape == (5,) and got["E"].shape == (5, 4)
    assert all(-4 <= int(v) <= 4 for v in (k, u, w)) and -1 <= float(h) < 1 and -1 <= float(b) < 1
    assert np.all(got["D"] == np.float32(5) + np.float32(h) + np.float32(b))
    assert np.all(got["E"] == int(k) + int(u) + int(w))
    # the same seed draws the same values, another seed others
    again = tmp_path / "again.npz"
    assert xe_run(SCALARS, "--dims", "n=5,D=n,E=nx4", "--seed", "3", "--output", str(again))[0] == 0
    assert all(np.array_equal(got[x], np.load(again)[x]) for x in got.files)
    other = xe_run(SCALARS, "--dims", "n=5,D=n,E=nx4", "--seed", "4")[1]
    assert other.splitlines()[0] != stdout.splitlines()[0]


def test_size_argument_value_and_shape_agree(xe_run, tmp_path):
    """`--dims k=3,n=7,...`: an integer argument named like a size gets it; without a size an index
    argument is random in 0..4."""
    out = tmp_path / "out.npz"
    rc, stdout, stderr = xe_run(SCALARS, "--check", "--dims", "n=7,k=3,D=n,E=nx4", "--output", str(out))
    assert rc == 0, stdout + stderr
    got = np.load(out)
    assert got["n"] == 7 and got["k"] == 3 and got["D"].shape == (7,)
    types = [parse_type(t) for t in ["index", "memref<2xi8>", "i1", "ui8"]]
    for seed in range(20):
        n, a, flag, u = random_inputs(types, np.random.default_rng(seed))
        assert 0 <= n <= 4 and a.min() >= -4 and a.max() <= 4 and flag.dtype == np.bool_ and 0 <= u <= 4


def test_scalar_arguments_through_the_gemm_pipeline(xe_run):
    rc, stdout, stderr = xe_run(ALPHA_BETA, "--pipeline=xe-gemm-to-xegpu", "--check",
                                "--dims", "M=72,N=40,K=56,A=MxK,B=KxN,C=MxN")
    assert rc == 0 and stdout.rstrip().endswith("PASS"), stdout + stderr
    assert stdout.startswith("scalar arguments: %alpha = ") and " : f32, %beta = " in stdout
    assert "alpha: max abs" not in stdout     # only buffers are compared


def test_inputs_file_gives_scalars_too(xe_run, tmp_path):
    path = tmp_path / "in.npz"
    np.savez(path, D=np.zeros(3, np.float32), E=np.zeros((3, 4), np.int32), n=np.int64(3), k=np.int32(1),
             h=np.float16(0.5), u=np.int8(2), b=np.zeros((), ml_dtypes.bfloat16).view(np.uint16), w=np.int64(4))
    rc, stdout, stderr = xe_run(SCALARS, "--check", "--inputs", str(path))
    assert rc == 0 and stdout.rstrip().endswith("PASS"), stdout + stderr
    assert "%n = 3 : index, %k = 1 : i32, %h = 0.5 : f16, %u = 2 : i8" in stdout


# ----------------------------------------------------------------------------------------------
# errors


def test_missing_sizes_error_shows_a_command_that_works(xe_run):
    rc, stdout, stderr = xe_run(DYNAMIC_MM, "--pipeline=xe-gemm-to-xegpu", "--check")
    assert rc == 1 and stdout == ""
    lines = stderr.splitlines()
    assert lines[0] == ("xe-run: error: arguments %A (memref<?x?xbf16>), %B (memref<?x?xbf16>), %C (memref<?x?xf32>) "
                        "have a dynamic shape and no size; give their shapes with --dims, e.g.")
    assert lines[1].startswith("  xe-run ") and lines[1].endswith(
        "prog.mlir --pipeline=xe-gemm-to-xegpu --check --dims A=64x64,B=64x64,C=64x64")
    assert "--dims M=200,K=96,A=MxK" in lines[2] and "--inputs FILE.npz" in lines[2]
    # the example runs
    rc = main(shlex.split(lines[1])[1:])
    assert rc == 0


def test_missing_size_of_one_argument(xe_run):
    rc, _, stderr = xe_run(DYNAMIC_MM, "--check", "--dims", "M=200,K=96,A=MxK", "--dims", "B=96x72,Q=5")
    assert rc == 1
    assert stderr.startswith("xe-run: error: argument %C (memref<?x?xf32>) has a dynamic shape and no size; give its "
                             "shape with --dims, e.g.\n")
    assert stderr.splitlines()[1].endswith("--check --dims M=200,K=96,A=MxK,B=96x72,C=64x64")   # unused Q left out


@pytest.mark.parametrize("dims,message", [
    ("A=200x96x1,B=96x72,C=200x72", "--dims A=200x96x1: 3 sizes for %A of type memref<?x?xbf16> (rank 2)"),
    ("A=200,B=96x72,C=200x72", "--dims A=200: 1 size for %A of type memref<?x?xbf16> (rank 2)"),
    ("M=200,A=MxK,B=96x72,C=200x72",
     "--dims A=MxK: a shape is sizes joined by 'x', each a number or a size name given a value in --dims; "
     "define K (e.g. --dims K=64,A=MxK)"),
    ("A=200x96,B=96x72,C=200x72,Z=4",
     "--dims Z=4: @mm has no argument %Z and no shape in --dims uses Z; a size name stands for a number in shapes, "
     "e.g. --dims Z=4,A=Zx64 (memref arguments: %A, %B, %C)"),
    ("A=200x96,B=96x72,C=200x72,M=big",
     "--dims M=big: a size is a whole number; M is not a memref argument of @mm (memref arguments: %A, %B, %C)"),
    ("A=200x96,A=3x3", "--dims gives A twice: A=200x96 and A=3x3"),
    ("A=200x96,B=96x72,C=200x72,arg0=200x96", "--dims names argument %A twice: A=200x96 and arg0=200x96"),
    ("A", "--dims: 'A' is not NAME=VALUE (e.g. A=200x96 for a memref argument %A, or M=200)"),
])
def test_dims_errors(xe_run, dims, message):
    rc, stdout, stderr = xe_run(DYNAMIC_MM, "--check", "--dims", dims)
    assert rc == 1 and stdout == ""
    assert stderr == f"xe-run: error: {message}\n"


def test_dims_for_a_float_argument(xe_run):
    rc, _, stderr = xe_run(SCALARS, "--dims", "n=5,D=n,E=nx4,h=3")
    assert rc == 1 and stderr == ("xe-run: error: --dims h=3: argument %h has type f16; --dims gives the shapes of "
                                  "memref arguments and the values of index/integer arguments\n")


def test_dims_with_inputs(xe_run, tmp_path):
    path = tmp_path / "in.npz"
    np.savez(path, A=np.zeros((4, 4)), B=np.zeros((4, 4)), C=np.zeros((4, 4)))
    rc, _, stderr = xe_run(DYNAMIC_MM, "--inputs", str(path), "--dims", "A=4x4")
    assert rc == 1 and stderr.startswith("xe-run: error: --dims sizes random inputs; with --inputs the arrays give")


def test_errors_without_traceback_in_a_subprocess(tmp_path):
    path = tmp_path / "mm.mlir"
    path.write_text(DYNAMIC_MM)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), str(path), "--check"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1 and r.stderr.startswith("xe-run: error: arguments %A") and "Traceback" not in r.stderr
    assert "--dims" in r.stdout + r.stderr
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), "--help"], capture_output=True,
                       text=True, cwd=ROOT)
    assert r.returncode == 0 and "--dims SIZES" in r.stdout and "M=200,N=72,K=96,A=MxK,B=KxN,C=MxN" in r.stdout


# ----------------------------------------------------------------------------------------------
# pieces


def test_argument_names_with_layouts_and_attributes():
    src = ("func.func @g(%A: memref<?x?xf32, strided<[?, 1], offset: ?>> {llvm.noalias}, "
           "%map: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, %n_x: index) {\n  return\n}\n"
           "func.func private @h(%z: f32)")
    assert arg_names(src, "g") == ["A", "map", "n_x"]
    assert arg_names(src, "h") == ["z"]


def test_size_names_containing_x():
    assert _split_shape("nxx8", {"nx"}) == ["nx", "8"]
    assert _split_shape("nx8", {"n", "nx"}) == ["n", "8"]
    assert _split_shape("xxx", {"x"}) == ["x", "x"]
    assert _split_shape("Mx", {"M"}) is None
    types = [parse_type("memref<?x8xf32>"), parse_type("index")]
    shapes, scalars = resolve_dims(parse_dims(["nx=100,A=nxx8"]), ["A", "nx"], types, "f")
    assert shapes == {0: (100, 8)} and scalars == {1: 100}


def test_reader_of_stdout_gone_ends_quietly():
    # `xe-run ... --trace | head -1`: the closed pipe is no internal error and no traceback
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cmd = (f"{shlex.quote(sys.executable)} tools/xe-run.py examples/gemm_bf16.mlir --pipeline=xe-gemm-to-xegpu "
           "--trace --check | head -1")
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=root, timeout=300)
    assert p.stdout == "simulation trace:\n"
    assert p.stderr == "", p.stderr


LAUNCHING_HOST = """
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @copy(%a: memref<8x16xf32>, %b: memref<8x16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %ta = xetile.init_tile %a[%c0, %c0] : memref<8x16xf32> -> !xetile.tile<8x16xf32>
      %v = xetile.load_tile %ta : !xetile.tile<8x16xf32> -> vector<8x16xf32>
      %tb = xetile.init_tile %b[%c0, %c0] : memref<8x16xf32> -> !xetile.tile<8x16xf32>
      xetile.store_tile %v, %tb : vector<8x16xf32>, !xetile.tile<8x16xf32>
      gpu.return
    }
  }
  func.func @host(%a: memref<8x16xf32>, %b: memref<8x16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8x16xf32>, %b : memref<8x16xf32>)
    return
  }
}
"""


def test_check_of_a_host_that_launches_kernels_is_a_clear_error(xe_run):
    """--check compiles the entry for the CPU: a host function with its own gpu.launch_func has no CPU
    form (its kernels are XeTile), so it is an error that says how such programs are checked; @host
    takes arguments, which whole-program mode (-e NAME --entry-point-result=void) refuses, so the hint
    is a run without --check or a main without arguments."""
    rc, out, err = xe_run(LAUNCHING_HOST, "--entry", "host", "--check")
    assert rc == 1 and "internal error" not in err
    assert "launches GPU kernels itself (gpu.launch_func)" in err and "-e host --entry-point-result=void" not in err
    assert "@host takes arguments, so run it without --check" in err and "-e main --entry-point-result=void" in err
    with open(os.path.join(ROOT, "test", "lit", "xe-run", "whole-program.mlir")) as f:   # @main(): whole-program mode
        rc, out, err = xe_run(f.read(), "--entry", "main", "--check")
    assert rc == 1 and err.endswith("checks its own results: run it with -e main --entry-point-result=void\n")
    rc, out, err = xe_run(LAUNCHING_HOST, "--entry", "host")                 # without --check it runs
    assert rc == 0, err


def test_usage_errors_exit_1_and_kernel_options_with_e_are_named(capsys, tmp_path):
    """xe-run's command-line errors exit 1 as xe-opt's do (argparse's own status is 2); kernel-mode
    options in whole-program mode are 'not supported with -e', not 'unrecognized arguments', also
    through the whole-program entry `xe_run_program.main`."""
    from xedialects.tools.xe_run import main

    assert main(["x.mlir", "--no-such-option"]) == 1
    assert "xe-run: error: unrecognized arguments: --no-such-option" in capsys.readouterr().err
    assert main([]) == 1 and "required: input" in capsys.readouterr().err
    assert main(["x.mlir", "-e", "main", "--check", "--output=o.npz", "--sample-groups", "2"]) == 1
    err = capsys.readouterr().err
    assert "--check, --output, --sample-groups are not supported with -e" in err and "unrecognized" not in err
    assert not (tmp_path / "o.npz").exists()
    from xedialects.tools import xe_run_program      # the whole-program entry: the same errors, exit 1

    assert xe_run_program.main(["x.mlir", "-e", "main", "--check"]) == 1
    assert "--check is not supported with -e" in capsys.readouterr().err
    assert xe_run_program.main(["x.mlir", "-e", "main", "--no-such-option"]) == 1
    assert "xe-run: error: unrecognized arguments: --no-such-option" in capsys.readouterr().err


def test_help_and_version_tell_the_whole_truth(capsys):
    """xe-run --version works; --help names the whole-program mode's options; xe-opt's --help and
    --list-passes name --convert-upstream-xegpu and print a default once."""
    import pytest

    from xedialects.tools import xe_opt
    from xedialects.tools.xe_run import main

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("xe-run ")
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "-e main --entry-point-result=void [-O0..-O3]" in out
    # --pipeline's named pipelines with the options they forward (arch choices from xedialects.arch)
    from xedialects.arch import ARCHS

    assert "\n  xe-gemm-to-spirv-portable  -  " in out
    assert (f"      arch=<string> (default: the module's recorded xe.arch, else pvc) [{'|'.join(ARCHS)}] -> "
            "convert-linalg-to-xetile, xetile-wg-to-sg, xetile-blocking, convert-xetile-to-xegpu, "
            "convert-xegpu-to-spirv\n") in out
    assert ("      target=<string> (default: pvc) [pvc|portable] -> convert-xegpu-to-spirv; the pipeline sets "
            "target=portable for convert-xegpu-to-spirv\n") in out
    with pytest.raises(SystemExit):      # the whole-program mode's --help lists them too
        main(["x.mlir", "-e", "main", "--help"])
    out = capsys.readouterr().out
    assert "--host-checks" in out and "\n  xe-gemm-to-spirv-portable  -  " in out
    assert xe_opt.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--convert-upstream-xegpu" in out and '(default: planner) (default: "")' not in out
    assert xe_opt.main(["--list-passes"]) == 0
    assert "convert-upstream-xegpu  -  " in capsys.readouterr().out


_DEQUANT_LEFT_ON_HOST = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#g = affine_map<(d0, d1) -> (d0 floordiv 8, d1)>
func.func @q(%A: memref<5xKxf16>, %W: memref<KxNxi8>, %S: memref<GxNxf16>, %C: memref<5xNxf32>) {
  %B = memref.alloc() : memref<KxNxf16>
  linalg.generic {indexing_maps = [#id, #g, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<KxNxi8>, memref<GxNxf16>) outs(%B : memref<KxNxf16>) {
  ^bb0(%w: i8, %s: f16, %o: f16):
    %f = arith.sitofp %w : i8 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul ins(%A, %B : memref<5xKxf16>, memref<KxNxf16>) outs(%C : memref<5xNxf32>)
  memref.dealloc %B : memref<KxNxf16>
  return
}
"""


@pytest.mark.parametrize("k, n, ok", [(32, 40, True), (512, 512, False)])
def test_check_runs_what_the_pipeline_left_on_the_host(tmp_path, capsys, k, n, ok):
    """A dequantization with groups of 8 rows is not fused (a remark) and its generic stays on the host: the
    simulator runs it as upstream convert-linalg-to-loops' loops (sim/host_linalg.py; before: 'unsupported
    operation linalg.generic', exit 1, for every unfused attention or dequantization); a nest of more than
    2^17 iterations (here 262,144) is refused with the reason instead of minutes of interpretation."""
    path = tmp_path / "q.mlir"
    path.write_text(_DEQUANT_LEFT_ON_HOST.replace("K", str(k)).replace("N", str(n)).replace("G", str(k // 8)))
    rc = main([str(path), "--pipeline=xe-gemm-to-xegpu", "--check", "--quiet"])
    out = capsys.readouterr()
    assert "dequantization not fused into the GEMM" in out.err
    if ok:
        assert rc == 0 and "PASS" in out.out, out.out + out.err
    else:
        assert rc == 1 and "as loops they run 262,144 iterations" in out.err, out.err


def test_host_leftovers_of_other_functions_do_not_count(tmp_path, capsys):
    """Only what --entry runs is lowered for the host interpreter and counted against its limit: a large
    leftover in another function (never executed) does not refuse the entry (lit col-major.mlir's case)."""
    big = _DEQUANT_LEFT_ON_HOST.replace("K", "512").replace("N", "512").replace("G", "64")
    small = (_DEQUANT_LEFT_ON_HOST.replace("K", "32").replace("N", "40").replace("G", "4").replace("@q(", "@small(")
             .replace("#id", "#id2").replace("#g", "#g2"))
    path = tmp_path / "two.mlir"
    (bmaps, bfunc), (smaps, sfunc) = (t.split("func.func", 1) for t in (big, small))
    path.write_text(bmaps + smaps + "func.func" + bfunc + "func.func" + sfunc)   # aliases before operations
    rc = main([str(path), "--entry", "small", "--pipeline=xe-gemm-to-xegpu", "--check", "--quiet"])
    out = capsys.readouterr()
    assert rc == 0 and "PASS" in out.out, out.out + out.err
