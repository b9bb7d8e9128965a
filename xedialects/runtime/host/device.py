"""The device runtime of a whole program: executes the host's `__xe_launch_N`, `__xe_memset_N`,
`__xe_alloc_N`, `__xe_dealloc_N` and `__xe_memcpy_N` calls (host_lowering.Site) on the JIT's memory.

Kernels run on the simulator (`sim.Simulator` of the original module, which keeps its kernels;
work-groups in parallel processes through `sim.parallel.Scheduler`) or,
with an OpenCL `Program`, through the simulator's launch hook on an OpenCL device. Memref
arguments become simulator memrefs over zero-copy numpy views of the JIT's memory, so results are
where the host code reads them; a raw pointer argument (`!llvm.ptr<1>`) is the simulator's address
of the gpu.alloc buffer it points into. The device has no memory of its own: gpu.alloc is host memory,
tracked by buffers.DeviceMemory, which every copy, memset and launch consults (a freed buffer, a
view beyond its buffer, a copy between different sizes are located errors naming the op).
"""
from __future__ import annotations

import ctypes
import time

import numpy as np

from ...sim import Simulator
from ...sim.core import ExecState
from ...sim.memory import MemRef
from ...diagnostics import DiagnosticError, at
from . import descriptors
from .buffers import DeviceMemory
from .host_lowering import Site
from .runner_utils import emit


class Device:
    def __init__(self, module, program=None, trace: bool = False, jobs: int = 1):
        self.sim = Simulator(module, trace=trace)
        self.sim.printf_out = emit          # kernels' gpu.printf after the host's buffered C output
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
        self.memory = DeviceMemory()

    def _view(self, address: int, info, what: str, loc: str) -> descriptors.Strided:
        """The memref at descriptor `address`, checked against the device memory."""
        s = descriptors.ranked(address, len(info.shape), info.dtype)
        first, nbytes = s.span()
        self.memory.check(s.allocated, first, nbytes, what, loc)
        return s

    def _memref(self, address: int, info, name: str, what: str, loc: str) -> MemRef:
        s = self._view(address, info, what, loc)
        buf = self.sim.memory.new(s.flat, name)          # a 1-D contiguous array: no copy
        rank = len(s.sizes)
        return MemRef(buf, np.array([s.offset], np.int64), np.array([s.sizes], np.int64).reshape(1, rank),
                      np.array([s.strides], np.int64).reshape(1, rank), np.zeros(1, np.int64),
                      np.array([s.flat.size], np.int64), info.dtype)

    def _pointer(self, address: int, name: str, what: str, loc: str) -> np.ndarray:
        """The simulator's address of a raw pointer into a gpu.alloc buffer (the bytes from the
        buffer's start, shared with the JIT's memory), as upstream's runtime passes memrefs' aligned
        pointers to `!llvm.ptr<1>` kernel arguments."""
        address &= 2 ** 64 - 1
        b = self.memory.containing(address)
        if b is None:
            raise DiagnosticError([at(loc, "error", f"{what} ({address:#x}) does not point into a buffer of "
                                                    "gpu.alloc: a kernel's pointer argument must address device "
                                                    "memory")])
        self.memory.check(b.address, address, 1, what, loc)
        raw = np.ctypeslib.as_array((ctypes.c_uint8 * b.nbytes).from_address(b.address))
        buf = self.sim.memory.new(raw, name)
        return np.array([buf.base_addr + address - b.address], np.int64)

    def _value(self, raw, arg, name, what, loc):
        if arg.kind == "memref":
            return self._memref(raw, arg.type, name, what, loc)
        if arg.kind == "ptr":
            return self._pointer(int(raw), name, what, loc)
        return np.asarray(raw).astype(arg.type.dtype).reshape(1)

    def launch(self, site: Site, raw: list) -> None:
        """Run the kernel of `site` with the callback's raw arguments (6 sizes, then its operands)."""
        grid = tuple(int(x) for x in raw[:3])
        block = tuple(int(x) for x in raw[3:6])
        args = [self._value(r, a, f"{site.name}.arg{i}", f"gpu.launch_func {site.kernel}: argument {i} "
                            f"({a.type.text})", site.loc)
                for i, (r, a) in enumerate(zip(raw[6:], site.args[6:]))]
        t0 = time.perf_counter()
        with np.errstate(all="ignore"):
            self.sim.launch(site.loc, site.kernel, grid, block, args, self.host_state)
        self.kernel_seconds += time.perf_counter() - t0
        self.launches += 1

    def memset(self, site: Site, raw: list) -> None:
        s = self._view(raw[0], site.args[0].type, f"gpu.memset: the destination ({site.args[0].type.text})", site.loc)
        s.array()[...] = np.asarray(raw[1]).astype(site.args[1].type.dtype)

    def alloc(self, site: Site, raw: list) -> None:
        """gpu.alloc: fill the result descriptor at raw[0] with a fresh zeroed buffer (raw[1:]: the
        dynamic sizes, in order)."""
        t = site.result
        dyn = iter(int(x) for x in raw[1:])
        sizes = [next(dyn) if d is None or d < 0 else int(d) for d in t.shape]
        if any(n < 0 for n in sizes):
            raise DiagnosticError([at(site.loc, "error", f"gpu.alloc of {t.text} with a negative size "
                                                         f"({'x'.join(map(str, sizes))})")])
        if site.layout is None:
            strides, acc = [], 1
            for n in reversed(sizes):
                strides.insert(0, acc)
                acc *= n
            offset = 0
        else:
            strides, offset = list(site.layout[0]), site.layout[1]
        extent = 0 if 0 in sizes else offset + 1 + sum((n - 1) * st for n, st in zip(sizes, strides))
        addr = self.memory.alloc(extent * t.dtype.itemsize, t.text, site.loc)
        words = (ctypes.c_int64 * (3 + 2 * len(sizes))).from_address(raw[0])
        words[0] = words[1] = addr
        words[2] = offset
        for i, (n, st) in enumerate(zip(sizes, strides)):
            words[3 + i] = n
            words[3 + len(sizes) + i] = st

    def dealloc(self, site: Site, raw: list) -> None:
        info = site.args[0].type
        s = descriptors.ranked(raw[0], len(info.shape), info.dtype)
        self.memory.free(s.allocated, info.text, site.loc)

    def memcpy(self, site: Site, raw: list) -> None:
        """gpu.memcpy: both views checked, then the source's elements (row-major) copied to the
        destination; different element counts are an error (same count, other shape: copied flat,
        as the byte copy of a GPU runtime)."""
        (dt, st), loc = (a.type for a in site.args), site.loc
        dst = self._view(raw[0], dt, f"gpu.memcpy: the destination ({dt.text})", loc)
        src = self._view(raw[1], st, f"gpu.memcpy: the source ({st.text})", loc)
        n_dst, n_src = int(np.prod(dst.sizes, dtype=np.int64)), int(np.prod(src.sizes, dtype=np.int64))
        if n_dst != n_src:
            shape = lambda v: "x".join(map(str, v.sizes)) or "0-d"       # noqa: E731
            raise DiagnosticError([at(loc, "error", f"gpu.memcpy between buffers of different sizes: the "
                                                    f"destination has {n_dst} elements, the source {n_src} (shapes "
                                                    f"{shape(dst)} and {shape(src)})")])
        if not n_dst:
            return
        if dst.sizes == src.sizes:
            np.copyto(dst.array(), src.array())
        else:
            dst.array()[...] = src.elements().reshape(dst.sizes)
