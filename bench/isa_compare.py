"""Benchmark / comparison on IGC's machine code: per GEMM program and architecture (pvc, bmg), our `pvc`
route (xe-gemm-to-spirv{arch=...}) and upstream MLIR's route (xe-gemm-to-xegpu, then
lowering/upstream_route) compiled by Intel's GPU compiler (IGC, runtime/igc) for the arch's device, side
by side: GRFs, spill bytes, the K loop of the ISA (one iteration: instructions, DPAS, non-DPAS
instructions per DPAS, 2D block loads / prefetches / stores, scratch messages), how many source K steps
IGC put into one ISA loop iteration (its unrolling), and the undefined symbols of the device binary.
Both routes are compiled with the build options of our binary's metadata (the same GRF mode). A kernel
whose ISA keeps no K loop shows "unrolled" and its whole-kernel counts. Prints IGC's version first.

    python bench/isa_compare.py [--arch=pvc|bmg|both] [--all] [--json] [--jobs=N] [FILE.mlir ...]

Default programs: the issue's table (bf16 / f16 4096^3, bf16 8192^3, bf16 4096x11008x4096, i8 4096^3,
tf32 4096^3, bf16 4096^3 with A or B transposed, examples/gemm_dynamic.mlir, examples/gemm_bf16.mlir);
`--all`: every program of the IGC test corpus (test/python/igc_support.corpus()); FILE.mlir arguments:
those files. A side that fails shows the first line of its error and the run goes on. Needs IGC (xe-opt --install-igc) and upstream's tools.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ARCHS = ("pvc", "bmg")
ROUTES = ("ours", "upstream")
# the pseudo-kernel IGC dumps next to the kernels of a module with subroutines / a symbol table: no kernel of ours
IGC_SYMBOL_TABLE = "Intel_Symbol_Table_Void_Program"


_MAPS = {"a": "(k, m)", "b": "(n, k)"}


def matmul(M: int, N: int, K: int, ab: str = "bf16", c: str = "f32", transposed: str = "") -> str:
    """A linalg.matmul C += A x B in the style of examples/gemm_bf16.mlir; `transposed` "a" / "b":
    that operand stored transposed (K x M / N x K, through indexing_maps)."""
    sa = f"{K}x{M}" if transposed == "a" else f"{M}x{K}"
    sb = f"{N}x{K}" if transposed == "b" else f"{K}x{N}"
    ta, tb, tc = f"memref<{sa}x{ab}>", f"memref<{sb}x{ab}>", f"memref<{M}x{N}x{c}>"
    maps = ""
    if transposed:
        a, b = _MAPS["a"] if transposed == "a" else "(m, k)", _MAPS["b"] if transposed == "b" else "(k, n)"
        maps = (f" indexing_maps = [affine_map<(m, n, k) -> {a}>, affine_map<(m, n, k) -> {b}>, "
                f"affine_map<(m, n, k) -> (m, n)>]")
    return (f"func.func @gemm(%A: {ta}, %B: {tb}, %C: {tc}) {{\n"
            f"  linalg.matmul{maps} ins(%A, %B : {ta}, {tb}) outs(%C : {tc})\n"
            f"  return\n}}\n")


def default_programs() -> list[tuple[str, str, bool]]:
    """(name, source, tensor) of the issue's table."""
    progs = [("bf16 4096^3", matmul(4096, 4096, 4096)),
             ("f16 4096^3", matmul(4096, 4096, 4096, "f16")),
             ("bf16 8192^3", matmul(8192, 8192, 8192)),
             ("bf16 4096x11008x4096", matmul(4096, 11008, 4096)),
             ("i8 4096^3 (-> i32)", matmul(4096, 4096, 4096, "i8", "i32")),
             ("tf32 4096^3", matmul(4096, 4096, 4096, "tf32", "f32")),
             ("bf16 4096^3 A^T", matmul(4096, 4096, 4096, transposed="a")),
             ("bf16 4096^3 B^T", matmul(4096, 4096, 4096, transposed="b"))]
    for f in ("gemm_dynamic", "gemm_bf16"):
        progs.append((f"examples/{f}.mlir", (ROOT / "examples" / f"{f}.mlir").read_text()))
    return [(n, s, False) for n, s in progs]


