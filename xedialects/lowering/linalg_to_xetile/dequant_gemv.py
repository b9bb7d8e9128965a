"""The A prologue of a fused dequantizing gemv kernel (docs/quantized-gemm.md "gemv"): the gemv kernel's A tile
holds the integer weights (i4: their packed bytes along the last dimension), and `dequant_kernel.DequantB`'s
unpack and replay dequantize it in registers. Per-output parameters are columns of the tile for a matvec (N x K
weights: one value per row) and rows for a vecmat (K x N), loaded once; per-group ones at the step's group.
"""
from __future__ import annotations

from ...core.typeinfo import memref_info
from .dequant import Dequant
from .dequant_kernel import DequantB


class DequantGemv(DequantB):
    def __init__(self, dq: Dequant, names: dict, tile: tuple, a_map, out: str, w):
        super().__init__(dq, names, tile[0], tile[1], a_map, w)
        self.out = out            # the work-group's offset along the output dimension
        self.bdim = dq.k_dim      # matvec (K along columns): parameter columns broadcast along dimension 1

    def param_place(self, at) -> tuple:
        """A parameter tile: the column of the tile's rows at column `at` (matvec) or the row at `at` (vecmat)."""
        if self.bdim:
            return (self.ks, 1), (self.data[0], 1), (self.out, at)
        return (1, self.wn), (1, self.data[1]), (at, self.out)

    def setup(self) -> None:
        """Before the loop: the per-output parameters as N x 1 (matvec) or 1 x N (vecmat) views, loaded once."""
        for inp in self.dq.inputs:
            if inp.kind != "col":
                continue
            (size,), elt = memref_info(inp.value)[:2]
            shape = (size, 1) if self.bdim else (1, size)
            mt = f"memref<{shape[0]}x{shape[1]}x{elt}>"
            view = self.fresh()
            self.w(f"    {view} = memref.expand_shape {self.names[inp.value]} [[0, 1]] output_shape "
                   f"[{shape[0]}, {shape[1]}] : {inp.value.type} into {mt}")
            self.rows[inp.value] = (self._row_tile(view, mt, "%c0", elt), elt)

    def weights_tile(self, col: str) -> tuple:
        """(columns, column offset, map) of the weights' tile whose first column is `col`: i8 as the gemv's A
        tile; i4 as its bytes (two per byte along the last dimension), half the columns at half the offset."""
        if self.dq.wtype != "i4":
            return self.wn, col, (self.layout, self.data)
        half = self.fresh()
        self.w(f"      {half}c = arith.constant 2 : index")
        self.w(f"      {half} = arith.divui {col}, {half}c : index")
        return self.wn // 2, half, (self.layout, (self.data[0], self.data[1] // 2))
