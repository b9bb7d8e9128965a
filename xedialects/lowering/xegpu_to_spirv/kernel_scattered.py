"""Scattered memory access in a lowered kernel (mixin of `kernel_lowering.KernelLowering`):
`create_tdesc` / `update_offset` keep per-lane offsets; `load_gather`, `store_scatter` and
`atomic_rmw` become masked per-lane loads, stores and `spirv.Atomic*` ops (device scope, work-group
scope on shared local memory); scattered `prefetch` is dropped.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, scf

from ...core.kinds import ATOMIC_RMW_KINDS
from ...xegpu.attributes import TensorDescType
from .kernel_values import ScDesc, is_slm_ptr, str_attr, vector_shape
from .spirv_lanes import DVal, LoweringError, storage_type
from .spirv_layout import LANES, Layout


class ScatteredLowering:
    """create_tdesc, update_offset, load_gather, store_scatter, prefetch, atomic_rmw."""

    def h_xegpu_create_tdesc(self, op):
        td = TensorDescType(op.results[0].type)
        elt = str(td.element_type)
        m = self.source_ptr(op.operands[0], elt, op)
        self.check_scope(op, td, m)
        return [ScDesc(m.ptr, elt, td.chunk_size_per_lane, self.scattered_offsets(op.operands[1]))]

    def scattered_offsets(self, v) -> DVal:
        """A scattered descriptor's offsets: offset i in lane i (a lane-level kernel: the work-item's own)."""
        offs = self.dval(v)
        return self.lanes.relayout(offs, Layout.canonical(offs.shape, 0))

    def h_xegpu_update_offset(self, op):
        d = self.get(op.operands[0])
        delta = self.lanes.relayout(self.dval(op.operands[1]), d.offs.layout)
        vals = [None if x is None else arith.AddIOp(x, y).result for x, y in zip(d.offs.vals, delta.vals)]
        return [ScDesc(d.ptr, d.elt, d.chunk, DVal(d.offs.layout, vals, "index"))]

    def scatter_slots(self, d: ScDesc, mask: DVal, shape, transpose=False, read=False):
        """For each register of a scattered value: (slot, lanes, address, mask value) -- lane i
        accesses offset[i] + c for chunk element c. `read`: a register of fewer lanes whose address
        and mask are the same in every lane (`lane_invariant`: a bias element at a subgroup-uniform
        row) is read by every lane, with no lane test: a uniform branch, not a divergent one."""
        L = self.lanes
        n = d.offs.shape[0]
        lay = Layout.canonical(shape, 1 if transpose else 0)
        m = L.relayout(mask, Layout.canonical((n,), 0)) if mask is not None else None
        out = []
        idx = np.indices(shape)
        lane_i, chunk_c = (idx[1], idx[0]) if transpose else ((idx[0], idx[1]) if len(shape) == 2 else (idx[0], 0 * idx[0]))
        for s in range(lay.nslots):
            el = lay.lane_elements(s)
            if not el:
                out.append((s, el, None, None))
                continue
            es = list(el.values())
            i0 = int(lane_i.reshape(-1)[es[0]]) // LANES
            c = int(chunk_c.reshape(-1)[es[0]])
            addr = L.add(d.offs.vals[i0], c)
            mv = m.vals[i0] if m is not None else L.const(ir.IntegerType.get_signless(1), 1)
            if len(el) < LANES and not (read and self.lane_invariant(addr) and self.lane_invariant(mv)):
                mv = arith.AndIOp(mv, L.lane_in(el)).result
            out.append((s, el, addr, mv))
        return lay, out

    def h_xegpu_load_gather(self, op):
        d = self.get(op.operands[0])
        mask = self.dval(op.operands[1])
        shape = vector_shape(op.results[0].type)
        lay, slots = self.scatter_slots(d, mask, shape, "transpose" in op.attributes, read=True)
        st = storage_type(d.elt)
        vals = [None if addr is None else self.load_elem(d.ptr, st, addr, mv) for _s, _el, addr, mv in slots]
        return [DVal(lay, vals, d.elt)]

    def h_xegpu_store_scatter(self, op):
        v = self.dval(op.operands[0])
        d = self.get(op.operands[1])
        mask = self.dval(op.operands[2])
        lay, slots = self.scatter_slots(d, mask, v.shape)
        v = self.lanes.relayout(v, lay)
        st = storage_type(d.elt)
        for s, _el, addr, mv in slots:
            if addr is not None and v.vals[s] is not None:
                self.store_elem(d.ptr, st, addr, v.vals[s], mv)
        return []

    def h_xegpu_prefetch(self, op):
        return []

    _ATOMICS = {"addi": "spirv.AtomicIAdd", "maxs": "spirv.AtomicSMax", "mins": "spirv.AtomicSMin",
                "maxu": "spirv.AtomicUMax", "minu": "spirv.AtomicUMin", "andi": "spirv.AtomicAnd",
                "ori": "spirv.AtomicOr", "assign": "spirv.AtomicExchange", "addf": "spirv.EXT.AtomicFAdd"}

    def h_xegpu_atomic_rmw(self, op):
        v = self.dval(op.operands[0])
        d = self.get(op.operands[1])
        mask = self.dval(op.operands[2])
        spv = self.atomic_instruction(op, d.elt)
        lay, slots = self.scatter_slots(d, mask, v.shape)
        v = self.lanes.relayout(v, lay)
        olds = []
        for s, _el, addr, mv in slots:
            if addr is None or v.vals[s] is None:
                olds.append(None)
                continue
            olds.append(self.atomic_elem(spv, d, addr, v.vals[s], mv))
        return [DVal(lay, olds, d.elt)]

    def atomic_instruction(self, op, elt: str) -> str:
        """The SPIR-V atomic instruction of atomic_rmw `op` (xegpu's, or memref's whose kind is an
        arith::AtomicRMWKind integer) on elements of type `elt` (a located error if none)."""
        a = op.attributes["kind"]
        kind = ATOMIC_RMW_KINDS.get(ir.IntegerAttr(a).value, str(a)) if isinstance(a, ir.IntegerAttr) \
            else str_attr(op, "kind")
        spv = self._ATOMICS.get(kind)
        if spv is None:
            raise LoweringError(op, f"atomic_rmw kind {kind} has no single SPIR-V atomic instruction; supported: "
                                    f"{', '.join(sorted(self._ATOMICS))}")
        if kind == "addf" and elt != "f32":
            raise LoweringError(op, f"atomic addf on {elt}: only f32 float atomics are supported")
        return spv

    def atomic_elem(self, spv: str, d, addr, value, mask):
        """The old value of element `addr` of `d` (a ScDesc or MemArg) after atomic `spv` with `value` where `mask` (i1), else 0."""
        st = storage_type(d.elt)
        if_op = scf.IfOp(mask, [st], has_else=True)
        with ir.InsertionPoint(if_op.then_block):
            p = self.elem_ptr(d.ptr, st, addr)
            scope = "Workgroup" if is_slm_ptr(d.ptr) else "Device"
            attrs = {"memory_scope": ir.Attribute.parse(f"#spirv.scope<{scope}>"),
                     "semantics": ir.Attribute.parse("#spirv.memory_semantics<None>")}
            r = ir.Operation.create(spv, results=[st], operands=[p, value], attributes=attrs).results[0]
            scf.YieldOp([r])
        with ir.InsertionPoint(if_op.else_block):
            scf.YieldOp([self.lanes.zero(st)])
        return if_op.results[0]
