"""`linalg.softmax` along the last dimension of a 2D memref (f32/f16/bf16, static row length; 1D
and 3D inputs as 1xN / (B*M)xN views), or along another dimension (static shapes) with the same
kernel transposed (2D along 0; 3D along 0 as a B x (M*N) view, along 1 per batch on grid z), as
a work-group XeTile kernel: every subgroup owns whole rows (`sg_layout = [R, 1]`), so the row
max and row sum (`xetile.tile_reduce`) and their broadcasts back over the row
(`xetile.tile_broadcast`) never exchange data between subgroups. f16/bf16 are extended to f32
after loading; the result is rounded once before the store.

Rows that fit in registers are loaded once (max, exp, sum, divide on the loaded tiles); longer
rows take two passes over column chunks: an online pass keeping the running max m and the sum
s = s * exp(m_old - m) + sum(exp(x - m)), then a pass writing exp(x - m) / s. Unaligned rows
never let padding into the max or the sum: columns are covered by full-width tiles and one last
tile exactly as wide as the remainder (no out-of-bounds columns are ever read)."""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .gemm_epilogue import NotFusible, _buffer_ok
from .launch import SourceOutputIO, index_const, launch_func
from .linalg_match import identity_layout

_FLOATS = ("f32", "f16", "bf16")


@dataclass
class SoftmaxForm:
    op: object
    src: object
    out: object
    shape: tuple      # the memref shape (rank 1, 2 or 3)
    m: int | None     # rows of the 2D view (None: dynamic, 2D only)
    n: int            # row length
    elt: str
    axis: int = 1     # the softmax dimension of the 2D view: 1 (rows) or 0 (columns)
    dim: int = -1     # the softmax dimension of the input
    batch: int = 1    # 3D along dimension 1: one 2D column softmax per batch (grid z)


def match_softmax(op) -> SoftmaxForm:
    if len(op.results):
        raise NotFusible("'linalg.softmax' works on tensors (bufferize first)")
    src, out = list(op.operands)
    if not isinstance(src.type, ir.MemRefType):
        raise NotFusible(f"'linalg.softmax' on {src.type}")
    rank = src.type.rank
    if rank not in (1, 2, 3):
        raise NotFusible(f"'linalg.softmax' on a rank-{rank} memref (ranks 1 to 3 supported)")
    dim = ir.IntegerAttr(op.attributes["dimension"]).value
    if dim != rank - 1 and rank == 1:
        raise NotFusible(f"'linalg.softmax' along dimension {dim} of a rank-1 input")
    shape, elt = _buffer_ok(src, rank, "the input of 'linalg.softmax'")
    oshape, oelt = _buffer_ok(out, rank, "the output of 'linalg.softmax'")
    if dim != rank - 1 and None in shape + oshape:
        raise NotFusible(f"'linalg.softmax' along dimension {dim} of a rank-{rank} input with dynamic shapes (static "
                         "shapes supported)")
    if shape[-1] is None or oshape[-1] is None or (rank != 2 and None in shape + oshape):
        raise NotFusible("'linalg.softmax' with a dynamic row length (static row lengths supported: the last "
                         "tile of a row is exactly as wide as the remainder; 2D inputs may have dynamic rows)")
    if elt not in _FLOATS or oelt != elt:
        raise NotFusible(f"'linalg.softmax' from {elt} into {oelt} (f32, f16 or bf16, same type supported)")
    if rank != 2:
        for v in (src, out):
            if not identity_layout(v):
                raise NotFusible(f"'linalg.softmax' on {v.type}: rank-{rank} operands need the identity layout")
    if dim == rank - 1:   # rows of a 1xN / MxN / (B*M)xN view
        m = 1 if rank == 1 else None if shape[0] is None else shape[0] * (shape[1] if rank == 3 else 1)
        return SoftmaxForm(op, src, out, tuple(shape), m, shape[-1], elt, 1, dim)
    if rank == 2:         # columns of the MxN input
        return SoftmaxForm(op, src, out, tuple(shape), shape[0], shape[1], elt, 0, dim)
    if dim == 0:          # columns of a B x (M*N) view
        return SoftmaxForm(op, src, out, tuple(shape), shape[0], shape[1] * shape[2], elt, 0, dim)
    return SoftmaxForm(op, src, out, tuple(shape), shape[1], shape[2], elt, 0, dim, shape[0])   # per batch


def _pieces(start: int, n: int, width: int):
    """(offset, width) tiles covering columns [start, n): one tile of whole full-width blocks, then
    one exactly as wide as the remainder."""
    full = (n - start) // width * width
    out = []
    if full:
        out.append((start, full))
    if n - start - full:
        out.append((start + full, n - start - full))
    return out


