"""The per-function state of `convert-xetile-to-xegpu` and the value helpers its rules share.

`Converter` holds the function, the architecture (an `XeArch`, resolved once by the pass), the
tile plans of the analysis (tile_plans.py), caches and remarks. Its index arithmetic is
`passes.utils.index_arith`'s (constants created once at the function entry); its helpers convert
2D blocks between plain `<bm x bn>` and VNNI `<bm/f x bn x f>` form, slice and assemble blocks, and
view a rebuilt value as a `Grid`: the row-major list of equal 2D blocks a logical 2D (or blocked
4D) vector becomes. The rules for each op family (tile_descriptors, tile_load_store, scattered,
tile_mma, vector_ops) take a Converter as their first argument.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, vector

from ...arch import elem_bits
from ...core.typeinfo import vector_info
from ...passes.utils.index_arith import IndexArith
from ...passes.utils.ir_walk import owner_op, walk as _walk_ops
from .ir_helpers import PLAN_ATTR, ConversionError, splat, vector_element, vector_shape, vector_type, zero_attr
from .tile_plan import TilePlan


@dataclass
class Grid:
    shape: tuple          # logical (R, C)
    block: tuple          # logical (bm, bn)
    vnni: int             # 1 = plain blocks <bm x bn>; f > 1 = VNNI blocks <bm/f x bn x f>
    blocks: list
    elt: str = ""

    @property
    def dims(self):
        return self.shape[0] // self.block[0], self.shape[1] // self.block[1]

    def at(self, i, j):
        return self.blocks[i * self.dims[1] + j]


class Converter(IndexArith):
    """State of one function's conversion; see the module docstring."""

    def __init__(self, func, arch, ctx, options=None):
        self.func = func
        self.arch = arch
        self.ctx = ctx
        self.options = options
        self.plans: dict = {}          # old tile value -> TilePlan
        self.op_plans: dict = {}       # plan id (op attribute) -> TilePlan
        self.errors: list = []
        self.slice_cache: dict = {}
        self.const_cache: dict = {}
        self.remarked: set = set()

    def has_xetile(self) -> bool:
        return any(o.name.startswith("xetile.") for o in _walk_ops(self.func))

    def remark(self, op, msg):
        key = (id(op), msg)
        if key in self.remarked:
            return
        self.remarked.add(key)
        if self.ctx is not None and hasattr(self.ctx, "remark"):
            self.ctx.remark(op, msg)

    def plan(self, op, v=None) -> TilePlan:
        p = None
        if PLAN_ATTR in op.attributes:
            p = self.op_plans.get(ir.IntegerAttr(op.attributes[PLAN_ATTR]).value)
        if p is None:
            raise ConversionError(op, "tile of unknown origin")
        return p

    def index_constant(self, value: int) -> ir.Value:
        """`value` as an index constant, created once at the function entry."""
        key = ("index", value)
        c = self.const_cache.get(key)
        if c is None:
            entry = self.func.regions[0].blocks[0]
            with ir.InsertionPoint.at_block_begin(entry), self.func.location:
                c = arith.ConstantOp(ir.IndexType.get(), value).result
            self.const_cache[key] = c
        return c

    def vnni_f(self, elt):
        return self.arch.vnni_factor(elt) if elem_bits(elt) < 32 else 1

    def block_type(self, h, w, elt, f):
        return vector_type((h // f, w, f) if f > 1 else (h, w), elt)

    def zero_block(self, h, w, elt, f):
        return splat((h // f, w, f) if f > 1 else (h, w), elt, zero_attr(elt))

    def to_vnni(self, v, f):
        (h, w), elt = vector_shape(v), vector_element(v)
        x = vector.shape_cast(vector_type((h // f, f, w), elt), v)
        return vector.transpose(vector_type((h // f, w, f), elt), x, [0, 2, 1])

    def to_plain(self, v, f):
        (hf, w, _), elt = vector_shape(v), vector_element(v)
        x = vector.transpose(vector_type((hf, f, w), elt), v, [0, 2, 1])
        return vector.shape_cast(vector_type((hf * f, w), elt), x)

    def as_form(self, v, have_f, want_f):
        if have_f == want_f:
            return v
        if have_f > 1:
            v = self.to_plain(v, have_f)
        if want_f > 1:
            v = self.to_vnni(v, want_f)
        return v

    def slice(self, v, f, r0, c0, h, w):
        """Logical sub-block [r0:r0+h, c0:c0+w] of block v (form f)."""
        shp = vector_shape(v)
        bh, bw = (shp[0] * f, shp[1]) if f > 1 else shp
        if (r0, c0, h, w) == (0, 0, bh, bw):
            return v
        # reuse a slice only within the block that holds it (dominance)
        key = (v, f, r0, c0, h, w, ir.InsertionPoint.current.block)
        hit = self.slice_cache.get(key)
        if hit is not None:
            return hit
        elt = vector_element(v)
        if f > 1:
            if r0 % f or h % f:
                v2 = self.to_plain(v, f)
                res = self.to_vnni(self.slice(v2, 1, r0, c0, h, w), f)
            else:
                res = vector.extract_strided_slice(vector_type((h // f, w, f), elt), v, [r0 // f, c0, 0], [h // f, w, f],
                                                   [1, 1, 1])
        else:
            res = vector.extract_strided_slice(vector_type((h, w), elt), v, [r0, c0], [h, w], [1, 1])
        self.slice_cache[key] = res
        return res

    def insert(self, piece, dest, f, r0, c0):
        if f > 1:
            return vector.insert_strided_slice(piece, dest, [r0 // f, c0, 0], [1, 1, 1])
        return vector.insert_strided_slice(piece, dest, [r0, c0], [1, 1])

    def grid_of(self, rb, old) -> Grid:
        """The grid of blocks an old (2D or blocked 4D) vector value is rebuilt as. The blocks are
        those of the producer (4D values may use smaller, hardware-sized blocks)."""
        vals = rb.map(old)
        shp, elt = vector_info(old)
        if len(shp) == 4:
            R, C = shp[0] * shp[2], shp[1] * shp[3]
        elif len(shp) == 2:
            R, C = shp
        else:
            raise ConversionError(owner_op(old), f"expected a 2D or blocked 4D vector, got {old.type}")
        b0 = vector_shape(vals[0])
        if len(b0) == 4 and len(vals) == 1:
            # an unconverted blocked vector (e.g. a function argument): take its blocks apart
            gm, gn, bm, bn = b0
            blocks = [vector.extract(vals[0], [], [i, j]) for i in range(gm) for j in range(gn)]
            return Grid((R, C), (bm, bn), 1, blocks, elt)
        if len(b0) == 3:
            bm, bn, f = b0[0] * b0[2], b0[1], b0[2]
        elif len(b0) == 2:
            (bm, bn), f = b0, 1
        else:
            raise ConversionError(owner_op(old), f"internal: block {b0} for {old.type}")
        if R % bm or C % bn or len(vals) != (R // bm) * (C // bn):
            raise ConversionError(owner_op(old), f"internal: {len(vals)} blocks of {bm}x{bn} for {old.type}")
        return Grid((R, C), (bm, bn), f, list(vals), elt)

    def reblock(self, g: Grid, bm, bn, f=None) -> Grid:
        """The same logical value with blocks (bm, bn) in form f (default: g's form if possible)."""
        if f is None:
            f = g.vnni if (bm % max(g.vnni, 1) == 0) else 1
        if g.block == (bm, bn):
            return Grid(g.shape, g.block, f, [self.as_form(b, g.vnni, f) for b in g.blocks], g.elt)
        R, C = g.shape
        if R % bm or C % bn:
            raise ConversionError(None, f"cannot re-block {R}x{C} into {bm}x{bn} blocks")
        gbm, gbn = g.block
        out = []
        for I in range(R // bm):
            for J in range(C // bn):
                r0, c0 = I * bm, J * bn
                i0, j0 = r0 // gbm, c0 // gbn
                if (r0 % gbm) + bm <= gbm and (c0 % gbn) + bn <= gbn:
                    src = g.at(i0, j0)
                    if f != g.vnni and ((r0 % gbm) % max(f, 1) or bm % max(f, 1)):
                        src = self.as_form(src, g.vnni, 1)
                        piece = self.slice(src, 1, r0 % gbm, c0 % gbn, bm, bn)
                        out.append(self.as_form(piece, 1, f))
                    else:
                        piece = self.slice(src, g.vnni, r0 % gbm, c0 % gbn, bm, bn)
                        out.append(self.as_form(piece, g.vnni, f))
                    continue
                # assemble from several source blocks (in plain form)
                dest = self.zero_block(bm, bn, g.elt, 1)
                for i in range(r0 // gbm, (r0 + bm - 1) // gbm + 1):
                    for j in range(c0 // gbn, (c0 + bn - 1) // gbn + 1):
                        rs, re_ = max(r0, i * gbm), min(r0 + bm, (i + 1) * gbm)
                        cs, ce = max(c0, j * gbn), min(c0 + bn, (j + 1) * gbn)
                        src = self.as_form(g.at(i, j), g.vnni, 1)
                        piece = self.slice(src, 1, rs - i * gbm, cs - j * gbn, re_ - rs, ce - cs)
                        dest = self.insert(piece, dest, 1, rs - r0, cs - c0)
                out.append(self.as_form(dest, 1, f))
        return Grid(g.shape, (bm, bn), f, out, g.elt)

    def value_grid_for_tile(self, rb, p: TilePlan, old_value, blk):
        g = self.grid_of(rb, old_value)
        if g.shape != p.shape:
            raise ConversionError(old_value.owner, f"stored value {g.shape} does not match tile {p.shape}")
        return self.reblock(g, blk[0], blk[1], 1)