def corpus_programs() -> list[tuple[str, str, bool]]:
    sys.path.insert(0, str(ROOT / "test" / "python"))
    from igc_support import corpus

    return [(name, case.src, bool(case.tensor)) for name, case in corpus().items()]


def _first_line(e: BaseException) -> str:
    from xedialects.diagnostics import DiagnosticError

    text = e.diagnostics[0].message if isinstance(e, DiagnosticError) and e.diagnostics else str(e)
    line = (text.strip().splitlines() or [""])[0].strip()
    return f"{type(e).__name__}: {line}" if not isinstance(e, DiagnosticError) else line


def _full(e: BaseException) -> str:
    from xedialects.diagnostics import DiagnosticError

    if isinstance(e, DiagnosticError):
        return "\n".join(d.format() for d in e.diagnostics)
    return f"{type(e).__name__}: {e}"


def _kernel_rows(build, steps: dict) -> dict:
    """{kernel: counts} of a DeviceBuild: GRFs, spill, the K loop (or the whole kernel when none)."""
    rows = {}
    for name, k in build.kernels.items():
        if name == IGC_SYMBOL_TABLE:
            continue
        loop = k.k_loop
        c = loop if loop is not None else k.total
        step_dpas = steps.get(name)
        per_iter = (c.dpas / step_dpas) if (c.dpas and step_dpas) else None
        rows[name] = {
            "simd": k.simd, "grf_count": k.grf_count, "grf_mode": k.grf_mode, "spill_bytes": k.spill_bytes,
            "k_loop": "loop" if loop is not None else
                      "unrolled" if step_dpas else "no loop" if k.total.dpas else "no DPAS",
            "k_steps": per_iter,
            "instructions": c.instructions, "dpas": c.dpas, "non_dpas_per_dpas": c.non_dpas_per_dpas,
            "block_loads": c.block_loads, "block_prefetches": c.block_prefetches, "block_stores": c.block_stores,
            "scratch_messages": c.scratch_messages,
            "total": {"instructions": k.total.instructions, "dpas": k.total.dpas,
                      "scratch_messages": k.total.scratch_messages},
        }
    return rows


def compare_one(name: str, src: str, tensor: bool, arch: str) -> dict:
    """Both routes of one program for one arch, compiled by IGC: plain data (see main's --json)."""
    import xedialects
    from xedialects.lowering.upstream_route import upstream_route
    from xedialects.lowering.xegpu_to_spirv.spirv_export import build_options, export_spirv
    from xedialects.passes import run
    from xedialects.passes.analysis.kernel_report import kernel_report
    from xedialects.runtime.igc import build_module, compile_spirv, device_for_arch

    pre = "xe-bufferize, " if tensor else ""
    out = {"program": name, "arch": arch, "igc_version": None, "build_options": None, "routes": {}}

    # the XeGPU both routes start from: the K step's DPAS per kernel and, should ours fail, the GRF mode
    steps, modes = {}, {}
    try:
        m = xedialects.parse(src, name)
        run(m, f"builtin.module({pre}xe-gemm-to-xegpu{{arch={arch}}})")
        xegpu_error = None
    except Exception as e:  # noqa: BLE001 - reported in the upstream column
        m, xegpu_error = None, e
    if m is not None:
        try:
            for r in kernel_report(m, arch):
                if r.get("k_loop") and r.get("per_k_step"):
                    steps[r["kernel"]] = r["per_k_step"]["dpas"]
                modes[r["kernel"]] = r.get("grf_mode")
        except Exception:  # noqa: BLE001 - the report only adds the steps column
            pass

    # ours
    try:
        mo = xedialects.parse(src, name)
        run(mo, f"builtin.module({pre}xe-gemm-to-spirv{{arch={arch}}})")
        binary, meta = export_spirv(mo, "pvc", arch)
        out["build_options"] = meta["build_options"]
        build = build_module(binary, meta, arch)
        out["igc_version"] = build.toolchain.igc_version if build.toolchain else None
        out["routes"]["ours"] = {"kernels": _kernel_rows(build, steps), "undefined": list(build.undefined)}
    except Exception as e:  # noqa: BLE001 - a failing side is a figure too
        out["routes"]["ours"] = {"error": _first_line(e), "error_full": _full(e)}
    if out["build_options"] is None:   # ours failed before its metadata: the same rule on the XeGPU's modes
        out["build_options"] = build_options([{"grf_mode": g} for g in modes.values()])

    # upstream's route, at the same build options
    try:
        if xegpu_error is not None:
            raise xegpu_error
        r = upstream_route(m)
        build = compile_spirv(r.binary, device_for_arch(arch), out["build_options"])
        out["igc_version"] = out["igc_version"] or (build.toolchain.igc_version if build.toolchain else None)
        out["routes"]["upstream"] = {"kernels": _kernel_rows(build, steps), "undefined": list(build.undefined),
                                     "distributed_by": r.distributed_by}
    except Exception as e:  # noqa: BLE001
        out["routes"]["upstream"] = {"error": _first_line(e), "error_full": _full(e)}
    return out


