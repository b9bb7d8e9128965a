"""`gpu.printf` in a lowered kernel (mixin of `kernel_lowering.KernelLowering`): in a subgroup-level kernel
lane 0 of each subgroup prints (`scf.if` on the lane id), as the simulator prints once per subgroup; in a
kernel the simulator runs per work-item (lane ids, thread ids: `sim.core.detect_level`) every lane prints.
f16 and bf16 (stored as i16) operands are widened to f32, i1 / i8 / i16 to i32 (C's default argument
promotions). Upstream's convert-gpu-to-spirv then makes it OpenCL C's printf, `spirv.CL.printf` on a
UniformConstant string. docs/spirv.md.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from ...printf_format import parse
from ...sim.core import detect_level
from .spirv_lanes import LoweringError


class PrintfLowering:
    """gpu.printf."""

    def h_gpu_printf(self, op):
        types = [str(v.type) for v in op.operands]
        fmt = ir.StringAttr(op.attributes["format"]).value
        try:
            parse(fmt, types)
        except ValueError as e:
            raise LoweringError(op, str(e)) from None
        args = [self._printf_operand(self.scalar(v, op), t) for v, t in zip(op.operands, types)]
        if getattr(self, "_per_lane", None) is None:
            self._per_lane = detect_level(self.old) == "simt"
        if self._per_lane:
            ir.Operation.create("gpu.printf", operands=args, attributes={"format": op.attributes["format"]})
            return []
        L = self.lanes
        first = arith.CmpIOp(arith.CmpIPredicate.eq, L.lane, L.index(0)).result
        guard = scf.IfOp(first, [], has_else=False)
        with ir.InsertionPoint(guard.then_block):
            ir.Operation.create("gpu.printf", operands=args, attributes={"format": op.attributes["format"]})
            scf.YieldOp([])
        return []

    @staticmethod
    def _printf_operand(x, t: str):
        f32 = ir.F32Type.get()
        if t == "f16":
            return arith.ExtFOp(f32, x).result
        if t == "bf16":         # the bits of a bf16 are the high half of the f32's
            wide = arith.ExtUIOp(ir.IntegerType.get_signless(32), x).result
            high = arith.ShLIOp(wide, arith.ConstantOp(wide.type, 16).result).result
            return arith.BitcastOp(f32, high).result
        if t == "i1":
            return arith.ExtUIOp(ir.IntegerType.get_signless(32), x).result
        if t in ("i8", "i16"):  # C's default argument promotion to int
            return arith.ExtSIOp(ir.IntegerType.get_signless(32), x).result
        return x
