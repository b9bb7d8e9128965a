"""Barriers, fences and hints in a lowered kernel (mixin of `kernel_lowering.KernelLowering`):
named barriers become work-group barriers (pvc: SPV_INTEL_split_barrier arrive / wait; portable:
wait = `spirv.ControlBarrier`, arrive = nothing) and are counted in the kernel ABI; `mfence` is a
`spirv.MemoryBarrier`; `gpu.barrier` a work-group `spirv.ControlBarrier`; compile hints vanish.
"""
from __future__ import annotations

from mlir import ir

from ...xegpu.ops import AllocNbarrierOp
from .kernel_values import str_attr


class SyncLowering:
    """nbarrier ops, mfence, compile_hint and gpu.barrier."""

    def h_xegpu_alloc_nbarrier(self, op):
        n = self.const_int(op.operands[0]) if len(op.operands) else AllocNbarrierOp(op).static_count()
        self.info.named_barriers = max(self.info.named_barriers, n if n is not None else 32)
        return []

    def h_xegpu_create_nbarrier(self, op):
        return [self.lanes.const(ir.IntegerType.get_signless(32), 0)]

    h_xegpu_init_nbarrier = h_xegpu_create_nbarrier  # IMEX / upstream XeGPU spelling

    def _barrier(self, name, sem):
        attrs = {"execution_scope": ir.Attribute.parse("#spirv.scope<Workgroup>"),
                 "memory_scope": ir.Attribute.parse("#spirv.scope<Workgroup>"),
                 "memory_semantics": ir.Attribute.parse(f"#spirv.memory_semantics<{sem}>")}
        ir.Operation.create(name, attributes=attrs)

    def h_xegpu_nbarrier_arrive(self, op):
        if self.intel_builtins:
            self._barrier("spirv.INTEL.ControlBarrierArrive", "Release|WorkgroupMemory|CrossWorkgroupMemory")
        return []

    def h_xegpu_nbarrier_wait(self, op):
        if self.intel_builtins:
            self._barrier("spirv.INTEL.ControlBarrierWait", "Acquire|WorkgroupMemory|CrossWorkgroupMemory")
        else:
            self._barrier("spirv.ControlBarrier", "AcquireRelease|WorkgroupMemory|CrossWorkgroupMemory")
        return []

    def h_xegpu_mfence(self, op):
        kind = str_attr(op, "memory_kind", "ugm")
        scope = str_attr(op, "fence_scope", "group")
        sc = "Workgroup" if scope in ("group", "local") else "Device"
        mem = "WorkgroupMemory" if kind == "slm" else "CrossWorkgroupMemory"
        ir.Operation.create("spirv.MemoryBarrier", attributes={
            "memory_scope": ir.Attribute.parse(f"#spirv.scope<{sc}>"),
            "memory_semantics": ir.Attribute.parse(f"#spirv.memory_semantics<AcquireRelease|{mem}>")})
        return []

    def h_xegpu_compile_hint(self, op):
        return []

    def h_gpu_barrier(self, op):
        self._barrier("spirv.ControlBarrier", "AcquireRelease|WorkgroupMemory|CrossWorkgroupMemory")
        return []
