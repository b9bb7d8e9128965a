"""Whole programs on a real host (xe-run -e main): the host code of a module is compiled for the
CPU with upstream MLIR's ExecutionEngine, and its gpu.alloc/memcpy/memset/dealloc/wait ops become
CPU memory ops while each gpu.launch_func calls back into Python to run the kernel on a device
(the simulator or OpenCL). See docs/whole-programs.md.

    host_lowering.py  the host clone: gpu ops rewritten, kernels dropped, lowered to LLVM
    descriptors.py    memref descriptors in JIT memory <-> zero-copy numpy views
    device.py         the device runtime: one launch callback per gpu.launch_func site
    runner_utils.py   IMEX's runner utilities (printAllclose*, fillResource1D*, ...) in numpy
    jit.py            the ExecutionEngine, callbacks, stdout ordering, running the entry
    sizes.py          memref sizes checked before types reach LLVM
    buffers.py        device memory: every gpu.alloc tracked until gpu.dealloc
    guards.py         run-time guards added to the host code (failed allocs, cf.assert, --host-checks)
    supervise.py      the host lowered, compiled and run in a forked child (crashes, --timeout)
"""
from .jit import ProgramError, run_program
from .supervise import HostExit

__all__ = ["run_program", "ProgramError", "HostExit"]
