"""Lane-level kernels (SIMT-mode XeGPU: xegpu-simt-distribute's output, imported upstream lane-level
and XeVM-level kernels) in the SPIR-V lowering: `LaneKernelLowering`, the VC kernel lowering with
the rules that differ. An OpenCL work-item is a lane, so a SIMT value -- the work-item's own
fragment -- is a `DVal` whose elements all sit in lane 0's registers (`private`): in the SIMT code
every work-item runs, those registers are its own. Element-wise ops, data movement and loop-carried
values then go through the VC rules unchanged and never shuffle. The ops that see the subgroup
(load_nd / store_nd, dpas) assemble the subgroup block from every lane's fragment in the sg_map's
layout, run the VC rule (2D block and matrix-mad builtins on pvc, per-lane accesses and the k loop
otherwise) and take each lane's fragment back; gpu.shuffle and gpu.subgroup_reduce are group
operations per register, scattered accesses the work-item's own (docs/spirv.md "Lane-level kernels").
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith

from ...core.kinds import DYNAMIC
from ...passes.utils.ir_walk import owner_op, walk
from ...xegpu.attributes import TensorDescType
from ...xegpu.distribution import fragment_coords
from .kernel_lowering import KernelLowering
from .kernel_values import MODELESS, ScDesc, int_list, is_vector_type, vector_shape
from .kernel_vector import _bf16_bits
from .spirv_lanes import DVal, LoweringError, bits_of, elt_name, is_float, storage_type
from .spirv_layout import LANES, Layout


def private(shape) -> Layout:
    """One work-item's vector of `shape`: every element in lane 0, in row-major order."""
    n = int(np.prod(shape, dtype=np.int64))
    return Layout(shape, np.zeros(n, np.int64), np.arange(n))


def is_lane_level(func) -> bool:
    """A kernel whose XeGPU ops are SIMT mode (no `mode = vc`), or that uses the lane id or
    subgroup shuffles without any VC-mode XeGPU op."""
    simt = vc = False
    for o in walk(func):
        name = o.name
        if name.startswith("xegpu.") and name not in MODELESS:
            if "mode" in o.attributes and "vc" in str(o.attributes["mode"]):
                vc = True
            else:
                simt = True
        elif name in ("gpu.lane_id", "gpu.shuffle"):
            simt = True
    return simt and not vc


def _sg_map(op, t, what):
    td = TensorDescType(t)
    sg = td.sg_map
    if sg is None:
        raise LoweringError(op, f"SIMT-mode '{op.name}' needs a tensor_desc with sg_map ({what})")
    return td, tuple(sg.wi_layout), tuple(sg.wi_data)


