"""Simulator op handlers, one module per dialect. Importing this package registers them all with
`core.handler` (sim/__init__.py does so).

    arith       arith, index, ub.poison, affine.apply/min/max
    math        math, vector.fma
    vector      vector (incl. load/store and transfers)
    memref      memref (views, allocation incl. gpu.alloc/dealloc, copies, globals, atomics), and
                llvm.ptrtoint of a kernel's raw pointer argument (its simulator address)
    scf         scf, func.call
    gpu         gpu launch/host memory ops, kernel intrinsics, barrier, shuffle, subgroup_reduce
    xetile      xetile (update_tile_offset shared with xegpu.update_nd_offset)
    xegpu       xegpu, VC and SIMT modes

Shared pieces: elements (constants from attributes, unsigned/widened views, reduction kinds),
memref_access (checked element access, masked writes, copies, atomics), descriptors (xetile/xegpu
block and scattered descriptors and their memory access).
"""
from . import arith, gpu, math, memref, scf, vector, xegpu, xetile  # noqa: F401  (registers handlers)
