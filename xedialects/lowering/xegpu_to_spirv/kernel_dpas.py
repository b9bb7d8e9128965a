"""`xegpu.dpas` in a lowered kernel (mixin of `kernel_lowering.KernelLowering`). Target pvc calls
Intel's `intel_sub_group_*_matrix_mad_k*` builtins (M split into 8/4/2/1 rows; operands packed to
the builtins' per-lane layouts, `spirv_builtins`); shapes without a builtin and target portable
use a subgroup multiply-add: lane n computes column n in one `scf.for k` loop per 16 K values
(docs/spirv.md: why a loop, and why chunks with constant B entries are unrolled).
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, scf

from ...passes.utils.ir_walk import owner_op
from . import spirv_builtins as bi
from .kernel_values import vector_shape
from .spirv_lanes import DVal, LoweringError, bits_of, elt_name, is_float, storage_type
from .spirv_layout import LANES, Layout


class DpasLowering:
    """xegpu.dpas: pvc builtins or the portable k loop."""

    def h_xegpu_dpas(self, op):
        a = self.dval(op.operands[0])
        b = self.dval(op.operands[1])
        acc = self.dval(op.operands[2]) if len(op.operands) > 2 else None
        return [self.dpas_values(a, b, acc, vector_shape(op.results[0].type), elt_name(op.results[0].type))]

    def dpas_values(self, a: DVal, b: DVal, acc: DVal | None, rs, er: str) -> DVal:
        """The subgroup DPAS of A (M x K, or M x K/f x f), B (K x N, or K/f x N x f) and the
        accumulator: the result (M x N, element type `er`)."""
        M, N = rs
        # logical (m, k) of A elements, (k, n) of B elements
        if len(a.shape) == 3:
            mm, aa, bb = np.indices(a.shape)
            a_mk = (mm, aa * a.shape[2] + bb)
        else:
            a_mk = tuple(np.indices(a.shape))
        if len(b.shape) == 3:
            aa, nn, bb = np.indices(b.shape)
            b_kn = (aa * b.shape[2] + bb, nn)
        else:
            b_kn = tuple(np.indices(b.shape))
        K = int(a_mk[1].max()) + 1
        # A, B as logical 2D values
        a2 = self.move(a, (M, K), _inverse_index((M, K), a_mk))
        b2 = self.move(b, (K, N), _inverse_index((K, N), b_kn))
        c_lay = Layout.canonical((M, N), 1)
        if acc is not None:
            c = self.lanes.relayout(acc, c_lay)
        else:
            c = DVal(c_lay, [None] * c_lay.nslots, er)
        if self.intel_builtins:
            out = self.dpas_builtin(a2, b2, c, M, N, K, er)
            if out is not None:
                return out
        return self.dpas_expand(a2, b2, c, M, N, K, er)

    def dpas_expand(self, a: DVal, b: DVal, c: DVal, M, N, K, er) -> DVal:
        """Subgroup multiply-add: lane n computes column n, products and sums in f32 (i32), in K
        order. Emitted as one `scf.for k` loop per 16 K values: lane n keeps its B column in a
        Function-storage array (indexed by k), A[m, k] comes from lane k by a shuffle with a
        dynamic lane. About 1/K of the code of the unrolled form -- the OpenCL compiler's build
        time follows the code size (and private arrays with dynamic indices vectorize; per-lane
        vectors with dynamic indices do not)."""
        L = self.lanes
        ea, eb = a.elt, b.elt
        integer = not is_float(ea)
        b_lay = Layout.from_table((K, N), lambda k, n: n, lambda k, n: k)
        bl = L.relayout(b, b_lay)
        acc_t = ir.IntegerType.get_signless(32) if integer else ir.F32Type.get()
        lane_type = "int" if integer else "float"

        def conv(v, e):
            if integer:
                if bits_of(str(v.type)) == 32:
                    return v
                return (arith.ExtUIOp if e.startswith("u") or e.startswith("ui") else arith.ExtSIOp)(acc_t, v).result
            x = L.to_f32(v, e)
            return L.round_tf32(x) if e in ("f32", "tf32") else x

        bcol = [conv(bl.vals[k], eb) if bl.vals[k] is not None else L.zero(acc_t) for k in range(K)]
        accs = []
        for m in range(M):
            v = c.vals[m]
            accs.append(L.zero(acc_t) if v is None else (v if integer else L.to_f32(v, c.elt)))
        kc = -(-K // LANES)
        a2 = L.relayout(a, Layout.canonical((M, K), 1))      # A[m, k] in lane k % 16, slot m * kc + k // 16
        i32 = ir.IntegerType.get_signless(32)
        var = self.variable(lane_type, LANES, "dpas_b")

        def mac(acc, m, ci, lane, bk):
            """acc + A[m, k] * B[k, n]: A from `lane` of chunk `ci` (a shuffle), B this lane's `bk`."""
            av = a2.vals[m * kc + ci]
            cv = conv(L.shuffle(av if av is not None else L.zero(ea), lane), ea)
            if integer:
                return arith.AddIOp(acc, arith.MulIOp(cv, bk).result).result
            return arith.AddFOp(acc, arith.MulFOp(cv, bk).result).result

        for ci in range(kc):
            n = min(LANES, K - ci * LANES)
            ks = range(ci * LANES, ci * LANES + n)
            if any(bl.vals[k] is None or _is_constant(bl.vals[k]) for k in ks):
                # constant B entries (e.g. rows a descriptor with a static shape never reaches) are
                # not stored into the array: Intel's OpenCL CPU compiler mis-compiles runs of
                # constant stores into a private array read with a dynamic index (the loop then
                # reads garbage). Such chunks are unrolled with a constant source lane per k.
                for k in ks:
                    accs = [mac(acc, m, ci, k % LANES, bcol[k]) for m, acc in enumerate(accs)]
                continue
            for k in range(n):
                ir.Operation.create("spirv.Store", operands=[self.var_elem(var, lane_type, k), bcol[ci * LANES + k]])
            loop = scf.ForOp(L.index(0), L.index(n), L.index(1), accs)
            with ir.InsertionPoint(loop.body):
                k32 = arith.IndexCastOp(i32, loop.induction_variable).result
                bk = ir.Operation.create("spirv.Load", results=[acc_t],
                                         operands=[self.var_elem(var, lane_type, k32)]).results[0]
                scf.YieldOp([mac(acc, m, ci, k32, bk) for m, acc in enumerate(loop.inner_iter_args)])
            accs = list(loop.results)
        return DVal(c.layout, [x if integer else L.from_f32(x, er) for x in accs], er)

    def dpas_builtin(self, a: DVal, b: DVal, c: DVal, M, N, K, er) -> DVal | None:
        L = self.lanes
        ea, eb = a.elt, b.elt
        acc_elt = "i32" if not is_float(ea) else "f32"
        pieces = []
        m0 = 0
        while m0 < M:
            m = next(x for x in (8, 4, 2, 1) if x <= M - m0)
            spec = bi.dpas_builtin(ea, eb, acc_elt, m)
            if spec is None or N != 16 or (ea in ("f32", "tf32") and m < 4):
                return None
            pieces.append((m0, m, spec))
            m0 += m
        kk = {"bf16": 16, "f16": 16}.get(ea, 8 if ea in ("f32", "tf32") else 32)
        if K != kk:
            return None
        # B: lane n, value i packs k = i*pack .. (i+1)*pack-1
        b_lay = Layout.from_table((K, N), lambda k, n: n, lambda k, n: k)
        bl = L.relayout(b, b_lay)
        b_vec = self.pack_values(bl.vals, pieces[0][2].b_pack, eb, pieces[0][2].b_type)
        out = [None] * M
        for m0, m, spec in pieces:
            sub_a = self.move(a, (m, K), np.arange(m0 * K, (m0 + m) * K))
            a_l, a_s = bi.dpas_a_lane(ea, *np.indices((m, K)))
            ap = L.relayout(sub_a, Layout((m, K), a_l, a_s))
            a_vec = self.pack_values(ap.vals, spec.a_pack, ea, spec.a_type)
            accs = []
            for i in range(m):
                v = c.vals[m0 + i]
                if v is None:
                    v = L.zero(storage_type(acc_elt))
                elif c.elt != acc_elt:
                    v = L.to_f32(v, c.elt)
                accs.append(v)
            c_vec = self.build_vec(accs, spec.c_type)
            sym = self.declare(spec.builtin)
            rt = ir.Type.parse(bi.spirv_type(spec.c_type))
            r = ir.Operation.create("spirv.FunctionCall", results=[rt], operands=[a_vec, b_vec, c_vec],
                                    attributes={"callee": ir.FlatSymbolRefAttr.get(sym)}).results[0]
            for i in range(m):
                x = r if m == 1 else ir.Operation.create(
                    "spirv.CompositeExtract", results=[storage_type(acc_elt)], operands=[r],
                    attributes={"indices": ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(32), i)])}
                ).results[0]
                out[m0 + i] = x if er == acc_elt else L.from_f32(x, er)
        return DVal(c.layout, out, er)

    def pack_values(self, regs, pack, elt, cl_type):
        """Per-lane registers packed `pack` to a value (little endian) as the OpenCL type."""
        base, n = bi._split_vec(cl_type)
        return self.build_vec(self.pack_words(regs, pack, elt, base, n), cl_type)

    def pack_words(self, regs, pack, elt, lane_type, n):
        """`n` per-lane values of the OpenCL scalar type `lane_type`, each `pack` registers
        (little endian; missing registers are zero)."""
        L = self.lanes
        lt = ir.Type.parse(bi.spirv_type(lane_type))
        ebits = bits_of(elt) if elt not in ("tf32",) else 32
        vals = []
        for i in range(n):
            chunk = regs[i * pack:(i + 1) * pack]
            chunk = [x if x is not None else L.zero(elt) for x in chunk]
            if pack == 1:
                x = chunk[0] if len(chunk) else L.zero(lt)
                if str(x.type) != str(lt):
                    x = arith.BitcastOp(lt, x).result
                vals.append(x)
                continue
            wt = ir.IntegerType.get_signless(bits_of(str(lt)))
            acc = None
            for k, x in enumerate(chunk):
                if not isinstance(x.type, ir.IntegerType):
                    x = arith.BitcastOp(ir.IntegerType.get_signless(ebits), x).result
                w = arith.ExtUIOp(wt, x).result
                if k:
                    w = arith.ShLIOp(w, L.const(wt, k * ebits)).result
                acc = w if acc is None else arith.OrIOp(acc, w).result
            if str(acc.type) != str(lt):
                acc = arith.BitcastOp(lt, acc).result
            vals.append(acc)
        return vals

    def build_vec(self, vals, cl_type):
        if len(vals) == 1:
            return vals[0]
        vt = ir.Type.parse(bi.spirv_type(cl_type))
        return ir.Operation.create("spirv.CompositeConstruct", results=[vt], operands=vals).results[0]


