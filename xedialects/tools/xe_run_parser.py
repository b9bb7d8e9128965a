"""The command line of xe-run's kernel mode (`xe_run.py`): its parser, --help (with the sizes of
`--dims`) and --version. A module of its own because the whole-program mode (`xe_run_program.py`)
names these options too: on a `-e` command line they are an error of their own ('not supported with -e').
"""
from __future__ import annotations

import argparse

DESCRIPTION = "xe-run: run a program's kernels in the functional simulator and check them against upstream MLIR."

DIMS_HELP = """\
sizes (--dims, comma-separated, may be repeated; for random inputs):
  ARG=D0xD1...  the shape of memref argument %ARG (or argN): every dimension, each a
                number or a size name; static dimensions must match the type
  NAME=N        a size name usable in shapes; an index/integer argument %NAME gets N
examples, for @mm(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>):
  xe-run mm.mlir --pipeline=xe-gemm-to-xegpu --check --dims A=200x96,B=96x72,C=200x72
  xe-run mm.mlir --pipeline=xe-gemm-to-xegpu --check --dims M=200,N=72,K=96,A=MxK,B=KxN,C=MxN
and for @f(%A: memref<?x8xf32>, %n: index): --dims n=100,A=nx8 (n = 100, A is 100x8)

whole programs, as mlir-runner (the host code JIT-compiled, kernels on --backend):
  xe-run prog.mlir -e main --entry-point-result=void [-O0..-O3] [--shared-libs LIBS]
         [--pipeline P] [--backend sim|opencl] [--jobs N] [--build-timeout S] [--time] [--quiet]
         [--host-checks] [--timeout S]
  (xe-run prog.mlir -e main --help lists them)"""


def _version() -> str:
    from importlib import metadata

    try:
        return f"xe-run {metadata.version('xedialects')} (xedialects; MLIR Python bindings 22)"
    except metadata.PackageNotFoundError:
        return "xe-run (xedialects, not installed)"


def kernel_parser() -> argparse.ArgumentParser:
    """The parser of xe-run's kernel mode (`xe-run FILE [--check] ...`)."""
    from .arg_parser import ArgParser, pipelines_help

    p = ArgParser(prog="xe-run", description=DESCRIPTION, epilog=DIMS_HELP,
                  formatter_class=argparse.RawDescriptionHelpFormatter, more_help=pipelines_help)
    p.add_argument("input", help="input .mlir file ('-' for stdin)")
    p.add_argument("--version", action="version", version=_version())
    p.add_argument("--entry", help="host function to run (default: the only host function)")
    p.add_argument("--pipeline", default="", help="pass pipeline applied before running: a registered "
                   "pipeline/pass name or a textual 'builtin.module(...)' pipeline")
    p.add_argument("--seed", type=int, default=0, help="seed for random inputs (default 0)")
    p.add_argument("--inputs", help=".npz file with input arrays keyed by argument name or position")
    p.add_argument("--dims", action="append", metavar="SIZES",
                   help="shapes of dynamic memref arguments and values of size arguments for random inputs: "
                   "ARG=200x96 or NAME=200 (then ARG=NAMEx96), comma-separated; see below")
    p.add_argument("--output", help="write every buffer after the run to this .npz file (exactly this path; "
                   "only when the run, and --check, succeed)")
    p.add_argument("--draw", metavar="DIR", help="write SVG pictures of each GEMM kernel's plan to DIR (as "
                   "xe-opt --xe-draw; needs a --pipeline that lowers the GEMM to XeGPU)")
    p.add_argument("--check", action="store_true", help="compare with the CPU result of the original program")
    p.add_argument("--trace", action="store_true", help="print per-op execution counts (DPAS, block IO, bytes)")
    p.add_argument("--backend", default="sim", choices=["sim", "opencl", "both"],
                   help="execution backend: sim (functional simulator, default), opencl (SPIR-V on an OpenCL "
                   "device; pip install -e '.[run]'), both (run both, compare them)")
    p.add_argument("--build-timeout", type=float, metavar="SECONDS",
                   help="stop the OpenCL build of the kernels after this long (default: $XE_OPENCL_BUILD_TIMEOUT, "
                   "else 120; 0: no limit)")
    p.add_argument("--jobs", type=_positive, metavar="N", help="simulate the work-groups of each launch in N "
                   "processes, results identical to --jobs 1 (default: the machine's cores; "
                   "docs/simulator-scaling.md)")
    p.add_argument("--sample-groups", type=_positive, metavar="K", help="simulate only K work-groups of each "
                   "launch (always the first and last in every grid dimension, the rest spread by --seed); "
                   "--check compares only the elements they wrote")
    p.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    return p


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number >= 1")
    return n
