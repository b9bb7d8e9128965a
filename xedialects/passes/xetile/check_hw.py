"""`xetile-check-hw`: checks blocked XeTile (pipeline stage 3) against the architecture table and
reports every block the hardware cannot move or multiply.

* Every load_tile / store_tile / prefetch_tile of a blocked tile (`inner_blocks`) in global memory:
  the inner block must be a legal 2D block message of that kind for the element type (a load whose
  value reaches operand B of tile_mma with a sub-32-bit type is checked as a VNNI load; a
  column-major tile as a transposed load).
* Every blocked tile_mma: the operand types must be a DPAS combination and the blocks DPAS-sized:
  A `[m, k]`, B `[k, n]`, C and result `[m, n]` with m <= the repeat count, k = the DPAS K of the
  type, n = the execution size.
Violations are errors (the pass fails). Tiles and tile_mma ops left unblocked are remarks, or
errors with `require-blocked=true`. Scattered and shared-local-memory tiles are not 2D block
accesses and are not checked here.
"""
from __future__ import annotations

from ...arch import ArchError, elem_bits
from ...core.typeinfo import vector_info
from ...xetile.attributes import TileType
from ...xetile.ops import TileMmaOp
from ..registry import Option, register_pass
from ..utils.arch_option import arch_option
from ..utils.driver import run_per_function
from ..utils.ir_walk import walk
from ..analysis.tile_uses import mma_uses

_ACCESS = {"xetile.load_tile": "load", "xetile.store_tile": "store", "xetile.prefetch_tile": "prefetch"}


def _shape(s) -> str:
    return "x".join(map(str, s))


class HwChecker:
    def __init__(self, func, arch, options, ctx):
        self.func, self.arch, self.ctx = func, arch, ctx
        self.require = options["require-blocked"]
        self.ok = True

    def problem(self, op, where, msg):
        self.ctx.error(where, f"xetile-check-hw: {msg}")
        self.ok = False

    def unblocked(self, op, msg):
        if self.require:
            self.problem(op, op, f"{msg}; require-blocked is set")
        else:
            self.ctx.remark(op, f"xetile-check-hw: {msg}")

    def check_access(self, op):
        kind = _ACCESS[op.name]
        tile = op.operands[1] if kind == "store" else op.operands[0]
        tv = TileType(tile.type)
        if tv.scattered or tv.memory_space == 3:
            return
        elt = str(tv.element_type)
        if tv.inner_blocks is None:
            self.unblocked(op, f"{kind} of the {_shape(tv.shape)}x{elt} tile is not blocked (no inner_blocks)")
            return
        h, w = tv.inner_blocks
        transpose = tuple(tv.order) == (0, 1)
        mh, mw = (w, h) if transpose else (h, w)   # the block as it lies in memory
        if kind == "load":
            vnni = any(r == "B" for r, _ in mma_uses(op.results[0])) and elem_bits(elt) < 32
            if transpose and elem_bits(elt) < 32:
                f = 32 // elem_bits(elt)
                ok, why = (self.arch.is_legal_block_load(mh, mw // f, 4, transpose=True) if mw % f == 0
                           else (False, f"a transposed {elt} block needs a width that is a multiple of {f}"))
                what = "transposed (32-bit) load"
            else:
                ok, why = self.arch.is_legal_block_load(mh, mw, elt, transpose=transpose, vnni=vnni)
                what = "transposed load" if transpose else "VNNI load" if vnni else "load"
        elif kind == "store":
            ok, why = self.arch.is_legal_block_store(mh, mw, elt)
            what = "store"
        else:
            ok, why = self.arch.is_legal_block_prefetch(mh, mw, elt)
            what = "prefetch"
        if not ok:
            self.problem(op, op, f"inner block {h}x{w} of the {_shape(tv.shape)}x{elt} tile is not a legal 2D block "
                                 f"{what} on {self.arch.name}: {why}")

    def check_mma(self, op):
        m = TileMmaOp(op)
        sa, ea = vector_info(m.a)
        sb, eb = vector_info(m.b)
        sr, er = vector_info(op.results[0])
        if len(sa) != 4:
            self.unblocked(op, f"tile_mma {_shape(sa)} x {_shape(sb)} is not blocked")
            return
        try:
            max_m, n, k = self.arch.dpas_shape(ea, eb, er)
        except ArchError as e:
            self.problem(op, op, str(e))
            return
        bm, bk = sa[2], sa[3]
        bk2, bn = sb[2], sb[3]
        errs = []
        if not 1 <= bm <= max_m:
            errs.append(f"the A block {bm}x{bk} has {bm} rows; DPAS repeats 1..{max_m} rows")
        if bk != k:
            errs.append(f"the A block {bm}x{bk} must be {k} wide (the DPAS K for {ea})")
        if (bk2, bn) != (k, n):
            errs.append(f"the B block {bk2}x{bn} must be {k}x{n} (DPAS K x N for {eb})")
        if (sr[2], sr[3]) != (bm, n):
            errs.append(f"the C block {sr[2]}x{sr[3]} must be {bm}x{n}")
        if m.c is not None:
            sc, _ = vector_info(m.c)
            if (sc[2], sc[3]) != (sr[2], sr[3]):
                errs.append(f"the accumulator block {sc[2]}x{sc[3]} differs from the result block {sr[2]}x{sr[3]}")
        for e in errs:
            self.problem(op, op, f"tile_mma is not DPAS-sized on {self.arch.name}: {e}")

    def run(self) -> bool:
        for op in walk(self.func):
            if op.name in _ACCESS:
                self.check_access(op)
            elif op.name == "xetile.tile_mma":
                self.check_mma(op)
        return self.ok


@register_pass("xetile-check-hw",
               "Report blocked XeTile loads, stores, prefetches and tile_mma the architecture cannot execute",
               options=[arch_option(),
                        Option("require-blocked", bool, False,
                               "report unblocked tiles and tile_mma as errors instead of remarks")])
def xetile_check_hw(module_op, options, ctx):
    return run_per_function(module_op, options, ctx, HwChecker)