def feeds_tf32_dpas_a_only(v) -> bool:
    """Whether every use of the vector `v` (through `vector.extract_strided_slice`s) is the A
    operand of an `xegpu.dpas` on 32-bit floats (tf32) that the k8 builtin computes (A M x 8,
    result M x 16, M a multiple of 4: pieces of 8 / 4 rows). Such a vector is best loaded in that
    builtin's A layout (`spirv_builtins.block_read(dpas_a=True)`): no lane moves before the DPAS."""
    seen = 0
    work = [v]
    while work:
        x = work.pop()
        for use in x.uses:
            user = use.owner
            user = user.operation if hasattr(user, "operation") else user
            if user.name == "vector.extract_strided_slice":
                work.append(user.results[0])
            elif user.name == "xegpu.dpas" and use.operand_number == 0 and _tf32_builtin_dpas(user):
                seen += 1
            else:
                return False
    return seen > 0


def _tf32_builtin_dpas(op) -> bool:
    """Whether `op` (an xegpu.dpas) is a tf32 DPAS the k8 builtin computes."""
    a, r = vector_shape(op.operands[0].type), vector_shape(op.results[0].type)
    return (elt_name(op.operands[0].type) in ("f32", "tf32") and len(a) == 2 and a[1] == 8
            and r[1] == 16 and r[0] == a[0] and r[0] % 4 == 0)


def _is_constant(v) -> bool:
    """Whether a lowered value is a constant (arith.constant or spirv.Constant)."""
    o = owner_op(v)
    return o is not None and o.name in ("arith.constant", "spirv.Constant")


def _inverse_index(shape, coords):
    """src_index array over `shape`: the flat source element whose logical coordinates are e."""
    n = int(np.prod(shape))
    out = np.full(n, -1, dtype=np.int64)
    flat_dst = np.ravel_multi_index(tuple(c.reshape(-1) for c in coords), shape)
    out[flat_dst] = np.arange(flat_dst.size)
    if (out < 0).any():
        raise LoweringError(None, "internal: incomplete DPAS operand")
    return out.reshape(shape)
