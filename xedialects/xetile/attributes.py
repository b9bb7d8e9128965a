"""XeTile types and attributes: `!xetile.tile`, `#xetile.tile_attr`, `#xetile.wg_map`,
`#xetile.sg_map`, `#xetile.xe_map`, `#xetile.cache_hint` — definitions plus their Python API."""
from __future__ import annotations

from mlir import ir

from ..core.dialect import Dialect, register, type_value
from ..core.kinds import Bool, Int, IntList
from ..core.typedefs import EnumAttrDef, Field, ShapedTypeDef, StructAttrDef

xetile = register(Dialect("xetile", "Tile-level GEMM building blocks for Intel Xe GPUs"))

WG_MAP = xetile.attr(StructAttrDef("xetile", "wg_map", [
    Field("sg_layout", IntList(rank=2), required=True, doc="subgroup grid, row-major over subgroup ids"),
    Field("sg_data", IntList(rank=2), required=True, doc="tile size owned by each subgroup"),
], "Distribution of a work-group tile over subgroups"))

SG_MAP = xetile.attr(StructAttrDef("xetile", "sg_map", [
    Field("wi_layout", IntList(rank=2), required=True, doc="work-item grid within the subgroup"),
    Field("wi_data", IntList(rank=2), required=True, doc="elements owned by each work-item"),
], "Distribution of a subgroup tile over work-items"))

XE_MAP = xetile.attr(StructAttrDef("xetile", "xe_map", [
    Field("wg", WG_MAP), Field("sg", SG_MAP),
], "A work-group map together with a subgroup map"))

TILE_ATTR = xetile.attr(StructAttrDef("xetile", "tile_attr", [
    Field("order", IntList(rank=2), default=(1, 0), doc="[1, 0] row-major, [0, 1] column-major"),
    Field("inner_blocks", IntList(rank=2), doc="block size of the blocked (4D) form"),
    Field("wg_map", WG_MAP),
    Field("sg_map", SG_MAP),
    Field("memory_space", Int("i32"), default=0, doc="0 global, 3 shared local memory"),
    Field("scattered", Bool(), default=False, doc="tile created from per-element offsets"),
], "Layout and distribution properties of a tile", aliases={"wg": "wg_map", "sg": "sg_map"}))

CACHE_HINT = xetile.attr(EnumAttrDef("xetile", "cache_hint", (
    "cached", "uncached", "streaming", "read_invalidate", "write_back", "write_through"),
    "Cache policy of a load, store or prefetch (IMEX's #xetile.cache_hint<...>)"))

TILE = xetile.type(ShapedTypeDef("xetile", "tile", TILE_ATTR, "A 2D region of memory"))

WgMap = WG_MAP.value_class
SgMap = SG_MAP.value_class


def wg_map(sg_layout, sg_data):
    return WG_MAP.make(sg_layout=tuple(sg_layout), sg_data=tuple(sg_data))


def sg_map(wi_layout, wi_data):
    return SG_MAP.make(wi_layout=tuple(wi_layout), wi_data=tuple(wi_data))


