"""xe-run: run a program's kernels in the functional simulator and check them against upstream MLIR.

    xe-run FILE [--entry FUNC] [--pipeline NAME|'builtin.module(...)'] [--seed N]
           [--inputs in.npz | --dims SIZES] [--output out.npz] [--check] [--trace]
           [--backend sim|opencl|both] [--build-timeout SECONDS]
           [--jobs N] [--sample-groups K] [--quiet]

The input is either a host function that launches kernels (`gpu.launch_func`) or a plain linalg
function plus a `--pipeline` that lowers it. Arguments are random (seeded) or read from `--inputs`
(keyed by the argument names of the source, `%A` -> `A`, or by position `arg0`). Random memrefs
and scalars hold integers -4..4 (unsigned and index: 0..4, i1: 0/1, i4 memrefs: -8..7, one value per
int8 in the npz files as in memory order, packed two per byte only for the CPU reference and the kernels)
or floats uniform in [-1, 1);
the sizes of dynamic memrefs and index/integer arguments that are sizes come from `--dims` (below).
With `--check` every buffer after the run is compared with the *original* linalg function compiled
for the CPU by upstream MLIR, on the same arguments; exit status 1 on FAIL or on any error. A
function on tensors is bufferized first (`xe-bufferize`) and runs as that memref function; its
returned buffer is checked too. The CPU reference is compiled before the kernels run and run after
them (large contractions tiled and vectorized, GEMM-like functions by row blocks on `--jobs`
threads, a sampled run only the blocks its work-groups wrote); a `phases:` line gives the time
of each phase (reference compile, lowering, simulation, reference run, compare).

`--backend opencl` runs the kernels' SPIR-V (`convert-xegpu-to-spirv{target=portable}`, applied
here when the pipeline stops at XeGPU; a `pvc` binary from `--pipeline=xe-gemm-to-spirv` runs with
the DPAS / 2D block builtins emulated in OpenCL C) on an OpenCL device, e.g. Intel's OpenCL CPU
runtime (`pip install -e '.[run]'`); the host function is still interpreted. `--backend both` runs the
simulator and OpenCL and also fails when they disagree. The OpenCL build of the SPIR-V is stopped
after `--build-timeout` seconds (default: $XE_OPENCL_BUILD_TIMEOUT, else 120; 0: no limit).

The simulator runs the work-groups of each launch in `--jobs` processes (default: the cores;
results identical to `--jobs 1`); `--sample-groups K` runs only K of them (the grid's corners
among them) and `--check` then compares just the elements they wrote. Runs longer than ~2 s show
progress on stderr when it is a terminal (not with `--quiet`). docs/simulator-scaling.md.
"""
from __future__ import annotations

import re
import sys
import time

import numpy as np

from ..diagnostics import DiagnosticError
from ..user_errors import UserError
from .xe_run_parser import kernel_parser

_FUNC = re.compile(r"func\.func\s+(?:(?:private|public|nested)\s+)?@([\w$.-]+)\s*\(")
_ARG = re.compile(r"%([\w$.-]+)\s*:")


def arg_names(source: str, entry: str) -> list[str]:
    """Argument names of `entry` as written in the source (`%A` -> `A`)."""
    for m in _FUNC.finditer(source):
        if m.group(1) != entry:
            continue
        depth, i = 1, m.end()
        while i < len(source) and depth:      # the balanced argument list (types may hold parentheses)
            depth += {"(": 1, ")": -1}.get(source[i], 0)
            i += 1
        return _ARG.findall(source[m.end():i - 1])
    return []


def host_functions(module) -> list[str]:
    from mlir import ir

    names = []
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and "sym_visibility" not in op.attributes:
            names.append(ir.StringAttr(op.attributes["sym_name"]).value)
    return names


class InputError(UserError, ValueError):
    """A user error in the arguments of the run (reported as `xe-run: error: ...`)."""


