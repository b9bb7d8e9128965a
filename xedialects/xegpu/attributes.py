"""XeGPU types and attributes: `!xegpu.tensor_desc`, `#xegpu.tdesc_attr`, `#xegpu.sg_map`,
`!xegpu.nbarrier` — definitions plus their Python API."""
from __future__ import annotations

from mlir import ir

from ..core.dialect import Dialect, register, type_value
from ..core.kinds import Bool, Enum, Int, IntList
from ..core.typedefs import Field, PlainTypeDef, ShapedTypeDef, StructAttrDef

xegpu = register(Dialect("xegpu", "Xe GPU instructions: 2D block IO, DPAS, scattered IO, barriers"))

SG_MAP = xegpu.attr(StructAttrDef("xegpu", "sg_map", [
    Field("wi_layout", IntList(rank=2), required=True),
    Field("wi_data", IntList(rank=2), required=True),
], "Distribution of a subgroup's data over work-items (SIMT mode)"))

MEMORY_SCOPES = ("global", "slm")

TDESC_ATTR = xegpu.attr(StructAttrDef("xegpu", "tdesc_attr", [
    Field("memory_scope", Enum(MEMORY_SCOPES, name="memory scope"), default="global"),
    Field("boundary_check", Bool(), default=True),
    Field("scattered", Bool(), default=False),
    Field("chunk_size_per_lane", Int("i64"), default=1),
    Field("sg_map", SG_MAP),
], "Properties of a tensor descriptor"))

TENSOR_DESC = xegpu.type(ShapedTypeDef("xegpu", "tensor_desc", TDESC_ATTR,
                                       "Describes a block of memory for nd or scattered access"))
NBARRIER = xegpu.type(PlainTypeDef("xegpu", "nbarrier", "A named barrier bound to this thread"))


def sg_map(wi_layout, wi_data):
    return SG_MAP.make(wi_layout=tuple(wi_layout), wi_data=tuple(wi_data))


class TensorDescType:
    """Python view of `!xegpu.tensor_desc`: `TensorDescType.get([8, 16], "bf16")` builds one,
    `TensorDescType(t)` reads one (cached per uniqued type)."""

    def __init__(self, t):
        self.type = t.type if isinstance(t, ir.Value) else t
        v = type_value(self.type)
        if v is None or not str(self.type).startswith("!xegpu.tensor_desc"):
            raise TypeError(f"not an !xegpu.tensor_desc type: {self.type}")
        self.value = v

    @staticmethod
    def get(shape, element_type, **fields) -> ir.Type:
        if isinstance(fields.get("sg_map"), dict):
            fields["sg_map"] = SG_MAP.make(**fields["sg_map"])
        return ir.Type.parse(TENSOR_DESC.generic(TENSOR_DESC.make(shape, str(element_type), **fields)))

    def _field(self, name):
        attr = self.value.attr
        return getattr(attr, name) if attr is not None else getattr(TDESC_ATTR.make(), name)

    shape = property(lambda self: self.value.shape)
    element_type = property(lambda self: self.value.element_type)
    memory_scope = property(lambda self: self._field("memory_scope"))
    boundary_check = property(lambda self: self._field("boundary_check"))
    scattered = property(lambda self: self._field("scattered"))
    chunk_size_per_lane = property(lambda self: self._field("chunk_size_per_lane"))
    sg_map = property(lambda self: self._field("sg_map"))

    def __repr__(self):
        return f"TensorDescType({TENSOR_DESC.pretty(self.value)})"


def tdesc_type_errors(tv) -> list[str]:
    errs = []
    attr = tv.attr or TDESC_ATTR.make()
    if len(tv.shape) not in (1, 2):
        errs.append(f"tensor_desc must be 1D or 2D, got shape {list(tv.shape)}")
    if len(tv.shape) == 1 and attr.boundary_check and not attr.scattered:
        errs.append("a 1D tensor_desc requires boundary_check = false (RFC: 'the attribute boundary_check "
                    "must be false')")
    if attr.chunk_size_per_lane not in (1, 2, 3, 4, 8):
        errs.append(f"chunk_size_per_lane must be 1, 2, 3, 4 or 8, got {attr.chunk_size_per_lane}")
    if attr.chunk_size_per_lane != 1 and not attr.scattered:
        errs.append("chunk_size_per_lane applies to scattered tensor_descs only")
    if attr.scattered and attr.chunk_size_per_lane > 1 and (len(tv.shape) != 2
                                                            or tv.shape[1] != attr.chunk_size_per_lane):
        errs.append(f"a scattered tensor_desc with chunk_size_per_lane = {attr.chunk_size_per_lane} must be "
                    f"<lanes x {attr.chunk_size_per_lane}>, got {list(tv.shape)}")
    if attr.sg_map is not None:
        sgm = attr.sg_map
        if len(tv.shape) == 1:
            if sgm.wi_layout[0] != 1:
                errs.append(f"a 1D tensor_desc needs wi_layout[0] == 1 (RFC: 'The outer dimension of wi_layout "
                            f"must be 1 for 1D tensor_desc'), got {list(sgm.wi_layout)}")
        else:
            for d in range(2):
                cover = sgm.wi_layout[d] * sgm.wi_data[d]
                if cover <= 0 or tv.shape[d] % cover:
                    errs.append(f"sg_map: wi_layout*wi_data = {sgm.wi_layout[d]}*{sgm.wi_data[d]} must divide the "
                                f"tensor_desc size {tv.shape[d]} in dimension {d}")
        if sgm.wi_layout[0] * sgm.wi_layout[1] != 16:
            errs.append(f"sg_map wi_layout {list(sgm.wi_layout)} must cover the 16 work-items of a subgroup")
    return errs
