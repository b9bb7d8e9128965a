"""Functional simulator for XeTile/XeGPU programs (host function + gpu kernels) on numpy.

`simulate(module, entry, args)` runs the host function `entry` of an MLIR module whose kernels use
the xetile/xegpu ops (generic form of docs/ir-encoding.md) together with upstream arith, math,
vector, memref, scf, gpu and func ops; `simulate(module, kernel, args, grid=(x, y, z))` launches a
gpu.func kernel directly. Kernels execute lock-step and batched: all subgroups of all
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


def _functions(module):
    """(host func.func ops, [(gpu.module name, gpu.func kernel op)]) of a module, by name."""
    from mlir import ir

    def name(op):
        return ir.StringAttr(op.attributes["sym_name"]).value if "sym_name" in op.attributes else None

    body = module.body if hasattr(module, "body") else module.regions[0].blocks[0]
    hosts, kernels = {}, {}
    for op in body.operations:
        op = op.operation
        if op.name == "func.func":
            hosts[name(op)] = op
        elif op.name == "gpu.module":
            for k in op.regions[0].blocks[0].operations:
                k = k.operation
                if k.name == "gpu.func" and "gpu.kernel" in k.attributes:
                    kernels.setdefault(name(k), (name(op), k))
    return hosts, kernels


def _entry_arg_types(module, entry: str, grid=None):
    """(argument types, the entry op, "@gpu_module::@kernel" for a kernel entry else None)."""
    from mlir import ir

    hosts, kernels = _functions(module)
    if entry in hosts:
        op, ref = hosts[entry], None
    elif entry in kernels and grid is not None:
        gm, op = kernels[entry]
        ref = f"@{gm}::@{entry}"
    else:
        hint = (f"'@{entry}' is a gpu.func kernel: run it directly with simulate(module, \"{entry}\", arrays, "
                "grid=(x, y, z), block=(x, y, z)), or through a host function that launches it"
                if entry in kernels else
                f"entry function '@{entry}' not found; host functions: "
                f"{', '.join('@' + n for n in hosts) or 'none'}; kernels (simulate(..., grid=, block=)): "
                f"{', '.join('@' + n for n in kernels) or 'none'}")
        loc = kernels[entry][1].location if entry in kernels else None
        raise DiagnosticError([diagnostics.at(loc, "error", hint) if loc is not None
                               else diagnostics.Diagnostic("error", hint)])
    ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
    return [parse_type(t) for t in ft.inputs], op, ref


def _launch_sizes(kop, grid, block):
    """grid and block as (x, y, z) (missing entries 1); block defaults to the kernel's
    known_block_size."""
    from .core import attr_ints

    if block is None and "known_block_size" in kop.attributes:
        block = attr_ints(kop.attributes["known_block_size"])
    if block is None:
        raise DiagnosticError([diagnostics.at(kop.location, "error", "a kernel run directly needs block=(x, y, z) "
                                              "work-items (it has no known_block_size)")])
    sizes = []
    for what, v in (("grid", grid), ("block", block)):
        v = (v,) if isinstance(v, int) else tuple(int(x) for x in v)
        if not 1 <= len(v) <= 3 or min(v) <= 0:
            raise DiagnosticError([diagnostics.at(kop.location, "error",
                                                  f"{what} must be 1 to 3 positive sizes, got {v}")])
        sizes.append(v + (1,) * (3 - len(v)))
    return sizes


def _as_module(module):
    if isinstance(module, str):
        from .testing import parse_module

        return parse_module(module)
    return module


def simulate(module, entry: str, args, *, grid=None, block=None, trace: bool = False, loop_cap: int = 1 << 22,
             arch=None, slm_limit: int | None = None, launcher=None) -> SimResult:
    """Run host function `entry` of `module` (ir.Module, module op, or text) on `args`; or, given
    `grid` (work-groups, (x, y, z)), the gpu.func kernel `entry` launched directly on `block`
    work-items per work-group (default: its known_block_size).

    args: list (or dict keyed by position / "argN") of numpy arrays for memref arguments (bf16 as
    ml_dtypes.bfloat16; other dtypes are converted) and Python/numpy scalars for scalar arguments.
    The inputs are copied; `SimResult.buffers` holds the arrays after the run. `launcher` (see
    `Simulator.launcher`) runs the kernels of `gpu.launch_func` elsewhere, e.g. on an OpenCL device.
    Shared local memory per work-group is limited to the `arch` table's (default: the architecture
    the module's kernels were lowered for, its `xe.arch`, else pvc) unless `slm_limit` (bytes) says otherwise.
    """
    import time

    module = _as_module(module)
    types, fop, kernel_ref = _entry_arg_types(module, entry, grid)
    if kernel_ref is None and (grid is not None or block is not None):
        raise DiagnosticError([diagnostics.at(fop.location, "error", f"@{entry} is a host function: grid= and "
                                              "block= launch a gpu.func kernel directly; its gpu.launch_func has them")])
    sizes = _launch_sizes(fop, grid, block) if kernel_ref is not None else None
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
    if kernel_ref is None:
        rets = sim.run_entry(entry, vals)
    else:
        sim.launch(fop.location, kernel_ref, sizes[0], sizes[1], vals, None)
        rets = []
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
