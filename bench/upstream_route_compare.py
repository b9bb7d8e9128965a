"""Benchmark / comparison: our pvc SPIR-V (xe-gemm-to-spirv) and upstream MLIR's route
(xe-gemm-to-spirv-upstream) of the same GEMM, side by side: DPAS calls, 2D block loads / stores /
prefetches (whole kernel and K loop), instructions per K-loop iteration, Function variables, binary
size, compile time. Counts come from the spirv-dis text (lowering/upstream_route/stats.py).
`--distribute=auto|upstream|xedialects|both` picks whose subgroup distribution the upstream route
uses (`both`: a column for upstream's and one for ours, side by side with our pvc binary).

    python bench/upstream_route_compare.py [--distribute=both] [FILE.mlir ...]   # default: examples/gemm_bf16.mlir
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ROWS = (("DPAS calls", "dpas"), ("2D block loads", "block_load"), ("2D block stores", "block_store"),
        ("2D block prefetches", "block_prefetch"), ("instructions", "instructions"),
        ("Function variables", "variables"), ("K loop: basic blocks", "loop_blocks"),
        ("K loop: DPAS calls", "loop_dpas"), ("K loop: block loads", "loop_block_load"),
        ("K loop: block prefetches", "loop_block_prefetch"),
        ("K loop: instructions per iteration", "loop_instructions"))


def ours(src: str, name: str) -> tuple[bytes, float]:
    import xedialects
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv
    from xedialects.passes import run

    t = time.perf_counter()
    mod = xedialects.parse(src, name)
    run(mod, "builtin.module(xe-gemm-to-spirv)")
    binary, _ = export_spirv(mod, "pvc")
    return binary, time.perf_counter() - t


def upstream(src: str, name: str, distribute: str = "auto") -> tuple[bytes, float]:
    import xedialects
    from xedialects.lowering.upstream_route import upstream_route
    from xedialects.passes import run

    t = time.perf_counter()
    mod = xedialects.parse(src, name)
    run(mod, "builtin.module(xe-gemm-to-xegpu)")
    binary = upstream_route(mod, distribute=distribute).binary
    return binary, time.perf_counter() - t


MODES = ("auto", "upstream", "xedialects", "both")
LABELS = {"auto": "upstream route", "upstream": "route (LLVM)", "xedialects": "route (ours)"}


def compare(path: Path, distribute: str = "auto") -> str:
    from xedialects.diagnostics import DiagnosticError
    from xedialects.lowering.upstream_route import disassemble, spirv_stats

    src = path.read_text()
    modes = ("upstream", "xedialects") if distribute == "both" else (distribute,)
    runs = [("ours (pvc)", ours)] + [(LABELS[m], lambda s, n, m=m: upstream(s, n, m)) for m in modes]
    cols, stats = [], []
    for label, fn in runs:
        try:
            binary, secs = fn(src, str(path))
        except DiagnosticError as e:
            if distribute == "both" and label != "ours (pvc)":  # one route failing: an empty column
                cols.append(label)
                stats.append(None)
                continue
            return f"{path.name}: {label} failed: {e.diagnostics[0].format()}"
        s = spirv_stats(disassemble(binary))
        s["bytes"], s["seconds"] = len(binary), secs
        cols.append(label)
        stats.append(s)
    lines = [f"== {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}",
             f"{'':38}" + "".join(f"{c:>16}" for c in cols)]
    for label, key in ROWS + (("SPIR-V bytes", "bytes"),):
        lines.append(f"{label:38}" + "".join(f"{'failed' if s is None else s[key]:>16}" for s in stats))
    lines.append(f"{'compile time (s, in process)':38}" +
                 "".join(f"{'-':>16}" if s is None else f"{s['seconds']:>16.2f}" for s in stats))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    distribute = "auto"
    rest = []
    for a in argv:
        if a.startswith("--distribute="):
            distribute = a.split("=", 1)[1]
            if distribute not in MODES:
                print(f"--distribute: one of {', '.join(MODES)}", file=sys.stderr)
                return 2
        else:
            rest.append(a)
    paths = [Path(p).resolve() for p in rest] or [ROOT / "examples" / "gemm_bf16.mlir"]
    for p in paths:
        print(compare(p, distribute))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
