"""Distribution rules of scf.for and scf.if carrying work-group values: rebuilt with 1:N results
(one per subtile of each work-group value), their bodies rewritten in place. Mixed into
`WgToSg`."""
from __future__ import annotations

from mlir.dialects import scf

from .common import is_tile, is_vector, piece_type, tile_layout


class ControlFlowRules:
    """scf.for / scf.if carrying work-group values."""

    def h_for(self, rb, op):
        lb, ub, step, *inits = list(op.operands)
        if not any(self.wg_value(v) for v in inits):
            return None
        groups = []
        for v in inits:
            if is_vector(v.type) and self.la.of(v) is not None:
                groups.append(self.pieces(v, self.la.of(v)))
            else:
                groups.append(rb.map(v))
        flat = [x for g in groups for x in g]
        new = scf.ForOp(rb.one(lb), rb.one(ub), rb.one(step), flat)
        body = op.regions[0].blocks[0]
        old_args = list(body.arguments)
        rb.set(old_args[0], [new.induction_variable])
        new_iter = list(new.inner_iter_args)
        k = 0
        for old_arg, g in zip(old_args[1:], groups):
            rb.set(old_arg, new_iter[k:k + len(g)])
            k += len(g)
        for child in list(body.operations):
            new.body.append(child.operation)
        rb.process_block(new.body)
        results, out, k = list(new.results), [], 0
        for g in groups:
            out.append(results[k:k + len(g)])
            k += len(g)
        return out

    def h_if(self, rb, op):
        if not any(self.wg_value(r) for r in op.results):
            return None
        groups = []
        for r in op.results:
            lay = self.la.of(r) if is_vector(r.type) else tile_layout(r.type)
            if lay is None:
                groups.append([r.type])
            elif is_tile(r.type):
                groups.append([self.sg_tile_type(r.type)] * lay.num_subtiles)
            else:
                groups.append([piece_type(r, lay)] * lay.num_subtiles)
        flat = [t for g in groups for t in g]
        has_else = len(op.regions[1].blocks) > 0
        new = scf.IfOp(rb.one(op.operands[0]), flat, has_else=has_else)
        for old_region, new_region in zip(op.regions, new.operation.regions):
            if not old_region.blocks:
                continue
            nb = new_region.blocks[0]
            for child in list(old_region.blocks[0].operations):
                nb.append(child.operation)
            rb.process_block(nb)
        results, out, k = list(new.results), [], 0
        for g in groups:
            out.append(results[k:k + len(g)])
            k += len(g)
        return out
