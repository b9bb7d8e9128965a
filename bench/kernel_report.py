"""Benchmark/report: the static kernel report (`xe-opt --xe-kernel-report`) of a 4096x4096x4096
bf16 GEMM lowered by `xe-gemm-to-xegpu`: DPAS and 2D block IO per K step, bytes per DPAS,
registers per subgroup against the register file, SLM and named barriers; plus the lowering time.

    python bench/kernel_report.py [--size 4096] [--simt] [--json]
"""
import argparse
import json
import time

import xedialects
from gemm_source import gemm_source
from xedialects.passes.analysis.kernel_report import format_report, kernel_report
from xedialects.passes import run



def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=4096, help="M = N = K (default 4096)")
    ap.add_argument("--simt", action="store_true", help="report the SIMT-mode kernel (after xegpu-simt-distribute)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args()
    n = args.size
    module = xedialects.parse(gemm_source(n, n, n), "gemm.mlir")
    t0 = time.perf_counter()
    run(module, "builtin.module(xe-gemm-to-xegpu" + (",xegpu-simt-distribute" if args.simt else "") + ")")
    dt = time.perf_counter() - t0
    reports = kernel_report(module)
    print(json.dumps(reports, indent=2) if args.json else format_report(reports))
    print(f"lowered {n}x{n}x{n} bf16 through xe-gemm-to-xegpu in {dt:.2f} s")


if __name__ == "__main__":
    main()
