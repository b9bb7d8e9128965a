"""The device runtime of a whole program: executes the host's `__xe_launch_N` / `__xe_memset_N`
calls (host_lowering.Site) on the JIT's memory.

Kernels run on the simulator (`sim.Simulator` of the original module, which keeps its kernels;
work-groups in parallel processes through `sim.parallel.Scheduler`) or,
with an OpenCL `Program`, through the simulator's launch hook on an OpenCL device. Memref
arguments become simulator memrefs over zero-copy numpy views of the JIT's memory, so results are
where the host code reads them. The device has no memory of its own: gpu.alloc is host memory.
"""
from __future__ import annotations

import time

import numpy as np

from ...sim import Simulator
from ...sim.core import ExecState
from ...sim.memory import MemRef
from . import descriptors
from .host_lowering import Site


class Device:
    def __init__(self, module, program=None, trace: bool = False, jobs: int = 1):
        self.sim = Simulator(module, trace=trace)
        if program is not None:
            from ..opencl import Launcher

            self.launcher = Launcher(program)
        else:               # work-groups in `jobs` processes, bit-identical to one (sim/parallel.py)
            from ...sim.parallel import Scheduler

            self.launcher = Scheduler(jobs=jobs)
        self.sim.launcher = self.launcher
        self.host_state = ExecState(self.sim, "host", 1)
        self.launches = 0
        self.kernel_seconds = 0.0        # time spent in launches (kernels and their argument setup)

    def _memref(self, address: int, info, name: str) -> MemRef:
        s = descriptors.ranked(address, len(info.shape), info.dtype)
        buf = self.sim.memory.new(s.flat, name)          # a 1-D contiguous array: no copy
        rank = len(s.sizes)
        return MemRef(buf, np.array([s.offset], np.int64), np.array([s.sizes], np.int64).reshape(1, rank),
                      np.array([s.strides], np.int64).reshape(1, rank), np.zeros(1, np.int64),
                      np.array([s.flat.size], np.int64), info.dtype)

    def _value(self, raw, arg, name):
        if arg.kind == "memref":
            return self._memref(raw, arg.type, name)
        return np.asarray(raw).astype(arg.type.dtype).reshape(1)

    def launch(self, site: Site, raw: list) -> None:
        """Run the kernel of `site` with the callback's raw arguments (6 sizes, then its operands)."""
        grid = tuple(int(x) for x in raw[:3])
        block = tuple(int(x) for x in raw[3:6])
        args = [self._value(r, a, f"{site.name}.arg{i}") for i, (r, a) in enumerate(zip(raw[6:], site.args[6:]))]
        t0 = time.perf_counter()
        with np.errstate(all="ignore"):
            self.sim.launch(site.loc, site.kernel, grid, block, args, self.host_state)
        self.kernel_seconds += time.perf_counter() - t0
        self.launches += 1

    def memset(self, site: Site, raw: list) -> None:
        s = descriptors.ranked(raw[0], len(site.args[0].type.shape), site.args[0].type.dtype)
        s.array()[...] = np.asarray(raw[1]).astype(site.args[1].type.dtype)
