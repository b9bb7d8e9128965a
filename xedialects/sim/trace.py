"""Execution statistics of one simulation (`--trace`): per-op-kind execution counts (counted once per
executing subgroup, work-item or work-group, depending on the kernel's execution level), DPAS
instruction counts and flops, 2D block load/store/prefetch counts with bytes, barriers and kernel
launches."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class LaunchRecord:
    kernel: str
    grid: tuple
    block: tuple
    level: str  # subgroup | workgroup | simt
    batch: int
    seconds: float = 0.0


@dataclass
class Trace:
    op_counts: Counter = field(default_factory=Counter)
    dpas: int = 0
    dpas_flops: int = 0
    mma_flops: int = 0  # xetile.tile_mma / vector.contract flops
    block_loads: int = 0
    block_load_bytes: int = 0
    block_stores: int = 0
    block_store_bytes: int = 0
    prefetches: int = 0
    prefetch_bytes: int = 0
    gathers: int = 0
    gather_bytes: int = 0
    scatters: int = 0
    scatter_bytes: int = 0
    atomics: int = 0
    barriers: int = 0
    nbarrier_arrives: int = 0
    nbarrier_waits: int = 0
    launches: list = field(default_factory=list)

    def count(self, name: str, n: int) -> None:
        self.op_counts[name] += int(n)

    def as_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k not in ("op_counts", "launches")}
        d["op_counts"] = dict(self.op_counts)
        d["launches"] = [r.__dict__.copy() for r in self.launches]
        return d

    def summary(self) -> str:
        lines = ["simulation trace:"]
        for r in self.launches:
            lines.append(
                f"  launch {r.kernel} grid={r.grid} block={r.block} level={r.level} batch={r.batch} "
                f"({r.seconds:.3f}s)"
            )
        lines.append(f"  dpas: {self.dpas} ({self.dpas_flops} flop)")
        if self.mma_flops:
            lines.append(f"  tile_mma/contract flops: {self.mma_flops}")
        lines.append(f"  2D block loads: {self.block_loads} ({self.block_load_bytes} B)")
        lines.append(f"  2D block stores: {self.block_stores} ({self.block_store_bytes} B)")
        lines.append(f"  prefetches: {self.prefetches} ({self.prefetch_bytes} B)")
        if self.gathers or self.scatters:
            lines.append(f"  gathers: {self.gathers} ({self.gather_bytes} B), scatters: {self.scatters} ({self.scatter_bytes} B)")
        if self.atomics:
            lines.append(f"  atomics: {self.atomics}")
        lines.append(f"  barriers: {self.barriers}, nbarrier arrive/wait: {self.nbarrier_arrives}/{self.nbarrier_waits}")
        lines.append("  op counts:")
        for name, n in sorted(self.op_counts.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"    {name:40s} {n}")
        return "\n".join(lines)