def _random_values(dtype, shape, rng):
    """Random integers -4..4 (unsigned: 0..4, i1: 0/1) or floats uniform in [-1, 1)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind == "u":
        return rng.integers(0, 5, shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-4, 5, shape).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(np.float32).astype(dtype)


def random_inputs(types, rng, shapes=None, scalars=None, labels=None):
    """Random arguments for `types` (seeded `rng`, drawn in argument order): memrefs of their static
    shape or of `shapes[i]`, scalars `scalars[i]` or random (index: 0..4)."""
    shapes, scalars = shapes or {}, scalars or {}
    from .input_sizes import check_input_sizes

    check_input_sizes(types, shapes, labels, InputError)
    arrays = []
    for i, t in enumerate(types):
        what = f"argument %{labels[i]}" if labels and i < len(labels) else f"argument {i}"
        if t.kind == "scalar":
            if i in scalars:
                arrays.append(np.asarray(scalars[i]).astype(t.dtype))
            elif t.elem == "index":
                arrays.append(np.asarray(rng.integers(0, 5)).astype(t.dtype))
            else:
                arrays.append(_random_values(t.dtype, (), rng))
            continue
        if t.kind != "memref":
            raise InputError(f"{what} of type {t.text} cannot be generated; pass it with --inputs")
        shape = shapes.get(i) or tuple(int(d) for d in t.shape)
        if any(d < 0 for d in shape):
            raise InputError(f"{what} has a dynamic shape ({t.text}); give its sizes with --dims")
        if t.elem == "i4":           # the whole i4 range, one value per int8 (sim/i4_memrefs.py)
            arrays.append(rng.integers(-8, 8, shape).astype(np.int8))
            continue
        arrays.append(_random_values(t.dtype, shape, rng))
    return arrays


def parse_dims(texts) -> dict[str, str]:
    """The `--dims` options (each a comma-separated list of NAME=VALUE) as {name: value}."""
    out = {}
    for text in texts or []:
        for item in text.split(","):
            item = item.strip()
            if not item:
                continue
            name, eq, value = item.partition("=")
            name, value = name.strip().lstrip("%"), value.strip().replace(" ", "")
            if not eq or not name or not value:
                raise InputError(f"--dims: '{item}' is not NAME=VALUE (e.g. A=200x96 for a memref argument %A, "
                                 "or M=200)")
            if out.get(name, value) != value:
                raise InputError(f"--dims gives {name} twice: {name}={out[name]} and {name}={value}")
            out[name] = value
    return out


def _split_shape(text: str, sizes) -> list[str] | None:
    """`200xK` -> ['200', 'K'] with K a size name (names may contain 'x': every split is tried)."""
    for j in range(1, len(text) + 1):
        head = text[:j]
        if (head.isdigit() or head in sizes) and (j == len(text) or text[j] == "x"):
            if j == len(text):
                return [head]
            rest = _split_shape(text[j + 1:], sizes)
            if rest is not None:
                return [head] + rest
    return None


def resolve_dims(dims: dict[str, str], labels, types, entry: str):
    """({arg index: shape} for memref arguments, {arg index: value} for index/integer arguments)
    from parsed `--dims` (see xe_run_parser.DIMS_HELP)."""
    from ..sim.typeinfo import DYN
    index = _arg_index(labels)
    memrefs = ", ".join(f"%{labels[i]}" for i, t in enumerate(types) if t.kind == "memref") or "none"
    sizes, shape_specs, named = {}, {}, {}
    for name, value in dims.items():
        i = index.get(name)
        t = types[i] if i is not None else None
        if i is not None:
            if i in named:
                raise InputError(f"--dims names argument %{labels[i]} twice: {named[i]}={dims[named[i]]} and "
                                 f"{name}={value}")
            named[i] = name
        if t is not None and t.kind == "memref":
            shape_specs[i] = (name, value)
            continue
        if t is not None and (t.kind != "scalar" or t.dtype.kind not in "iub"):
            raise InputError(f"--dims {name}={value}: argument %{name} has type {t.text}; --dims gives the shapes of "
                             "memref arguments and the values of index/integer arguments")
        if not value.isdigit():
            raise InputError(f"--dims {name}={value}: a size is a whole number; {name} is not a memref argument of "
                             f"@{entry} (memref arguments: {memrefs})")
        if int(value) > 2 ** 63 - 1:
            raise InputError(f"--dims {name}={value}: a size is at most 2^63 - 1")
        sizes[name] = int(value)
    scalars = {index[n]: v for n, v in sizes.items() if n in index}
    used = set()
    shapes = {}
    for i, (name, text) in shape_specs.items():
        t = types[i]
        parts = _split_shape(text, sizes)
        if parts is None:
            unknown = [w for w in text.split("x") if w and not w.isdigit() and w not in sizes]
            hint = (f"; define {', '.join(unknown)} (e.g. --dims {unknown[0]}=64,{name}={text})" if unknown else "")
            raise InputError(f"--dims {name}={text}: a shape is sizes joined by 'x', each a number or a size name "
                             f"given a value in --dims{hint}")
        used.update(p for p in parts if not p.isdigit())
        shape = tuple(int(p) if p.isdigit() else sizes[p] for p in parts)
        if len(shape) != len(t.shape):
            raise InputError(f"--dims {name}={text}: {len(shape)} size{'s' if len(shape) != 1 else ''} for "
                             f"%{labels[i]} of type {t.text} (rank {len(t.shape)})")
        for d, (want, got) in enumerate(zip(t.shape, shape)):
            if want >= 0 and want != got:
                raise InputError(f"--dims {name}={text}: dimension {d} of %{labels[i]} ({t.text}) is {want}, "
                                 f"not {got}")
        shapes[i] = shape
    unused = [n for n in sizes if n not in used and n not in index]
    if unused:
        n = unused[0]
        ranked = sorted((i for i, t in enumerate(types) if t.kind == "memref" and t.shape),
                        key=lambda i: DYN not in types[i].shape)       # a dynamic one first
        example = "" if not ranked else f", e.g. --dims {n}={sizes[n]},{labels[ranked[0]]}=" + \
            "x".join([n] + ["64"] * (len(types[ranked[0]].shape) - 1))
        raise InputError(f"--dims {n}={sizes[n]}: @{entry} has no argument %{n} and no shape in --dims uses {n}; "
                         f"a size name stands for a number in shapes{example} (memref arguments: {memrefs})")
    return shapes, scalars


def _arg_index(labels) -> dict[str, int]:
    index = {}
    for i, lab in enumerate(labels):
        index.setdefault(lab, i)
        index.setdefault(f"arg{i}", i)
    return index


def missing_dims_message(argv, dims: dict[str, str], labels, types) -> str | None:
    """The error for dynamic memref arguments that `--dims` gives no shape, with an example
    command line that does (None when every one has a shape)."""
    import shlex

    index = _arg_index(labels)
    given = {index[n] for n in dims if n in index}
    missing = [i for i, t in enumerate(types) if t.kind == "memref" and i not in given and any(d < 0 for d in t.shape)]
    if not missing:
        return None
    kept, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--dims":
            skip = True
        elif not a.startswith("--dims="):
            kept.append(a)
    words = {w for n, v in dims.items() if n in index for w in v.split("x")}
    spec = {n: v for n, v in dims.items() if n in index or n in words}   # sizes no shape uses are left out
    for i in missing:
        spec[labels[i]] = "x".join("64" if d < 0 else str(d) for d in types[i].shape)
    example = shlex.join(["xe-run", *kept, "--dims", ",".join(f"{k}={v}" for k, v in spec.items())])
    what = ", ".join(f"%{labels[i]} ({types[i].text})" for i in missing)
    plural = len(missing) > 1
    return (f"argument{'s' if plural else ''} {what} {'have' if plural else 'has'} a dynamic shape and no size; "
            f"give {'their shapes' if plural else 'its shape'} with --dims, e.g.\n  {example}\n"
            "(every dimension of each shape; a size may be named and reused: --dims M=200,K=96,A=MxK; "
            "or pass the arrays with --inputs FILE.npz)")


def _scalar_text(value) -> str:
    v = np.asarray(value).reshape(())[()]
    return str(bool(v)).lower() if isinstance(v, np.bool_) else str(v)


def _narrowest_float(types):
    """The lowest-precision float element type among the arguments (the GEMM input type that sets
    the comparison tolerance), or None."""
    import ml_dtypes

    floats = [t.dtype for t in types if t.dtype is not None and np.dtype(t.dtype).kind in "fV"]
    return min(floats, key=lambda d: ml_dtypes.finfo(d).nmant, default=None)


def _tolerance_type(dtype, rounded):
    """The output type whose tolerance a float result is checked with: its own, or the narrower type
    an attention program rounds its probabilities to (`rounded`, docs/attention.md "Numerics")."""
    import ml_dtypes

    if rounded is None or dtype is None or np.dtype(dtype).kind != "f":
        return dtype
    narrow = ml_dtypes.bfloat16 if rounded == "bf16" else np.float16
    return rounded if ml_dtypes.finfo(narrow).nmant < ml_dtypes.finfo(dtype).nmant else dtype


def load_inputs(path, names, types):
    data = np.load(path)
    arrays = []
    for i, t in enumerate(types):
        key = names[i] if i < len(names) and names[i] in data else f"arg{i}" if f"arg{i}" in data else str(i)
        if key not in data:
            raise ValueError(f"{path}: no array for argument {i} ('{names[i] if i < len(names) else i}'); "
                             f"keys are {', '.join(data.files)}")
        arrays.append(data[key].astype(t.dtype) if t.dtype is not None else data[key])
        if t.elem == "i4":
            from ..sim.i4_memrefs import check_range

            check_range(data[key], f"{path}: argument {i} ('{key}')")
    return arrays


def run(argv=None) -> int:
    from ..sim import simulate
    from ..sim.reference import compare, prepare, run_reference

    args = kernel_parser().parse_args(argv)
    if args.sample_groups and args.backend != "sim":
        print("xe-run: error: --sample-groups samples the simulator's work-groups; use it with --backend sim",
              file=sys.stderr)
        return 1
    if args.output:
        from ..output_files import OutputError, check_writable

        try:
            check_writable(args.output)          # before the run, not after it
        except OutputError as e:
            print(f"xe-run: error: --output: {e}", file=sys.stderr)
            return 1
    from ..sim import progress

    progress.configure(not args.quiet)
    name = "<stdin>" if args.input == "-" else args.input
    try:
        source = sys.stdin.read() if args.input == "-" else open(args.input, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"xe-run: error: cannot read {name}: {e}", file=sys.stderr)
        return 1
    from ..lowering.upstream_to_xegpu import parse_program   # upstream xegpu programs are imported

    module = parse_program(source, name)
    hosts = host_functions(module)
    entry = args.entry or (hosts[0] if len(hosts) == 1 else None)
    if entry is None:
        print(f"xe-run: error: {name} has host functions {', '.join('@' + h for h in hosts) or '(none)'}; "
              "choose one with --entry", file=sys.stderr)
        return 1
    if entry not in hosts:
        print(f"xe-run: error: no host function @{entry} in {name}", file=sys.stderr)
        return 1
    if args.backend != "sim":
        from ..runtime.opencl_build import build_timeout, prestart
        from ..runtime.opencl_env import OpenCLError, load

        try:
            build_timeout(args.build_timeout)
        except OpenCLError as e:
            where = "" if args.build_timeout is None else f"--build-timeout {args.build_timeout:g}: "
            print(f"xe-run: error: {where}{e}", file=sys.stderr)
            return 1
        try:   # no runtime: say so before lowering; else the build worker starts while we lower
            prestart(load(), args.build_timeout)
        except OpenCLError as e:
            print(f"xe-run: error: {e}", file=sys.stderr)
            return 1
    from mlir import ir

    def entry_type():
        fop = next(op.operation for op in module.body.operations if op.operation.name == "func.func" and
                   ir.StringAttr(op.operation.attributes["sym_name"]).value == entry)
        return ir.FunctionType(ir.TypeAttr(fop.attributes["function_type"]).value)

    reference_program = source
    if "tensor<" in str(entry_type()):
        # a tensor program runs (and is checked) as its bufferized form: memref arguments, the
        # result tensor becomes a returned buffer
        from ..passes import run as run_pipeline

        run_pipeline(module, "builtin.module(xe-bufferize)")
        reference_program = module
    ftype = entry_type()
    types, ret_types = _signature_types(module, entry, ftype)
    names = arg_names(source, entry)
    labels = [names[i] if i < len(names) else f"arg{i}" for i in range(len(types))]
    try:
        dims = parse_dims(args.dims)
        if args.inputs:
            if dims:
                raise InputError("--dims sizes random inputs; with --inputs the arrays give the shapes (use one "
                                 "of them)")
            inputs = load_inputs(args.inputs, names, types)
        else:
            message = missing_dims_message(sys.argv[1:] if argv is None else list(argv), dims, labels, types)
            if message:
                raise InputError(message)
            shapes, scalars = resolve_dims(dims, labels, types, entry)
            inputs = random_inputs(types, np.random.default_rng(args.seed), shapes, scalars, labels)
    except (ValueError, OSError) as e:
        print(f"xe-run: error: {e}", file=sys.stderr)
        return 1
    scalar_args = [f"%{lab} = {_scalar_text(a)} : {t.elem}" for lab, a, t in zip(labels, inputs, types)
                   if t.kind == "scalar"]
    if scalar_args:
        print(f"scalar arguments: {', '.join(scalar_args)}")
    times = []      # (phase, seconds) for the summary
    if args.check and _launches_kernels(module, entry):
        how = (f"run it with -e {entry} --entry-point-result=void" if not types else
               f"@{entry} takes arguments, so run it without --check (generated inputs, simulated kernels), or "
               "from a `main` without arguments that fills and checks the buffers: -e main --entry-point-result=void")
        print(f"xe-run: error: --check compiles @{entry} for the CPU, but the program launches GPU kernels "
              f"itself (gpu.launch_func); a whole program checks its own results: {how}", file=sys.stderr)
        return 1
    from ..lowering.linalg_to_xetile.attention_match import rounded_probabilities

    rounded = rounded_probabilities(module.operation)   # attention: P's rounding sets the tolerance
    if args.check:
        from ..lowering.linalg_to_xetile.loop_sizes import check_module

        check_module(module.operation)      # its CPU code would write out of bounds
        t0 = time.perf_counter()
        try:      # compiled before the pipeline changes the module; run after the kernels
            reference_program = prepare(reference_program, entry)
        except DiagnosticError as e:              # the reference's own errors: at the entry function
            raise DiagnosticError(_at_entry(e.diagnostics, module, entry)) from None
        times.append(("reference compile", time.perf_counter() - t0))
    if args.pipeline:
        from ..passes import run as run_pipeline

        pipeline = args.pipeline if "(" in args.pipeline else f"builtin.module({args.pipeline})"
        from ..draw import plan_recording

        t0 = time.perf_counter()
        with plan_recording() as plans:
            run_pipeline(module, pipeline)
        from ..sim.host_linalg import lower_host_linalg

        why = lower_host_linalg(module, entry)   # what the pipeline left on the host runs as loops
        if why:
            print(f"xe-run: error: {why}", file=sys.stderr)
            return 1
        times.append(("lowering", time.perf_counter() - t0))
        if args.draw and _draw(module, plans, args.draw):
            return 1
    elif args.draw and _draw(module, {}, args.draw):
        return 1
    k = max((max(np.shape(a)) for a in inputs if np.ndim(a)), default=1)
    agree = True
    t0 = time.perf_counter()
    if args.backend == "sim":
        from ..sim.parallel import Scheduler, default_jobs

        scheduler = Scheduler(jobs=args.jobs or default_jobs(), sample=args.sample_groups or 0, seed=args.seed)
        result = simulate(module, entry, inputs, trace=args.trace, launcher=scheduler)
    else:
        from ..runtime.backends import run_backend
        from ..runtime.opencl_env import OpenCLError

        try:
            result, agree = run_backend(args.backend, module, entry, inputs, trace=args.trace, labels=labels, k=k,
                                        in_dtype=_narrowest_float(types), build_timeout=args.build_timeout,
                                        tolerance_type=lambda d: _tolerance_type(d, rounded))
        except OpenCLError as e:
            print(f"xe-run: error: {e}", file=sys.stderr)
            return 1
    times.append(({"sim": "simulation", "opencl": "opencl run"}.get(args.backend, "simulation + opencl run"),
                  time.perf_counter() - t0))
    ret_labels = [f"result{i}" for i in range(len(result.returns))]
    arrays = {lab: np.asarray(b) for lab, b in zip(labels + ret_labels, list(result.buffers) + list(result.returns))}
    if args.backend == "sim":   # the other backends print their own summaries
        if args.trace and result.trace is not None:
            print(result.trace.summary())
        print(f"simulated @{entry} in {result.seconds:.3f} s")
    if not args.check:
        return _write_output(args.output, arrays, 0 if agree else 1)
    ok_all = agree
    masks = None
    if args.backend == "sim" and args.sample_groups and not scheduler.groups_total:
        print("sampled check: the program launched no work-group; every element checked")
    elif args.backend == "sim" and args.sample_groups:
        from ..sim.sampling import sampled_masks

        masks = sampled_masks(scheduler, labels, result.returns)
        written = sum(int(m.sum()) for m in masks.values())
        print(f"sampled check: {scheduler.groups_run} of {scheduler.groups_total} work-groups, "
              f"{written} elements written by them")
        for note in scheduler.notes:
            print(f"  note: {note}")
        ok_all &= written > 0   # nothing to compare: the sampled work-groups wrote nothing
    t0 = time.perf_counter()
    checked = None if masks is None else {i: masks[lab] for i, lab in enumerate(labels) if lab in masks}
    from ..sim.parallel import default_jobs

    try:
        out = run_reference(reference_program, entry, inputs, returns=bool(ret_types), checked=checked,
                            jobs=args.jobs or default_jobs())
        reference, ref_returns = out if ret_types else (out, [])
    except DiagnosticError as e:
        raise DiagnosticError(_at_entry(e.diagnostics, module, entry)) from None
    times.append(("reference run", time.perf_counter() - t0))
    checks = [c for c in zip(labels, result.buffers, reference, types) if c[3].kind == "memref"]
    checks += list(zip(ret_labels, result.returns, ref_returns, ret_types))
    # with --backend=opencl|both the result checked against the CPU reference is OpenCL's (the
    # simulator's was compared with it above, "sim vs opencl"): each line says so
    who = "" if args.backend == "sim" else "opencl vs reference "
    t0, lines = time.perf_counter(), []
    for lab, got, want, t in checks:
        if masks is not None:
            m = masks.get(lab)
            if m is None or not m.any():
                lines.append(f"  {lab}: not written by the sampled work-groups, not checked")
                continue
            got, want = np.asarray(got).reshape(-1)[m], np.asarray(want).reshape(-1)[m]
        ok, mx, rel = compare(got, want, _narrowest_float(types) or t.dtype, _tolerance_type(t.dtype, rounded), k=k)
        ok_all &= ok
        count = "" if masks is None else f" ({got.size} of {m.size} elements)"
        lines.append(f"  {who}{lab}: max abs error {mx:.3g}, max rel error {rel:.3g}{count}  "
                     f"{'ok' if ok else 'MISMATCH'}")
    times.append(("compare", time.perf_counter() - t0))
    print("phases: " + ", ".join(f"{name} {sec:.3f} s" for name, sec in times))
    for line in lines:
        print(line)
    print("PASS" if ok_all else "FAIL")
    return _write_output(args.output, arrays, 0 if ok_all else 1)


def _entry_op(module, entry: str):
    from mlir import ir

    return next(op.operation for op in module.body.operations if op.operation.name == "func.func" and
                ir.StringAttr(op.operation.attributes["sym_name"]).value == entry)


def _at_entry(diags, module, entry: str):
    """`diags` with the unlocated ones placed at host function @entry."""
    from ..diagnostics import split_location

    f, line, col = split_location(_entry_op(module, entry).location)
    for d in diags:
        if d.line is None and f is not None:
            d.filename, d.line, d.col = f, line, col
    return diags


def _signature_types(module, entry: str, ftype):
    """(argument TypeInfos, result TypeInfos) of host function @entry; an element type xe-run cannot
    hold (e.g. i2, or a scalar i4) is a located error at the argument (or the function, for a result). i4
    memrefs are arrays of int8 values (sim/i4_memrefs.py)."""
    from ..diagnostics import at
    from ..sim.typeinfo import parse_type

    fop = _entry_op(module, entry)
    args = fop.regions[0].blocks[0].arguments if fop.regions[0].blocks else []

    def info(t, i, what):
        try:
            return parse_type(t)
        except ValueError as e:
            loc = args[i].location if what == "argument" and i < len(args) else fop.location
            raise DiagnosticError([at(loc, "error", f"{what} {i} of @{entry} has type {t}: {e}; xe-run's simulator "
                                               "and CPU reference hold i1, i8, i16, i32, i64 (signed or unsigned), "
                                               "index, f16, bf16, f32, tf32 and f64 elements, and i4 memrefs")]) from None

    return ([info(t, i, "argument") for i, t in enumerate(ftype.inputs)],
            [info(t, i, "result") for i, t in enumerate(ftype.results)])


def _write_output(path, arrays: dict, status: int) -> int:
    """--output: the buffers as an .npz file at exactly `path`, written only when the run succeeded
    (`status` 0); the status, 1 when the file cannot be written."""
    if not path or status != 0:
        return status
    import io

    from ..output_files import OutputError, write_all

    buf = io.BytesIO()
    np.savez(buf, **arrays)
    try:
        write_all([(path, buf.getvalue())])
    except OutputError as e:
        print(f"xe-run: error: --output: {e}", file=sys.stderr)
        return 1
    return 0


def _launches_kernels(module, entry: str) -> bool:
    """Whether host function @entry (as written, before any pipeline) holds a gpu.launch_func."""
    from mlir import ir

    from ..passes.utils.ir_walk import walk

    return any(o.name == "gpu.launch_func"
               for op in module.body.operations if op.operation.name == "func.func"
               and ir.StringAttr(op.operation.attributes["sym_name"]).value == entry
               for o in walk(op.operation))


def _draw(module, plans, out_dir) -> bool:
    """--draw: write the plan pictures; True (after printing why) when that fails."""
    from ..draw import DrawError, draw_kernels, write_drawings
    from ..output_files import OutputError

    try:
        paths = write_drawings(draw_kernels(module, plans, hint="--pipeline=xe-gemm-to-xegpu"), out_dir)
    except DrawError as e:
        print(f"xe-run: error: --draw: {e}", file=sys.stderr)
        return True
    except OutputError as e:
        print(f"xe-run: error: --draw: {e}", file=sys.stderr)
        return True
    except OSError as e:
        print(f"xe-run: error: cannot write the --draw pictures to '{out_dir}': {e.strerror or e}", file=sys.stderr)
        return True
    print(f"xe-run: --draw wrote {', '.join(paths)}", file=sys.stderr)
    return False


def main(argv=None) -> int:
    from . import xe_run_program
    from .xe_run_exit import guarded

    argv = sys.argv[1:] if argv is None else list(argv)
    # a whole program, as mlir-runner, or kernels
    return guarded(lambda: xe_run_program.run(argv) if xe_run_program.wants(argv) else run(argv))


if __name__ == "__main__":
    sys.exit(main())
