"""Distribution rules of element-wise arith/math ops (re-created per subtile at subgroup size), of
vector.bitcast (per piece), and of splat constants and scalar vector.broadcast (re-created in the shape
each use needs). Mixed into
`WgToSg`."""
from __future__ import annotations

from .common import create_op, is_vector, piece_type, sg_attrs


class ElementwiseRules:
    """Element-wise ops, splat constants, scalar broadcasts."""

    def h_materializable(self, rb, op):
        if not op.results or self.la.of(op.results[0]) is None:
            return None
        lay = self.la.of(op.results[0])
        return [self._materialize(op.results[0], lay)]

    def h_bitcast(self, rb, op):
        """vector.bitcast: each subgroup piece bitcast on its own (maps checked in checks.py)."""
        src, res = op.operands[0], op.results[0]
        src_lay, res_lay = self.la.of(src), self.la.of(res)
        if src_lay is None or res_lay is None:
            return None
        t = piece_type(res, res_lay)
        return [[create_op(op.name, [p], [t], sg_attrs(op)).results[0] for p in self.pieces(src, src_lay)]]

    def h_elementwise(self, rb, op):
        res_lays = [self.la.of(r) for r in op.results]
        if not any(l is not None for l in res_lays) and not any(self.la.of(v) is not None for v in op.operands):
            return None
        lay = next(l for l in res_lays + [self.la.of(v) for v in op.operands] if l is not None)
        ops_pieces = []
        for v in op.operands:
            if is_vector(v.type):
                ops_pieces.append(self.pieces(v, lay))
            else:
                ops_pieces.append([rb.one(v)] * lay.num_subtiles)
        rtypes = [piece_type(r, lay) if is_vector(r.type) else r.type
                  for r in op.results]
        outs = [[] for _ in op.results]
        attrs = sg_attrs(op)
        for k in range(lay.num_subtiles):
            new = create_op(op.name, [p[k] for p in ops_pieces], rtypes, attrs)
            for i, r in enumerate(new.results):
                outs[i].append(r)
        return outs
