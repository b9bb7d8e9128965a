"""Run every whole program (`*.mlir`) of a directory with `xe-run F -e main --entry-point-result=void`
(optionally through a --pipeline) and check its output with FileCheck against the file's CHECK
lines; print a pass/fail table with times.

    python bench/imex_programs.py DIR [--pipeline xe-gemm-to-xegpu] [--timeout 600] [--only NAME,...]
        [--backend sim|opencl] [--jobs N] [--host-checks]

Made for IMEX's XeTile integration tests (test/Integration/Dialect/XeTile of intel/mlir-extensions):
point it at a checkout; nothing is copied into this project. Status: PASS (ran, CHECK lines
matched), RAN (ran, the file has no CHECK lines; an `[ALLCLOSE: ...]` it printed is shown),
FAIL-CHECK (ran, output does not match), FAIL-RUN (xe-run exit status != 0; its first error line
is shown), TIMEOUT.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _filecheck() -> list[str]:
    exe = shutil.which("filecheck", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    return [exe] if exe else [sys.executable, "-m", "filecheck"]


def run_one(path: Path, pipeline: str, backend: str, timeout: float, host_checks: bool = False):
    cmd = [sys.executable, str(ROOT / "tools" / "xe-run.py"), str(path), "-e", "main", "--entry-point-result=void",
           "--time"] + (["--host-checks"] if host_checks else [])
    if pipeline:
        cmd.append(f"--pipeline={pipeline}")
    if backend != "sim":
        cmd.append(f"--backend={backend}")
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "TIMEOUT", time.perf_counter() - t0, f"> {timeout:g} s"
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        errs = [ln for ln in p.stderr.splitlines() if "error" in ln]
        located = [ln for ln in errs if re.search(r":\d+:\d+: error:", ln)]     # the specific one first
        lines = located or errs or p.stderr.splitlines() or ["(no output)"]
        return "FAIL-RUN", dt, lines[0][:160]
    m = re.search(r"run ([\d.]+) s, kernels ([\d.]+) s", p.stderr)
    split = f"kernels {float(m.group(2)):.1f} s, host run {float(m.group(1)) - float(m.group(2)):.1f} s" if m else ""
    if "CHECK" not in path.read_text(encoding="utf-8", errors="replace"):
        verdict = re.findall(r"\[ALLCLOSE: (TRUE|FALSE)\]", p.stdout)
        said = f"printed [ALLCLOSE: {', '.join(verdict)}]; " if verdict else ""
        return "RAN", dt, "no CHECK lines to match; " + said + split
    fc = subprocess.run(_filecheck() + [str(path)], input=p.stdout, capture_output=True, text=True)
    if fc.returncode != 0:
        first = next((ln for ln in fc.stderr.splitlines() if "error" in ln), fc.stderr.strip()[:160])
        return "FAIL-CHECK", dt, first[:160]
    return "PASS", dt, split


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="directory of .mlir whole programs (e.g. IMEX's test/Integration/Dialect/XeTile)")
    ap.add_argument("--pipeline", default="", help="xe-run --pipeline for every program")
    ap.add_argument("--backend", default="sim", choices=["sim", "opencl"])
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per program (default 600)")
    ap.add_argument("--only", default="", help="comma-separated file names (without .mlir) to run")
    ap.add_argument("--jobs", type=int, default=1, help="programs run at once (default 1)")
    ap.add_argument("--host-checks", action="store_true", help="xe-run --host-checks (runtime verification of the "
                    "host code)")
    args = ap.parse_args(argv)
    files = sorted(Path(args.dir).glob("*.mlir"))
    if args.only:
        wanted = {x.strip().removesuffix(".mlir") for x in args.only.split(",")}
        files = [f for f in files if f.stem in wanted]
    if not files:
        print(f"no .mlir files in {args.dir}", file=sys.stderr)
        return 1
    width = max(len(f.stem) for f in files)
    print(f"{'program':<{width}}  {'status':<10}  {'seconds':>8}  note"
          f"{'  (pipeline ' + args.pipeline + ')' if args.pipeline else ''}", flush=True)
    counts: dict[str, int] = {}

    def job(f):
        return f, run_one(f, args.pipeline, args.backend, args.timeout, args.host_checks)

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for f, (status, dt, note) in pool.map(job, files):
            counts[status] = counts.get(status, 0) + 1
            print(f"{f.stem:<{width}}  {status:<10}  {dt:8.2f}  {note}", flush=True)
    print("; ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + f" (of {len(files)})")
    return 0 if counts.get("PASS", 0) + counts.get("RAN", 0) == len(files) else 1


if __name__ == "__main__":
    sys.exit(main())
