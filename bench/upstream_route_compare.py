"""Benchmark / comparison: our pvc SPIR-V (xe-gemm-to-spirv) and upstream MLIR's route
(xe-gemm-to-spirv-upstream) of the same GEMM, side by side: DPAS calls, 2D block loads / stores /
prefetches (whole kernel and K loop), instructions per K-loop iteration, Function variables, binary
size, compile time. Counts come from the spirv-dis text (lowering/upstream_route/stats.py).

    python bench/upstream_route_compare.py [FILE.mlir ...]   # default: examples/gemm_bf16.mlir
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


def upstream(src: str, name: str) -> tuple[bytes, float]:
    import xedialects
    from xedialects.lowering.upstream_route import upstream_route
    from xedialects.passes import run

    t = time.perf_counter()
    mod = xedialects.parse(src, name)
    run(mod, "builtin.module(xe-gemm-to-xegpu)")
    binary = upstream_route(mod).binary
    return binary, time.perf_counter() - t


def compare(path: Path) -> str:
    from xedialects.diagnostics import DiagnosticError
    from xedialects.lowering.upstream_route import disassemble, spirv_stats

    src = path.read_text()
    cols, stats = [], []
    for label, fn in (("ours (pvc)", ours), ("upstream route", upstream)):
        try:
            binary, secs = fn(src, str(path))
        except DiagnosticError as e:
            return f"{path.name}: {label} failed: {e.diagnostics[0].format()}"
        s = spirv_stats(disassemble(binary))
        s["bytes"], s["seconds"] = len(binary), secs
        cols.append(label)
        stats.append(s)
    lines = [f"== {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}",
             f"{'':38}{cols[0]:>16}{cols[1]:>16}"]
    for label, key in ROWS + (("SPIR-V bytes", "bytes"),):
        lines.append(f"{label:38}{stats[0][key]:>16}{stats[1][key]:>16}")
    lines.append(f"{'compile time (s, in process)':38}{stats[0]['seconds']:>16.2f}{stats[1]['seconds']:>16.2f}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    paths = [Path(p).resolve() for p in argv] or [ROOT / "examples" / "gemm_bf16.mlir"]
    for p in paths:
        print(compare(p))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
