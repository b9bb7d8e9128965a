"""Benchmark table: memory-bound linalg kernels over a sweep of shapes -- the plan the memory-bound
planner chooses and the bytes one launch moves (issue 18, item 2).

    python bench/memory_bound_sweep.py [--arch pvc|bmg] [--describe]

Each row is lowered by `xe-gemm-to-xegpu` (the plan captured as `--xe-print-plan` prints it) and
measured by `xe-kernel-report`'s launch-wide byte count (passes/analysis/kernel_bytes.py):
work-group tile (subgroup layout), subgroup tile, grid, work-groups per Xe-core, engine (gemv:
vector FMAs or DPAS, from the plan's reason), bytes accessed by all subgroups (loads + stores,
edges clipped), HBM bytes (each argument byte once per direction), the bandwidth bound at the
arch table's sustained HBM bandwidth and the performance model's prediction and bound (latency:
too few loads in flight for the bandwidth, docs/perf-model.md). Rows: element-wise, reduce,
softmax, gemv (linalg.matvec / vecmat) and ger; a new row is one line of `SWEEP`. Figures only;
nothing is asserted.
"""
import argparse
import contextlib
import io
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import xedialects  # noqa: E402
from xedialects.arch import get_arch  # noqa: E402
from xedialects.lowering.linalg_to_xetile.convert import plan_printing  # noqa: E402
from xedialects.passes import run  # noqa: E402
from xedialects.passes.analysis.kernel_bytes import bandwidth_bound  # noqa: E402
from xedialects.passes.analysis.kernel_report import kernel_report  # noqa: E402

ID = "affine_map<(d0, d1) -> (d0, d1)>"


def _m(shape, t):
    return f"memref<{'x'.join(map(str, shape))}x{t}>"


def add(shape, t):
    a = _m(shape, t)
    return (f"func.func @k(%A: {a}, %B: {a}, %C: {a}) {{\n"
            f"  linalg.add ins(%A, %B : {a}, {a}) outs(%C : {a})\n  return\n}}\n")


def axpby(shape, t):
    a = _m(shape, t)
    return (f"func.func @k(%x: {a}, %y: {a}, %al: {t}, %be: {t}) {{\n"
            f"  linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = [\"parallel\", \"parallel\"]}}\n"
            f"      ins(%x : {a}) outs(%y : {a}) {{\n"
            f"  ^bb0(%a: {t}, %b: {t}):\n    %0 = arith.mulf %al, %a : {t}\n    %1 = arith.mulf %be, %b : {t}\n"
            f"    %2 = arith.addf %0, %1 : {t}\n    linalg.yield %2 : {t}\n  }}\n  return\n}}\n")


def _reduce(shape, t, dim, body):
    a, o = _m(shape, t), _m((shape[1 - dim],), t)
    return (f"func.func @k(%A: {a}, %O: {o}) {{\n"
            f"  linalg.reduce ins(%A : {a}) outs(%O : {o}) dimensions = [{dim}]\n"
            f"    (%x: {t}, %acc: {t}) {{\n      %s = {body} %x, %acc : {t}\n      linalg.yield %s : {t}\n"
            f"    }}\n  return\n}}\n")


def row_sum(shape, t):
    return _reduce(shape, t, 1, "arith.addf")


def col_sum(shape, t):
    return _reduce(shape, t, 0, "arith.addf")


def row_max(shape, t):
    return _reduce(shape, t, 1, "arith.maximumf")


def softmax(shape, t):
    a = _m(shape, t)
    return (f"func.func @k(%X: {a}, %Y: {a}) {{\n"
            f"  linalg.softmax dimension(1) ins(%X : {a}) outs(%Y : {a})\n  return\n}}\n")


def matvec(shape, t):
    a, x, y = _m(shape, t), _m((shape[1],), t), _m((shape[0],), "f32")
    return (f"func.func @k(%A: {a}, %x: {x}, %y: {y}) {{\n"
            f"  linalg.matvec ins(%A, %x : {a}, {x}) outs(%y : {y})\n  return\n}}\n")


def vecmat(shape, t):
    a, x, y = _m(shape, t), _m((shape[0],), t), _m((shape[1],), "f32")
    return (f"func.func @k(%x: {x}, %A: {a}, %y: {y}) {{\n"
            f"  linalg.vecmat ins(%x, %A : {x}, {a}) outs(%y : {y})\n  return\n}}\n")


def ger(shape, t):
    x, y, c = _m((shape[0],), t), _m((shape[1],), t), _m(shape, t)
    maps = "[affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, " + ID + "]"
    return (f"func.func @k(%x: {x}, %y: {y}, %C: {c}) {{\n"
            f"  linalg.generic {{indexing_maps = {maps}, iterator_types = [\"parallel\", \"parallel\"]}}\n"
            f"      ins(%x, %y : {x}, {y}) outs(%C : {c}) {{\n"
            f"  ^bb0(%a: {t}, %b: {t}, %c: {t}):\n    %0 = arith.mulf %a, %b : {t}\n"
            f"    %1 = arith.addf %c, %0 : {t}\n    linalg.yield %1 : {t}\n  }}\n  return\n}}\n")


