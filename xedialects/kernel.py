"""Kernels from Python in one call, run Triton-style: `xe_kernel` wraps a kernel body (XeTile or
XeGPU ops built with the op classes and upstream builders, subgroup or work-group level) into a
whole module -- `gpu.module` with the `gpu.func` kernel, a host `func.func` that launches it -- and
`kernel[grid](*arrays)` simulates it (`xedialects.sim`), writing the results into the arrays.

    @xe_kernel(["memref<8x16xf32>", "memref<8x16xf32>"])
    def copy(src, dst):                                     # the kernel's block arguments
        tile = TileType.get([8, 16], "f32")
        v = LoadTileOp.build(tile=InitTileOp.build(source=src, offsets=[0, 0], result_types=[tile]).result)
        StoreTileOp.build(value=v.result, tile=InitTileOp.build(source=dst, offsets=[0, 0], result_types=[tile]).result)

    copy[(1, 1, 1)](a, b)          # b now holds a
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import func

GPU_MODULE = "kernels"
HOST = "main"


def _sizes(what: str, v) -> tuple[int, int, int]:
    v = (v,) if isinstance(v, (int, np.integer)) else tuple(v)
    if not 1 <= len(v) <= 3 or not all(isinstance(x, (int, np.integer)) and x > 0 for x in v):
        raise ValueError(f"{what} must be 1 to 3 positive integers (x, y, z), got {v!r}")
    return tuple(int(x) for x in v) + (1,) * (3 - len(v))


class Kernel:
    """A built kernel: `module` (the whole program), `name` (the gpu.func), `host` (the func.func
    launching it on `grid` x `block`). `kernel[grid](*arrays)` launches the kernel directly on
    another grid; `kernel(*arrays)` runs the host function. Both simulate, copy each result back into
    its numpy argument (as a Triton kernel writes its tensors) and return the `sim.SimResult`."""

    def __init__(self, module, name, grid, block):
        self.module, self.name, self.host = module, name, HOST
        self.grid, self.block = grid, block

    def __str__(self):
        from . import print_ir

        return print_ir(self.module)

    def __getitem__(self, grid):
        grid = _sizes("grid", grid)
        return lambda *arrays, **options: self._run(self.name, arrays, grid=grid, block=self.block, **options)

    def __call__(self, *arrays, **options):
        return self._run(self.host, arrays, **options)

    def _run(self, entry, arrays, **options):
        from .sim import simulate

        result = simulate(self.module, entry, list(arrays), **options)
        for given, out in zip(arrays, result.buffers):
            if isinstance(given, np.ndarray) and given.flags.writeable and given.shape == np.shape(out):
                np.copyto(given, out, casting="unsafe")
        return result


def build_kernel(body, arg_types, *, name: str | None = None, grid=(1, 1, 1), block=(16, 1, 1),
                 arch: str | None = None, context: ir.Context | None = None) -> Kernel:
    """The module of kernel `name` (default: the body's `__name__`) whose arguments have `arg_types`
    (ir.Types or text: memrefs, index, integers, floats); `body(*block_arguments)` builds its ops at the
    insertion point (gpu.return is added). `block` is work-items per work-group (16 per subgroup),
    `grid` the host function's work-groups; `arch` is recorded on the gpu.module (`xe.arch`), which
    the passes, the report and the simulator then use. The context: `context`, else the enclosing
    `with ctx:`, else a fresh `make_context()`."""
    from .arch.recorded import record_arch
    from .context import context_for
    from .lowering.linalg_to_xetile.launch import index_const, launch_func
    from .syntax.convert import type_from_text

    name = name or body.__name__
    grid, block = _sizes("grid", grid), _sizes("block", block)
    ctx = context_for(context)
    with ctx, ir.Location.unknown():
        types = [type_from_text(t) if isinstance(t, str) else t for t in arg_types]
        module = ir.Module.create()
        module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
        with ir.InsertionPoint(module.body):
            gpu_module = ir.Operation.create("gpu.module", regions=1,
                                             attributes={"sym_name": ir.StringAttr.get(GPU_MODULE)})
            kernel = ir.Operation.create("gpu.func", regions=1, attributes={
                "sym_name": ir.StringAttr.get(name),
                "function_type": ir.TypeAttr.get(ir.FunctionType.get(types, [])),
                "gpu.kernel": ir.UnitAttr.get(),
                "known_block_size": ir.DenseI32ArrayAttr.get(list(block))},
                ip=ir.InsertionPoint(gpu_module.regions[0].blocks.append()))
            entry = kernel.regions[0].blocks.append(*types)
            host = func.FuncOp(HOST, (types, []))
            with ir.InsertionPoint(host.add_entry_block()):
                consts = {v: index_const(v) for v in sorted(set(grid + block))}
                launch_func(GPU_MODULE, name, [consts[v] for v in grid], [consts[v] for v in block], host.arguments)
                func.ReturnOp([])
        with ir.InsertionPoint(entry):
            ret = ir.Operation.create("gpu.return")
        with ir.InsertionPoint(ret):
            body(*entry.arguments)
        if arch is not None:
            record_arch(module, arch)
    return Kernel(module, name, grid, block)


def xe_kernel(arg_types, *, grid=(1, 1, 1), block=(16, 1, 1), arch: str | None = None, name: str | None = None,
              context: ir.Context | None = None):
    """Decorator form of `build_kernel`: `@xe_kernel([...types])` over the body turns it into a `Kernel`."""
    return lambda body: build_kernel(body, arg_types, name=name, grid=grid, block=block, arch=arch, context=context)
