"""2D block IO of a lowered kernel (mixin of `kernel_lowering.KernelLowering`): nd descriptors
(`create_nd_tdesc` / `update_nd_offset` become a surface plan plus row / column), `load_nd`,
`store_nd`, `prefetch_nd`. Target pvc calls Intel's 2D block builtins (`spirv_builtins`) when one
has the block's shape and the surface is global memory; otherwise (and on target portable) each
lane accesses its elements with bounds checks, folded where position and surface are static
(docs/spirv.md, "Bounds"). Prefetches are dropped without builtins. A surface not known to obey the
architecture's 2D block surface rules gets a run-time test of them around each builtin call and the
per-lane path when it fails (`surface_check`; docs/spirv.md, "Surfaces the lowering cannot prove
valid"); in the slow copy of a body versioned on its surfaces such reads are per-lane only, in row
loops (`gather_words`; docs/igc.md "Dynamic shapes")
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, scf

from ...passes.utils.ir_walk import attr_dict as _attr_dict, owner_op
from ...xegpu.attributes import TensorDescType
from . import spirv_builtins as bi
from .kernel_dpas import feeds_tf32_dpas_a_only
from .kernel_values import (CROSS_WORKGROUP_PTR, MemArg, NdDesc, NdPlan, is_slm_ptr, mixed_indices, operand_groups,
                            known_pow2, static_int, vector_shape)
from .spirv_lanes import DVal, LoweringError, bits_of, storage_type
from .spirv_layout import LANES, Layout


# ops whose copy at the function entry computes the same value as in the body: no side effects,
# no trap, no dependence on the lane (gpu ids of the work-group / subgroup are uniform)
_HOISTABLE = frozenset({
    "arith.constant", "arith.addi", "arith.subi", "arith.muli", "arith.index_cast", "arith.index_castui",
    "arith.extui", "arith.extsi", "arith.trunci", "arith.andi", "arith.ori", "arith.xori", "arith.shli",
    "arith.shrui", "arith.shrsi", "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui", "arith.select",
    "arith.cmpi", "spirv.Constant", "spirv.PtrAccessChain", "spirv.Bitcast", "spirv.ConvertUToPtr",
    "spirv.ConvertPtrToU", "gpu.block_id", "gpu.subgroup_id", "gpu.num_subgroups", "gpu.grid_dim",
    "gpu.block_dim"})
_HOISTABLE_DIVISIONS = frozenset({"arith.divui", "arith.remui", "arith.divsi", "arith.remsi", "arith.ceildivui",
                                  "arith.ceildivsi", "arith.floordivsi"})


class BlockIOLowering:
    """nd descriptors, load_nd / store_nd / prefetch_nd and the pvc 2D block builtins."""

    @staticmethod
    def check_scope(op, td, m: MemArg):
        if (td.memory_scope == "slm") != m.slm:
            where = "shared local memory" if m.slm else "global memory"
            raise LoweringError(op, f"descriptor with memory_scope = {td.memory_scope or 'global'} on a buffer "
                                    f"in {where}")

    def source_ptr(self, src_val, elt, op):
        x = self.get(src_val)
        if isinstance(x, MemArg):
            return x
        if isinstance(x, ir.Value) and str(x.type) == "i64":
            ptr_t = ir.Type.parse(CROSS_WORKGROUP_PTR.format(storage_type(elt)))
            p = ir.Operation.create("spirv.ConvertUToPtr", results=[ptr_t], operands=[x]).results[0]
            return MemArg(p, elt, None, None)
        raise LoweringError(op, "tensor_desc source must be a kernel buffer argument or an i64 address")

    def h_xegpu_create_nd_tdesc(self, op):
        src, offs_o, shape_o, strides_o = operand_groups(op)
        td = TensorDescType(op.results[0].type)
        elt = str(td.element_type)
        m = self.source_ptr(src[0], elt, op)
        self.check_scope(op, td, m)
        offs = [self.idx_operand(x) for x in mixed_indices(op, offs_o, "static_offsets")]
        shape = [self.idx_operand(x) for x in mixed_indices(op, shape_o, "static_shape")]
        strides = [self.idx_operand(x) for x in mixed_indices(op, strides_o, "static_strides")]
        if not shape:
            if m.shape is None:
                raise LoweringError(op, "a descriptor on an address needs the base shape and strides")
            shape, strides = list(m.shape), list(m.strides)
        if len(td.shape) != 2:
            raise LoweringError(op, "only 2D nd descriptors are supported by convert-xegpu-to-spirv")
        if strides[-1] != 1:
            raise LoweringError(op, "the innermost stride of an nd descriptor base must be 1")
        L = self.lanes
        lead = 0
        for o, s in zip(offs[:-2], strides[:-2]):
            lead = L.add(lead, L.mul(o, s))
        plan = NdPlan(m.ptr, elt, lead, shape[-2], shape[-1], strides[-2], tuple(td.shape))
        return [NdDesc(plan, L.index(offs[-2]), L.index(offs[-1]))]

    def h_xegpu_update_nd_offset(self, op):
        d = self.get(op.operands[0])
        offs = [self.idx_operand(x) for x in mixed_indices(op, list(op.operands)[1:], "static_offsets")]
        L = self.lanes

        def moved(x, by):           # static positions stay static (static_bounds folds their checks)
            sx, sb = static_int(x), static_int(by)
            return L.index(sx + sb if sx is not None and sb is not None else L.add(x, by))
        return [NdDesc(d.plan, moved(d.row, offs[0]), moved(d.col, offs[1]))]

    # element coordinates (memory row / column inside the block) of a load_nd result
    @staticmethod
    def load_coords(shape, vnni, transpose, f):
        idx = np.indices(shape)
        if len(shape) == 2:
            i, j = idx
            return (j, i) if transpose else (i, j)
        a, j, b = idx
        if transpose:                    # (mw/f, mh, f): logical (a*f+b, j) of the transposed block
            return j, a * f + b
        if vnni == 0:                    # (mh/f, mw, f)
            return a * f + b, j
        return a, j * f + b              # vnni_axis 1: (mh, mw/f, f)

    def h_xegpu_load_nd(self, op):
        d = self.get(op.operands[0])
        return [self.load_block(op, d, vector_shape(op.results[0].type))]

    @staticmethod
    def load_form(op, elt: str):
        """(vnni_axis or None, transpose, VNNI factor) of a load_nd."""
        vnni = ir.IntegerAttr(op.attributes["vnni_axis"]).value if "vnni_axis" in op.attributes else None
        return vnni, "transpose" in op.attributes, max(1, 32 // bits_of(elt)) if vnni is not None else 1

    def load_block(self, op, d: NdDesc, shape) -> DVal:
        """The subgroup's block of load_nd `op` as a value of `shape` (its VC-mode result shape)."""
        elt = d.plan.elt
        vnni, transpose, f = self.load_form(op, elt)
        rows, cols = self.load_coords(shape, vnni, transpose, f)
        merged = self.merged_loads.pop(op.results[0], None)
        if merged is not None:          # read by an earlier load_nd's builtin (merge_vnni_loads)
            return merged
        if self.intel_builtins and not is_slm_ptr(d.plan.ptr):
            pairs = self.pair_transpose_read(op, d, shape, vnni, transpose, rows, cols)
            if pairs is not None:
                return pairs
            blk = bi.block_read(bits_of(elt), d.plan.block[0], d.plan.block[1], vnni is not None, transpose,
                                dpas_a=bits_of(elt) == 32 and feeds_tf32_dpas_a_only(op.results[0]),
                                columns=bits_of(elt) == 8 and _only_converted(op.results[0]))
            # the slow copy reads such a surface per lane: no test to build
            ok = self.surface_check(d, build=not self.slow_copy) if blk is not None else False
            if ok is True and blk.kind == "transform" and blk.count == 1:
                group, wide = self.merge_vnni_loads(op, d, blk)
                if group:
                    return self.block_read_merged(group, blk, wide, shape, rows, cols)
            if ok is not False:
                return self.block_read(d, blk, shape, rows, cols, ok)
        lane_dim = 1 if len(shape) >= 2 else 0
        lay = Layout.canonical(shape, lane_dim)
        return self.gather_rows(d, lay, rows, cols)

    def pair_transpose_read(self, op, d: NdDesc, shape, vnni, transpose, rows, cols) -> DVal | None:
        """A 16-bit load read transposed as 32-bit pairs (`spirv_builtins.PairTranspose`), or None:
        a transposed VNNI load (B^T of a GEMM) or a plain 2D load only ever transposed (A^T), when
        the block fits and the surface rules do not fail statically. A column offset not known to
        be even is tested at run time (an odd one takes the per-lane loads). An 8-bit plain load only
        ever transposed and then converted (N x K weights being dequantized; i4 ones unpacked on the way,
        `_rows_then_transposed`) is read as 32-bit quads, its column offset a multiple of 4."""
        bits = bits_of(d.plan.elt)
        if bits not in (8, 16) or len(d.plan.block) != 2:
            return None
        only_transposed = (vnni is None and not transpose and len(shape) == 2 and op.results[0].uses
                           and all(u.owner.name == "vector.transpose" for u in op.results[0].uses))
        if bits == 8:
            if vnni is not None or transpose or len(shape) != 2 or not _rows_then_transposed(op.results[0]):
                return None
            only_transposed = True
        if not (transpose and vnni is not None) and not only_transposed:
            return None
        blk = bi.pair_transpose(bits, d.plan.block[0], d.plan.block[1], vnni is not None)
        if blk is None:
            return None
        ok = self.surface_check(d, build=not self.slow_copy)
        col = static_int(d.col)
        if ok is False or (col is not None and col % blk.pack):
            return None
        if ok is not None and col is None and known_pow2(d.col) % blk.pack:
            L = self.lanes
            odd = arith.AndIOp(L.to_i32(d.col), L.i32(blk.pack - 1)).result
            even = arith.CmpIOp(arith.CmpIPredicate.eq, odd, L.i32(0)).result
            ok = even if ok is True else _all([ok, even])
        return self.block_read(d, blk, shape, rows, cols, ok)

    def gather_rows(self, d: NdDesc, lay: Layout, rows, cols) -> DVal:
        """Per-lane loads of the block elements (zero outside the surface)."""
        L = self.lanes
        p = d.plan
        st = storage_type(p.elt)
        rows, cols = rows.reshape(-1), cols.reshape(-1)
        vals = []
        for s in range(lay.nslots):
            el = lay.lane_elements(s)
            if not el:
                vals.append(None)
                continue
            acc = self.slot_access(d, el, rows, cols)
            vals.append(L.zero(st) if acc is None else self.load_elem(p.ptr, st, *acc))
        return DVal(lay, vals, p.elt)

    def slot_access(self, d: NdDesc, el: dict, rows, cols):
        """(linear element index, i1 guard or None) of the block elements `el` (lane -> element,
        at block `rows` / `cols`) of one register slot; None when all are outside the surface."""
        L = self.lanes
        p = d.plan
        rt = {ln: int(rows[e]) for ln, e in el.items()}
        ct = {ln: int(cols[e]) for ln, e in el.items()}
        where = self.static_bounds(d, rt, ct)
        if where == "out":
            return None
        r = L.add(d.row, L.lane_table(rt))
        c = L.add(d.col, L.lane_table(ct))
        ok = self.in_bounds(p, r, c, el, where == "in")
        return L.add(p.lead, L.add(L.mul(r, p.pitch), c)), ok

    @staticmethod
    def static_bounds(d: NdDesc, rows: dict, cols: dict):
        """Where the elements of one slot (lane -> row / column in the block) lie when the block
        position and surface shape are static: "in" (all inside), "out" (all outside: the
        hardware reads zeros and drops stores) or None (decided at run time). Deciding here keeps
        constant-folded bounds checks out of the kernel (and their constant results visible)."""
        p = d.plan
        verdicts = []
        for base, table, limit in ((static_int(d.row), rows, static_int(p.height)),
                                   (static_int(d.col), cols, static_int(p.width))):
            if base is None or limit is None:
                verdicts.append(None)
                continue
            inside = [0 <= base + x < limit for x in table.values()]
            verdicts.append("in" if all(inside) else "out" if not any(inside) else None)
        if "out" in verdicts:
            return "out"
        return "in" if verdicts == ["in", "in"] else None

    def in_bounds(self, p: NdPlan, r, c, lanes, inside=False):
        """i1 per lane: the element is inside the surface (known when `inside`) and its lane one
        of `lanes`."""
        L = self.lanes
        ok = None if inside else arith.AndIOp(
            arith.CmpIOp(arith.CmpIPredicate.ult, L.index(r), L.index(p.height)).result,
            arith.CmpIOp(arith.CmpIPredicate.ult, L.index(c), L.index(p.width)).result).result
        if len(lanes) < LANES:
            ok = L.lane_in(lanes) if ok is None else arith.AndIOp(ok, L.lane_in(lanes)).result
        return ok

    def h_xegpu_store_nd(self, op):
        self.store_block(self.get(op.operands[1]), self.dval(op.operands[0]))
        return []

    def store_block(self, d: NdDesc, v: DVal) -> None:
        """Store the subgroup's block `v` (the descriptor's block shape) at `d`."""
        p = d.plan
        if self.intel_builtins and not is_slm_ptr(p.ptr):
            blk = bi.block_write(bits_of(p.elt), p.block[0], p.block[1])
            if blk is not None:
                ok = self.surface_check(d)
                if ok is True:
                    self.block_write(d, blk, v)
                    return
                if ok is not False:         # decided at run time: the builtin or per-lane stores
                    if_op = scf.IfOp(ok, [], has_else=True)
                    with ir.InsertionPoint(if_op.then_block):
                        self.block_write(d, blk, v)
                        scf.YieldOp([])
                    with ir.InsertionPoint(if_op.else_block):
                        self.scatter_rows(d, v)
                        scf.YieldOp([])
                    return
        self.scatter_rows(d, v)
        return

    def scatter_rows(self, d: NdDesc, v: DVal):
        """Per-lane stores of the block elements (those outside the surface dropped)."""
        p = d.plan
        st = storage_type(p.elt)
        rows, cols = [a.reshape(-1) for a in np.indices(v.shape)]
        for s in range(v.layout.nslots):
            el = v.layout.lane_elements(s)
            if not el or v.vals[s] is None:
                continue
            acc = self.slot_access(d, el, rows, cols)
            if acc is not None:
                self.store_elem(p.ptr, st, acc[0], v.vals[s], acc[1])

    def h_xegpu_prefetch_nd(self, op):
        d = self.get(op.operands[0])
        p = d.plan
        if not self.intel_builtins or is_slm_ptr(p.ptr):
            return []           # a cache hint: nothing to do without 2D block prefetches
        ok = self.surface_check(d)
        if ok is False:
            return []           # a surface the block messages cannot address: skipped
        if_op = None
        if ok is not True:      # decided at run time: the prefetch or nothing
            if_op = scf.IfOp(ok, [])
        with ir.InsertionPoint(if_op.then_block) if if_op is not None else contextlib.nullcontext():
            for coff, blk in bi.block_prefetch(bits_of(p.elt), p.block[0], p.block[1]):
                self.call_block(blk, d, coff, None)
            if if_op is not None:
                scf.YieldOp([])
        return []

    # ---- surface rules of the 2D block messages ---------------------------------------------------
    def base_offset(self, p: NdPlan):
        """Byte offset of the surface base from a kernel buffer argument (assumed aligned, as the
        runtime allocates buffers): an int when static, a `Multiple` of a power of two when not (a
        batch's subview at block_id * rows * cols), or None when the lowering cannot tell."""
        parts = [(p.lead, bits_of(p.elt) // 8)]          # (element offset, element bytes)
        ptr = p.ptr
        while not isinstance(ptr, ir.BlockArgument):
            o = ptr.owner
            if o.name != "spirv.PtrAccessChain" or len(o.operands) != 2:
                return None
            pointee = str(ptr.type).split("<", 1)[1].rsplit(",", 1)[0]      # !spirv.ptr<T, Class>
            parts.append((o.operands[1], bits_of(pointee) // 8))
            ptr = o.operands[0]
        if ptr.owner != self.new.regions[0].blocks[0]:
            return None
        exact = [static_int(x) for x, _ in parts]
        if None not in exact:
            return sum(k * b for k, (_, b) in zip(exact, parts))
        return Multiple(min(known_pow2(x) * b for x, b in parts))

    def surface_check(self, d: NdDesc, build: bool = True):
        """Whether the surface of `d` obeys the 2D block surface rules of the architecture
        (`self.surface`): True / False when known at compile time, else an i1 Value testing them
        at run time (only the parts not known statically; None without `build`: no test is built).
        In the fast copy of a versioned kernel (`self.surface_versions`, see
        `kernel_lowering.lower_kernel_body`) a surface computed from values available at the
        function entry is tested there instead, once, and taken as valid here (True)."""
        tests = self.surface_tests(d.plan)
        if any(v is False for v, _ in tests):
            return False
        dynamic = [build for v, build in tests if v is None]
        if not dynamic:
            return True
        if self.surface_versions is not None and self.hoist_surface_test(d.plan):
            return True
        return _all([test() for test in dynamic]) if build else None

    def surface_tests(self, p: NdPlan):
        """[(static verdict or None, builder of the i1 run-time test)] of the surface rules for `p`;
        a builder creates its ops at the current insertion point."""
        rules = self.surface
        L = self.lanes
        nbytes = bits_of(p.elt) // 8
        memo = {}

        def scaled(name, x):          # bytes of a width / pitch, created once per test
            if name not in memo:
                memo[name] = L.mul(x, nbytes)
            return memo[name]

        def wb():
            return scaled("w", p.width)

        def pb():
            return scaled("p", p.pitch)

        def h():
            return p.height

        off = self.base_offset(p)
        tests = []          # (static verdict or None, builder of the i1 test)

        def cmp(pred, a, b):
            return arith.CmpIOp(pred, L.index(a), L.index(b)).result

        def aligned(x, a):
            return cmp(arith.CmpIPredicate.eq, arith.RemUIOp(L.index(x), L.index(a)).result, 0)

        def known(x, scale=1):
            k = static_int(x)
            return None if k is None else k * scale

        def rule(values, verdict, build):
            tests.append((verdict(*values) if None not in values else None, build))

        P = arith.CmpIPredicate
        w_s, p_s, h_s = known(p.width, nbytes), known(p.pitch, nbytes), known(p.height)
        rule([w_s], lambda w: rules.min_width_bytes <= w <= rules.max_width_bytes and w % rules.width_align == 0,
             lambda: _all([cmp(P.uge, wb(), rules.min_width_bytes), cmp(P.ule, wb(), rules.max_width_bytes),
                           aligned(wb(), rules.width_align)]))
        rule([p_s], lambda q: rules.min_pitch_bytes <= q <= rules.max_pitch_bytes and q % rules.pitch_align == 0,
             lambda: _all([cmp(P.uge, pb(), rules.min_pitch_bytes), cmp(P.ule, pb(), rules.max_pitch_bytes),
                           aligned(pb(), rules.pitch_align)]))
        if _same_value(p.pitch, p.width):   # rows packed back to back: pitch = width
            tests.append((True, None))
        else:
            rule([p_s, w_s], lambda q, w: q >= w, lambda: cmp(P.uge, pb(), wb()))
        rule([h_s], lambda n: 1 <= n <= rules.max_height,
             lambda: _all([cmp(P.uge, h(), 1), cmp(P.ule, h(), rules.max_height)]))
        if isinstance(off, Multiple) and off.of % rules.base_align == 0:
            tests.append((True, None))
        elif isinstance(off, int):
            tests.append((off % rules.base_align == 0, None))
        else:
            def base_test():
                base = self.surface_base(p)
                addr = ir.Operation.create("spirv.ConvertPtrToU", results=[ir.IntegerType.get_signless(64)],
                                           operands=[base]).results[0]
                return aligned(arith.IndexCastOp(ir.IndexType.get(), addr).result, rules.base_align)
            tests.append((None, base_test))
        return tests

    # ---- surface tests hoisted to the function entry (the fast copy of a versioned kernel) -------
    def hoist_surface_test(self, p: NdPlan) -> bool:
        """When every field of the surface (pointer, leading offset, height, width, pitch) is
        computed from values available at the function entry, test its rules there -- once per
        distinct surface -- into `self.surface_versions.conds` and return True; else False (the
        caller tests at the access, as without versioning)."""
        sv = self.surface_versions
        fields = (p.ptr, p.lead, p.height, p.width, p.pitch)
        if not all(self.entry_computable(x) for x in fields):
            return False
        with sv.ip, self.old.location:
            ptr, lead, height, width, pitch = (self.at_entry(x) for x in fields)
            hp = NdPlan(ptr, p.elt, lead, height, width, pitch, p.block)
            for q in sv.plans:
                if q.elt == hp.elt and all(_same_field(getattr(q, f), getattr(hp, f))
                                           for f in ("ptr", "lead", "height", "width", "pitch")):
                    return True
            dynamic = [build for v, build in self.surface_tests(hp) if v is None]
            sv.plans.append(hp)
            sv.conds.append(_all([build() for build in dynamic]))
        return True

    def entry_computable(self, x) -> bool:
        """`x` (an int or a lowered Value) is available at the function entry or computed from such
        values by side-effect-free ops that cannot trap (`_HOISTABLE`; divisions by a non-zero
        constant); loop-carried values and values of other blocks' arguments are not."""
        if isinstance(x, int):
            return True
        sv = self.surface_versions
        if sv is not None and x in sv.hoisted:
            return True
        entry = self.new.regions[0].blocks[0]
        if isinstance(x, ir.BlockArgument):
            return x.owner == entry
        op = _operation(x.owner)
        if op.block == entry:
            return True
        if op.name in _HOISTABLE_DIVISIONS:
            k = static_int(op.operands[1])
            if not k:
                return False
        elif op.name not in _HOISTABLE:
            return False
        return len(op.regions) == 0 and all(self.entry_computable(v) for v in op.operands)

    def lane_invariant(self, x) -> bool:
        """`x` (an int or a lowered Value) is the same in every lane: a function argument, or
        computed from such values by the ops of `_HOISTABLE` (constants, integer arithmetic, the
        work-group / subgroup ids; never the lane id, a load or a loop-carried value)."""
        if isinstance(x, int):
            return True
        if isinstance(x, ir.BlockArgument):
            return x.owner == self.new.regions[0].blocks[0]
        op = _operation(x.owner)
        if op.name not in _HOISTABLE and op.name not in _HOISTABLE_DIVISIONS:
            return False
        return len(op.regions) == 0 and all(self.lane_invariant(v) for v in op.operands)

    def at_entry(self, x):
        """The value of `x` (`entry_computable`) at the function entry: ops of the body it depends
        on are cloned before the versioned body (`self.surface_versions.ip`, the current insertion
        point), once each."""
        if isinstance(x, int):
            return x
        sv = self.surface_versions
        if x in sv.hoisted:
            return sv.hoisted[x]
        entry = self.new.regions[0].blocks[0]
        if isinstance(x, ir.BlockArgument) or _operation(x.owner).block == entry:
            return x
        op = _operation(x.owner)
        new = ir.Operation.create(op.name, results=[r.type for r in op.results],
                                  operands=[self.at_entry(v) for v in op.operands], attributes=_attr_dict(op))
        for old_r, new_r in zip(op.results, new.results):
            sv.hoisted[old_r] = new_r
        return sv.hoisted[x]

    def surface_base(self, p: NdPlan):
        """The surface base as a CrossWorkgroup i8 pointer."""
        base = p.ptr if p.lead == 0 else self.elem_ptr(p.ptr, storage_type(p.elt), p.lead)
        i8p = ir.Type.parse(CROSS_WORKGROUP_PTR.format("i8"))
        return ir.Operation.create("spirv.Bitcast", results=[i8p], operands=[base]).results[0]

    # ---- pvc 2D block builtins ------------------------------------------------------------------
    def variable(self, lane_type: str, n: int, use: str = "block"):
        """A per-lane `lane_type[n]` array (Function storage), one per (type, size, use)."""
        key = (lane_type, n, use)
        v = self.variables.get(key)
        if v is None:
            st = bi.spirv_type(lane_type)
            t = ir.Type.parse(f"!spirv.ptr<!spirv.array<{n} x {st}>, Function>")
            with ir.InsertionPoint.at_block_begin(self.new.regions[0].blocks[0]), self.old.location:
                v = ir.Operation.create("spirv.Variable", results=[t], attributes={
                    "storage_class": ir.Attribute.parse("#spirv.storage_class<Function>")}).results[0]
            self.variables[key] = v
        return v

    def var_elem(self, var, lane_type, i):
        st = bi.spirv_type(lane_type)
        pt = ir.Type.parse(f"!spirv.ptr<{st}, Function>")
        return ir.Operation.create("spirv.AccessChain", results=[pt],
                                   operands=[var, self.lanes.i32(i)]).results[0]

    def call_reads(self, blk, d: NdDesc, var):
        """The builtin call(s) of a read into `var`: one, or the pieces of a PairTranspose."""
        if not isinstance(blk, bi.PairTranspose):
            self.call_block(blk, d, 0, var)
            return
        for roff, coff, first in blk.pieces():
            self.call_block(blk.piece, d, coff, var, roff=roff, first=first, pack=blk.pack)

    def call_block(self, blk: bi.Block2D, d: NdDesc, coff: int, var, *, roff: int = 0, first: int = 0,
                   pack: int = 1):
        """Call `blk` on the block of `d` (column + `coff`, row + `roff`) into values `first`.. of
        `var`; `pack` 2 or 4: a 32-bit builtin on 16- or 8-bit memory (the 32-bit column: column / pack)."""
        L = self.lanes
        p = d.plan
        nbytes = bits_of(p.elt) // 8
        base = self.surface_base(p)
        width = L.to_i32(L.mul(p.width, nbytes))
        height = L.to_i32(p.height)
        pitch = L.to_i32(L.mul(p.pitch, nbytes))
        x = L.to_i32(L.add(d.col, coff))
        if pack > 1:
            x = arith.ShRSIOp(x, L.i32(pack.bit_length() - 1)).result
        y = L.to_i32(L.add(d.row, roff))
        coord = ir.Operation.create("vector.from_elements", results=[ir.VectorType.get([2], ir.IntegerType.get_signless(32))],
                                    operands=[x, y]).results[0]
        args = [base, width, height, pitch, coord]
        if var is not None:
            args.append(self.var_elem(var, blk.lane_type, first))
        sym = self.declare(blk.builtin)
        ir.Operation.create("spirv.FunctionCall", operands=args,
                            attributes={"callee": ir.FlatSymbolRefAttr.get(sym)})

    def block_read(self, d: NdDesc, blk: bi.Block2D, shape, rows, cols, ok=True) -> DVal:
        """The builtin's result in its lane layout; with `ok` an i1 Value (the surface rules
        tested at run time), the builtin when it holds, else per-lane loads into the same
        variable; with `ok` None (a surface the slow copy of a versioned body would test), the
        per-lane loads only (`gather_words`)."""
        elt = d.plan.elt
        lane, vi, part = blk.lane_of(rows, cols)
        lay = Layout(shape, lane, vi * blk.pack + part)
        n = blk.values_per_lane
        var = self.variable(blk.lane_type, n)
        if ok is True:
            self.call_reads(blk, d, var)
        elif ok is None:        # the slow copy of a versioned body: per-lane loads only
            self.gather_words(d, lay, rows, cols, blk, var)
        else:                   # decided at run time: the builtin or per-lane loads into `var`
            if_op = scf.IfOp(ok, [], has_else=True)
            with ir.InsertionPoint(if_op.then_block):
                self.call_reads(blk, d, var)
                scf.YieldOp([])
            with ir.InsertionPoint(if_op.else_block):
                g = self.gather_rows(d, lay, rows, cols)
                regs = (g.vals + [None] * (n * blk.pack))[:n * blk.pack]
                for i, w in enumerate(self.pack_words(regs, blk.pack, elt, blk.lane_type, n)):
                    ir.Operation.create("spirv.Store", operands=[self.var_elem(var, blk.lane_type, i), w])
                scf.YieldOp([])
        return self.lane_values(var, blk, lay, 0, elt)

    def gather_words(self, d: NdDesc, lay: Layout, rows, cols, blk: bi.Block2D, var):
        """Per-lane guarded loads (zero outside the surface) of a block read's elements into the
        builtin's array `var`, in its lane layout `lay`. The words are grouped in runs whose
        elements move by one (row, column) step from word to word; each run is one `scf.for`, one
        word (`pack` loads) per iteration, into a private staging array indexed at run time (IGC
        keeps it in memory), copied into `var` after the loops (docs/igc.md "Dynamic shapes")."""
        L = self.lanes
        p = d.plan
        st = storage_type(p.elt)
        rows, cols = rows.reshape(-1), cols.reshape(-1)
        words = [[{ln: (int(rows[e]), int(cols[e])) for ln, e in lay.lane_elements(i * blk.pack + k).items()}
                  if i * blk.pack + k < lay.nslots else {} for k in range(blk.pack)]
                 for i in range(blk.values_per_lane)]
        stage = self.variable(blk.lane_type, len(words), "staging")
        i32 = ir.IntegerType.get_signless(32)
        for first, count, (dr, dc) in _affine_runs(words):
            loop = scf.ForOp(L.i32(0), L.i32(count), L.i32(1))
            with ir.InsertionPoint(loop.body):
                j = arith.IndexCastOp(ir.IndexType.get(), loop.induction_variable).result
                regs = []
                for part in words[first]:
                    if not part:
                        regs.append(None)
                        continue
                    r = L.add(L.add(d.row, L.lane_table({ln: rc[0] for ln, rc in part.items()})), L.mul(j, dr))
                    c = L.add(L.add(d.col, L.lane_table({ln: rc[1] for ln, rc in part.items()})), L.mul(j, dc))
                    ok = self.in_bounds(p, r, c, part)
                    regs.append(self.load_elem(p.ptr, st, L.add(p.lead, L.add(L.mul(r, p.pitch), c)), ok))
                w = self.pack_words(regs, blk.pack, p.elt, blk.lane_type, 1)[0]
                at = loop.induction_variable
                if first:
                    at = arith.AddIOp(at, L.const(i32, first)).result
                ir.Operation.create("spirv.Store", operands=[self.var_elem(stage, blk.lane_type, at), w])
                scf.YieldOp([])
        lt = ir.Type.parse(bi.spirv_type(blk.lane_type))
        for i in range(len(words)):
            w = ir.Operation.create("spirv.Load", results=[lt], operands=[self.var_elem(stage, blk.lane_type, i)])
            ir.Operation.create("spirv.Store", operands=[self.var_elem(var, blk.lane_type, i), w.results[0]])

    # ---- VNNI loads side by side: one builtin with a block count ------------------------------
    def merge_vnni_loads(self, op, d: NdDesc, blk: bi.Block2D):
        """([(result, descriptor)], wide builtin) of `op` and the load_nd ops that follow it in its block and read
        the next VNNI blocks of the same surface row (columns + 16, + 32, ...: the B tile of a K
        step, one load per 16 columns), when one transform builtin with that block count exists
        (8-bit: 2 or 4 blocks, 16-bit: 2) and nothing but reads, descriptor and register ops lie
        between them; else ([], None). IGC gives each 2D block read its own message and, on pvc, its own
        payload (a copy and an add per extra block), so one read of 4 blocks replaces 4 messages."""
        attrs = {k: str(op.attributes[k]) for k in ("vnni_axis", "mode") if k in op.attributes}
        ops = self.block_ops(op)
        found, want = [(op.results[0], d)], 1
        for o in ops:
            if o.name == "xegpu.load_nd":
                x = self.env.get(o.operands[0])
                if not (isinstance(x, NdDesc) and same_plan(x.plan, d.plan) and "transpose" not in o.attributes
                        and {k: str(o.attributes[k]) for k in ("vnni_axis", "mode") if k in o.attributes} == attrs
                        and str(o.results[0].type) == str(op.results[0].type)
                        and _offset(d.row, x.row) == 0 and _offset(d.col, x.col) == 16 * want):
                    continue
                found.append((o.results[0], x))
                want += 1
                if want == 4:
                    break
            elif not o.name.startswith(_READ_ONLY_OPS):
                break
        for n in (4, 2):
            if len(found) >= n:
                wide = bi.block_read(blk.bits, blk.rows, 16 * n, True, False)
                if wide is not None and wide.count == n:
                    return found[:n], wide
        return [], None

    def block_ops(self, op):
        """The ops after `op` in its block."""
        block = op.operation.block
        ops = [o.operation for o in block.operations]
        i = next(k for k, o in enumerate(ops) if o == op.operation)
        return ops[i + 1:]

    def block_read_merged(self, group, one: bi.Block2D, wide: bi.Block2D, shape, rows, cols) -> DVal:
        """`wide`, one transform builtin reading the blocks of `group` (see merge_vnni_loads), each
        block in the layout of the single read `one`: the first load's value; the others' wait in
        `merged_loads` for their own load_nd."""
        (_r0, d), n = group[0], len(group)
        var = self.variable(wide.lane_type, wide.values_per_lane)
        self.call_block(wide, d, 0, var)
        lane, vi, part = one.lane_of(rows, cols)
        lay = Layout(shape, lane, vi * one.pack + part)
        vals = [self.lane_values(var, one, lay, b * one.values_per_lane, d.plan.elt) for b in range(n)]
        for (r, _x), v in zip(group[1:], vals[1:]):
            self.merged_loads[r] = v
        return vals[0]

    def lane_values(self, var, blk: bi.Block2D, lay: Layout, first: int, elt: str) -> DVal:
        """The DVal of layout `lay` in values first .. first + values_per_lane of `var`."""
        L = self.lanes
        lt = ir.Type.parse(bi.spirv_type(blk.lane_type))
        st = storage_type(elt)
        ebits = bits_of(elt)
        vals = [None] * lay.nslots
        for i in range(blk.values_per_lane):
            w = ir.Operation.create("spirv.Load", results=[lt],
                                    operands=[self.var_elem(var, blk.lane_type, first + i)]).results[0]
            if isinstance(blk, bi.PairTranspose) and not blk.vnni and blk.pack == 2:
                for k, x in enumerate(L.split(w, ir.IntegerType.get_signless(ebits), 2)):
                    if i * 2 + k < lay.nslots:
                        vals[i * 2 + k] = x if str(st) == str(x.type) else arith.BitcastOp(st, x).result
                continue
            for k in range(blk.pack):
                s = i * blk.pack + k
                if s >= lay.nslots:
                    continue
                x = w
                if blk.pack > 1:
                    if k:
                        x = arith.ShRUIOp(x, L.const(lt, k * ebits)).result
                    x = arith.TruncIOp(ir.IntegerType.get_signless(ebits), x).result
                if str(st) != str(x.type):
                    x = arith.BitcastOp(st, x).result
                vals[s] = x
        return DVal(lay, vals, elt)

    def block_write(self, d: NdDesc, blk: bi.Block2D, v: DVal):
        """`v` written by `blk`, one call per `blk.width` columns (`spirv_builtins.block_write`):
        the pieces' values side by side in one array, as `blk.lane_of` numbers them."""
        elt = d.plan.elt
        rows, cols = np.indices(v.shape)
        lane, vi, part = blk.lane_of(rows, cols)
        lay = Layout(v.shape, lane, vi * blk.pack + part)
        v = self.lanes.relayout(v, lay)
        pieces = v.shape[1] // blk.width
        n = blk.values_per_lane * pieces
        var = self.variable(blk.lane_type, n)
        lt = ir.Type.parse(bi.spirv_type(blk.lane_type))
        for i in range(n):
            x = v.vals[i] if v.vals[i] is not None else self.lanes.zero(elt)
            if str(x.type) != str(lt):
                x = arith.BitcastOp(lt, x).result
            ir.Operation.create("spirv.Store", operands=[self.var_elem(var, blk.lane_type, i), x])
        for i in range(pieces):
            self.call_block(blk, d, i * blk.width, var, first=i * blk.values_per_lane)


# ops that may lie between VNNI loads merged into one read: they neither write memory nor branch
_READ_ONLY_OPS = ("xegpu.load_nd", "xegpu.prefetch_nd", "xegpu.update_nd_offset", "xegpu.create_nd_tdesc",
                  "xegpu.dpas", "arith.", "math.", "vector.", "index.")


def _linear(v):
    """(base, constant) with v = base + constant, following arith.addi / subi by constants
    (base None: v is a constant)."""
    c = static_int(v)
    if c is not None:
        return None, c
    o = owner_op(v)
    if o is not None and o.name in ("arith.addi", "arith.subi"):
        a, b = o.operands
        cb = static_int(b)
        if cb is not None:
            base, k = _linear(a)
            return base, k + (cb if o.name == "arith.addi" else -cb)
        ca = static_int(a)
        if ca is not None and o.name == "arith.addi":
            base, k = _linear(b)
            return base, k + ca
    return v, 0


def _offset(a, b):
    """b - a when both are the same base plus constants, else None."""
    ba, ka = _linear(a)
    bb, kb = _linear(b)
    if (ba is None) != (bb is None) or (ba is not None and ba != bb):
        return None
    return kb - ka


def same_plan(a: NdPlan, b: NdPlan) -> bool:
    """Two descriptor plans on the same surface with the same block (fields equal; Values identical)."""
    return a is b or all(_same_field(getattr(a, f), getattr(b, f))
                         for f in ("ptr", "elt", "lead", "height", "width", "pitch", "block"))


@dataclass(frozen=True)
class Multiple:
    """A dynamic byte offset known to be a multiple of `of`."""

    of: int


def _all(conds):
    """The conjunction of i1 Values."""
    c = conds[0]
    for x in conds[1:]:
        c = arith.AndIOp(c, x).result
    return c


def _affine_runs(words):
    """(first word, count, (row step, column step)) of the runs of consecutive words (each a list
    of parts {lane: (row, column)}) that hold the same lanes and whose every element is the
    previous word's moved by one common step; the runs cover all words in order."""
    runs, i = [], 0
    while i < len(words):
        step, n = (0, 0), 1
        while i + n < len(words):
            s = _step(words[i + n - 1], words[i + n])
            if s is None or (n > 1 and s != step):
                break
            step, n = s, n + 1
        runs.append((i, n, step))
        i += n
    return runs


def _step(a, b):
    """The one (row, column) step taking every element of word `a` to word `b`'s, or None."""
    steps = set()
    for pa, pb in zip(a, b):
        if pa.keys() != pb.keys():
            return None
        steps.update((pb[ln][0] - pa[ln][0], pb[ln][1] - pa[ln][1]) for ln in pa)
    return steps.pop() if len(steps) == 1 else None


def _operation(op):
    return getattr(op, "operation", op)


def _same_field(a, b) -> bool:
    if isinstance(a, ir.Value) or isinstance(b, ir.Value):
        return isinstance(a, ir.Value) and isinstance(b, ir.Value) and a == b
    return a == b


def _same_value(a, b) -> bool:
    if isinstance(a, ir.Value) and isinstance(b, ir.Value):
        return a == b
    return False


def _rows_then_transposed(v) -> bool:
    """Whether every use of the loaded 8-bit vector `v` reaches, through element-wise arith ops (their other
    operands constants or values of the same chain) and narrowing `vector.bitcast`s, which keep each memory
    row of the block in its lane,
    only `vector.transpose`s whose results are only converted (`_only_converted`): N x K weights being
    dequantized, i4 ones unpacked along K on the way (docs/quantized-gemm.md "N x K weights")."""
    uses = list(v.uses)
    if not uses:
        return False
    for u in uses:
        o = _operation(u.owner)
        if o.name == "vector.transpose":
            if not _only_converted(o.results[0]):
                return False
            continue
        if len(o.results) != 1 or not isinstance(o.results[0].type, ir.VectorType):
            return False
        if o.name == "vector.bitcast":
            elt = lambda x: str(ir.VectorType(x.type).element_type)  # noqa: E731
            ok = bits_of(elt(o.results[0])) <= bits_of(elt(v))
        else:
            ok = o.name.startswith("arith.") and all(   # operands: constants or values of the same chain
                getattr(owner_op(x), "name", "").startswith(("arith.", "xegpu.load_nd")) for x in o.operands)
        if not ok or not _rows_then_transposed(o.results[0]):
            return False
    return True


def _only_converted(v) -> bool:
    """Whether every use of the loaded vector `v` converts it to a float (`arith.sitofp` / `uitofp`):
    integer weights being dequantized, never an integer DPAS operand (`spirv_builtins.block_read`'s
    `columns`)."""
    users = [_operation(u.owner).name for u in v.uses]
    return bool(users) and all(n in ("arith.sitofp", "arith.uitofp") for n in users)