# (op label, source builder, shape, element type); gemv outputs are f32
SWEEP = [
    ("add", add, (1024, 1024), "f32"),
    ("add", add, (4096, 4096), "f32"),
    ("add", add, (1000, 1000), "f32"),
    ("add", add, (4096, 4096), "bf16"),
    ("axpby", axpby, (4096, 4096), "f16"),
    ("axpby", axpby, (37, 53), "f16"),
    ("reduce sum d1", row_sum, (4096, 4096), "f32"),
    ("reduce sum d1", row_sum, (1000, 70), "f32"),
    ("reduce sum d0", col_sum, (4096, 4096), "f32"),
    ("reduce max d1", row_max, (1000, 1000), "f16"),
    ("softmax d1", softmax, (1024, 1000), "f32"),
    ("softmax d1", softmax, (4096, 128), "f16"),
    ("softmax d1", softmax, (4096, 4096), "f32"),
    ("matvec", matvec, (4096, 4096), "bf16"),
    ("matvec", matvec, (4096, 4096), "f32"),
    ("matvec", matvec, (1000, 1000), "f32"),
    ("vecmat", vecmat, (4096, 4096), "bf16"),
    ("ger (C += x yT)", ger, (4096, 4096), "f32"),
]


def _plan_fields(text):
    """wg tile (layout), sg tile and engine from the memory-bound plan `--xe-print-plan` prints."""
    wg = re.search(r"work-group tile\s*:\s*(\d+x\d+)\s*\((\d+) subgroups as (\d+x\d+)", text)
    sg = re.search(r"subgroup tile\s*:\s*(\d+x\d+)", text)
    engine = "DPAS" if "reason: DPAS" in text else "FMA" if "reason: vector FMAs" in text else "-"
    return (f"{wg.group(1)} ({wg.group(3)})" if wg else "?"), (sg.group(1) if sg else "?"), engine


def measure(build, shape, t, arch):
    """(plan text, kernel_report dict of the lowered kernel) of one row."""
    module = xedialects.parse(build(shape, t), "sweep.mlir")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), plan_printing():
        run(module, f"builtin.module(xe-gemm-to-xegpu{{arch={arch.name}}})")
    (r,) = kernel_report(module, arch)
    return err.getvalue(), r


def _us(s):
    return f"{s * 1e6:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", default="pvc", help="pvc (default) or bmg")
    ap.add_argument("--describe", action="store_true", help="print every plan's reasons under its row")
    args = ap.parse_args()
    arch = get_arch(args.arch)
    bw = bandwidth_bound(arch, 0)
    print(f"memory-bound kernels on {arch.name} ({arch.xe_cores} Xe-cores); bound = HBM bytes / "
          f"{bw['sustained_gbs']:g} GB/s sustained ({bw['source']})")
    head = ("op", "shape", "dtype", "wg tile (sg layout)", "sg tile", "grid", "WG/Xe-core", "engine",
            "accessed B", "HBM B", "bound us", "model us", "count")
    rows = []
    for label, build, shape, t in SWEEP:
        text, r = measure(build, shape, t, arch)
        gm = r["global_memory"]
        wg, sg, engine = _plan_fields(text)
        grid = re.search(r"grid (\S+)", gm["launch"])
        hbm = gm["hbm_read"] + gm["hbm_write"]
        count = ("exact" if gm["exact"] else "upper" if gm["complete"] else "partial") + \
            (", HBM>=" if gm["hbm_lower_bound"] else "")
        rows.append((label, "x".join(map(str, shape)), t, wg, sg, grid.group(1) if grid else "1 WG",
                     f"{gm['work_groups'] / arch.xe_cores:.2f}", engine, f"{gm['read'] + gm['write']:,}",
                     f"{hbm:,}", _us(bandwidth_bound(arch, hbm)["time_s"]),
                     f"{_us(r['perf']['time_s'])} {r['perf']['bound']}", count))
        if args.describe:
            rows.append(("", "", "", text.strip().replace("\n", "\n    ")) + ("",) * (len(head) - 4))
    widths = [max(len(str(x[i])) for x in rows + [head] if "\n" not in str(x[i])) for i in range(len(head))]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for row in rows:
        if "\n" in row[3]:
            print("    " + row[3])
            continue
        print("  ".join(str(c).rjust(w) if i >= 6 else str(c).ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
    print("accessed: loads + stores of every subgroup, edges clipped (prefetches not included); HBM: each argument "
          "byte once per direction (re-reads hit L2; HBM>=: an argument read more than once exceeds L2, so "
          f"re-reads miss and HBM is a lower bound); WG/Xe-core: work-groups / {arch.xe_cores} Xe-cores; model: "
          "xe-kernel-report's prediction")


if __name__ == "__main__":
    main()
