"""Benchmark: parse + verify + print a 20,000-op XeTile file (target: well under 2 s)."""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import xedialects  # noqa: E402

N_BLOCKS = 4000  # 5 xetile ops per block -> 20,000 xetile ops


def make_source(n_blocks: int) -> str:
    lines = ["func.func @big(%A: memref<4096x4096xbf16>, %i: index) {"]
    for k in range(n_blocks):
        lines += [
            f"  %t{k} = xetile.init_tile %A[%i, {k % 4096}] : memref<4096x4096xbf16> -> !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>",
            f"  %v{k} = xetile.load_tile %t{k} : !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>> -> vector<1x2x32x16xbf16>",
            f"  xetile.prefetch_tile %t{k} : !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>",
            f"  %u{k} = xetile.update_tile_offset %t{k}, [0, 32] : !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>",
            f"  xetile.store_tile %v{k}, %u{k} : vector<1x2x32x16xbf16>, !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>",
        ]
    lines.append("  return\n}\n")
    return "\n".join(lines)


def main():
    src = make_source(N_BLOCKS)
    ctx = xedialects.make_context()
    t0 = time.perf_counter()
    module = xedialects.parse(src, "big.mlir", context=ctx)
    t1 = time.perf_counter()
    text = xedialects.print_ir(module)
    t2 = time.perf_counter()
    n_ops = sum(1 for line in text.splitlines() if "xetile." in line and ("= xetile." in line or line.strip().startswith("xetile.")))
    print(f"xetile ops: {n_ops}")
    print(f"parse+verify: {t1 - t0:.3f} s")
    print(f"print:        {t2 - t1:.3f} s")
    print(f"total:        {t2 - t0:.3f} s (target < 2 s)")


if __name__ == "__main__":
    main()
