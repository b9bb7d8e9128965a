"""One tile's plan in `convert-xetile-to-xegpu`: the record the analysis (`tile_plans`) fills for an
init_tile and its update chain -- shape, blocks, memory orientation, nd or scatter mode and why -- and
every rule (`Converter.plan`) reads.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...arch import elem_bits


@dataclass
class TilePlan:
    origin: object                  # the init_tile op
    elt: str
    shape: tuple                    # logical tile shape (R, C)
    block: tuple                    # logical inner block (tile shape when not blocked)
    blocked: bool
    order: tuple
    source: object = None           # source value of the tdescs (memref / i64), memory orientation
    mem_t: bool = False             # memory holds the tile transposed (order = [0, 1])
    nd_shape: list | None = None    # mixed base shape / strides passed to create_nd_tdesc (memory orientation)
    nd_strides: list | None = None
    log_shape: list | None = None   # logical base shape (ints / Values) -- bounds of scattered accesses
    log_strides: list | None = None  # logical element strides (ints / Values)
    scatter_source: object = None   # source value of scattered descriptors (logical view)
    slm: bool = False
    kinds: set = field(default_factory=set)
    mode: str = "nd"                # nd | scatter
    sub: tuple = (0, 0)             # logical hardware block (nd mode)
    why: str = ""                   # why scatter mode

    @property
    def bits(self):
        return elem_bits(self.elt)

    @property
    def sub_dims(self):
        return self.shape[0] // self.sub[0], self.shape[1] // self.sub[1]
