"""Functional simulator for XeTile/XeGPU programs (host function + gpu kernels) on numpy.

`simulate(module, entry, args)` runs the host function `entry` of an MLIR module whose kernels use
the xetile/xegpu ops (generic form of docs/ir-encoding.md) together with upstream arith, math,
vector, memref, scf, gpu and func ops. Kernels execute lock-step and batched: all subgroups of all
work-groups at once, each SSA value a numpy array with a leading batch axis. Errors (out-of-bounds
accesses the hardware would not clip, barrier mismatches, loop caps, unsupported ops) are reported
as `DiagnosticError`s carrying the op location. `run_reference` (reference.py) runs linalg host
functions on the CPU with upstream MLIR for comparison.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import diagnostics
from ..diagnostics import DiagnosticError
from . import ops as _ops  # noqa: F401  (registers every op handler)
from .core import Simulator
from .memory import MemRef
from .strided_args import logical_view, static_layout
from .trace import Trace
from .typeinfo import parse_type

__all__ = ["simulate", "SimResult", "Trace", "DiagnosticError", "Simulator"]


@dataclass
class SimResult:
    buffers: list  # argument arrays after the run (same order as the entry's arguments)
    trace: Trace | None = None
    returns: list = field(default_factory=list)  # values returned by the entry function
    seconds: float = 0.0


def _entry_arg_types(module, entry: str):
    from mlir import ir

    body = module.body if hasattr(module, "body") else module.regions[0].blocks[0]
    for op in body.operations:
        op = op.operation
        if op.name == "func.func" and "sym_name" in op.attributes and \
                ir.StringAttr(op.attributes["sym_name"]).value == entry:
            ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            return [parse_type(t) for t in ft.inputs], op
    raise DiagnosticError([diagnostics.Diagnostic("error", f"entry function '@{entry}' not found")])


def _as_module(module):
    if isinstance(module, str):
        from .testing import parse_module

        return parse_module(module)
    return module


def simulate(module, entry: str, args, *, trace: bool = False, loop_cap: int = 1 << 22, arch=None,
             slm_limit: int | None = None, launcher=None) -> SimResult:
    """Run host function `entry` of `module` (ir.Module, module op, or text) on `args`.

    args: list (or dict keyed by position / "argN") of numpy arrays for memref arguments (bf16 as
    ml_dtypes.bfloat16; other dtypes are converted) and Python/numpy scalars for scalar arguments.
    The inputs are copied; `SimResult.buffers` holds the arrays after the run. `launcher` (see
    `Simulator.launcher`) runs the kernels of `gpu.launch_func` elsewhere, e.g. on an OpenCL device.
    Shared local memory per work-group is limited to the `arch` table's (default: the architecture
    the module's kernels were lowered for, its `xe.arch`, else pvc) unless `slm_limit` (bytes) says otherwise.
    """
    import time

    module = _as_module(module)
    types, fop = _entry_arg_types(module, entry)
    if isinstance(args, dict):
        lst = [None] * len(types)
        for k, v in args.items():
            i = int(k[3:]) if isinstance(k, str) and k.startswith("arg") else int(k)
            lst[i] = v
        args = lst
    args = list(args)
    if len(args) != len(types):
        raise DiagnosticError([diagnostics.at(fop.location, "error",
                                              f"@{entry} takes {len(types)} arguments, {len(args)} given")])
    sim = Simulator(module, trace=trace, loop_cap=loop_cap, arch=arch, slm_limit=slm_limit)
    sim.launcher = launcher
    vals, shapes = [], []
    for i, (t, a) in enumerate(zip(types, args)):
        if t.kind == "memref":
            arr = np.asarray(a)
            if arr.dtype != t.dtype:
                arr = arr.astype(t.dtype)
            if arr.ndim != len(t.shape) or any(d >= 0 and d != n for d, n in zip(t.shape, arr.shape)):
                raise DiagnosticError([diagnostics.at(
                    fop.location, "error",
                    f"argument {i}: array of shape {arr.shape} does not match {t.text}")])
            layout = static_layout(t, arr.shape)     # placed at the strides and offset of its type
            if layout is None:
                buf = sim.memory.new(np.array(arr, copy=True), f"arg{i}")
                vals.append(sim.memory.full_view(buf, arr.shape))
            else:
                strides, offset, size = layout
                data = np.zeros(size, arr.dtype)
                logical_view(data, arr.shape, strides, offset)[...] = arr
                view = sim.memory.full_view(sim.memory.new(data, f"arg{i}"), (size,))
                vals.append(view.with_(offset=view.offset + offset,
                                       sizes=np.array([arr.shape], np.int64).reshape(1, -1),
                                       strides=np.array([strides], np.int64).reshape(1, -1)))
            shapes.append((arr.shape, layout))
        elif t.kind in ("scalar",):
            vals.append(np.asarray(a, dtype=t.dtype).reshape(1))
            shapes.append(None)
        else:
            raise DiagnosticError([diagnostics.at(fop.location, "error",
                                                  f"argument {i}: unsupported entry argument type {t.text}")])
    t0 = time.perf_counter()
    rets = sim.run_entry(entry, vals)
    dt = time.perf_counter() - t0
    out = []
    for v, shp, a in zip(vals, shapes, args):
        if isinstance(v, MemRef):
            shape, layout = shp
            out.append(v.buf.data.reshape(shape) if layout is None else
                       np.array(logical_view(v.buf.data, shape, layout[0], layout[1])))
        else:
            out.append(a)
    py_rets = []
    for r in rets:
        if isinstance(r, MemRef):
            py_rets.append(r.to_numpy())
        elif isinstance(r, np.ndarray) and r.shape[:1] == (1,):
            py_rets.append(r[0])
        else:
            py_rets.append(r)
    return SimResult(out, sim.trace, py_rets, dt)