def _vnni_factor(elt: str) -> int:
    return max(1, 32 // bits_of(elt))


def _is_constant(v) -> bool:
    o = owner_op(v)
    return o is not None and o.name in ("arith.constant", "spirv.Constant")


def _known_true(v) -> bool:
    o = owner_op(v)
    return o is not None and o.name == "arith.constant" and str(o.attributes["value"]) == "true"


class LaneKernelLowering(KernelLowering):
    """KernelLowering for a lane-level kernel (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lane_private = True
        # register -> (subgroup block, (16,) flat block element it holds in each lane): where a loaded
        # fragment's registers came from, so a DPAS operand made of them is taken from the block as it
        # was read (the fragment's reorder then has no user left and canonicalize drops it)
        self.origin: dict = {}

    def check_mode(self, op):
        if op.name.startswith("xegpu.") and "mode" in op.attributes and "vc" in str(op.attributes["mode"]):
            raise LoweringError(op, f"VC-mode '{op.name}' in a kernel whose other XeGPU ops are SIMT mode: "
                                    "convert-xegpu-to-spirv lowers a kernel at one level")

    # ---- fragments ------------------------------------------------------------------------------
    def regs(self, v) -> list:
        """The registers of SIMT value `v` (a scalar or the work-item's vector), row-major."""
        x = self.get(v)
        if isinstance(x, ir.Value):
            return [x]
        if not isinstance(x, DVal):
            raise LoweringError(self.where(v), "expected a value")
        x = self.lanes.relayout(x, private(x.shape))
        return [r if r is not None else self.lanes.zero(x.elt) for r in x.vals]

    def fragment(self, vals, t, elt: str):
        """The SIMT value of type `t` made of registers `vals` (a scalar for a non-vector type)."""
        if not is_vector_type(t):
            return vals[0]
        return DVal(private(vector_shape(t)), list(vals), elt)

    @staticmethod
    def block_layout(shape, *coords) -> Layout:
        """The subgroup block of `shape` whose element at `coords` (index arrays, each (16, n):
        [c[l, p] for c in coords]) is lane l's p-th."""
        lanes = np.zeros(shape, np.int64)
        slots = np.zeros(shape, np.int64)
        n = coords[0].shape[1]
        lanes[coords] = np.repeat(np.arange(LANES), n).reshape(LANES, n)
        slots[coords] = np.tile(np.arange(n), LANES).reshape(LANES, n)
        return Layout(shape, lanes, slots)

    def own(self, block: DVal, lay: Layout, t):
        """Each lane's fragment of subgroup value `block`, distributed as `lay` says."""
        moved = self.lanes.relayout(block, lay)
        return self.fragment(moved.vals, t, block.elt)

    # ---- constants and per-lane data movement ----------------------------------------------------
    def h_arith_constant(self, op):
        t = op.results[0].type
        if not is_vector_type(t):
            return super().h_arith_constant(op)
        shape, elt = vector_shape(t), elt_name(t)
        st = storage_type(elt)
        dense = ir.DenseElementsAttr(op.attributes["value"])
        n = int(np.prod(shape, dtype=np.int64))
        if dense.is_splat:
            return [DVal(private(shape), [self._scalar_const(elt, st, dense.get_splat_value())] * n, elt)]
        L = self.lanes
        if is_float(elt):
            arr = np.array([float(x) for x in ir.DenseFPElementsAttr(dense)], dtype=np.float64)
            if elt == "bf16":
                vals = [L.const(st, _bf16_bits(int(u))) for u in arr.astype(np.float32).view(np.uint32)]
            else:
                vals = [L.const(st, float(x)) for x in arr]
        else:
            vals = [L.const(st, int(x) & 1 if elt == "i1" else int(x)) for x in ir.DenseIntElementsAttr(dense)]
        return [DVal(private(shape), vals, elt)]

    def h_vector_broadcast(self, op):
        x = self.get(op.operands[0])
        if isinstance(x, ir.Value):
            shape = vector_shape(op.results[0].type)
            return [DVal(private(shape), [x] * int(np.prod(shape)), elt_name(op.results[0].type))]
        return super().h_vector_broadcast(op)

    def h_vector_from_elements(self, op):
        return [self.fragment([self.scalar(v, op) for v in op.operands], op.results[0].type,
                              elt_name(op.results[0].type))]

    def h_vector_extract(self, op):
        if is_vector_type(op.results[0].type):
            return super().h_vector_extract(op)
        src = self.dval(op.operands[0])
        pos = int_list(op.attributes["static_position"])
        regs = self.regs(op.operands[0])
        if DYNAMIC not in pos:
            return [regs[int(np.ravel_multi_index(tuple(pos), src.shape))]]
        if len(src.shape) != 1 or len(op.operands) != 2:
            raise LoweringError(op, "'vector.extract' with a dynamic position: only of a 1D vector")
        # the work-item's own element at a dynamic index: a chain of selects
        i = self.scalar(op.operands[1], op)
        v = regs[0]
        for k in range(1, len(regs)):
            hit = arith.CmpIOp(arith.CmpIPredicate.eq, i, self.lanes.const(i.type, k)).result
            v = arith.SelectOp(hit, regs[k], v).result
        return [v]

    def h_vector_shuffle(self, op):
        """vector.shuffle of the work-item's own 1D vectors: registers picked by the mask."""
        regs = self.regs(op.operands[0]) + self.regs(op.operands[1])
        mask = int_list(op.attributes["mask"])
        return [self.fragment([regs[m] for m in mask], op.results[0].type, elt_name(op.results[0].type))]

    def h_vector_insert(self, op):
        x = self.get(op.operands[0])
        if not isinstance(x, ir.Value):
            return super().h_vector_insert(op)
        dest = self.dval(op.operands[1])
        vals = self.regs(op.operands[1])
        pos = int_list(op.attributes["static_position"])
        if DYNAMIC not in pos:
            vals[int(np.ravel_multi_index(tuple(pos), dest.shape))] = x
        elif len(dest.shape) != 1 or len(op.operands) != 3:
            raise LoweringError(op, "'vector.insert' with a dynamic position: only into a 1D vector")
        else:           # at the work-item's own dynamic index: each register or the scalar, selected
            i = self.scalar(op.operands[2], op)
            vals = [arith.SelectOp(arith.CmpIOp(arith.CmpIPredicate.eq, i, self.lanes.const(i.type, k)).result,
                                   x, v).result for k, v in enumerate(vals)]
        return [DVal(private(dest.shape), vals, dest.elt)]

    def h_vector_bitcast(self, op):
        src = self.dval(op.operands[0])
        elt = elt_name(op.results[0].type)
        a, b = bits_of(src.elt), bits_of(elt)
        if a >= b or min(a, b) < 8 or "index" in (src.elt, elt):
            return super().h_vector_bitcast(op)      # narrowing: each register splits in its lane
        n = b // a                                   # widening: n consecutive registers join
        regs = self.regs(op.operands[0])
        vt = ir.VectorType.get([n], storage_type(src.elt))
        out = []
        for m in range(len(regs) // n):
            w = ir.Operation.create("spirv.CompositeConstruct", results=[vt], operands=regs[m * n:(m + 1) * n])
            out.append(ir.Operation.create("spirv.Bitcast", results=[storage_type(elt)], operands=[w.results[0]]
                                           ).results[0])
        return [DVal(private(vector_shape(op.results[0].type)), out, elt)]

    def h_vector_create_mask(self, op):
        shape = vector_shape(op.results[0].type)
        bounds = [self.scalar(v, op) for v in op.operands]
        vals = []
        for coords in np.ndindex(*shape):
            cond = None
            for c, bound in zip(coords, bounds):
                t = arith.CmpIOp(arith.CmpIPredicate.slt, self.lanes.const(bound.type, int(c)), bound).result
                cond = t if cond is None else arith.AndIOp(cond, t).result
            vals.append(cond)
        return [DVal(private(shape), vals, "i1")]

    # ---- subgroup operations ---------------------------------------------------------------------
    def h_gpu_shuffle(self, op):
        """gpu.shuffle of a scalar or, per register, of a work-item's vector (width 16: the subgroup):
        every mode is a `GroupNonUniformShuffle` from the lane it names (idx: the operand, xor / up /
        down: computed from the lane id); a lane outside the subgroup gives the work-item's own value,
        as in the simulator, and a false valid flag."""
        mode = str(op.attributes["mode"]).rsplit(" ", 1)[-1].rstrip(">")
        width = self.const_int(op.operands[2])
        if width != LANES:
            raise LoweringError(op, f"gpu.shuffle with width {width if width is not None else '(dynamic)'}: "
                                    f"the SPIR-V kernels shuffle over the whole subgroup ({LANES} lanes)")
        L = self.lanes
        x = L.to_i32(self.scalar(op.operands[1], op))
        own = L.lane_i32
        src = x if mode == "idx" else arith.XOrIOp(own, x).result if mode == "xor" else \
            arith.SubIOp(own, x).result if mode == "up" else arith.AddIOp(own, x).result
        valid = arith.CmpIOp(arith.CmpIPredicate.ult, src, L.i32(LANES)).result
        src = arith.SelectOp(valid, src, own).result
        out = [L.shuffle(r, src) for r in self.regs(op.operands[0])]
        return [self.fragment(out, op.results[0].type, elt_name(op.results[0].type)), valid]

    def h_gpu_subgroup_reduce(self, op):
        """gpu.subgroup_reduce, per register: the VC reduction of a 16-lane vector (one element a lane)."""
        if "cluster_size" in op.attributes:
            raise LoweringError(op, "gpu.subgroup_reduce with cluster_size is not supported by convert-xegpu-to-spirv")
        kind = str(op.attributes["op"]).rsplit(" ", 1)[-1].rstrip(">")
        elt = elt_name(op.results[0].type)
        lay = Layout.canonical((LANES,), 0)
        idx = np.zeros(LANES, np.int64)
        out = [self.reduce(op, kind, DVal(lay, [r], elt), idx, None) for r in self.regs(op.operands[0])]
        return [self.fragment(out, op.results[0].type, elt)]

    def h_llvm_ptrtoint(self, op):
        p = self.scalar(op.operands[0], op)
        return [ir.Operation.create("spirv.ConvertPtrToU", results=[op.results[0].type], operands=[p]).results[0]]

    # ---- block accesses and DPAS -----------------------------------------------------------------
    def h_xegpu_load_nd(self, op):
        """Every lane's fragment: the VC load of the block (builtins or per-lane loads), each lane
        keeping the elements its sg_map gives it, in the order of the work-item's own transpose /
        VNNI packing (the simulator's SIMT load_nd)."""
        td, wl, wd = _sg_map(op, op.operands[0].type, "it says which elements each work-item loads")
        d = self.get(op.operands[0])
        vnni, transpose, f = self.load_form(op, d.plan.elt)
        if f == 1:
            vnni = None
        H, W = td.shape
        shape = (W, H) if transpose else (H, W)
        if vnni is not None:
            R, C = shape
            shape = (R // f, C, f) if vnni == 0 else (R, C // f, f)
        try:
            rows, cols = fragment_coords((H, W), wl, wd, transpose, vnni, f)
        except ValueError as e:
            raise LoweringError(op, f"SIMT load_nd: sg_map: {e}") from None
        if rows.shape[1] != int(np.prod(vector_shape(op.results[0].type) or [1])):
            raise LoweringError(op, f"SIMT load_nd: the result does not hold the {rows.shape[1]} elements the sg_map "
                                    "gives each work-item")
        block = self.load_block(op, d, shape)
        vr, vc = self.load_coords(shape, vnni, transpose, f)
        vc_of = np.empty(H * W, np.int64)
        vc_of[(vr * W + vc).reshape(-1)] = np.arange(H * W)
        e = vc_of[rows * W + cols]                        # (16, n): the block element of lane l's p-th
        lay = self.block_layout((H * W,), e)
        lay = Layout(shape, lay.lanes.reshape(shape), lay.slots.reshape(shape))
        frag = self.own(block, lay, op.results[0].type)
        for p, r in enumerate(frag.vals if isinstance(frag, DVal) else [frag]):
            if r is not None and not _is_constant(r):
                self.origin[r] = (block, e[:, p])
        return [frag]

    def h_xegpu_store_nd(self, op):
        td, wl, wd = _sg_map(op, op.operands[1].type, "it says which elements each work-item stores")
        try:
            rows, cols = fragment_coords(tuple(td.shape), wl, wd)
        except ValueError as e:
            raise LoweringError(op, f"SIMT store_nd: sg_map: {e}") from None
        regs = self.regs(op.operands[0])
        if len(regs) != rows.shape[1]:
            raise LoweringError(op, f"SIMT store_nd: the value does not hold the {rows.shape[1]} elements the sg_map "
                                    "gives each work-item")
        d = self.get(op.operands[1])
        self.store_block(d, DVal(self.block_layout(tuple(td.shape), rows, cols), regs, d.plan.elt))
        return []

    def operand_coords(self, v, mshape, default, f):
        """(rows, cols) (16, n): the matrix coordinates of each lane's fragment of a DPAS operand --
        its load_nd's sg_map (and transpose / VNNI) when it comes straight from one, else the
        operand's default order (`default`: wi_layout, wi_data, vnni_axis), as the simulator."""
        o = owner_op(v)
        if o is not None and o.name == "xegpu.load_nd" and TensorDescType(o.operands[0].type).sg_map is not None:
            td = TensorDescType(o.operands[0].type)
            sg = td.sg_map
            ff = _vnni_factor(str(td.element_type))
            va = ir.IntegerAttr(o.attributes["vnni_axis"]).value if "vnni_axis" in o.attributes else None
            transpose = "transpose" in o.attributes
            rows, cols = fragment_coords(tuple(td.shape), tuple(sg.wi_layout), tuple(sg.wi_data), transpose,
                                         va if ff > 1 else None, f)
            return (cols, rows) if transpose else (rows, cols)
        wl, wd, va = default
        return fragment_coords(mshape, wl, wd, False, va, f)

    def operand_block(self, regs, shape, coords, elt: str) -> DVal:
        """The subgroup matrix of `shape` whose element coords[.][l, p] lane l's register p holds: the
        block those registers were loaded from, when they all come from one (`origin`), else the
        registers themselves."""
        src = [self.origin.get(r) for r in regs]
        flat = np.ravel_multi_index(coords, shape)          # (16, n)
        if src and all(x is not None and x[0] is src[0][0] and x[0].elt == elt for x in src):
            idx = np.full(int(np.prod(shape)), -1, np.int64)
            for p, (_block, col) in enumerate(src):
                idx[flat[:, p]] = col
            if (idx >= 0).all():
                return self.move(src[0][0], shape, idx)
        return DVal(self.block_layout(shape, *coords), regs, elt)

    def h_xegpu_dpas(self, op):
        """The subgroup DPAS of the lanes' fragments: A, B and the accumulator put together in the
        layouts the SIMT dpas takes them in, the VC rule (matrix-mad builtins or the k loop), and
        each lane's column of the result."""
        ea, eb = elt_name(op.operands[0].type), elt_name(op.operands[1].type)
        er = elt_name(op.results[0].type)
        fa, fb = _vnni_factor(ea), _vnni_factor(eb)
        ra_, rb_ = self.regs(op.operands[0]), self.regs(op.operands[1])
        nc = int(np.prod(vector_shape(op.results[0].type)))
        M, N = nc, LANES
        K = len(ra_) * LANES // M
        if len(rb_) * LANES != K * N:
            raise LoweringError(op, "SIMT dpas: the per-lane shapes do not form an MxK x KxN product")
        try:
            a_rc = self.operand_coords(op.operands[0], (M, K), ((2, 8), (1, fa), None), fa)
            b_rc = self.operand_coords(op.operands[1], (K, N), ((1, 16), (fb, 1), 0 if fb > 1 else None), fb)
            c_rc = fragment_coords((M, N), (1, 16), (1, 1))
            acc_rc = self.operand_coords(op.operands[2], (M, N), ((1, 16), (1, 1), None), 1) \
                if len(op.operands) > 2 else None
        except ValueError as e:
            raise LoweringError(op, f"SIMT dpas: {e}") from None
        a = self.operand_block(ra_, (M, K), a_rc, ea)
        b = self.operand_block(rb_, (K, N), b_rc, eb)
        acc = self.operand_block(self.regs(op.operands[2]), (M, N), acc_rc, elt_name(op.operands[2].type)) \
            if acc_rc is not None else None
        res = self.dpas_values(a, b, acc, (M, N), er)
        return [self.own(res, self.block_layout((M, N), *c_rc), op.results[0].type)]

    # ---- scattered accesses: each work-item its own addresses --------------------------------------
    def scattered_offsets(self, v) -> DVal:
        offs = self.regs(v)
        return DVal(private((len(offs),)), offs, "index")

    def h_xegpu_update_offset(self, op):
        d = self.get(op.operands[0])
        vals = [arith.AddIOp(x, y).result for x, y in zip(d.offs.vals, self.regs(op.operands[1]))]
        return [ScDesc(d.ptr, d.elt, d.chunk, DVal(private((len(vals),)), vals, "index"))]

    def scattered_elements(self, d: ScDesc, mask_v):
        """(element index, guard or None) of each element this work-item accesses: offset j, chunk
        element c, in (j, c) order."""
        masks = self.regs(mask_v)
        out = []
        for j, off in enumerate(d.offs.vals):
            ok = None if _known_true(mask_v) else masks[j]
            for c in range(d.chunk):
                out.append((self.lanes.add(off, c) if c else off, ok))
        return out

    def h_xegpu_load_gather(self, op):
        d = self.get(op.operands[0])
        st = storage_type(d.elt)
        vals = [self.load_elem(d.ptr, st, lin, ok) for lin, ok in self.scattered_elements(d, op.operands[1])]
        return [self.fragment(vals, op.results[0].type, d.elt)]

    def h_xegpu_store_scatter(self, op):
        d = self.get(op.operands[1])
        st = storage_type(d.elt)
        for (lin, ok), v in zip(self.scattered_elements(d, op.operands[2]), self.regs(op.operands[0])):
            self.store_elem(d.ptr, st, lin, v, ok)
        return []

    def h_xegpu_atomic_rmw(self, op):
        d = self.get(op.operands[1])
        spv = self.atomic_instruction(op, d.elt)
        true = self.lanes.const(ir.IntegerType.get_signless(1), 1)
        olds = [self.atomic_elem(spv, d, lin, v, true if ok is None else ok)
                for (lin, ok), v in zip(self.scattered_elements(d, op.operands[2]), self.regs(op.operands[0]))]
        return [self.fragment(olds, op.results[0].type, d.elt)]
