"""1D element-wise linalg ops (named ops, all-parallel `linalg.generic` with (d0) / () maps) seen
as 1xN: the normalised form (gemm_epilogue.EwOp with every 1D operand "full") and the kernel-side
views (`memref.expand_shape` of each 1D argument to 1xN) that the element-wise kernel tiles."""
from __future__ import annotations

from mlir import ir

from ...core.typeinfo import memref_info
from .gemm_epilogue import EwInput, EwOp, NotFusible, _buffer_ok, _is_memref, _scalar_ok, _Epilogue, ins_and_out


def is_1d(op) -> bool:
    outs = [v for v in op.operands if _is_memref(v)]
    return bool(outs) and memref_info(list(op.operands)[-1]) is not None and \
        len(memref_info(list(op.operands)[-1])[0]) == 1


def form_1d(op) -> EwOp:
    name = op.name
    ins, out = ins_and_out(op)
    if name == "linalg.generic":
        iters = [str(x) for x in ir.ArrayAttr(op.attributes["iterator_types"])]
        if any("parallel" not in s for s in iters):
            raise NotFusible("linalg.generic has a reduction loop")
        maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
        results = [[str(e) for e in m.results] for m in maps]
    elif name == "linalg.elementwise":
        raise NotFusible("1D 'linalg.elementwise' (use the named op or linalg.generic)")
    else:
        results = [["d0"] for _ in [*ins, out]]
    if results[-1] != ["d0"]:
        raise NotFusible(f"'{name}' output map {results[-1]} is not the identity")
    _buffer_ok(out, 1, f"the output of '{name}'")
    inputs = []
    for i, (v, res) in enumerate(zip(ins, results)):
        what = f"input {i} of '{name}'"
        if res == ["d0"]:
            _buffer_ok(v, 1, what)
            inputs.append(EwInput(v, "full"))
        elif res == []:
            if _is_memref(v):
                if memref_info(v)[0]:
                    raise NotFusible(f"{what}: a () map needs a scalar or a rank-0 memref")
                inputs.append(EwInput(v, "rank0"))
            elif _scalar_ok(v.type):
                inputs.append(EwInput(v, "scalar"))
            else:
                raise NotFusible(f"{what} has type {v.type}")
        else:
            raise NotFusible(f"{what} has the map ({', '.join(res)}) (supported in 1D: (d0), ())")
    block = op.regions[0].blocks[0]
    if len(block.arguments) != len(ins) + 1:
        raise NotFusible(f"'{name}' body arguments do not match its operands")
    ew = EwOp(op, inputs, out, block)
    body = [o.operation for o in block.operations]
    for bop in body[:-1]:
        if not bop.name.startswith(("arith.", "math.")) or bop.regions or len(bop.results) != 1:
            raise NotFusible(f"'{bop.name}' in the body of '{name}' (only arith/math ops are supported)")
        for v in list(bop.operands) + list(bop.results):
            if not _scalar_ok(v.type):
                raise NotFusible(f"'{bop.name}' in the body of '{name}' works on {v.type}")
    if body[-1].name != "linalg.yield" or len(body[-1].operands) != 1:
        raise NotFusible(f"the body of '{name}' does not yield one value")
    for v in ew.captured():
        if not _scalar_ok(v.type):
            raise NotFusible(f"the body of '{name}' uses a value of type {v.type} from outside")
    return ew


def emit_views(io, w) -> dict:
    """expand_shape every 1D memref kernel argument to 1xN; returns value -> (name, type)."""
    views = {}
    for v, name in io.names.items():
        if not _is_memref(v):
            continue
        shape, elt = memref_info(v)[:2]
        if len(shape) != 1:
            continue
        n = shape[0]
        vn = f"{name}_2d"
        if n is None:
            w(f"    {name}_n = memref.dim {name}, %c0 : {v.type}")
            w(f"    {vn} = memref.expand_shape {name} [[0, 1]] output_shape [1, {name}_n] : {v.type} "
              f"into memref<1x?x{elt}>")
            views[v] = (vn, f"memref<1x?x{elt}>", f", [%c1, {name}_n], [{name}_n, %c1]")
        else:
            w(f"    {vn} = memref.expand_shape {name} [[0, 1]] output_shape [1, {n}] : {v.type} "
              f"into memref<1x{n}x{elt}>")
            views[v] = (vn, f"memref<1x{n}x{elt}>", "")
    return views


class Epilogue1D(_Epilogue):
    """The element-wise body over 1xN views of 1D arguments."""

    def __init__(self, io, env, w, views):
        super().__init__(io, env, w)
        self.views = views

    def full_tile(self, v):
        if v not in self.views:
            return super().full_tile(v)
        key = ("tile", v)
        if key not in self.cache:
            name, t2, shp = self.views[v]
            t = self.tile_t(memref_info(v)[1])
            tile = self.fresh("t")
            self.w(f"    {tile} = xetile.init_tile {name}[%m, %n]{shp} : {t2} -> {t}")
            self.cache[key] = (tile, t)
        return self.cache[key]
