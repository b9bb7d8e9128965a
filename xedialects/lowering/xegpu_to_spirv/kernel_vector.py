"""Constants, element-wise ops and vector data movement in a lowered kernel (mixin of
`kernel_lowering.KernelLowering`). arith / math ops run per register (bf16 computed in f32,
stored as i16); slices, shape casts, transposes, broadcasts, extracts and inserts keep each
element in its lane where the layout allows (`spirv_layout.Layout.inherit`) and move data with
shuffles otherwise (`spirv_lanes.Lanes`).
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith

from ...core.kinds import DYNAMIC
from ...passes.utils.ir_walk import attr_dict as _attr_dict
from .kernel_values import int_list, is_vector_type, vector_shape
from .spirv_lanes import DVal, LoweringError, bits_of, elt_name, is_float, storage_type
from .spirv_builtins import EXP2
from .spirv_layout import LANES, Layout


class VectorLowering:
    """arith / math ops, vector constants and vector data movement."""

    def h_arith_constant(self, op):
        t = op.results[0].type
        attr = op.attributes["value"]
        if not is_vector_type(t):
            elt = str(t)
            if elt == "bf16":
                bits = int(np.array([ir.FloatAttr(attr).value], dtype=np.float32).view(np.uint32)[0])
                return [self.lanes.const(storage_type("bf16"), _bf16_bits(bits))]
            new = ir.Operation.create("arith.constant", results=[t], attributes={"value": attr})
            return [new.results[0]]
        shape, elt = vector_shape(t), elt_name(t)
        dense = ir.DenseElementsAttr(attr)
        st = storage_type(elt)
        if dense.is_splat:
            a = dense.get_splat_value()
            v = self._scalar_const(elt, st, a)
            return [self.lanes.splat(shape, elt, v)]
        if is_float(elt):
            arr = np.array([float(x) for x in ir.DenseFPElementsAttr(attr)], dtype=np.float64)
            if elt == "bf16":
                f = arr.astype(np.float32)
                arr = np.array([_bf16_bits(int(u)) for u in f.view(np.uint32)], dtype=np.int64)
        else:
            arr = np.array([int(x) for x in ir.DenseIntElementsAttr(attr)], dtype=np.int64)
        arr = np.asarray(arr).reshape(-1)
        lay = Layout.canonical(shape)
        vals = []
        for s in range(lay.nslots):
            table = {ln: arr[e] for ln, e in lay.lane_elements(s).items()}
            if elt == "index" or (elt.startswith("i") and elt != "index") or elt == "bf16":
                tt = ir.IndexType.get() if elt == "index" else st
                vals.append(self.lanes.lane_table({k: int(v) for k, v in table.items()}, tt))
            else:
                full = [float(table.get(ln, 0.0)) for ln in range(LANES)]
                vals.append(self.lanes.vector_table(full, st))
        return [DVal(lay, vals, elt)]

    def _scalar_const(self, elt, st, a):
        if elt == "bf16":
            f = np.array([ir.FloatAttr(a).value], dtype=np.float32)
            return self.lanes.const(st, _bf16_bits(int(f.view(np.uint32)[0])))
        if is_float(elt):
            return self.lanes.const(st, ir.FloatAttr(a).value)
        if elt == "i1":
            return self.lanes.const(st, 1 if ir.BoolAttr(a).value else 0) if isinstance(a, ir.BoolAttr) else \
                self.lanes.const(st, ir.IntegerAttr(a).value & 1)
        return self.lanes.const(st, ir.IntegerAttr(a).value)

    def elementwise(self, op):
        """arith/math op on scalars or per register on vectors (bf16 computed in f32)."""
        res_types = [r.type for r in op.results]
        vec = any(is_vector_type(t) for t in res_types) or any(is_vector_type(v.type) for v in op.operands)
        if not vec:
            ops = [self.scalar(v, op) for v in op.operands]
            return self.scalar_op(op, ops, [elt_name(v) for v in op.operands], [str(t) for t in res_types])
        dvs = [self.get(v) if is_vector_type(v.type) else None for v in op.operands]
        lay = result_layout([d for d in dvs if d is not None])
        moved = [self.lanes.relayout(d, lay) if d is not None else None for d in dvs]
        outs = [[] for _ in res_types]
        for s in range(lay.nslots):
            regs = []
            for d, v in zip(moved, op.operands):
                regs.append(d.vals[s] if d is not None else self.scalar(v, op))
            if any(r is None for r in regs):
                for o in outs:
                    o.append(None)
                continue
            res = self.scalar_op(op, regs, [elt_name(v) for v in op.operands], [elt_name(t) for t in res_types])
            for o, r in zip(outs, res):
                o.append(r)
        return [DVal(lay, o, elt_name(t)) for o, t in zip(outs, res_types)]

    def exp2(self, x):
        """2^x of an f32 register: OpenCL's exp2 builtin on pvc (IGC: one hardware exp; upstream's
        SPIR-V dialect has no CL exp2), else exp(x ln 2) (docs/numerics.md "exp2")."""
        f32 = ir.F32Type.get()
        if self.intel_builtins:
            return ir.Operation.create("spirv.FunctionCall", results=[f32], operands=[x], attributes={
                "callee": ir.FlatSymbolRefAttr.get(self.declare(EXP2))}).results[0]
        ln2 = arith.ConstantOp(f32, ir.FloatAttr.get(f32, 0.6931471805599453)).result
        return ir.Operation.create("math.exp", results=[f32], operands=[arith.MulFOp(x, ln2).result]).results[0]

    def scalar_op(self, op, regs, in_elts, out_elts):
        name = op.name
        L = self.lanes
        attrs = _attr_dict(op)
        if name == "math.exp2" and in_elts[0] in ("f32", "f16", "bf16"):     # f16 / bf16 in f32
            r = self.exp2(regs[0] if in_elts[0] == "f32" else L.to_f32(regs[0], in_elts[0]))
            return [r if out_elts[0] == "f32" else L.from_f32(r, out_elts[0])]
        if "bf16" not in in_elts and "bf16" not in out_elts:
            new = ir.Operation.create(name, results=[storage_type(e) for e in out_elts], operands=regs,
                                      attributes=attrs)
            return list(new.results)
        if name == "arith.extf":
            f = L.bf16_to_f32(regs[0])
            return [f if out_elts[0] == "f32" else arith.ExtFOp(storage_type(out_elts[0]), f).result]
        if name == "arith.truncf":
            x = regs[0] if in_elts[0] == "f32" else L.to_f32(regs[0], in_elts[0])
            return [L.f32_to_bf16(x)]
        if name == "arith.bitcast" or name == "arith.select":
            new = ir.Operation.create(name, results=[storage_type(e) for e in out_elts], operands=regs,
                                      attributes=attrs)
            return list(new.results)
        # compute in f32
        f_regs = [L.to_f32(r, e) if e == "bf16" else r for r, e in zip(regs, in_elts)]
        f_out = ["f32" if e == "bf16" else e for e in out_elts]
        new = ir.Operation.create(name, results=[storage_type(e) for e in f_out], operands=f_regs, attributes=attrs)
        return [L.f32_to_bf16(r) if e == "bf16" else r for r, e in zip(new.results, out_elts)]

    # ---- vector data movement --------------------------------------------------------------------
    def move(self, src: DVal, shape, src_index) -> DVal:
        lay = Layout.inherit(shape, src.layout, src_index)
        return self.lanes.materialize(src, lay, src_index)

    def h_vector_extract_strided_slice(self, op):
        src = self.dval(op.operands[0])
        offs = _int_list_attr(op.attributes["offsets"])
        sizes = _int_list_attr(op.attributes["sizes"])
        idx = np.arange(src.layout.size).reshape(src.shape)
        sl = tuple(slice(o, o + s) for o, s in zip(offs, sizes))
        sub = idx[sl]
        return [self.move(src, vector_shape(op.results[0].type), sub)]

    def h_vector_shape_cast(self, op):
        src = self.dval(op.operands[0])
        return [self.move(src, vector_shape(op.results[0].type), np.arange(src.layout.size))]

    def h_vector_transpose(self, op):
        src = self.dval(op.operands[0])
        perm = [int(x) for x in ir.DenseI64ArrayAttr(op.attributes["permutation"])]
        idx = np.arange(src.layout.size).reshape(src.shape).transpose(perm)
        return [self.move(src, vector_shape(op.results[0].type), idx)]

    def h_vector_broadcast(self, op):
        shape = vector_shape(op.results[0].type)
        elt = elt_name(op.results[0].type)
        x = self.get(op.operands[0])
        if isinstance(x, ir.Value):
            return [self.lanes.splat(shape, elt, x)]
        idx = np.arange(x.layout.size).reshape(x.shape)
        idx = idx.reshape((1,) * (len(shape) - idx.ndim) + idx.shape)
        return [self.move(x, shape, np.broadcast_to(idx, shape))]

    def h_vector_splat(self, op):
        return self.h_vector_broadcast(op)

    def h_vector_bitcast(self, op):
        """vector.bitcast (the element width changes along the innermost dimension): a narrowing one
        splits each register into r in the same lane (spirv.Bitcast to an r-vector, components
        extracted); a widening one first gathers each group of s elements into one lane (the result's
        canonical layout, each register expanded to s), then joins them."""
        src = self.dval(op.operands[0])
        shape = vector_shape(op.results[0].type)
        elt = elt_name(op.results[0].type)
        a, b = bits_of(src.elt), bits_of(elt)
        if min(a, b) < 8 or "index" in (src.elt, elt):
            raise LoweringError(op, f"vector.bitcast of {src.elt} to {elt} is not supported by convert-xegpu-to-spirv")

        def spv(name, t, operands, **attrs):
            return ir.Operation.create(name, results=[t], operands=operands, attributes=attrs).results[0]
        lanes, slots = src.layout.lanes.reshape(-1), src.layout.slots.reshape(-1)
        if a >= b:
            r = a // b
            vals = [None] * (src.layout.nslots * r)
            for sl, v in enumerate(src.vals):
                if v is not None:
                    vals[sl * r:(sl + 1) * r] = self.lanes.split(v, storage_type(elt), r)
            lay = Layout(shape, np.repeat(lanes, r), (slots[:, None] * r + np.arange(r)).reshape(-1))
            return [DVal(lay, vals, elt)]
        n = b // a
        res = Layout.canonical(shape, -1)
        grouped = self.lanes.relayout(src, Layout(src.shape, np.repeat(res.lanes.reshape(-1), n),
                                                  (res.slots.reshape(-1)[:, None] * n + np.arange(n)).reshape(-1)))
        vt = ir.VectorType.get([n], storage_type(src.elt))
        vals = []
        for m in range(res.nslots):
            parts = grouped.vals[m * n:(m + 1) * n]
            if any(x is None for x in parts):
                vals.append(None)
                continue
            vals.append(spv("spirv.Bitcast", storage_type(elt), [spv("spirv.CompositeConstruct", vt, parts)]))
        return [DVal(res, vals, elt)]

    def _static_pos(self, op):
        if "static_position" not in op.attributes:
            raise LoweringError(op, f"'{op.name}' needs a static position")
        pos = int_list(op.attributes["static_position"])
        if any(p == DYNAMIC for p in pos) or len(op.operands) > (2 if op.name == "vector.insert" else 1):
            raise LoweringError(op, f"'{op.name}' with a dynamic position is not supported")
        return pos

    def h_vector_extract(self, op):
        src = self.dval(op.operands[0])
        pos = self._static_pos(op)
        idx = np.arange(src.layout.size).reshape(src.shape)[tuple(pos)]
        if not is_vector_type(op.results[0].type):
            return [self.lanes.uniform(src, int(idx))]
        return [self.move(src, vector_shape(op.results[0].type), idx)]

    def h_vector_insert(self, op):
        dest = self.dval(op.operands[1])
        pos = self._static_pos(op)
        x = self.get(op.operands[0])
        region = np.arange(dest.layout.size).reshape(dest.shape)[tuple(pos)]
        if isinstance(x, ir.Value):
            x = self.lanes.splat((1,), dest.elt, x)
        return [self.insert_into(dest, x, np.asarray(region).reshape(-1))]

    def h_vector_insert_strided_slice(self, op):
        src = self.dval(op.operands[0])
        dest = self.dval(op.operands[1])
        offs = _int_list_attr(op.attributes["offsets"])
        lead = len(dest.shape) - len(src.shape)
        sl = tuple(slice(o, o + 1) if i < lead else slice(o, o + src.shape[i - lead]) for i, o in enumerate(offs))
        region = np.arange(dest.layout.size).reshape(dest.shape)[sl].reshape(-1)
        return [self.insert_into(dest, src, region)]

    def insert_into(self, dest: DVal, src: DVal, region) -> DVal:
        """`dest` with elements `region` (flat, in src element order) replaced by `src`."""
        L = self.lanes
        sub = Layout((len(region),), dest.layout.lanes.reshape(-1)[region], dest.layout.slots.reshape(-1)[region])
        flat_src = DVal(Layout((src.layout.size,), src.layout.lanes.reshape(-1), src.layout.slots.reshape(-1)),
                        src.vals, src.elt)
        moved = L.materialize(flat_src, sub)
        vals = list(dest.vals)
        for s in range(sub.nslots):
            lanes = list(sub.lane_elements(s))
            if not lanes:
                continue
            all_lanes = list(dest.layout.lane_elements(s)) if s < dest.layout.nslots else []
            if set(lanes) >= set(all_lanes) or vals[s] is None:
                vals[s] = moved.vals[s]
            else:
                vals[s] = arith.SelectOp(L.lane_in(lanes), moved.vals[s], vals[s]).result
        return DVal(dest.layout, vals, dest.elt)

    def h_vector_create_mask(self, op):
        """Element (i, j, ..) is set when every coordinate is below its bound: per register, the
        lanes' coordinates (lane tables) compared with the scalar bounds."""
        shape = vector_shape(op.results[0].type)
        bounds = [self.scalar(v, op) for v in op.operands]
        lay = Layout.canonical(shape)
        vals = []
        for s in range(lay.nslots):
            elems = lay.lane_elements(s)
            cond = None
            for d, bound in enumerate(bounds):
                coords = {ln: lay.coords(e)[d] for ln, e in elems.items()}
                c = arith.CmpIOp(arith.CmpIPredicate.slt, self.lanes.lane_table(coords, bound.type), bound).result
                cond = c if cond is None else arith.AndIOp(cond, c).result
            vals.append(cond)
        return [DVal(lay, vals, "i1")]

    def h_vector_from_elements(self, op):
        shape = vector_shape(op.results[0].type)
        elt = elt_name(op.results[0].type)
        regs = [self.scalar(v, op) for v in op.operands]
        lay = Layout.canonical(shape)
        vals = []
        for s in range(lay.nslots):
            by_val: dict = {}
            for ln, e in lay.lane_elements(s).items():
                by_val.setdefault(e, []).append(ln)
            items = list(by_val.items())
            v = regs[items[0][0]]
            for e, lanes in items[1:]:
                v = arith.SelectOp(self.lanes.lane_in(lanes), regs[e], v).result
            vals.append(v)
        return [DVal(lay, vals, elt)]


