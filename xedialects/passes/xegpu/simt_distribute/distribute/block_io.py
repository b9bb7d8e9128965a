"""Distribution rules of 2D block IO in `xegpu-simt-distribute`: create_nd_tdesc /
update_nd_offset take their chain's sg_map, load_nd / store_nd / prefetch_nd lose `mode = vc`
and move per-work-item fragments (a load reordered across work-items where the analysis said)."""
from __future__ import annotations

from mlir.dialects import vector

from .....arch import elem_bits
from .....xegpu.attributes import TensorDescType
from .....xegpu.ops import CreateNdTdescOp, LoadNdOp, PrefetchNdOp, StoreNdOp, UpdateNdOffsetOp
from ..common import SimtError, cache_hints, mixed_operands, tdesc_fields, vec_elt, vec_type
from ..layouts import Layout, SgMap, default_sgm, simt_shape_of


class BlockIORules:
    """Rewrite rules of descriptors, block loads, stores and prefetches."""

    def new_tdesc_type(self, op, t):
        c = self.chain_of.get(t)
        sgm = self.chain_sgm.get(c)
        tv = TensorDescType(t.type)
        if sgm is None:
            sgm = default_sgm(tuple(tv.shape))
            self.chain_sgm[c] = sgm
        fields = tdesc_fields(tv)
        fields["sg_map"] = {"wi_layout": tuple(sgm.wl), "wi_data": tuple(sgm.wd)}
        return TensorDescType.get(list(tv.shape), tv.element_type, **fields)

    def r_create(self, rb, op):
        c = CreateNdTdescOp(op)
        t = self.new_tdesc_type(op, op.results[0])
        offs = mixed_operands(rb, c, "offsets")
        sh = mixed_operands(rb, c, "shape")
        st = mixed_operands(rb, c, "strides")
        kw = {"shape": sh, "strides": st} if sh else {}
        return [CreateNdTdescOp.build(source=rb.one(c.source), offsets=offs, result_types=[t], **kw).op.results[0]]

    def r_update(self, rb, op):
        u = UpdateNdOffsetOp(op)
        d = rb.one(op.operands[0])
        offs = mixed_operands(rb, u, "offsets")
        return [UpdateNdOffsetOp.build(tdesc=d, offsets=offs, result_types=[d.type]).op.results[0]]

    def r_load(self, rb, op):
        ld = LoadNdOp(op)
        d = rb.one(op.operands[0])
        kw = cache_hints(op)
        if ld.vnni_axis is not None:
            kw["vnni_axis"] = ld.vnni_axis
        if ld.transpose is not None:
            kw["transpose"] = tuple(ld.transpose)
        res = op.results[0]
        lay = self.lay[res]
        tv = TensorDescType(d.type)
        vnni = ld.vnni_axis is not None and elem_bits(vec_elt(res)) < 32
        native = simt_shape_of(tuple(tv.shape), SgMap(tuple(tv.sg_map.wi_layout), tuple(tv.sg_map.wi_data)),
                               vnni=vnni, transpose=ld.transpose is not None)
        if res in self.reorders:
            src_lay, need_idx = self.reorders[res]
            v = LoadNdOp.build(tdesc=d, result_types=[vec_type(native, vec_elt(res))], **kw).op.results[0]
            try:
                return [self.reorder(v, src_lay.with_lane_shape(tuple(native)), need_idx, lay.lane_shape,
                                     vec_elt(res))]
            except SimtError as e:
                raise SimtError(op, f"'{op.name}': {e.message}")
        if tuple(native) == tuple(lay.lane_shape):
            return [LoadNdOp.build(tdesc=d, result_types=[self.lane_type(res)], **kw).op.results[0]]
        v = LoadNdOp.build(tdesc=d, result_types=[vec_type(native, vec_elt(res))], **kw).op.results[0]
        return [vector.shape_cast(self.lane_type(res), v)]

    def r_store(self, rb, op):
        kw = cache_hints(op)
        v, d = op.operands[0], rb.one(op.operands[1])
        tv = TensorDescType(d.type)
        # (a value held whole, e.g. a reduction result, is picked per work-item)
        # (the old value may already be a loop's rebuilt block argument: shapes from the layout)
        need = Layout.plain(self.lay_of(op, v).shape, SgMap(tuple(tv.sg_map.wi_layout), tuple(tv.sg_map.wi_data)))
        StoreNdOp.build(value=self.convert(rb, v, need, op, "stored value"), tdesc=d, **kw)
        return []

    def r_prefetch(self, rb, op):
        kw = cache_hints(op)
        PrefetchNdOp.build(tdesc=rb.one(op.operands[0]), **kw)
        return []
