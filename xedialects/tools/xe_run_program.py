"""xe-run's whole-program mode (as upstream mlir-runner): a `main` without arguments whose host code
is JIT-compiled for the CPU and whose kernels run on the simulator or an OpenCL device.

    xe-run FILE -e main --entry-point-result=void [--pipeline P] [--backend sim|opencl]
           [--shared-libs=LIB,...] [-O0|-O1|-O2|-O3] [--build-timeout S] [--time] [--jobs N] [--quiet]
           [--host-checks] [--timeout S]

Chosen when the command line has `-e`/`--entry-function` or `--entry-point-result`.
See docs/whole-programs.md.
"""
from __future__ import annotations

import argparse
import os
import sys

_RUNNER_LIBS = ("mlir_runner_utils", "mlir_c_runner_utils")


def wants(argv) -> bool:
    """True when the command line asks for the whole-program (mlir-runner) mode."""
    return any(a in ("-e", "--entry-function") or a.startswith(("--entry-point-result", "--entry-function="))
               or (a.startswith("-e") and len(a) > 2 and not a.startswith("--")) for a in argv)


def _parser() -> argparse.ArgumentParser:
    from .arg_parser import ArgParser, pipelines_help

    p = ArgParser(prog="xe-run", description=__doc__.split("\n\n")[0], more_help=pipelines_help,
                  formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="input .mlir file ('-' for stdin)")
    p.add_argument("-e", "--entry-function", dest="entry", default="main", help="function to run (default main)")
    p.add_argument("--entry-point-result", default="void", help="the entry's result type: only 'void'")
    p.add_argument("--shared-libs", action="append", default=[], metavar="LIBS",
                   help="comma-separated libraries; upstream's runner utils are loaded, IMEX's runner utils and "
                   "GPU runtimes are provided by xe-run and ignored (with a note)")
    p.add_argument("-O", dest="opt", type=int, choices=range(4), default=2, metavar="N",
                   help="optimization level of the host JIT, -O0..-O3 (default -O2)")
    p.add_argument("--pipeline", default="", help="pass pipeline applied to the whole module first")
    p.add_argument("--backend", default="sim", choices=["sim", "opencl"],
                   help="where kernels run: sim (functional simulator, default) or opencl (portable SPIR-V)")
    p.add_argument("--build-timeout", type=float, metavar="SECONDS", help="limit of the OpenCL build")
    p.add_argument("--time", action="store_true", help="print the time of each phase to stderr")
    p.add_argument("--jobs", type=_positive, metavar="N", help="simulate the work-groups of each launch in N "
                   "processes, results identical to --jobs 1 (default: the machine's cores)")
    p.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    p.add_argument("--host-checks", action="store_true", help="check the host code's memref accesses at run "
                   "time (upstream's -generate-runtime-verification): an out-of-bounds load, store or subview is "
                   "a located error")
    p.add_argument("--timeout", type=_seconds, metavar="SECONDS", help="stop the program after this long "
                   "(lowering, JIT and run of the host; default: no limit)")
    return p


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got '{text}'")
    return v


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return int(text)


def _shared_libs(values) -> list[str]:
    """The libraries of --shared-libs to load: upstream's runner utils; others noted and ignored."""
    keep = []
    for text in values:
        for lib in filter(None, (x.strip() for x in text.split(","))):
            base = os.path.basename(lib)
            stem = base[3:] if base.startswith("lib") else base
            stem = stem.split(".")[0]
            if stem in _RUNNER_LIBS:
                if os.path.exists(lib):
                    keep.append(lib)
                continue            # the wheel's copy is loaded anyway
            print(f"xe-run: note: --shared-libs: ignoring {lib} (IMEX's runner utilities are built into xe-run; "
                  "kernels run on xe-run's --backend)", file=sys.stderr)
    return keep


def unsupported_options(argv, kernel_options: set[str]) -> list[str]:
    """Options of xe-run's kernel mode (`kernel_options`) on a whole-program command line: each is an
    error ('not supported with -e') rather than argparse's 'unrecognized arguments'."""
    own = _parser().option_names()
    found = []
    for a in argv:
        name = a.split("=", 1)[0]
        if name.startswith("-") and name in kernel_options and name not in own and name not in found:
            found.append(name)
    return found


def run(argv) -> int:
    from .xe_run_parser import kernel_parser

    bad = unsupported_options(argv, kernel_parser().option_names())
    if bad:
        print(f"xe-run: error: {', '.join(bad)} {'is' if len(bad) == 1 else 'are'} not supported with -e (whole-program "
              "mode runs the program's own host code: it makes its inputs and checks its results itself)",
              file=sys.stderr)
        return 1
    args = _parser().parse_args(argv)
    from ..sim import progress
    from ..sim.parallel import default_jobs

    progress.configure(not args.quiet)
    if args.entry_point_result != "void":
        print(f"xe-run: error: --entry-point-result={args.entry_point_result}: only 'void' is supported",
              file=sys.stderr)
        return 1
    name = "<stdin>" if args.input == "-" else args.input
    try:
        source = sys.stdin.read() if args.input == "-" else open(args.input, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"xe-run: error: cannot read {name}: {e}", file=sys.stderr)
        return 1
    libs = _shared_libs(args.shared_libs)
    runtime = None
    if args.backend == "opencl":
        from ..runtime.opencl_build import build_timeout, prestart
        from ..runtime.opencl_env import OpenCLError, load

        try:
            build_timeout(args.build_timeout)
            runtime = load()
            prestart(runtime, args.build_timeout)
        except OpenCLError as e:
            print(f"xe-run: error: {e}", file=sys.stderr)
            return 1
    from ..lowering.upstream_to_xegpu import parse_program   # upstream xegpu programs are imported

    module = parse_program(source, name)
    from ..runtime.host.sizes import check_host_types

    check_host_types(module)            # before any pass computes strides of an absurd memref type
    from ..runtime.host.kernel_cfg import straighten_kernels
    from ..runtime.host.vc_threads import normalize_vc_launches

    normalize_vc_launches(module)       # IMEX's threads-are-subgroups launches -> work-items
    straighten_kernels(module)          # `cf.br ^bb1` entry blocks -> one block
    if args.pipeline:
        from ..passes import run as run_pipeline

        pipeline = args.pipeline if "(" in args.pipeline else f"builtin.module({args.pipeline})"
        run_pipeline(module, pipeline)
    program = None
    if runtime is not None:
        from ..runtime.opencl import program_for_module
        from ..runtime.opencl_env import OpenCLError

        try:
            program = program_for_module(module, runtime, "portable", build_timeout=args.build_timeout)
        except OpenCLError as e:
            print(f"xe-run: error: {e}", file=sys.stderr)
            return 1
    from ..runtime.host import HostExit, run_program

    try:
        stats = run_program(module, args.entry, program=program, opt_level=args.opt, shared_libs=libs,
                            jobs=args.jobs or default_jobs(), host_checks=args.host_checks, timeout=args.timeout)
    except HostExit as e:               # the program reported its error itself
        return e.code
    if args.time:
        phases = ", ".join(f"{k} {v:.3f} s" for k, v in stats.seconds.items())
        print(f"xe-run: {phases}; {stats.launches} kernel launch{'es' if stats.launches != 1 else ''}",
              file=sys.stderr)
    return 0


def main(argv=None) -> int:
    """xe-run's entry (its error handling) for a whole-program command line."""
    from .xe_run_exit import guarded

    argv = sys.argv[1:] if argv is None else list(argv)
    return guarded(lambda: run(argv))


if __name__ == "__main__":
    sys.exit(main())
