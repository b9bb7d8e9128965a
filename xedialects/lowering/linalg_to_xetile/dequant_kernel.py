"""The B path of a fused weight-only quantized GEMM kernel (docs/quantized-gemm.md): the integer weights'
K-step tile is loaded with the GEMM's B tile (i4 weights as their bytes, unpacked to i8 in registers), the scales / zero points with 1 x N tiles (per column once,
per group at row k / G each K step), broadcast with `xetile.tile_broadcast`, and the dequantizing body
replayed on the work-group vectors with B's `wg_map`; its result feeds `tile_mma` as B.
"""
from __future__ import annotations

from typing import NamedTuple

from mlir import ir

from ...core.typeinfo import memref_info
from .dequant import Dequant
from .gemm_epilogue import _attr_name, _attrs
from .wg_map_rule import map_text


class BTiles(NamedTuple):
    """The GEMM kernel's B tile and B prefetch tile: the memref view they are on, the tile offsets, shape,
    wg_maps, `order` (None: row-major) and the offsets one K step advances them by."""
    view: str
    view_t: str
    offsets: tuple
    shape: tuple
    b_map: tuple
    prefetch_map: tuple
    order: tuple | None
    step: str


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

    @property
    def nk(self) -> bool:
        """A GEMM's N x K weights (B read transposed): per-group parameters are read through transposed views."""
        return self.dq.nk

    def param_place(self, at) -> tuple:
        """(shape, sg_data, offsets) of a parameter tile at row `at`: a row of wn values at column %n
        (dequant_gemv: a column for a matvec)."""
        return (1, self.wn), (1, self.data[1]), (at, "%n")

    def param_vt(self, elt) -> str:
        """The vector of one parameter tile."""
        (r, c), _, _ = self.param_place(None)
        return f"vector<{r}x{c}x{elt}>"

    def _row_tile(self, view, view_t, row, elt, order=""):
        (r, c), data, offs = self.param_place(row)
        t = (f"!xetile.tile<{r}x{c}x{elt}, #xetile.tile_attr<{order}wg_map = <sg_layout = [{self.layout[0]}, "
             f"{self.layout[1]}], sg_data = [{data[0]}, {data[1]}]>>>")
        tile, v = self.fresh(), self.fresh()
        self.w(f"    {tile} = xetile.init_tile {view}[{offs[0]}, {offs[1]}] : {view_t} -> {t}")
        self.w(f"    {v} = xetile.load_tile {tile} : {t} -> {self.param_vt(elt)}")
        return v

    def b_tiles(self, b: BTiles, weights: tuple) -> BTiles:
        """The weights' B tiles from the GEMM's `b`: i8 weights as B's; i4 K x N weights (`weights`: the kernel
        argument's name and type) are read as their bytes (two per byte along N), half the columns at half the
        offset; i4 N x K weights as their N x K/2 bytes, row-major tiles of wn x k_step/2 bytes at (n, k / 2)
        whose map gives each subgroup the rows of N it holds as columns of B (`nk_map`; `_unpack_nk`)."""
        if self.dq.wtype != "i4":
            return b
        if self.nk:
            w = self.w
            w(f"    %kq = arith.divui {b.offsets[0]}, %c2 : index")
            w(f"    %cksq = arith.constant {self.ks // 2} : index")
            (pl, pd) = b.prefetch_map
            return BTiles(weights[0], weights[1], ("%n", "%kq"), (self.wn, self.ks // 2), self.nk_map(self.ks // 2),
                          ((pl[1], pl[0]), (pd[1], pd[0] // 2)), None, "[%c0, %cksq]")
        self.w("    %nq = arith.divui %n, %c2 : index")
        half = lambda m: (m[0], (m[1][0], m[1][1] // 2))  # noqa: E731
        return b._replace(offsets=(b.offsets[0], "%nq"), shape=(self.ks, self.wn // 2), b_map=half(b.b_map),
                          prefetch_map=half(b.prefetch_map))

    def nk_map(self, cols: int) -> tuple:
        """The wg_map of the N x K (wn x `cols`) vectors of i4 N x K weights: sg_layout [r * c, 1], sg_data
        [dn, cols] gives subgroup s the rows (s mod c) x dn of N, the columns of B it holds under B's
        [r, c] / [k_step, dn] map, so the transpose to B's map stays in each subgroup."""
        (r, c), (_, dn) = self.layout, self.data
        return ((r * c, 1), (dn, cols))

    def _unpack(self, vb: str, shape: tuple | None = None, out_map: tuple | None = None) -> str:
        """i4 weights: the rows x cols/2 bytes (default: k_step x wn, B's map) to rows x cols i8 values of map
        `out_map`. Each byte widened to i16 as `(hi << 8) | (lo & 0xff)` with both nibbles sign-extended by
        shifts, then `vector.bitcast` to i8 (the low byte first: the even element, as packed)."""
        (ks, cols), (lay, data) = shape or (self.ks, self.wn), out_map or (self.layout, self.data)
        half = cols // 2
        hmap = map_text((lay, (data[0], data[1] // 2)))
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
        w(f"    {r} = vector.bitcast {word} {{wg_map = {map_text((lay, data))}}} : {t16} to vector<{ks}x{cols}xi8>")
        return r

    def _unpack_nk(self, vb: str) -> str:
        """i4 N x K weights: the wn x k_step/2 bytes unpacked along K to wn x k_step i8 (`_unpack`), then
        transposed to B's k_step x wn (`xetile.tile_transpose`, local to each subgroup under `nk_map`)."""
        x = self._unpack(vb, (self.wn, self.ks), self.nk_map(self.ks))
        r = self.fresh()
        self.w(f"    {r} = xetile.tile_transpose {x} [1, 0] {{wg_map = {self.wg}}} : vector<{self.wn}x{self.ks}xi8> -> "
               f"{self.vt('i8')}")
        return r

    def setup(self) -> None:
        """Before the K loop: the per-column parameters' rows; N x K weights' (`nk`) per-group parameters (N x K/G)
        as their K/G x N transposed views, read by rows with `order = [0, 1]` tiles."""
        for inp in self.dq.inputs:
            if inp.kind == "group" and self.nk:
                (n, kg), elt = memref_info(inp.value)[:2]
                view, mt = self.fresh(), f"memref<{kg}x{n}x{elt}, strided<[1, {kg}]>>"
                self.w(f"    {view} = memref.transpose {self.names[inp.value]} (d0, d1) -> (d1, d0) : "
                       f"{inp.value.type} to {mt}")
                self.rows[inp.value] = (view, mt)
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
        weights = vb if dq.wtype != "i4" else self._unpack_nk(vb) if self.nk else self._unpack(vb)
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
                view, view_t = self.rows.get(inp.value, (self.names[inp.value], str(inp.value.type)))
                small = self._row_tile(view, view_t, group_row, elt, "order = [0, 1], " if self.nk else "")
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
