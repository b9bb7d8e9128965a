"""Benchmark: xe-opt start-up — a fresh process importing xedialects, creating the context and
parsing + printing a small file (target < 1 s). Prints the median of several cold runs and an
in-process breakdown. `--check` exits 1 when the median misses the target."""
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 1.0
RUNS = 5

SMALL = """\
func.func @k(%A: memref<128x128xbf16>, %i: index) {
  %t = xetile.init_tile %A[%i, 0] : memref<128x128xbf16> -> !xetile.tile<8x16xbf16>
  %v = xetile.load_tile %t : !xetile.tile<8x16xbf16> -> vector<8x16xbf16>
  xetile.store_tile %v, %t : vector<8x16xbf16>, !xetile.tile<8x16xbf16>
  return
}
"""

BREAKDOWN = """\
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
import xedialects
from xedialects.tools import xe_opt
t1 = time.perf_counter()
ctx = xedialects.make_context()
t2 = time.perf_counter()
from xedialects.syntax import parse_source, print_operation
m = parse_source(open({path!r}).read(), {path!r}, ctx)
print_operation(m.operation)
t3 = time.perf_counter()
print(f"{{t1 - t0:.3f}} {{t2 - t1:.3f}} {{t3 - t2:.3f}}")
"""


def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "small.mlir"
        path.write_text(SMALL)
        cmd = [sys.executable, str(ROOT / "tools" / "xe-opt.py"), str(path), "-o", str(Path(d) / "out.mlir")]
        times = []
        for _ in range(RUNS):
            t = time.perf_counter()
            subprocess.run(cmd, check=True)
            times.append(time.perf_counter() - t)
        out = subprocess.run([sys.executable, "-c", BREAKDOWN.format(root=str(ROOT), path=str(path))],
                             check=True, capture_output=True, text=True).stdout.split()
    median = statistics.median(times)
    imp, ctx, parse = (float(x) for x in out)
    print(f"xe-opt start-up (fresh process, small file): median {median:.3f} s, best {min(times):.3f} s "
          f"over {RUNS} runs (target < {TARGET_S:.1f} s) -> {'OK' if median < TARGET_S else 'SLOW'}")
    print(f"  in-process: imports {imp:.3f} s, context creation {ctx:.3f} s, parse+print {parse:.3f} s")
    return 1 if "--check" in sys.argv[1:] and median >= TARGET_S else 0


if __name__ == "__main__":
    sys.exit(main())