def result_layout(dvs) -> Layout:
    """Layout an element-wise op computes in: the first vector operand's, unless all of its elements
    sit in one lane -- then each register computes one element (ger's x, an 8x1 tile loaded into
    lane 0 and broadcast to 8x32: 256 single-lane registers, which IGC 2.40 spilled, and a shuffle
    per element for the stores) -- then the operand layout with the fewest registers (the first on a
    tie); the single-lane operand reaches it by one shuffle per source register. A first operand
    spread over several lanes keeps its layout (docs/spirv.md)."""
    first = dvs[0].layout
    if np.unique(first.lanes).size > 1:
        return first
    return min((d.layout for d in dvs), key=lambda lay: lay.nslots)


def _bf16_bits(u32: int) -> int:
    """bf16 bit pattern (as a signed i16 value) of an f32 bit pattern, rounded to nearest even."""
    u32 &= 0xFFFFFFFF
    if (u32 & 0x7F800000) == 0x7F800000 and (u32 & 0x7FFFFF):
        r = (u32 >> 16) | 0x40
    else:
        r = ((u32 + 0x7FFF + ((u32 >> 16) & 1)) >> 16) & 0xFFFF
    return r - 0x10000 if r & 0x8000 else r


def _int_list_attr(attr) -> list:
    try:
        return [int(x) for x in ir.DenseI64ArrayAttr(attr)]
    except (TypeError, ValueError):
        return [ir.IntegerAttr(a).value for a in ir.ArrayAttr(attr)]