def kernel_text(form: SoftmaxForm, plan, kname: str, io) -> str:
    """Row softmax (axis 1: subgroups stacked, each owning whole rows) or column softmax (axis 0,
    2D only: subgroups side by side, each owning whole columns): the same kernel transposed."""
    T, M, N, axis = form.elt, form.m, form.n, form.axis
    (lr, lc), (dr, dc) = plan.sg_layout, plan.sg_data
    rows = axis == 1
    wk = lr * dr if rows else lc * dc          # kept extent of a work-group
    extent = N if rows else M                  # the softmax dimension's extent
    unit = dc if rows else dr                  # piece unit along it: a full-width block row / 8 rows
    chunk = plan.chunk                         # None: whole rows (columns) in registers
    narrow = T != "f32"

    def o(k, a):
        """A (kept, along) pair in (row, column) order."""
        return (k, a) if rows else (a, k)

    def sd(a):
        return o(dr, a) if rows else o(dc, a)

    def shp(a, t="f32"):
        r, c = o(wk, a)
        return f"vector<{r}x{c}x{t}>"

    def wg(a):
        r, c = sd(a)
        return f"#xetile.wg_map<sg_layout = [{lr}, {lc}], sg_data = [{r}, {c}]>"

    rwg, rv = wg(1), shp(1)
    view_t = f"memref<{M}x{N}x{T}>"
    src_t, out_t = str(form.src.type), str(form.out.type)
    L = []
    w = L.append
    cnt = [0]

    def fresh(p):
        cnt[0] += 1
        return f"%{p}{cnt[0]}"

    def tile(a):
        r, c = o(wk, a)
        sr, sc = sd(a)
        return f"!xetile.tile<{r}x{c}x{T}, #xetile.tile_attr<wg_map = <sg_layout = [{lr}, {lc}], " \
               f"sg_data = [{sr}, {sc}]>>>"

    def col(off):
        if isinstance(off, str):
            return off
        name = f"%cc{off}"
        if name not in consts:
            consts[name] = off
            w(f"    {name} = arith.constant {off} : index")
        return name

    def at(off):
        r, c = o("%p", col(off))
        return f"[{r}, {c}]"

    def load(off, a, ind):
        base, bt = bases["%X"]
        t = fresh("t")
        v = fresh("v")
        w(f"{ind}{t} = xetile.init_tile {base}{at(off)}{dyn(base)} : {bt} -> {tile(a)}")
        w(f"{ind}{v} = xetile.load_tile {t} : {tile(a)} -> {shp(a, T)}")
        if narrow:
            x = fresh("x")
            w(f"{ind}{x} = arith.extf {v} {{wg_map = {wg(a)}}} : {shp(a, T)} to {shp(a)}")
            v = x
        return v

    def reduce(kind, v, a, ind):
        r = fresh("r")
        w(f"{ind}{r} = xetile.tile_reduce <{kind}> {v} [{axis}] {{wg_map = {rwg}}} : {shp(a)} -> {rv}")
        return r

    def bcast(r, a, ind):
        b = fresh("b")
        w(f"{ind}{b} = xetile.tile_broadcast {r} [{axis}] {{wg_map = {wg(a)}}} : {rv} -> {shp(a)}")
        return b

    def binop(name, a, b, vt, wgm, ind):
        r = fresh("a")
        w(f"{ind}{r} = {name} {a}, {b} {{wg_map = {wgm}}} : {vt}")
        return r

    def unop(name, a, vt, wgm, ind):
        r = fresh("u")
        w(f"{ind}{r} = {name} {a} {{wg_map = {wgm}}} : {vt}")
        return r

    def exp_shifted(v, m, a, ind):
        d = binop("arith.subf", v, bcast(m, a, ind), shp(a), wg(a), ind)
        return unop("math.exp", d, shp(a), wg(a), ind)

    def store(e, s, off, a, ind):
        q = binop("arith.divf", e, bcast(s, a, ind), shp(a), wg(a), ind)
        if narrow:
            q2 = fresh("q")
            w(f"{ind}{q2} = arith.truncf {q} {{wg_map = {wg(a)}}} : {shp(a)} to {shp(a, T)}")
            q = q2
        base, bt = bases["%O"]
        t = fresh("t")
        w(f"{ind}{t} = xetile.init_tile {base}{at(off)}{dyn(base)} : {bt} -> {tile(a)}")
        w(f"{ind}xetile.store_tile {q}, {t} : {shp(a, T)}, {tile(a)}")

    def online(v, m, s, a, ind):
        """(m', s') after folding the chunk v into the running max m and sum s."""
        mc = reduce("maximumf", v, a, ind)
        mn = binop("arith.maximumf", m, mc, rv, rwg, ind)
        corr = unop("math.exp", binop("arith.subf", m, mn, rv, rwg, ind), rv, rwg, ind)
        sc = reduce("add", exp_shifted(v, mn, a, ind), a, ind)
        sn = binop("arith.addf", binop("arith.mulf", s, corr, rv, rwg, ind), sc, rv, rwg, ind)
        return mn, sn

    consts: dict = {}

    def dyn(base):
        """Base shape and strides of a dynamic-shape (dynamic rows) memref, as init_tile operands."""
        return f", [%rows{base[1:]}, {col(N)}], [{col(N)}, {col(1)}]" if M is None else ""

    w(f"  gpu.func @{kname}(%X: {src_t}, %O: {out_t}) kernel attributes "
      f"{{known_block_size = array<i32: {plan.num_subgroups * 16}, 1, 1>, xe.subgroup_size = 16 : i32}} {{")
    w(f"    %cw = arith.constant {wk} : index")
    w(f"    %bid = gpu.block_id {'y' if rows else 'x'}")
    w("    %p = arith.muli %bid, %cw : index")
    bases = {}
    if form.batch > 1:
        w("    %bz = gpu.block_id z")
        view_t = f"memref<{M}x{N}x{T}, strided<[{N}, 1], offset: ?>>"
    for name, v, vt in (("%X2", "%X", src_t), ("%O2", "%O", out_t)):
        if len(form.shape) == 1:
            w(f"    {name} = memref.expand_shape {v} [[0, 1]] output_shape [1, {N}] : {vt} into {view_t}")
        elif form.batch > 1:
            w(f"    {name} = memref.subview {v}[%bz, 0, 0] [1, {M}, {N}] [1, 1, 1] : {vt} to {view_t}")
        elif len(form.shape) == 3:
            groups = "[[0, 1], [2]]" if rows else "[[0], [1, 2]]"
            w(f"    {name} = memref.collapse_shape {v} {groups} : {vt} into {view_t}")
        bases[v] = (v, vt) if len(form.shape) == 2 else (name, view_t)
        if M is None:
            col(N), col(1)    # defined before any loop that uses them
            w(f"    %rows{v[1:]} = memref.dim {v}, {col(0)} : {vt}")
    ind = "    "
    if chunk is None:
        pieces = _pieces(0, extent, unit)
        vals = [load(off, a, ind) for off, a in pieces]
        m = None
        for v, (_, a) in zip(vals, pieces):
            r = reduce("maximumf", v, a, ind)
            m = r if m is None else binop("arith.maximumf", m, r, rv, rwg, ind)
        es, s = [], None
        for v, (_, a) in zip(vals, pieces):
            e = exp_shifted(v, m, a, ind)
            es.append(e)
            r = reduce("add", e, a, ind)
            s = r if s is None else binop("arith.addf", s, r, rv, rwg, ind)
        for e, (off, a) in zip(es, pieces):
            store(e, s, off, a, ind)
    else:
        loop_end = extent // chunk * chunk
        pieces = _pieces(loop_end, extent, unit)
        w(f'    %m0 = "arith.constant"() {{value = dense<0xFF800000> : {rv}, wg_map = {rwg}}} : () -> {rv}')
        w(f'    %s0 = "arith.constant"() {{value = dense<0.0> : {rv}, wg_map = {rwg}}} : () -> {rv}')
        w("    %c0 = arith.constant 0 : index")
        w(f"    %cstep = arith.constant {chunk} : index")
        w(f"    %cend = arith.constant {loop_end} : index")
        w(f"    %ms:2 = scf.for %k = %c0 to %cend step %cstep iter_args(%m = %m0, %s = %s0) -> ({rv}, {rv}) {{")
        v = load("%k", chunk, ind + "  ")
        mn, sn = online(v, "%m", "%s", chunk, ind + "  ")
        w(f"      scf.yield {mn}, {sn} : {rv}, {rv}")
        w("    }")
        m, s = "%ms#0", "%ms#1"
        for off, a in pieces:
            v = load(off, a, ind)
            m, s = online(v, m, s, a, ind)
        w("    scf.for %k2 = %c0 to %cend step %cstep {")
        v = load("%k2", chunk, ind + "  ")
        store(exp_shifted(v, m, chunk, ind + "  "), s, "%k2", chunk, ind + "  ")
        w("    }")
        for off, a in pieces:
            v = load(off, a, ind)
            store(exp_shifted(v, m, a, ind), s, off, a, ind)
    w("    gpu.return")
    w("  }")
    return "\n".join(L)


SoftmaxIO = SourceOutputIO


def emit_launch(form: SoftmaxForm, plan, mod_name: str, kname: str, io: SoftmaxIO):
    from mlir.dialects import arith

    op = form.op
    const = index_const
    with op.context, ir.InsertionPoint(op), op.location:
        one = const(1)
        if form.axis == 0:
            gy = const(-(-form.n // plan.wg_tile[1]))
        elif form.m is None:
            from mlir.dialects import memref

            gy = arith.CeilDivUIOp(memref.DimOp(form.src, const(0)).result, const(plan.wg_tile[0])).result
        else:
            gy = const(-(-form.m // plan.wg_tile[0]))
        threads = const(plan.num_subgroups * 16)
        gx, gy = (gy, one) if form.axis == 0 else (one, gy)
        launch = launch_func(mod_name, kname, (gx, gy, const(form.batch)), (threads, one, one), io.host_args)
    op.erase()
    return launch
