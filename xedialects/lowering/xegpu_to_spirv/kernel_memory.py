"""Memrefs inside a lowered kernel (mixin of `kernel_lowering.KernelLowering`): views of kernel
buffers (subview, expand / collapse_shape, transpose, cast, dim), shared local memory buffers
(`memref.alloc` in memory space 3 and workgroup attributions become Workgroup-storage
`spirv.GlobalVariable`s placed in the gpu.module, which the upstream conversion moves into the
spirv.module), scalar memref.load / store, and the per-element access primitives (a load or
store under an `scf.if` guard) that the block IO and scattered lowerings use.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from ...core.kinds import DYNAMIC
from ...core.memory_space import is_global_space, is_slm_memref
from .kernel_values import MemArg, mixed_indices, operand_groups
from .spirv_lanes import LoweringError, bits_of, storage_type


class MemoryLowering:
    """memref ops, shared local memory and per-element memory access."""

    def h_memref_dim(self, op):
        m = self.get(op.operands[0])
        if not isinstance(m, MemArg):
            raise LoweringError(op, "memref.dim of a buffer that is not a kernel argument")
        d = self.const_int(op.operands[1])
        if d is None:
            raise LoweringError(op, "memref.dim with a non-constant dimension")
        return [self.lanes.index(m.shape[d])]

    def h_memref_transpose(self, op):
        m = self.get(op.operands[0])
        perm = ir.AffineMapAttr(op.attributes["permutation"]).value
        idx = [ir.AffineDimExpr(r).position for r in perm.results]
        return [MemArg(m.ptr, m.elt, [m.shape[i] for i in idx], [m.strides[i] for i in idx])]

    def h_memref_cast(self, op):
        return [self.get(op.operands[0])]

    def h_memref_memory_space_cast(self, op):
        """Between two global memory spaces (e.g. IMEX's `memref<..., 1>` arguments cast to the default
        space): the same buffer."""
        src, dst = (ir.MemRefType(t).memory_space for t in (op.operands[0].type, op.results[0].type))
        if not (is_global_space(src) and is_global_space(dst)):
            raise LoweringError(op, f"memref.memory_space_cast from {src} to {dst}: only between global memory "
                                    "spaces")
        return [self.get(op.operands[0])]

    def h_memref_subview(self, op):
        """A view at a linear offset: a new base pointer with the view's sizes and strides."""
        m = self.get(op.operands[0])
        if not isinstance(m, MemArg) or m.shape is None:
            raise LoweringError(op, "memref.subview of a buffer that is not a kernel argument")
        _src, offs_o, sizes_o, strides_o = operand_groups(op)
        L = self.lanes
        offs = [self.idx_operand(x) for x in mixed_indices(op, offs_o, "static_offsets")]
        sizes = [self.idx_operand(x) for x in mixed_indices(op, sizes_o, "static_sizes")]
        steps = [self.idx_operand(x) for x in mixed_indices(op, strides_o, "static_strides")]
        lin = 0
        for o, st in zip(offs, m.strides):
            lin = L.add(lin, L.mul(o, st))
        strides = [L.mul(a, b) for a, b in zip(m.strides, steps)]
        rank = len(ir.MemRefType(op.results[0].type).shape)
        while len(sizes) > rank:
            drop = next((i for i, x in enumerate(sizes) if isinstance(x, int) and x == 1), None)
            if drop is None:
                raise LoweringError(op, "cannot tell the dropped dimensions of a rank-reducing subview")
            del sizes[drop], strides[drop]
        ptr = m.ptr if lin == 0 else self.elem_ptr(m.ptr, storage_type(m.elt), lin)
        return [MemArg(ptr, m.elt, sizes, strides)]

    def slm_buffer(self, t, op) -> MemArg:
        """A shared local memory buffer: a Workgroup-storage `spirv.GlobalVariable` (one per
        allocation, `__local T name[n]` in OpenCL C) placed in the gpu.module, which the upstream
        conversion moves into the spirv.module (and into the entry point's interface)."""
        if not is_slm_memref(t):
            raise LoweringError(op, f"'{t}': only shared local memory (memory space 3 / #gpu.address_space<workgroup>) "
                                    "can be allocated inside a kernel")
        m = ir.MemRefType(t)
        if any(d == DYNAMIC for d in m.shape):
            raise LoweringError(op, "shared local memory buffers need a static shape")
        try:
            strides, offset = m.get_strides_and_offset()
        except Exception:  # noqa: BLE001
            raise LoweringError(op, f"shared local memory layout {m.layout} is not strided") from None
        if offset == DYNAMIC or any(x == DYNAMIC for x in strides):
            raise LoweringError(op, "shared local memory buffers need static strides")
        elt = str(m.element_type)
        st = storage_type(elt)
        n = int(offset) + sum((d - 1) * x for d, x in zip(m.shape, strides)) + 1 if all(m.shape) else 1
        name = f"__xe_slm_{self.info.name}_{len(self.slm)}"
        arr = f"!spirv.ptr<!spirv.array<{n} x {st}>, Workgroup>"
        gm = self.old.parent
        with ir.InsertionPoint.at_block_begin(gm.regions[0].blocks[0]), self.old.location:
            ir.Operation.create("spirv.GlobalVariable", attributes={
                "sym_name": ir.StringAttr.get(name), "type": ir.TypeAttr.get(ir.Type.parse(arr))})
        with self.lanes._at_entry(), self.old.location:
            base = ir.Operation.create("spirv.mlir.addressof", results=[ir.Type.parse(arr)],
                                       attributes={"variable": ir.FlatSymbolRefAttr.get(name)}).results[0]
            ptr = ir.Operation.create("spirv.AccessChain", results=[ir.Type.parse(f"!spirv.ptr<{st}, Workgroup>")],
                                      operands=[base, self.lanes.i32(int(offset))]).results[0]
        self.slm.append(name)
        self.info.slm_bytes += n * max(1, bits_of(elt) // 8)
        return MemArg(ptr, elt, list(m.shape), list(strides))

    def h_memref_extract_aligned_pointer_as_index(self, op):
        """The address of a kernel buffer as an index (IMEX's descriptors on a raw i64 address)."""
        m = self.get(op.operands[0])
        if not isinstance(m, MemArg) or m.slm:
            raise LoweringError(op, "memref.extract_aligned_pointer_as_index of a buffer other than a kernel "
                                    "argument in global memory is not supported by convert-xegpu-to-spirv")
        addr = ir.Operation.create("spirv.ConvertPtrToU", results=[ir.IntegerType.get_signless(64)],
                                   operands=[m.ptr]).results[0]
        return [ir.Operation.create("arith.index_cast", results=[ir.IndexType.get()], operands=[addr]).results[0]]

    def h_memref_alloc(self, op):
        if len(op.operands):
            raise LoweringError(op, "shared local memory buffers need a static shape")
        r = op.results[0]
        if r not in self.slm_allocs:        # one buffer when the body is lowered twice (versioned)
            self.slm_allocs[r] = self.slm_buffer(r.type, op)
        return [self.slm_allocs[r]]

    def h_memref_alloca(self, op):
        raise LoweringError(op, "memref.alloca (private memory) is not supported by convert-xegpu-to-spirv")

    def h_memref_dealloc(self, op):
        m = self.get(op.operands[0])
        if not (isinstance(m, MemArg) and m.slm):
            raise LoweringError(op, "memref.dealloc of a buffer that was not allocated in the kernel")
        return []            # work-group memory lives as long as the work-group

    def h_memref_reinterpret_cast(self, op):
        """A view of a kernel argument with explicit offset, sizes and strides (in elements)."""
        if op.operands[0].owner is not None and not isinstance(op.operands[0].owner, ir.Block):
            raise LoweringError(op, "memref.reinterpret_cast of a buffer that is not a kernel argument")
        m = self.memarg(op.operands[0], op)
        _src, offs_o, sizes_o, strides_o = operand_groups(op)
        offset = self.idx_operand(mixed_indices(op, offs_o, "static_offsets")[0])
        sizes = [self.idx_operand(x) for x in mixed_indices(op, sizes_o, "static_sizes")]
        strides = [self.idx_operand(x) for x in mixed_indices(op, strides_o, "static_strides")]
        ptr = m.ptr if isinstance(offset, int) and offset == 0 else self.elem_ptr(m.ptr, storage_type(m.elt), offset)
        return [MemArg(ptr, m.elt, sizes, strides)]

    def h_memref_view(self, op):
        """A typed view of a byte buffer (`memref.view %slm[%shift][sizes]`): the i8 pointer moved by
        the byte shift and cast to the view's element type, row-major with the view's shape."""
        m = self.memarg(op.operands[0], op)
        if m.elt != "i8":
            raise LoweringError(op, f"memref.view of a buffer of {m.elt} elements (expected i8)")
        rt = ir.MemRefType(op.results[0].type)
        elt = str(rt.element_type)
        dyn = [self.idx_operand(x) for x in list(op.operands)[2:]]
        sizes = [dyn.pop(0) if d == DYNAMIC else d for d in rt.shape]
        strides = [1] * len(sizes)
        for d in range(len(sizes) - 2, -1, -1):
            strides[d] = self.lanes.mul(strides[d + 1], sizes[d + 1])
        shift = self.idx_operand(op.operands[1])
        ptr = m.ptr if isinstance(shift, int) and shift == 0 else self.elem_ptr(m.ptr, storage_type("i8"), shift)
        space = str(m.ptr.type).rsplit(",", 1)[1].rstrip(">").strip()
        pt = ir.Type.parse(f"!spirv.ptr<{storage_type(elt)}, {space}>")
        ptr = ir.Operation.create("spirv.Bitcast", results=[pt], operands=[ptr]).results[0]
        return [MemArg(ptr, elt, sizes, strides)]

    def memarg(self, v, op) -> MemArg:
        m = self.get(v)
        if not isinstance(m, MemArg) or m.shape is None:
            raise LoweringError(op, f"'{op.name}' of a buffer that is not a kernel argument (or a view of one)")
        return m

    def h_memref_expand_shape(self, op):
        """A view with more dimensions: each source dimension splits into its group (row-major)."""
        m = self.memarg(op.operands[0], op)
        L = self.lanes
        sizes = [self.idx_operand(x) for x in mixed_indices(op, list(op.operands)[1:], "static_output_shape")]
        strides = [1] * len(sizes)
        for src_d, group in enumerate(_reassociation(op)):
            st = m.strides[src_d]
            for d in reversed(group):
                strides[d] = st
                st = L.mul(st, sizes[d])
        return [MemArg(m.ptr, m.elt, sizes, strides)]

    def h_memref_collapse_shape(self, op):
        """A view with merged dimensions (each group is contiguous, as the verifier requires)."""
        m = self.memarg(op.operands[0], op)
        L = self.lanes
        sizes, strides = [], []
        for group in _reassociation(op):
            n = 1
            for d in group:
                n = L.mul(n, m.shape[d])
            sizes.append(n)
            strides.append(m.strides[group[-1]] if group else 1)
        return [MemArg(m.ptr, m.elt, sizes, strides)]

    def _elem_address(self, m: MemArg, indices, op):
        L = self.lanes
        lin = 0
        for i, st in zip(indices, m.strides):
            lin = L.add(lin, L.mul(self.idx_operand(i), st))
        return lin

    def h_memref_load(self, op):
        """A scalar load (the same address in every lane), e.g. a rank-0 scale buffer."""
        m = self.memarg(op.operands[0], op)
        st = storage_type(m.elt)
        p = self.elem_ptr(m.ptr, st, self._elem_address(m, list(op.operands)[1:], op))
        return [ir.Operation.create("spirv.Load", results=[st], operands=[p], attributes=self.mem_attrs(st)).results[0]]

    def h_memref_store(self, op):
        """A scalar store: every lane stores the same value to the same address."""
        v = self.scalar(op.operands[0], op)
        m = self.memarg(op.operands[1], op)
        st = storage_type(m.elt)
        p = self.elem_ptr(m.ptr, st, self._elem_address(m, list(op.operands)[2:], op))
        ir.Operation.create("spirv.Store", operands=[p, v], attributes=self.mem_attrs(st))
        return []

    def h_memref_atomic_rmw(self, op):
        """A scalar atomic, run as the simulator runs it: the work-item's own in a lane-level kernel; the
        subgroup's in a subgroup-level (VC) one -- lane 0 performs it, every lane takes the old value."""
        v = self.scalar(op.operands[0], op)
        m = self.memarg(op.operands[1], op)
        spv = self.atomic_instruction(op, m.elt)
        L = self.lanes
        i1 = ir.IntegerType.get_signless(1)
        mask = L.const(i1, 1) if self.lane_private else arith.CmpIOp(arith.CmpIPredicate.eq, L.lane_i32, L.i32(0)).result
        old = self.atomic_elem(spv, m, self._elem_address(m, list(op.operands)[2:], op), v, mask)
        return [old if self.lane_private else L.shuffle(old, 0)]

    def load_elem(self, ptr, st, lin, ok):
        """ptr[lin] where `ok`, else 0: a load under `scf.if`. (A clamped address and a select
        would also do, but the OpenCL CPU compiler then turns the lanes' consecutive addresses into
        scalarized gathers, which doubles its build time; the branch becomes a masked load.)"""
        L = self.lanes
        if ok is None:
            return ir.Operation.create("spirv.Load", results=[st], operands=[self.elem_ptr(ptr, st, lin)],
                                       attributes=self.mem_attrs(st)).results[0]
        if_op = scf.IfOp(ok, [st], has_else=True)
        with ir.InsertionPoint(if_op.then_block):
            p = self.elem_ptr(ptr, st, lin)
            scf.YieldOp([ir.Operation.create("spirv.Load", results=[st], operands=[p],
                                             attributes=self.mem_attrs(st)).results[0]])
        with ir.InsertionPoint(if_op.else_block):
            scf.YieldOp([L.zero(st)])
        return if_op.results[0]

    def elem_ptr(self, ptr, st, lin):
        return ir.Operation.create("spirv.PtrAccessChain", results=[ptr.type],
                                   operands=[ptr, self.lanes.to_i64(lin)]).results[0]

    def mem_attrs(self, st):
        nbytes = max(1, bits_of(str(st)) // 8) if str(st) != "index" else 8
        return {"memory_access": ir.Attribute.parse("#spirv.memory_access<Aligned>"),
                "alignment": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), nbytes)}

    def store_elem(self, ptr, st, lin, value, ok):
        if ok is None:
            ir.Operation.create("spirv.Store", operands=[self.elem_ptr(ptr, st, lin), value],
                                attributes=self.mem_attrs(st))
            return
        if_op = scf.IfOp(ok)
        with ir.InsertionPoint(if_op.then_block):
            p = self.elem_ptr(ptr, st, lin)
            ir.Operation.create("spirv.Store", operands=[p, value], attributes=self.mem_attrs(st))
            scf.YieldOp([])


def _reassociation(op) -> list:
    return [[ir.IntegerAttr(x).value for x in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])]