def _init():
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def _star(args):
    return compare_one(*args)


def run_all(programs, archs, jobs: int) -> list[dict]:
    tasks = [(n, s, t, a) for n, s, t in programs for a in archs]
    if jobs <= 1 or len(tasks) == 1:
        return [compare_one(*t) for t in tasks]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_init) as pool:
        return list(pool.map(_star, tasks))


def json_rows(results: list[dict]) -> list[dict]:
    """One flat row per (program, arch, kernel, route); a failed side is one row with its error."""
    rows = []
    for res in results:
        for route in ROUTES:
            side = res["routes"][route]
            base = {"program": res["program"], "arch": res["arch"], "route": route,
                    "build_options": res["build_options"], "igc_version": res["igc_version"]}
            if route == "upstream":
                base["distributed_by"] = side.get("distributed_by")
            if "error" in side:
                rows.append(dict(base, kernel=None, error=side["error"], error_full=side["error_full"]))
                continue
            for kn, k in side["kernels"].items():
                rows.append(dict(base, kernel=kn, error=None, undefined=side["undefined"], **k))
    return rows


# ---- text table --------------------------------------------------------------------------------

HEAD = (("GRFs", 5), ("spill", 6), ("K loop", 9), ("steps", 6), ("instr", 6), ("DPAS", 5),
        ("nonDPAS/DPAS", 13), ("loads", 6), ("pref", 5), ("stores", 7), ("scratch", 8))
NAME_W, ARCH_W, ROUTE_W, OPT_W = 22, 5, 10, 8


def _fmt_steps(x):
    if x is None:
        return "-"
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def _fmt_row(k: dict) -> str:
    ratio = "-" if k["non_dpas_per_dpas"] is None else f"{k['non_dpas_per_dpas']:.2f}"
    vals = (k["grf_count"], k["spill_bytes"], k["k_loop"], _fmt_steps(k["k_steps"]),
            k["instructions"], k["dpas"], ratio, k["block_loads"], k["block_prefetches"], k["block_stores"],
            k["scratch_messages"])
    return "".join(f"{'-' if v is None else v:>{w}}" for v, (_, w) in zip(vals, HEAD))


