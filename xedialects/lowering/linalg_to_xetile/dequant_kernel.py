"""The B path of a fused weight-only quantized GEMM kernel (docs/quantized-gemm.md): the integer weights'
K-step tile is loaded with the GEMM's B tile (i4 weights as their bytes, unpacked to i8 in registers), the scales / zero points with 1 x N tiles (per column once,
per group at row k / G each K step), broadcast with `xetile.tile_broadcast`, and the dequantizing body
replayed on the work-group vectors with B's `wg_map`; its result feeds `tile_mma` as B.
"""
from __future__ import annotations

from mlir import ir

from ...core.typeinfo import memref_info
from .dequant import Dequant
from .gemm_epilogue import _attr_name, _attrs
from .wg_map_rule import map_text


class DequantB:
    def __init__(self, dq: Dequant, names: dict, ks: int, wn: int, b_map, w):
        self.dq, self.names, self.ks, self.wn, self.w = dq, names, ks, wn, w
        self.layout, self.data = b_map
        self.wg = map_text(b_map)
        self.rows: dict = {}      # host value -> (1 x wn vector name, elt), loaded before the loop
        self.n = 0

    def fresh(self):
        self.n += 1
        return f"%dq{self.n}"

    bdim = 0   # the dimension a parameter tile is broadcast along (its rows are 1 x wn)

    def vt(self, elt) -> str:
        return f"vector<{self.ks}x{self.wn}x{elt}>"

    def param_place(self, at) -> tuple:
        """(shape, sg_data, offsets) of a parameter tile at row `at`: a row of wn values at column %n
        (dequant_gemv: a column for a matvec)."""
        return (1, self.wn), (1, self.data[1]), (at, "%n")

    def param_vt(self, elt) -> str:
        """The vector of one parameter tile."""
        (r, c), _, _ = self.param_place(None)
        return f"vector<{r}x{c}x{elt}>"

    def _row_tile(self, view, view_t, row, elt):
        (r, c), data, offs = self.param_place(row)
        t = (f"!xetile.tile<{r}x{c}x{elt}, #xetile.tile_attr<wg_map = <sg_layout = [{self.layout[0]}, "
             f"{self.layout[1]}], sg_data = [{data[0]}, {data[1]}]>>>")
        tile, v = self.fresh(), self.fresh()
        self.w(f"    {tile} = xetile.init_tile {view}[{offs[0]}, {offs[1]}] : {view_t} -> {t}")
        self.w(f"    {v} = xetile.load_tile {tile} : {t} -> {self.param_vt(elt)}")
        return v

    def b_tiles(self, prefetch_map):
        """(columns, column offset, map, prefetch map) of the weights' B tiles: i8 weights as B's; i4 weights
        are read as their bytes (two per byte along N), half the columns at half the offset."""
        if self.dq.wtype != "i4":
            return self.wn, "%n", (self.layout, self.data), prefetch_map
        self.w("    %nq = arith.divui %n, %c2 : index")
        half = lambda m: (m[0], (m[1][0], m[1][1] // 2))  # noqa: E731
        return self.wn // 2, "%nq", half((self.layout, self.data)), half(prefetch_map)

    def _unpack(self, vb: str) -> str:
        """i4 weights: the k_step x wn/2 bytes to k_step x wn i8 values. Each byte widened to i16 as
        `(hi << 8) | (lo & 0xff)` with both nibbles sign-extended by shifts, then `vector.bitcast` to i8 (the
        low byte first: the even element, as packed)."""
        ks, half = self.ks, self.wn // 2
        hmap = map_text((self.layout, (self.data[0], self.data[1] // 2)))
        t16 = f"vector<{ks}x{half}xi16>"
        w = self.w

        def const(v):
            r = self.fresh()
            w(f'    {r} = "arith.constant"() {{value = dense<{v}> : {t16}, wg_map = {hmap}}} : () -> {t16}')
            return r

        def op(name, *args):
            r = self.fresh()
            w(f'    {r} = "{name}"({", ".join(args)}) {{wg_map = {hmap}}} : ({", ".join([t16] * len(args))}) -> {t16}')
            return r

        x = self.fresh()
        w(f'    {x} = "arith.extsi"({vb}) {{wg_map = {hmap}}} : (vector<{ks}x{half}xi8>) -> {t16}')
        c12, c8, c4, cff = const(12), const(8), const(4), const(255)
        lo = op("arith.andi", op("arith.shrsi", op("arith.shli", x, c12), c12), cff)
        hi = op("arith.shli", op("arith.shrsi", x, c4), c8)
        word = op("arith.ori", hi, lo)
        r = self.fresh()
        w(f"    {r} = vector.bitcast {word} {{wg_map = {self.wg}}} : {t16} to {self.vt('i8')}")
        return r

    def setup(self) -> None:
        """Before the K loop: the per-column parameters' rows."""
        for inp in self.dq.inputs:
            if inp.kind != "col":
                continue
            (size,), elt = memref_info(inp.value)[:2]
            mt = f"memref<1x{size}x{elt}>"
            view = self.fresh()
            self.w(f"    {view} = memref.expand_shape {self.names[inp.value]} [[0, 1]] output_shape [1, {size}] : "
                   f"{inp.value.type} into {mt}")
            self.rows[inp.value] = (self._row_tile(view, mt, "%c0", elt), elt)

    def apply(self, vb: str, k: str) -> str:
        """Inside the K loop at offset `k`: the dequantized B vector from the loaded weights `vb`."""
        w, dq = self.w, self.dq
        vals = {}
        group_row = None
        weights = self._unpack(vb) if dq.wtype == "i4" else vb
        for arg, inp in zip(dq.block.arguments, dq.inputs):
            if inp.kind == "weights":
                vals[arg] = (weights, "i8")
                continue
            if inp.kind == "scalar":
                continue
            elt = memref_info(inp.value)[1]
            if inp.kind == "col":
                small = self.rows[inp.value][0]
            else:
                if group_row is None:
                    group_row = self.fresh()
                    w(f"    {group_row}c = arith.constant {dq.group} : index")
                    w(f"    {group_row} = arith.divui {k}, {group_row}c : index")
                small = self._row_tile(self.names[inp.value], str(inp.value.type), group_row, elt)
            r = self.fresh()
            w(f"    {r} = xetile.tile_broadcast {small} [{self.bdim}] {{wg_map = {self.wg}}} : {self.param_vt(elt)} -> "
              f"{self.vt(elt)}")
            vals[arg] = (r, elt)
        body = [o.operation for o in dq.block.operations]
        for bop in body[:-1]:
            res = bop.results[0]
            r = self.fresh()
            if bop.name == "arith.constant":
                vals[res] = (self._splat(bop), str(res.type))
                continue
            ops = [vals[v] if v in vals else (self._splat(v.owner.operation), str(v.type)) for v in bop.operands]
            if bop.name == "arith.extsi" and ops[0][1] == str(res.type):
                vals[res] = ops[0]           # i4 -> i8 of weights the kernel already holds as i8
                continue
            attrs = [f"{_attr_name(k_)} = {a}" for k_, a in _attrs(bop).items()] + [f"wg_map = {self.wg}"]
            w(f'    {r} = "{bop.name}"({", ".join(n for n, _ in ops)}) {{{", ".join(attrs)}}} : '
              f'({", ".join(self.vt(t) for _, t in ops)}) -> {self.vt(res.type)}')
            vals[res] = (r, str(res.type))
        return vals[body[-1].operands[0]][0]

    def _splat(self, const_op) -> str:
        res = const_op.results[0]
        vt = ir.VectorType.get([self.ks, self.wn], res.type)
        dense = str(ir.DenseElementsAttr.get_splat(vt, const_op.attributes["value"])).split(" : ")[0]
        r = self.fresh()
        self.w(f'    {r} = "arith.constant"() {{value = {dense} : {vt}, wg_map = {self.wg}}} : () -> {vt}')
        return r