class TileType:
    """Python view of `!xetile.tile`: `TileType.get([64, 32], "bf16", order=[0, 1])` builds one,
    `TileType(t)` reads one (cached per uniqued type)."""

    def __init__(self, t):
        self.type = t.type if isinstance(t, ir.Value) else t
        v = type_value(self.type)
        if v is None or not str(self.type).startswith("!xetile.tile"):
            raise TypeError(f"not an !xetile.tile type: {self.type}")
        self.value = v

    @staticmethod
    def get(shape, element_type, **fields) -> ir.Type:
        for k in ("wg_map", "sg_map"):
            if isinstance(fields.get(k), dict):
                fields[k] = (WG_MAP if k == "wg_map" else SG_MAP).make(**fields[k])
        if "inner_blocks" in fields and fields["inner_blocks"] is not None:
            fields["inner_blocks"] = tuple(fields["inner_blocks"])
        if "order" in fields and fields["order"] is not None:
            fields["order"] = tuple(fields["order"])
        value = TILE.make(shape, str(element_type), **fields)
        return ir.Type.parse(TILE.generic(value))

    @staticmethod
    def from_value(value) -> ir.Type:
        return ir.Type.parse(TILE.generic(value))

    def with_fields(self, **fields) -> ir.Type:
        attr = self.value.attr or TILE_ATTR.make()
        return TileType.from_value(TILE.make(self.value.shape, self.value.element_type, attr._replace(**fields)))

    def with_shape(self, shape) -> ir.Type:
        return TileType.from_value(TILE.make(shape, self.value.element_type, self.value.attr))

    def _field(self, name):
        attr = self.value.attr
        return getattr(attr, name) if attr is not None else getattr(TILE_ATTR.make(), name)

    shape = property(lambda self: self.value.shape)
    element_type = property(lambda self: self.value.element_type)
    order = property(lambda self: self._field("order"))
    inner_blocks = property(lambda self: self._field("inner_blocks"))
    wg_map = property(lambda self: self._field("wg_map"))
    sg_map = property(lambda self: self._field("sg_map"))
    memory_space = property(lambda self: self._field("memory_space"))
    scattered = property(lambda self: self._field("scattered"))

    def __repr__(self):
        return f"TileType({TILE.pretty(self.value)})"


def wg_map_rule_errors(shape, wgm, what="tile") -> list[str]:
    """RFC rule: per dimension, sg_layout*sg_data must divide the tile size or be divisible by it."""
    errs = []
    if len(shape) != 2:
        return [f"wg_map applies to 2D {what}s, got rank {len(shape)}"]
    for d in range(2):
        cover = wgm.sg_layout[d] * wgm.sg_data[d]
        if wgm.sg_layout[d] <= 0 or wgm.sg_data[d] <= 0:
            errs.append(f"wg_map sg_layout and sg_data must be positive, got {list(wgm.sg_layout)} and "
                        f"{list(wgm.sg_data)}")
        elif shape[d] % cover and cover % shape[d]:
            errs.append(f"wg_map: in dimension {d}, sg_layout*sg_data = {wgm.sg_layout[d]}*{wgm.sg_data[d]} = "
                        f"{cover} must divide the {what} size {shape[d]} or be divisible by it")
    return errs


def sg_map_rule_errors(shape, sgm, what="subgroup data") -> list[str]:
    """wi_layout*wi_data must divide the subgroup tile (sg_data) per dimension."""
    errs = []
    for d in range(len(shape)):
        cover = sgm.wi_layout[d] * sgm.wi_data[d]
        if cover <= 0 or shape[d] % cover:
            errs.append(f"sg_map: in dimension {d}, wi_layout*wi_data = {sgm.wi_layout[d]}*{sgm.wi_data[d]} = "
                        f"{cover} must divide the {what} size {shape[d]}")
    return errs


def tile_type_errors(tv) -> list[str]:
    """Rules a tile type must satisfy (checked wherever one of our ops uses it)."""
    errs = []
    if len(tv.shape) != 2 and not (tv.attr and tv.attr.scattered):
        errs.append(f"tile must be 2D, got shape {list(tv.shape)}")
    attr = tv.attr
    if attr is None:
        return errs
    if attr.order not in ((1, 0), (0, 1)):
        errs.append(f"tile order must be [1, 0] (row-major) or [0, 1] (column-major), got {list(attr.order)}")
    if attr.inner_blocks is not None and len(tv.shape) == 2:
        for d in range(2):
            b = attr.inner_blocks[d]
            if b <= 0 or tv.shape[d] % b:
                errs.append(f"inner_blocks {list(attr.inner_blocks)} must divide the tile shape "
                            f"{list(tv.shape)} (dimension {d})")
    if attr.wg_map is not None:
        errs += wg_map_rule_errors(tv.shape, attr.wg_map)
    if attr.sg_map is not None:
        data = attr.wg_map.sg_data if attr.wg_map is not None else tv.shape
        errs += sg_map_rule_errors(data, attr.sg_map)
    if attr.memory_space not in (0, 3):
        errs.append(f"tile memory_space must be 0 (global) or 3 (shared local memory), got {attr.memory_space}")
    return errs
