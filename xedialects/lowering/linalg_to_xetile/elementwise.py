"""Stand-alone element-wise linalg ops (named add/sub/mul/div/..., all-parallel `linalg.generic`)
on 2D memrefs, outlined into work-group XeTile kernels: load every operand tile, apply the body
(scalars captured from the host become kernel arguments broadcast to the tile), store the result.
The body emission is the GEMM epilogue's (`gemm_epilogue._Epilogue`); tiles come from
`memory_plan.plan_memory_bound`; unaligned edges rely on the tiles' out-of-bounds semantics."""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref

from . import elementwise_1d
from .gemm_epilogue import (FUSIBLE_NAMES, Fusion, KernelEnv, NotFusible, _defining, _Epilogue,
                            _is_constant, _is_memref, elementwise_form)
from ...core.typeinfo import memref_info

STANDALONE = FUSIBLE_NAMES - {"linalg.fill", "linalg.broadcast", "linalg.copy"}


class _NoC:  # stands for the GEMM C the epilogue would start from
    pass


@dataclass
class _Spec:
    op: object
    c: object


class EwIO:
    """Kernel arguments of one element-wise kernel (the parts of gemm_epilogue.KernelIO it uses)."""

    def __init__(self, ew):
        self.spec = _Spec(ew.op, _NoC())
        self.fusion = Fusion(self.spec, ops=[ew], stored=[ew.output])
        self.names: dict = {}
        self.params: list = []
        self.host_args: list = []
        for i in ew.inputs:
            if not _is_constant(i.value):
                self._add(i.value)
        self._add(ew.output)
        for v in ew.captured():
            if not _is_constant(v):
                self._add(v)

    def _add(self, v):
        if v in self.names:
            return
        kind = "X" if _is_memref(v) else "s"
        name = f"%{kind}{sum(1 for n, _ in self.params if n.startswith('%' + kind))}"
        self.names[v] = name
        self.params.append((name, str(v.type)))
        self.host_args.append(v)


def match_elementwise(op):
    """The EwOp of a stand-alone element-wise op, or NotFusible with the reason."""
    if op.name not in STANDALONE:
        raise NotFusible(f"'{op.name}' is not an element-wise op")
    if elementwise_1d.is_1d(op):
        return elementwise_1d.form_1d(op)
    return elementwise_form(op)


def output_shape(ew):
    """(rows, cols) and element type of the output (a 1D output is 1xN)."""
    shape, elt = memref_info(ew.output)[:2]
    return ((1,) + tuple(shape) if len(shape) == 1 else tuple(shape)), elt


def kernel_text(ew, plan, kname: str, io: EwIO) -> str:
    wm, wn = plan.wg_tile
    L = []
    w = L.append
    sig = ", ".join(f"{n}: {t}" for n, t in io.params)
    w(f"  gpu.func @{kname}({sig}) kernel attributes "
      f"{{known_block_size = array<i32: {plan.num_subgroups * 16}, 1, 1>, xe.subgroup_size = 16 : i32}} {{")
    w("    %c0 = arith.constant 0 : index")
    w("    %c1 = arith.constant 1 : index")
    w(f"    %cwm = arith.constant {wm} : index")
    w(f"    %cwn = arith.constant {wn} : index")
    w("    %bx = gpu.block_id x")
    w("    %by = gpu.block_id y")
    w("    %m = arith.muli %by, %cwm : index")
    w("    %n = arith.muli %bx, %cwn : index")
    elt = output_shape(ew)[1]
    env = KernelEnv(wm, wn, elt, elt, (plan.sg_layout, plan.sg_data), "%none", None, None)
    views = elementwise_1d.emit_views(io, w)
    (elementwise_1d.Epilogue1D(io, env, w, views) if views else _Epilogue(io, env, w)).run()
    w("    gpu.return")
    w("  }")
    return "\n".join(L)


def emit_launch(ew, plan, mod_name: str, kname: str, io: EwIO):
    """gpu.launch_func before the op (grid from the output's sizes), then erase the op and the
    host constants only it used."""
    op = ew.op
    with op.context, ir.InsertionPoint(op), op.location:
        idx = ir.IndexType.get()

        def const(v):
            return arith.ConstantOp(idx, v).result

        wm, wn = plan.wg_tile
        (m, n), _ = output_shape(ew)
        one_d = len(memref_info(ew.output)[0]) == 1
        if one_d:
            m = 1
        if n is None and one_d:
            gx = arith.CeilDivUIOp(memref.DimOp(ew.output, const(0)).result, const(wn)).result
            gy = const(1)
        elif m is None:
            gy = arith.CeilDivUIOp(memref.DimOp(ew.output, const(0)).result, const(wm)).result
        else:
            gy = const(-(-m // wm))
        if one_d and n is None:
            pass
        elif n is None:
            gx = arith.CeilDivUIOp(memref.DimOp(ew.output, const(1)).result, const(wn)).result
        else:
            gx = const(-(-n // wn))
        one = const(1)
        threads = const(plan.num_subgroups * 16)
        args = list(io.host_args)
        launch = ir.Operation.create(
            "gpu.launch_func",
            operands=[gx, gy, one, threads, one, one] + args,
            attributes={
                "kernel": ir.SymbolRefAttr.get([mod_name, kname]),
                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, len(args), 0]),
            })
    consts = []
    for v in ew.captured() + [i.value for i in ew.inputs]:
        d = _defining(v)
        if d is not None and d.name == "arith.constant" and d not in consts:
            consts.append(d)
    op.erase()
    for c in consts:
        if not list(c.results[0].uses):
            c.erase()
    return launch
