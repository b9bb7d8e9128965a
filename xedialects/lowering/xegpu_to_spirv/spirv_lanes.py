"""IR emission for per-lane values (convert-xegpu-to-spirv): constants, lane-dependent tables,
subgroup shuffles, register moves between `Layout`s and the bf16 conversions.

Everything is emitted as scalar upstream ops (arith, index, gpu) and a few `spirv.*` ops
(GroupNonUniformShuffle, Constant / VectorExtractDynamic for lane tables) inside the gpu.func
being lowered; the upstream GPU/arith/scf-to-SPIR-V conversions finish the job.

bf16 values live in i16 registers and buffers. bf16 -> f32 is a 16-bit shift. f32 -> bf16 rounds
to nearest even: on the pvc target a call of the imported conversion builtin
(`spirv_builtins.BF16_CONVERT`; IGC: one hardware conversion), else an integer sequence that makes
a NaN quiet as high half | 0x40 (SPV_INTEL_bfloat16_conversion is not known to the spirv-val of the
supported SPIRV-Tools, 2023.1); see docs/spirv.md, NaN bits in docs/numerics.md.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith

from ...passes.utils.index_arith import IndexArith
from .spirv_layout import LANES, Layout, affine_fit, lane_mask, plan_move


class LoweringError(Exception):
    """A construct the SPIR-V conversion cannot express; reported at `op`."""

    def __init__(self, op, message):
        super().__init__(message)
        self.op = op
        self.message = message


FLOATS = ("bf16", "f16", "f32", "f64", "tf32")


def is_float(elt: str) -> bool:
    return elt in FLOATS


def storage_type(elt: str) -> ir.Type:
    """Register / buffer type of an element type: bf16 -> i16, tf32 -> f32, signed / unsigned integers
    (si8, ui8: the lane-level import's DPAS operands) signless of their width, index stays index."""
    if elt == "bf16":
        return ir.IntegerType.get_signless(16)
    if elt == "tf32":
        return ir.F32Type.get()
    if elt[:2] in ("si", "ui") and elt[2:].isdigit():
        return ir.IntegerType.get_signless(int(elt[2:]))
    return ir.Type.parse(elt)


def elt_name(t) -> str:
    """Element type name of a scalar or vector type."""
    if isinstance(t, ir.Value):
        t = t.type
    if isinstance(t, ir.VectorType) or str(t).startswith("vector<"):
        return str(ir.VectorType(t).element_type)
    return str(t)


def bits_of(elt: str) -> int:
    if elt in ("index",):
        return 64
    if elt == "i1":
        return 1
    return int("".join(ch for ch in elt if ch.isdigit()) or 0)


@dataclass
class DVal:
    """A subgroup vector held in lane registers: `vals[slot]` (None: unused register)."""

    layout: Layout
    vals: list
    elt: str

    @property
    def shape(self):
        return self.layout.shape


class Lanes(IndexArith):
    """Emission helpers bound to one function (constants are created at the entry block; index
    arithmetic: `passes.utils.index_arith`)."""

    def __init__(self, entry_block: ir.Block, loc, bf16_builtin=None):
        self.entry = entry_block
        self.loc = loc
        # pvc: callback declaring the f32 -> bf16 builtin once and returning its symbol; None: integer sequence
        self.bf16_builtin = bf16_builtin
        self.consts: dict = {}
        self._lane = None
        self._lane_i32 = None
        self._anchor = None    # entry ops created here come before the anchor (the function body)
        self.shuffle_cache: dict = {}

    # ---- entry-block values ---------------------------------------------------------------------
    def _at_entry(self):
        if self._anchor is not None:
            return ir.InsertionPoint(self._anchor)
        return ir.InsertionPoint.at_block_begin(self.entry)

    def set_anchor(self, op):
        self._anchor = op

    def const(self, t: ir.Type, value):
        key = (str(t), value if not isinstance(value, float) else ("f", float(value).hex()))
        c = self.consts.get(key)
        if c is None:
            with self._at_entry(), self.loc:
                if isinstance(t, (ir.IndexType, ir.IntegerType)) or str(t) == "index" or str(t).startswith("i"):
                    attr = ir.IntegerAttr.get(t, int(value))
                else:
                    attr = ir.FloatAttr.get(t, float(value))
                c = arith.ConstantOp(t, attr).result
            self.consts[key] = c
        return c

    def index_constant(self, value: int) -> ir.Value:
        return self.const(ir.IndexType.get(), value)

    def i32(self, v):
        return v if isinstance(v, ir.Value) else self.const(ir.IntegerType.get_signless(32), int(v))

    def i64(self, v):
        return v if isinstance(v, ir.Value) else self.const(ir.IntegerType.get_signless(64), int(v))

    def zero(self, elt_or_type):
        t = storage_type(elt_or_type) if isinstance(elt_or_type, str) else elt_or_type
        return self.const(t, 0.0 if isinstance(t, (ir.F32Type, ir.F16Type, ir.F64Type)) else 0)

    @property
    def lane(self):
        """The lane id (index), created once at the function entry."""
        if self._lane is None:
            with self._at_entry(), self.loc:
                self._lane = ir.Operation.create("gpu.lane_id", results=[ir.IndexType.get()]).results[0]
                self._lane_i32 = arith.IndexCastOp(ir.IntegerType.get_signless(32), self._lane).result
        return self._lane

    @property
    def lane_i32(self):
        _ = self.lane
        return self._lane_i32

    # ---- casts ----------------------------------------------------------------------------------
    def to_i64(self, v):
        if isinstance(v, int):
            return self.i64(v)
        if str(v.type) == "i64":
            return v
        return arith.IndexCastOp(ir.IntegerType.get_signless(64), v).result

    def to_i32(self, v):
        if isinstance(v, int):
            return self.i32(v)
        t = str(v.type)
        if t == "i32":
            return v
        if t == "index":
            return arith.IndexCastOp(ir.IntegerType.get_signless(32), v).result
        return arith.TruncIOp(ir.IntegerType.get_signless(32), v).result

    # ---- lane-dependent values ------------------------------------------------------------------
    def lane_table(self, table: dict, t: ir.Type | None = None):
        """A value equal to table[lane] in every lane listed (others: anything). Affine tables
        become `a + b * lane`, others a constant vector indexed by the lane."""
        t = t or ir.IndexType.get()
        if str(t) == "i1":            # predicates: a lane set test (SPIR-V has no bool vectors to index)
            true = [ln for ln, v in table.items() if int(v) & 1]
            if not true or len(true) == len(table):
                return self.const(t, 1 if true else 0)
            return self.lane_in(true)
        fit = affine_fit(table)
        if fit is not None:
            a, b = fit
            if str(t) == "index":
                return self.add(self.mul(self.lane, b), a) if b else self.index(a)
            if b == 0:
                return self.const(t, a)
            lane = self.lane_i32 if str(t) == "i32" else arith.IndexCastOp(t, self.lane).result
            v = arith.MulIOp(lane, self.const(t, b)).result if b != 1 else lane
            return arith.AddIOp(v, self.const(t, a)).result if a else v
        full = [int(table.get(ln, 0)) for ln in range(LANES)]
        et = ir.IntegerType.get_signless(64) if str(t) == "index" else t
        v = self.vector_table(full, et)
        return arith.IndexCastOp(ir.IndexType.get(), v).result if str(t) == "index" else v

    def vector_table(self, values, et: ir.Type):
        """values[lane] from a 16-element constant vector (spirv.VectorExtractDynamic)."""
        vt = ir.VectorType.get([LANES], et)
        if isinstance(et, ir.IntegerType):
            arr = np.array(values, dtype={8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[et.width])
        else:
            arr = np.array(values, dtype={16: np.float16, 32: np.float32, 64: np.float64}[bits_of(str(et))])
        key = ("vec", str(vt), arr.tobytes())
        c = self.consts.get(key)
        if c is None:
            with self._at_entry(), self.loc:
                attr = ir.DenseElementsAttr.get(arr, type=vt)
                c = ir.Operation.create("spirv.Constant", results=[vt], attributes={"value": attr}).results[0]
            self.consts[key] = c
        return ir.Operation.create("spirv.VectorExtractDynamic", results=[et], operands=[c, self.lane_i32]).results[0]

    def lane_in(self, lanes):
        """i1: this lane is one of `lanes`."""
        lanes = sorted(set(int(x) for x in lanes))
        i1 = ir.IntegerType.get_signless(1)
        if len(lanes) == LANES:
            return self.const(i1, 1)
        lo, hi = lanes[0], lanes[-1]
        if hi - lo + 1 == len(lanes):
            if lo == hi:
                return arith.CmpIOp(arith.CmpIPredicate.eq, self.lane_i32, self.i32(lo)).result
            c = arith.CmpIOp(arith.CmpIPredicate.ult, self.lane_i32, self.i32(hi + 1)).result
            if lo == 0:
                return c
            return arith.AndIOp(c, arith.CmpIOp(arith.CmpIPredicate.uge, self.lane_i32, self.i32(lo)).result).result
        bit = arith.ShRUIOp(self.i32(lane_mask(lanes)), self.lane_i32).result
        bit = arith.AndIOp(bit, self.i32(1)).result
        return arith.CmpIOp(arith.CmpIPredicate.ne, bit, self.i32(0)).result

    def shuffle(self, v, src_lane):
        """Value of `v` in lane `src_lane` (an i32 Value or int) -- spirv.GroupNonUniformShuffle."""
        key = (v, src_lane if isinstance(src_lane, int) else id(src_lane), ir.InsertionPoint.current.block)
        if isinstance(src_lane, int) and key in self.shuffle_cache:
            return self.shuffle_cache[key]
        idx = self.i32(src_lane) if isinstance(src_lane, int) else src_lane
        t = v.type
        ts = str(t)
        if ts == "i1":
            i8 = ir.IntegerType.get_signless(8)
            x = arith.ExtUIOp(i8, v).result
            y = self._spv_shuffle(x, idx)
            res = arith.CmpIOp(arith.CmpIPredicate.ne, y, self.const(i8, 0)).result
        elif ts == "index":
            x = arith.IndexCastOp(ir.IntegerType.get_signless(64), v).result
            res = arith.IndexCastOp(ir.IndexType.get(), self._spv_shuffle(x, idx)).result
        else:
            res = self._spv_shuffle(v, idx)
        if isinstance(src_lane, int):
            self.shuffle_cache[key] = res
        return res

    def _spv_shuffle(self, v, idx):
        return ir.Operation.create("spirv.GroupNonUniformShuffle", results=[v.type], operands=[v, idx],
                                   attributes={"execution_scope": ir.Attribute.parse("#spirv.scope<Subgroup>")}
                                   ).results[0]

    # ---- register moves -------------------------------------------------------------------------
    def materialize(self, src: DVal, dst: Layout, src_index=None) -> DVal:
        """`src` moved into layout `dst` (destination element e = source element src_index[e])."""
        if src_index is None and src.layout == dst:
            return src
        if src_index is None and src.layout.shape != dst.shape:
            raise ValueError(f"relayout between shapes {src.layout.shape} and {dst.shape}")
        vals = []
        for pieces in plan_move(src.layout, dst, src_index):
            if not pieces:
                vals.append(None)
                continue
            parts = []
            for p in pieces:
                v = src.vals[p.src_slot]
                if v is None:
                    v = self.zero(src.elt)
                if not p.local:
                    srcs = set(p.lanes.values())
                    idx = next(iter(srcs)) if len(srcs) == 1 else self.lane_table(p.lanes, ir.IntegerType.get_signless(32))
                    v = self.shuffle(v, idx)
                parts.append((set(p.lanes), v))
            val = parts[0][1]
            for lanes, v in parts[1:]:
                val = arith.SelectOp(self.lane_in(lanes), v, val).result
            vals.append(val)
        return DVal(dst, vals, src.elt)

    def relayout(self, dv: DVal, layout: Layout) -> DVal:
        return self.materialize(dv, layout)

    def splat(self, shape, elt, value, lane_dim=-1) -> DVal:
        lay = Layout.canonical(shape, lane_dim)
        return DVal(lay, [value] * lay.nslots, elt)

    def uniform(self, dv: DVal, flat: int):
        """The element `flat` of `dv` as a value equal in every lane."""
        ln = int(dv.layout.lanes.reshape(-1)[flat])
        sl = int(dv.layout.slots.reshape(-1)[flat])
        v = dv.vals[sl] if dv.vals[sl] is not None else self.zero(dv.elt)
        return self.shuffle(v, ln)

    def split(self, v, t: ir.Type, r: int) -> list:
        """The `r` values of type `t` register `v` holds, lowest bits first (spirv.Bitcast to an
        r-vector, components extracted; r = 1: the bitcast)."""
        if r == 1:
            return [ir.Operation.create("spirv.Bitcast", results=[t], operands=[v]).results[0]]
        w = ir.Operation.create("spirv.Bitcast", results=[ir.VectorType.get([r], t)], operands=[v]).results[0]
        i32 = ir.IntegerType.get_signless(32)
        return [ir.Operation.create("spirv.CompositeExtract", results=[t], operands=[w], attributes={
            "indices": ir.ArrayAttr.get([ir.IntegerAttr.get(i32, k)])}).results[0] for k in range(r)]

    # ---- bf16 / tf32 conversions -----------------------------------------------------------------
    def bf16_to_f32(self, x):
        i32 = ir.IntegerType.get_signless(32)
        w = arith.ExtUIOp(i32, x).result
        w = arith.ShLIOp(w, self.const(i32, 16)).result
        return arith.BitcastOp(ir.F32Type.get(), w).result

    def f32_to_bf16(self, f):
        """Round to nearest even: the builtin when there is one (pvc), else the integer sequence (a
        NaN becomes quiet: high half | 0x40)."""
        if self.bf16_builtin is not None:
            return ir.Operation.create("spirv.FunctionCall", results=[ir.IntegerType.get_signless(16)], operands=[f],
                                       attributes={"callee": ir.FlatSymbolRefAttr.get(self.bf16_builtin())}).results[0]
        i32 = ir.IntegerType.get_signless(32)
        u = arith.BitcastOp(i32, f).result
        hi = arith.ShRUIOp(u, self.const(i32, 16)).result
        lsb = arith.AndIOp(hi, self.const(i32, 1)).result
        r = arith.AddIOp(arith.AddIOp(u, self.const(i32, 0x7FFF)).result, lsb).result
        r = arith.ShRUIOp(r, self.const(i32, 16)).result
        nan = arith.CmpFOp(arith.CmpFPredicate.UNO, f, f).result
        q = arith.OrIOp(hi, self.const(i32, 0x40)).result
        r = arith.SelectOp(nan, q, r).result
        return arith.TruncIOp(ir.IntegerType.get_signless(16), r).result

    def round_tf32(self, f):
        """f32 rounded to tf32 (10-bit mantissa, nearest even), as the DPAS inputs."""
        i32 = ir.IntegerType.get_signless(32)
        u = arith.BitcastOp(i32, f).result
        lsb = arith.AndIOp(arith.ShRUIOp(u, self.const(i32, 13)).result, self.const(i32, 1)).result
        r = arith.AddIOp(arith.AddIOp(u, self.const(i32, 0x0FFF)).result, lsb).result
        r = arith.AndIOp(r, self.const(i32, -8192)).result
        return arith.BitcastOp(ir.F32Type.get(), r).result

    def to_f32(self, v, elt: str):
        """A register of element type `elt` as f32 (exact for bf16/f16)."""
        f32 = ir.F32Type.get()
        if elt == "bf16":
            return self.bf16_to_f32(v)
        if elt == "f16":
            return arith.ExtFOp(f32, v).result
        if elt == "f64":
            return arith.TruncFOp(f32, v).result
        return v

    def from_f32(self, v, elt: str):
        if elt == "bf16":
            return self.f32_to_bf16(v)
        if elt == "f16":
            return arith.TruncFOp(ir.F16Type.get(), v).result
        if elt == "f64":
            return arith.ExtFOp(ir.F64Type.get(), v).result
        return v
