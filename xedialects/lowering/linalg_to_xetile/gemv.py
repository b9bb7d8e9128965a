"""gemv from linalg (`linalg.matvec`, `vecmat`, `batch_matvec`, `batch_vecmat`, and `linalg.generic`
of the same shape whose body may scale the product by host scalars, e.g. y += alpha * A x) as a
memory-bound work-group XeTile kernel: a loop over the reduced dimension of A loads one full-width
A tile and the matching slice of x per step, multiplies them (x broadcast with `tile_broadcast`),
reduces the product with `tile_reduce` into a row (matvec) or column (vecmat) accumulator, and adds
it to y at the end (or starts at the value of a `linalg.fill` of y just before, which is then
dropped). Batches run on grid z over `memref.subview`s; dynamic sizes (not batched) come from
`memref.dim`. Plans: `memory_plan.plan_gemv`."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, memref

from .gemm_epilogue import (NotFusible, _block_ops, _buffer_ok, _defining, _is_constant, _neutral, _scalar_ok,
                            _users_in)
from .launch import index_const, launch_func
from .linalg_match import identity_layout
from .dequant import erase_host, host_view
from .dequant_gemv import DequantGemv
from .memory_plan import plan_gemv
from .wg_map_rule import map_text

NAMED = {"linalg.matvec": (1, False), "linalg.vecmat": (0, False),
         "linalg.batch_matvec": (1, True), "linalg.batch_vecmat": (0, True)}
_FLOATS = {"f32", "f16", "bf16"}
_CASTS = ("arith.extf", "arith.extsi", "arith.sitofp")


@dataclass
class GemvForm:
    op: object
    a: object
    x: object
    y: object
    dim: int            # the reduced dimension of A: 1 (matvec, y = A x) or 0 (vecmat, y = x A)
    batch: int          # 1 when not batched
    batched: bool
    m: int | None       # None: dynamic
    n: int | None
    elt_in: str         # A and x
    elt: str            # y and the accumulation
    scalars: list = field(default_factory=list)   # host scalars multiplied into the product
    fill: object = None                           # linalg.fill of y fused as the accumulator start

    @property
    def float(self) -> bool:
        return self.elt in _FLOATS

    @property
    def dynamic(self) -> bool:
        return self.m is None or self.n is None


def _maps(op):
    return [[str(e) for e in ir.AffineMapAttr(a).value.results] for a in ir.ArrayAttr(op.attributes["indexing_maps"])]


def is_gemv(op) -> bool:
    """A named gemv op, or a linalg.generic with one reduction loop shaped like one (maps only)."""
    if op.name in NAMED:
        return True
    if op.name != "linalg.generic" or "iterator_types" not in op.attributes:
        return False
    try:
        _generic_roles(op)
    except NotFusible:
        return False
    return True


def _generic_roles(op):
    """(index of A among the inputs, reduced dimension of A, batched) of a gemv-shaped generic."""
    iters = [str(x).split("<")[-1].rstrip(">").strip('"') for x in ir.ArrayAttr(op.attributes["iterator_types"])]
    if iters.count("reduction") != 1 or len(iters) not in (2, 3):
        raise NotFusible("not a gemv-shaped linalg.generic")
    maps = _maps(op)
    if len(maps) != 3:
        raise NotFusible("a gemv-shaped linalg.generic has two inputs and one output")
    r = f"d{iters.index('reduction')}"
    batched = len(iters) == 3
    pre = []
    if batched:
        if iters[0] != "parallel" or r == "d0":
            raise NotFusible("a batched gemv loops over the batch first")
        pre = ["d0"]
    p = next(f"d{i}" for i, it in enumerate(iters) if it == "parallel" and f"d{i}" not in pre)
    if maps[2] != pre + [p]:
        raise NotFusible("the output of a gemv-shaped generic is indexed by its parallel loop")
    for ia, ix in ((0, 1), (1, 0)):
        if maps[ix] == pre + [r] and maps[ia] in (pre + [p, r], pre + [r, p]):
            return ia, 1 if maps[ia] == pre + [p, r] else 0, batched
    raise NotFusible("not a gemv-shaped linalg.generic")


def _check_body(op, a_arg, x_arg, acc) -> list:
    """The body must yield acc + product of (cast) a, (cast) x and host scalars; returns the scalars."""
    block = op.regions[0].blocks[0]
    body = [o.operation for o in block.operations]
    term = body[-1]
    name = op.name
    if term.name != "linalg.yield" or len(term.operands) != 1:
        raise NotFusible(f"the body of '{name}' does not yield one value")
    add = _defining(term.operands[0])
    if add is None or add.name not in ("arith.addf", "arith.addi") or acc not in list(add.operands):
        raise NotFusible(f"the body of '{name}' does not add to the output value (acc + a * x expected)")
    prod = [v for v in add.operands if v != acc]
    if len(prod) != 1:
        raise NotFusible(f"the body of '{name}' adds the output value to itself")
    leaves, scalars = [], []

    def walk(v):
        d = _defining(v)
        if d is None or d.parent != op:
            if v in (a_arg, x_arg):
                leaves.append(v)
            elif d is None and v in list(block.arguments):
                raise NotFusible(f"the body of '{name}' uses the output value inside the product")
            elif _scalar_ok(v.type):
                scalars.append(v)
            else:
                raise NotFusible(f"the body of '{name}' uses a value of type {v.type} from outside")
            return
        if d.name in _CASTS and len(d.operands) == 1 and d.operands[0] in (a_arg, x_arg):
            leaves.append(d.operands[0])
            return
        if d.name not in ("arith.mulf", "arith.muli"):
            raise NotFusible(f"'{d.name}' in the product of '{name}' (a product of a, x and host scalars "
                             "is supported)")
        for o in d.operands:
            walk(o)

    walk(prod[0])
    if len(leaves) != 2 or a_arg not in leaves or x_arg not in leaves:
        raise NotFusible(f"the body of '{name}' does not multiply a by x once each")
    return scalars


def match_gemv(op) -> GemvForm:
    name = op.name
    if len(op.results):
        raise NotFusible(f"'{name}' works on tensors (bufferize first)")
    operands = list(op.operands)
    if len(operands) != 3:
        raise NotFusible(f"'{name}' with {len(operands)} operands (two inputs, one output supported)")
    if name in NAMED:
        dim, batched = NAMED[name]
        ia = 0 if dim == 1 else 1
    else:
        ia, dim, batched = _generic_roles(op)
    a, x, y = operands[ia], operands[1 - ia], operands[2]
    pre = 1 if batched else 0
    ashape, elt_in = _buffer_ok(a, 2 + pre, f"the matrix of '{name}'")
    xshape, xelt = _buffer_ok(x, 1 + pre, f"the vector of '{name}'")
    yshape, elt = _buffer_ok(y, 1 + pre, f"the output of '{name}'")
    if None in ashape + xshape + yshape and batched:
        raise NotFusible(f"'{name}' with dynamic shapes (static shapes supported for batches)")
    if batched:
        for v, what in ((a, "matrix"), (x, "vector"), (y, "output")):
            if not identity_layout(v):
                raise NotFusible(f"the {what} of '{name}' ({v.type}) needs the identity layout")
    if xelt != elt_in:
        raise NotFusible(f"'{name}' with matrix {elt_in} and vector {xelt} (one input type supported)")
    if elt != elt_in and not (elt == "f32" and elt_in in ("f16", "bf16")):
        raise NotFusible(f"'{name}' from {elt_in} into {elt} (same type, or f16/bf16 into f32, supported)")
    block = op.regions[0].blocks[0]
    args = list(block.arguments)
    scalars = _check_body(op, args[ia], args[1 - ia], args[2])
    for s in scalars:
        if str(s.type) != elt:
            raise NotFusible(f"the scalar {s.type} in the body of '{name}' is not the output type {elt}")
    m, n = ashape[pre:]
    lengths = (list(xshape[pre:]), list(yshape[pre:]))
    want = ([n], [m]) if dim == 1 else ([m], [n])
    if None not in ashape + xshape + yshape and (lengths != want or batched and not ashape[0] == xshape[0] == yshape[0]):
        raise NotFusible(f"'{name}' operand shapes do not match")
    seen = []
    for s in scalars:
        if s not in seen:
            seen.append(s)
    return GemvForm(op, a, x, y, dim, ashape[0] if batched else 1, batched, m, n, elt_in, elt, seen,
                    _fill_prologue(op, y))


def _fill_prologue(op, y):
    """The `linalg.fill` of y that is y's previous access in the block, with only ops that touch no
    buffer in between (as for the GEMM prologue), else None."""
    ops = _block_ops(op.block)
    pos = {o: i for i, o in enumerate(ops)}
    here = pos[op]
    before = [pos[u] for u in _users_in(y, op.block) if u is not None and pos[u] < here]
    if not before:
        return None
    i = max(before)
    fill = ops[i]
    if fill.name == "linalg.fill" and len(fill.operands) == 2 and fill.operands[1] == y and not fill.results \
            and fill.operands[0].type == ir.MemRefType(y.type).element_type \
            and all(_neutral(o) for o in ops[i + 1:here]):
        return fill
    return None


class GemvIO:
    """The kernel's host arguments; with a fused dequantization (`dequant`, a dequant.Dequant) A is the
    weights as the kernel takes them and the parameters follow as %q0, %q1, ..."""

    def __init__(self, form: GemvForm, dequant=None):
        self.dequant = dequant
        a = form.a if dequant is None else dequant.kernel_weights
        self.host_args = [a, form.x, form.y] + list(form.scalars)
        self.fill_arg = None
        if form.fill is not None and not _is_constant(form.fill.operands[0]):
            self.fill_arg = form.fill.operands[0]
            self.host_args.append(self.fill_arg)
        self.names = {p: f"%q{i}" for i, p in enumerate(dequant.params)} if dequant is not None else {}
        self.host_args += list(self.names)


def _tile(shape, elt, layout, data) -> str:
    return (f"!xetile.tile<{shape[0]}x{shape[1]}x{elt}, #xetile.tile_attr<wg_map = <sg_layout = "
            f"[{layout[0]}, {layout[1]}], sg_data = [{data[0]}, {data[1]}]>>>")


def _views(form: GemvForm, w) -> dict:
    """2D views (value, type, init_tile size suffix): A (M x N), x as 1 x N (matvec) or M x 1
    (vecmat), y as M x 1 or 1 x N; dynamic shapes from memref.dim (%M, %N); for a batch,
    subviews of batch %bz."""
    M, N, Ti, T = form.m, form.n, form.elt_in, form.elt
    rows = form.dim == 1
    at, xt, yt = (str(v.type) for v in (form.a, form.x, form.y))
    xlen, ylen = (N, M) if rows else (M, N)
    if not form.batched:
        xd, yd = (ir.ShapedType.is_dynamic_size(ir.MemRefType(v.type).shape[0]) for v in (form.x, form.y))
        if M is None or N is None or xd or yd:
            w("    %c1 = arith.constant 1 : index")
        if M is None:
            w(f"    %M = memref.dim %A, %c0 : {at}")
            M = "%M"
        if N is None:
            w(f"    %N = memref.dim %A, %c1 : {at}")
            N = "%N"
        xlen, ylen = (N, M) if rows else (M, N)
        for nm, t, dyn in (("X", xt, xd), ("Y", yt, yd)):
            if dyn:
                w(f"    %{nm}n = memref.dim %{nm}, %c0 : {t}")
        xlen, ylen = ("%Xn" if xd else xlen), ("%Yn" if yd else ylen)
    xs = (1, xlen) if rows else (xlen, 1)
    ys = (ylen, 1) if rows else (1, ylen)
    if not form.batched:
        def dims(shape):
            return "x".join("?" if str(d).startswith("%") else str(d) for d in shape)

        def sizes(shape):
            if not any(str(d).startswith("%") for d in shape):
                return ""
            c = lambda d: "%c1" if d == 1 else d  # noqa: E731
            return f", [{c(shape[0])}, {c(shape[1])}], [{c(shape[1])}, %c1]"

        def expand(name, t, shape, e):
            mt = f"memref<{dims(shape)}x{e}>"
            w(f"    %{name}2 = memref.expand_shape %{name} [[0, 1]] output_shape [{shape[0]}, {shape[1]}] : "
              f"{t} into {mt}")
            return f"%{name}2", mt, sizes(shape)
        return {"A": ("%A", at, sizes((M, N))), "X": expand("X", xt, xs, Ti), "Y": expand("Y", yt, ys, T)}
    B = form.batch
    w("    %bz = gpu.block_id z")
    a2 = f"memref<{M}x{N}x{Ti}, strided<[{N}, 1], offset: ?>>"
    w(f"    %A2 = memref.subview %A[%bz, 0, 0] [1, {M}, {N}] [1, 1, 1] : {at} to {a2}")
    out = {"A": ("%A2", a2, "")}
    for name, t, shape, e in (("X", xt, xs, Ti), ("Y", yt, ys, T)):
        e3 = f"memref<{B}x{shape[0]}x{shape[1]}x{e}>"
        w(f"    %{name}3 = memref.expand_shape %{name} [[0], [1, 2]] output_shape [{B}, {shape[0]}, {shape[1]}] "
          f": {t} into {e3}")
        s2 = f"memref<{shape[0]}x{shape[1]}x{e}, strided<[{shape[1]}, 1], offset: ?>>"
        w(f"    %{name}2 = memref.subview %{name}3[%bz, 0, 0] [1, {shape[0]}, {shape[1]}] [1, 1, 1] : {e3} to {s2}")
        out[name] = (f"%{name}2", s2, "")
    return out


def kernel_text(form: GemvForm, plan, kname: str, io) -> str:
    Ti, T = form.elt_in, form.elt
    wm, wn = plan.wg_tile
    lay, (dr, dc) = plan.sg_layout, plan.sg_data
    rows = form.dim == 1
    amap = map_text((lay, (dr, dc)))
    rshape, rdata = ((wm, 1), (dr, 1)) if rows else ((1, wn), (1, dc))
    rwg = map_text((lay, rdata))
    rtile = _tile(rshape, T, lay, rdata)
    vti, vt = f"vector<{wm}x{wn}x{Ti}>", f"vector<{wm}x{wn}x{T}>"
    rvt = f"vector<{rshape[0]}x{rshape[1]}x{T}>"
    extent, tile = (form.n, wn) if rows else (form.m, wm)
    step = tile * plan.unroll
    fl = form.float
    add, mul = ("arith.addf", "arith.mulf") if fl else ("arith.addi", "arith.muli")
    sig = [f"%A: {io.host_args[0].type}", f"%X: {form.x.type}", f"%Y: {form.y.type}"]
    sig += [f"%s{i}: {s.type}" for i, s in enumerate(form.scalars)]
    if io.fill_arg is not None:
        sig.append(f"%fill: {T}")
    sig += [f"{name}: {v.type}" for v, name in io.names.items()]
    L = []
    w = L.append
    w(f"  gpu.func @{kname}({', '.join(sig)}) kernel attributes "
      f"{{known_block_size = array<i32: {plan.num_subgroups * 16}, 1, 1>, xe.subgroup_size = 16 : i32}} {{")
    w("    %c0 = arith.constant 0 : index")
    w(f"    %cstep = arith.constant {step} : index")
    for u in range(1, plan.unroll):
        w(f"    %cu{u} = arith.constant {u * tile} : index")
    if extent is not None:
        w(f"    %cend = arith.constant {extent} : index")
    w(f"    %cw = arith.constant {wm if rows else wn} : index")
    w(f"    %bid = gpu.block_id {'y' if rows else 'x'}")
    w("    %p = arith.muli %bid, %cw : index")
    start_k = "%c0"
    if plan.slices > 1:   # this work-group's slice of the reduced dimension
        w(f"    %sid = gpu.block_id {'x' if rows else 'y'}")
        w(f"    %cchunk = arith.constant {plan.chunk} : index")
        w("    %kb = arith.muli %sid, %cchunk : index")
        w("    %kc = arith.addi %kb, %cchunk : index")
        w("    %ke = arith.minsi %kc, %cend : index")
        start_k = "%kb"
    views = _views(form, w)
    (av, at, asz), (xv, xt, xsz), (yv, yt, ysz) = views["A"], views["X"], views["Y"]
    dqb = DequantGemv(io.dequant, io.names, (wm, wn), (lay, (dr, dc)), "%p", w) if io.dequant else None
    if dqb is not None:   # A is the weights (static, not batched: the fused form)
        at = str(io.host_args[0].type)
        dqb.setup()
    end = "%cend" if extent is not None else ("%N" if rows else "%M")
    if plan.slices > 1:
        end = "%ke"
    start = "0.0" if fl else "0"
    if form.fill is not None and io.fill_arg is None:   # a host constant
        a = _defining(form.fill.operands[0]).attributes["value"]
        start = repr(ir.FloatAttr(a).value) if fl else str(ir.IntegerAttr(a).value)
    if io.fill_arg is not None:
        w(f"    %acc0 = vector.broadcast %fill {{wg_map = {rwg}}} : {T} to {rvt}")
    else:
        w(f'    %acc0 = "arith.constant"() {{value = dense<{start}> : {rvt}, wg_map = {rwg}}} : () -> {rvt}')
    w(f"    %red = scf.for %k = {start_k} to {end} step %cstep iter_args(%acc = %acc0) -> ({rvt}) {{")
    tile_a = _tile((wm, wn), Ti, lay, (dr, dc))
    xshape, xdata = ((1, wn), (1, dc)) if rows else ((wm, 1), (dr, 1))
    tile_x = _tile(xshape, Ti, lay, xdata)
    xvt = f"vector<{xshape[0]}x{xshape[1]}x{Ti}>"
    unroll = plan.unroll
    # all loads of the step first (unroll A tiles and x slices in flight), then the arithmetic
    for u in range(unroll):
        k = "%k"
        if u:
            w(f"      %k{u} = arith.addi %k, %cu{u} : index")
            k = f"%k{u}"
        if dqb is None:
            w(f"      %ta{u} = xetile.init_tile {av}{f'[%p, {k}]' if rows else f'[{k}, %p]'}{asz} : {at} -> {tile_a}")
            w(f"      %va{u} = xetile.load_tile %ta{u} : {tile_a} -> {vti}")
        else:             # the weights' tile (i4: its bytes), dequantized after the step's loads
            cols, col, (ql, qd) = dqb.weights_tile(k if rows else "%p")
            tile_w = _tile((wm, cols), "i8", ql, qd)
            w(f"      %ta{u} = xetile.init_tile {av}{f'[%p, {col}]' if rows else f'[{k}, {col}]'} : {at} -> {tile_w}")
            w(f"      %vw{u} = xetile.load_tile %ta{u} : {tile_w} -> vector<{wm}x{cols}xi8>")
        w(f"      %tx{u} = xetile.init_tile {xv}{f'[%c0, {k}]' if rows else f'[{k}, %c0]'}{xsz} : {xt} -> {tile_x}")
        w(f"      %vx{u} = xetile.load_tile %tx{u} : {tile_x} -> {xvt}")
    acc = "%acc"
    for u in range(unroll):
        va = dqb.apply(f"%vw{u}", f"%k{u}" if u else "%k") if dqb is not None else f"%va{u}"
        w(f"      %bx{u} = xetile.tile_broadcast %vx{u} [{0 if rows else 1}] {{wg_map = {amap}}} : {xvt} -> {vti}")
        bx = f"%bx{u}"
        if Ti != T:
            w(f"      %va{u}w = arith.extf {va} {{wg_map = {amap}}} : {vti} to {vt}")
            w(f"      %bx{u}w = arith.extf %bx{u} {{wg_map = {amap}}} : {vti} to {vt}")
            va, bx = f"%va{u}w", f"%bx{u}w"
        w(f"      %pr{u} = {mul} {va}, {bx} {{wg_map = {amap}}} : {vt}")
        prod = f"%pr{u}"
        for i in range(len(form.scalars)):
            w(f"      %sb{u}_{i} = vector.broadcast %s{i} {{wg_map = {amap}}} : {T} to {vt}")
            w(f"      %pr{u}_{i} = {mul} %sb{u}_{i}, {prod} {{wg_map = {amap}}} : {vt}")
            prod = f"%pr{u}_{i}"
        w(f"      %r{u} = xetile.tile_reduce <add> {prod} [{form.dim}] {{wg_map = {rwg}}} : {vt} -> {rvt}")
        w(f"      %a{u} = {add} {acc}, %r{u} {{wg_map = {rwg}}} : {rvt}")
        acc = f"%a{u}"
    w(f"      scf.yield {acc} : {rvt}")
    w("    }")
    w(f"    %ty = xetile.init_tile {yv}{'[%p, %c0]' if rows else '[%c0, %p]'}{ysz} : {yt} -> {rtile}")
    res = "%red"
    if plan.slices > 1:   # partial sums: y (holding its initial value) accumulates every slice's
        kind = "addf" if fl else "addi"
        w(f"    %old = xetile.atomic_rmw_tile <{kind}> %red, %ty : {rvt}, {rtile} -> {rvt}")
        w("    gpu.return")
        w("  }")
        return "\n".join(L)
    if form.fill is None:
        w(f"    %y = xetile.load_tile %ty : {rtile} -> {rvt}")
        w(f"    %res = {add} %y, %red {{wg_map = {rwg}}} : {rvt}")
        res = "%res"
    w(f"    xetile.store_tile {res}, %ty : {rvt}, {rtile}")
    w("    gpu.return")
    w("  }")
    return "\n".join(L)


def emit_launch(form: GemvForm, plan, mod_name: str, kname: str, io: GemvIO):
    op = form.op
    const = index_const
    with op.context, ir.InsertionPoint(op), op.location:
        if plan.grid() is not None:
            gx, gy = (const(g) for g in plan.grid())
        else:   # dynamic: tiles over the output length
            rows = form.dim == 1
            d = memref.DimOp(form.a, const(0 if rows else 1)).result
            tiles = arith.CeilDivUIOp(d, const(plan.wg_tile[0] if rows else plan.wg_tile[1])).result
            gx, gy = (const(1), tiles) if rows else (tiles, const(1))
        gz = const(form.batch)
        one = const(1)
        threads = const(plan.num_subgroups * 16)
        launch = launch_func(mod_name, kname, (gx, gy, gz), (threads, one, one), io.host_args)
    op.erase()
    if io.dequant is not None:
        erase_host(io.dequant)         # the dequantizing generic and its temporary
    if form.fill is not None:
        const = _defining(form.fill.operands[0])
        form.fill.erase()
        if const is not None and const.name == "arith.constant" and not list(const.results[0].uses):
            const.erase()
    return launch


def consider(mb, op, index: int, dq=None, note: str | None = None) -> None:
    """Plan and write the kernel of gemv op `op` into the MemoryBound collector `mb`, with the dequantization
    `dq` (dequant.Dequant of its matrix) in its A path when given; report (remark, error under strict) why
    not when its form is unsupported. `note`: a line --xe-print-plan adds (why the vector-FMA form)."""
    from .memory_bound import MbKernel

    try:
        form = match_gemv(op)
    except NotFusible as e:
        mb.report(op, f"not lowered to XeTile: {e}")
        return
    plan = plan_gemv(form.m, form.n, form.dim, form.batch, form.elt_in, mb.hw,
                     can_split=form.elt in ("f32", "i32") and form.fill is None,
                     weights=dq and (dq.wtype, dq.group))
    name = f"{mb.fname}_{index}"
    if mb.printing:
        extra = "".join(f"\n{x}" for x in (dq and dq.describe(), note) if x)
        print(f"// memory-bound plan for {op.name} at {op.location}\n{plan.describe()}{extra}", file=sys.stderr)
    if dq is not None:
        host_view(dq)                  # i4: the packed bytes' view the kernel takes
    io = GemvIO(form, dq)
    mb.kernels.append(MbKernel(op, form, plan, name, io, kernel_text(form, plan, name, io), sys.modules[__name__]))