def table(results: list[dict]) -> str:
    titles = [len(r["program"]) + 3 + max((len(kn) for side in r["routes"].values()
                                           for kn in side.get("kernels", {})), default=0) for r in results]
    name_w = min(max([NAME_W - 1] + titles) + 1, 72)
    lines = [f"{'program / kernel':{name_w}}{'arch':{ARCH_W}}{'route':{ROUTE_W}}{'GRF opt':{OPT_W}}"
             + "".join(f"{h:>{w}}" for h, w in HEAD) + "  undefined symbols"]
    lines.append("-" * len(lines[0]))
    fallback = False
    prev = None
    for res in results:
        if prev is not None and prev[0] != res["program"]:
            lines.append("")
        from xedialects.lowering.xegpu_to_spirv.spirv_export import LARGE_GRF_OPTION

        opt = "large" if LARGE_GRF_OPTION in (res["build_options"] or "") else "default"
        kernels = []
        for route in ROUTES:
            for kn in res["routes"][route].get("kernels", {}):
                if kn not in kernels:
                    kernels.append(kn)
        groups = [(kn, kn) for kn in kernels] if kernels else [(None, "")]
        for kn, label in groups:
            title = res["program"] if len(groups) == 1 else f"{res['program']} / {label}"
            for route in ROUTES:
                side = res["routes"][route]
                rlabel = route
                if side.get("distributed_by") == "xedialects":
                    rlabel, fallback = route + "*", True
                name = title if prev != (res["program"], kn) else ""
                arch = res["arch"] if route == ROUTES[0] else ""
                head = f"{name[:name_w - 1]:{name_w}}{arch:{ARCH_W}}{rlabel:{ROUTE_W}}{opt:{OPT_W}}"
                prev = (res["program"], kn)
                if "error" in side:
                    lines.append(head + f"  failed: {side['error'][:150]}")
                elif kn not in side["kernels"]:
                    lines.append(head + "  (no such kernel in this route's binary)")
                else:
                    und = ", ".join(side["undefined"]) or "none"
                    lines.append(head + _fmt_row(side["kernels"][kn]) + f"  {und}")
    lines += ["","GRF opt: the GRF mode both routes were compiled with (ours' metadata build_options: large = "
              "-ze-opt-large-register-file, default = none), so both are at the same GRF mode; both also get the "
              "metadata's other options (IGC's prefetch payload hoisting when ours prefetches, docs/igc.md).",
              "K loop columns: one iteration of the ISA loop with the most DPAS; 'unrolled': the XeGPU has a K loop, "
              "IGC's ISA keeps none (it unrolled it): whole-kernel counts; 'no loop' / 'no DPAS': the XeGPU has no "
              "K loop / no DPAS: whole-kernel counts.",
              "steps: source K steps (XeGPU K-loop iterations) in those counts, from the DPAS of one K step: "
              "per ISA loop iteration (> 1: IGC unrolled the K loop by that much), or in the whole unrolled kernel.",
              "loads / pref / stores: 2D block loads / prefetches / stores; scratch: scratch (spill) messages."]
    if fallback:
        lines.append("*: upstream's subgroup distribution failed; the route used ours (xegpu-simt-distribute) "
                     "and upstream's passes from convert-xegpu-to-xevm on.")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    archs, use_all, as_json, jobs, files = ARCHS, False, False, os.cpu_count() or 1, []
    for a in argv:
        if a.startswith("--arch="):
            v = a.split("=", 1)[1]
            if v not in ARCHS + ("both",):
                print("--arch: one of pvc, bmg, both", file=sys.stderr)
                return 2
            archs = ARCHS if v == "both" else (v,)
        elif a == "--all":
            use_all = True
        elif a == "--json":
            as_json = True
        elif a.startswith("--jobs="):
            jobs = int(a.split("=", 1)[1])
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        elif a.startswith("-"):
            print(f"unknown option {a}", file=sys.stderr)
            return 2
        else:
            files.append(Path(a).resolve())
    from xedialects.runtime.igc import IgcError, find_toolchain

    try:
        tc = find_toolchain()
    except IgcError as e:
        print(f"IGC is not available: {e} (install it with xe-opt --install-igc)", file=sys.stderr)
        return 1
    programs = []
    if use_all:
        programs += corpus_programs()
    for f in files:
        if not f.is_file():
            print(f"{f}: no such file", file=sys.stderr)
            return 2
        programs.append((str(f.relative_to(ROOT)) if f.is_relative_to(ROOT) else str(f), f.read_text(), False))
    if not programs:
        programs = default_programs()
    results = run_all(programs, archs, jobs)
    version = next((r["igc_version"] for r in results if r["igc_version"]), tc.igc_version)
    if as_json:
        print(json.dumps({"igc_version": version, "ocloc_version": tc.ocloc_version, "rows": json_rows(results)},
                         indent=1))
        return 0
    print(f"IGC {version} (ocloc {tc.ocloc_version}): our pvc route (xe-gemm-to-spirv) vs upstream's route "
          f"(xe-gemm-to-xegpu + upstream_route), ocloc devices " + ", ".join(f"{a} -> {_device(a)}" for a in archs))
    print()
    print(table(results))
    return 0


def _device(arch: str) -> str:
    from xedialects.runtime.igc import device_for_arch

    return device_for_arch(arch)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
