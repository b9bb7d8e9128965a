"""Step 1 of `xegpu-simt-distribute` (option split-a-loads): an A load larger than the DPAS block
whose result only feeds DPAS A operands through `vector.extract_strided_slice` is split into
DPAS-row-sized descriptors, so each A fragment comes straight from a block load in the hardware's
element order (docs/simt.md, "The DPAS operand orders")."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from ...utils.ir_walk import as_op, walk
from ...utils.rebuild import Rebuilder
from ....xegpu.attributes import TensorDescType
from ....xegpu.ops import CreateNdTdescOp, LoadNdOp, PrefetchNdOp, UpdateNdOffsetOp
from .analysis.block_io import descriptor_chains
from .common import cache_hints, int_list, mixed_operands, tdesc_fields, vec_shape, vec_type


class SplitALoads:
    """Step 1: DPAS A operands get their own block loads."""

    def split_a_loads(self) -> None:
        """Give every DPAS A operand its own block load (see module doc)."""
        chain = descriptor_chains(self.func)
        uses_by_chain = {}
        for op in walk(self.func):
            if op.name.startswith("xegpu.") and op.name != "xegpu.create_nd_tdesc":
                for v in op.operands:
                    if v in chain:
                        uses_by_chain.setdefault(chain[v], []).append(op)
        split = {}   # chain -> rows per part
        for c, ops in uses_by_chain.items():
            loads = [o for o in ops if o.name == "xegpu.load_nd"]
            if not loads or any(o.name not in ("xegpu.update_nd_offset", "xegpu.prefetch_nd", "xegpu.load_nd")
                                for o in ops):
                continue
            if any("vnni_axis" in o.attributes or "transpose" in o.attributes or len(vec_shape(o.results[0])) != 2
                   for o in loads):
                continue
            m_rows = _a_operand_rows([o.results[0] for o in loads])
            R = vec_shape(loads[0].results[0])[0]
            if m_rows is not None and R > m_rows and R % m_rows == 0:
                split[c] = m_rows
        if not split:
            return
        split_vals = {v: split[c] for v, c in chain.items() if c in split}
        me = self

        def h_create(rb, op):
            r = op.results[0]
            if r not in split_vals:
                return None
            m = split_vals[r]
            c = CreateNdTdescOp(op)
            offs = mixed_operands(rb, c, "offsets")
            sh = mixed_operands(rb, c, "shape")
            st = mixed_operands(rb, c, "strides")
            tv = TensorDescType(r.type)
            R, C = tv.shape
            t = TensorDescType.get([m, C], tv.element_type, **tdesc_fields(tv))
            out = []
            for k in range(R // m):
                o = list(offs)
                o[-2] = me.add_idx(o[-2], k * m)
                kw = {"shape": sh, "strides": st} if sh else {}
                out.append(CreateNdTdescOp.build(source=rb.one(c.source), offsets=o, mode="vc",
                                                 result_types=[t], **kw).op.results[0])
            return [out]

        def h_update(rb, op):
            if op.operands[0] not in split_vals:
                return None
            u = UpdateNdOffsetOp(op)
            offs = mixed_operands(rb, u, "offsets")
            return [[UpdateNdOffsetOp.build(tdesc=d, offsets=offs, mode="vc", result_types=[d.type]).op.results[0]
                     for d in rb.map(op.operands[0])]]

        def h_load(rb, op):
            if op.operands[0] not in split_vals:
                return None
            out = []
            for d in rb.map(op.operands[0]):
                tv = TensorDescType(d.type)
                kw = cache_hints(op)
                out.append(LoadNdOp.build(tdesc=d, mode="vc", result_types=[vec_type(tv.shape, tv.element_type)],
                                          **kw).op.results[0])
            return [out]

        def h_prefetch(rb, op):
            if op.operands[0] not in split_vals:
                return None
            for d in rb.map(op.operands[0]):
                kw = cache_hints(op)
                PrefetchNdOp.build(tdesc=d, mode="vc", **kw)
            return []

        def h_slice(rb, op):
            src = op.operands[0]
            parts = rb.map(src)
            if len(parts) == 1:
                return None
            offs = int_list(op.attributes["offsets"])
            m = vec_shape(parts[0])[0]
            return [parts[offs[0] // m]]

        Rebuilder({"xegpu.create_nd_tdesc": h_create, "xegpu.update_nd_offset": h_update,
                   "xegpu.load_nd": h_load, "xegpu.prefetch_nd": h_prefetch,
                   "vector.extract_strided_slice": h_slice}).run(self.func)

    def add_idx(self, a, k):
        if k == 0:
            return a
        if isinstance(a, int):
            return a + k
        c = arith.ConstantOp(ir.IndexType.get(), k).result
        return arith.AddIOp(a, c).result


def _a_operand_rows(loaded):
    """DPAS M when the loaded values (possibly carried through scf.for) reach the program only as
    full-width, M-row-aligned `extract_strided_slice`s that are DPAS A operands; else None."""
    values = list(loaded)
    seen = set(values)
    carried = []
    m_rows = None
    i = 0
    while i < len(values):
        v = values[i]
        i += 1
        R, C = vec_shape(v)
        for use in v.uses:
            u = as_op(use.owner)
            if u.name == "vector.extract_strided_slice":
                offs = int_list(u.attributes["offsets"])
                h, w = vec_shape(u.results[0])
                if (offs[1], w) != (0, C) or (m_rows is not None and h != m_rows) or offs[0] % h:
                    return None
                m_rows = h
                for u2 in u.results[0].uses:
                    d = as_op(u2.owner)
                    if d.name != "xegpu.dpas" or u2.operand_number != 0:
                        return None
            elif u.name == "scf.for" and use.operand_number >= 3:
                k = use.operand_number - 3
                nxt = [u.regions[0].blocks[0].arguments[k + 1], u.results[k]]
                carried.append((u, k))
            elif u.name == "scf.yield" and as_op(u.parent) is not None and as_op(u.parent).name == "scf.for":
                par = as_op(u.parent)
                k = use.operand_number
                nxt = [par.regions[0].blocks[0].arguments[k + 1], par.results[k]]
                carried.append((par, k))
            else:
                return None
            if u.name in ("scf.for", "scf.yield"):
                for x in nxt:
                    if x not in seen:
                        seen.add(x)
                        values.append(x)
    if carried:
        # a loop-carried A fragment reaches the DPAS through a block argument anyway: splitting
        # its loads gains nothing (it is distributed in the packed A order instead)
        return None
    for loop, k in carried:
        init = list(loop.operands)[3 + k]
        y = list(loop.regions[0].blocks[0].operations)[-1].operation.operands[k]
        if init not in seen or y not in seen:
            return None
    return m_rows
