"""`linalg.softmax` along the last dimension of a 2D memref (f32/f16/bf16, static shapes; 1D and
3D inputs as 1xN / (B*M)xN views) as a work-group XeTile kernel: every subgroup owns whole rows
(`sg_layout = [R, 1]`), so the row max and row sum (`xetile.tile_reduce`) and their broadcasts
back over the row (`xetile.tile_broadcast`) never exchange data between subgroups. f16/bf16 are
extended to f32 after loading; the result is rounded once before the store.

Rows that fit in registers are loaded once (max, exp, sum, divide on the loaded tiles); longer
rows take two passes over column chunks: an online pass keeping the running max m and the sum
s = s * exp(m_old - m) + sum(exp(x - m)), then a pass writing exp(x - m) / s. Unaligned rows
never let padding into the max or the sum: columns are covered by full-width tiles and one last
tile exactly as wide as the remainder (no out-of-bounds columns are ever read)."""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .gemm_epilogue import NotFusible, _buffer_ok

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
    if dim != rank - 1:
        raise NotFusible(f"'linalg.softmax' along dimension {dim} of a rank-{rank} input (the last dimension "
                         "supported)")
    shape, elt = _buffer_ok(src, rank, "the input of 'linalg.softmax'")
    oshape, oelt = _buffer_ok(out, rank, "the output of 'linalg.softmax'")
    if shape[-1] is None or oshape[-1] is None or (rank != 2 and None in shape + oshape):
        raise NotFusible("'linalg.softmax' with a dynamic row length (static row lengths supported: the last "
                         "tile of a row is exactly as wide as the remainder; 2D inputs may have dynamic rows)")
    if elt not in _FLOATS or oelt != elt:
        raise NotFusible(f"'linalg.softmax' from {elt} into {oelt} (f32, f16 or bf16, same type supported)")
    if rank != 2:
        for v in (src, out):
            if not _identity(v):
                raise NotFusible(f"'linalg.softmax' on {v.type}: rank-{rank} operands need the identity layout")
    m = 1 if rank == 1 else None if shape[0] is None else shape[0] * (shape[1] if rank == 3 else 1)
    return SoftmaxForm(op, src, out, tuple(shape), m, shape[-1], elt)


def _identity(v) -> bool:
    from .linalg_match import identity_layout

    return identity_layout(v)


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
    T, M, N = form.elt, form.m, form.n
    W = plan.sg_data[1]            # full-width block row
    R, dr = plan.sg_layout[0], plan.sg_data[0]
    wm = R * dr
    chunk = plan.chunk             # None: whole rows in registers
    narrow = T != "f32"
    rwg = f"#xetile.wg_map<sg_layout = [{R}, 1], sg_data = [{dr}, 1]>"
    rv = f"vector<{wm}x1xf32>"
    view_t = f"memref<{M}x{N}x{T}>"
    src_t, out_t = str(form.src.type), str(form.out.type)
    L = []
    w = L.append
    cnt = [0]

    def fresh(p):
        cnt[0] += 1
        return f"%{p}{cnt[0]}"

    def wg(width):
        return f"#xetile.wg_map<sg_layout = [{R}, 1], sg_data = [{dr}, {width}]>"

    def tile(width):
        return f"!xetile.tile<{wm}x{width}x{T}, #xetile.tile_attr<wg_map = <sg_layout = [{R}, 1], " \
               f"sg_data = [{dr}, {width}]>>>"

    def col(off):
        if isinstance(off, str):
            return off
        name = f"%cc{off}"
        if name not in consts:
            consts[name] = off
            w(f"    {name} = arith.constant {off} : index")
        return name

    def load(off, width, ind):
        base, bt = bases["%X"]
        t = fresh("t")
        v = fresh("v")
        w(f"{ind}{t} = xetile.init_tile {base}[%p, {col(off)}]{dyn(base)} : {bt} -> {tile(width)}")
        w(f"{ind}{v} = xetile.load_tile {t} : {tile(width)} -> vector<{wm}x{width}x{T}>")
        if narrow:
            x = fresh("x")
            w(f"{ind}{x} = arith.extf {v} {{wg_map = {wg(width)}}} : vector<{wm}x{width}x{T}> to "
              f"vector<{wm}x{width}xf32>")
            v = x
        return v

    def reduce(kind, v, width, ind):
        r = fresh("r")
        w(f"{ind}{r} = xetile.tile_reduce <{kind}> {v} [1] {{wg_map = {rwg}}} : vector<{wm}x{width}xf32> -> {rv}")
        return r

    def bcast(r, width, ind):
        b = fresh("b")
        w(f"{ind}{b} = xetile.tile_broadcast {r} [1] {{wg_map = {wg(width)}}} : {rv} -> vector<{wm}x{width}xf32>")
        return b

    def binop(name, a, b, vt, wgm, ind):
        r = fresh("a")
        w(f"{ind}{r} = {name} {a}, {b} {{wg_map = {wgm}}} : {vt}")
        return r

    def unop(name, a, vt, wgm, ind):
        r = fresh("u")
        w(f"{ind}{r} = {name} {a} {{wg_map = {wgm}}} : {vt}")
        return r

    def exp_shifted(v, m, width, ind):
        vt = f"vector<{wm}x{width}xf32>"
        d = binop("arith.subf", v, bcast(m, width, ind), vt, wg(width), ind)
        return unop("math.exp", d, vt, wg(width), ind)

    def store(e, s, off, width, ind):
        vt = f"vector<{wm}x{width}xf32>"
        q = binop("arith.divf", e, bcast(s, width, ind), vt, wg(width), ind)
        if narrow:
            q2 = fresh("q")
            w(f"{ind}{q2} = arith.truncf {q} {{wg_map = {wg(width)}}} : {vt} to vector<{wm}x{width}x{T}>")
            q = q2
        base, bt = bases["%O"]
        t = fresh("t")
        w(f"{ind}{t} = xetile.init_tile {base}[%p, {col(off)}]{dyn(base)} : {bt} -> {tile(width)}")
        w(f"{ind}xetile.store_tile {q}, {t} : vector<{wm}x{width}x{T}>, {tile(width)}")

    def online(v, m, s, width, ind):
        """(m', s') after folding the chunk v into the running max m and sum s."""
        mc = reduce("maximumf", v, width, ind)
        mn = binop("arith.maximumf", m, mc, rv, rwg, ind)
        corr = unop("math.exp", binop("arith.subf", m, mn, rv, rwg, ind), rv, rwg, ind)
        sc = reduce("add", exp_shifted(v, mn, width, ind), width, ind)
        sn = binop("arith.addf", binop("arith.mulf", s, corr, rv, rwg, ind), sc, rv, rwg, ind)
        return mn, sn

    consts: dict = {}

    def dyn(base):
        """Base shape and strides of a dynamic-shape (dynamic rows) memref, as init_tile operands."""
        return f", [%rows{base[1:]}, {col(N)}], [{col(N)}, {col(1)}]" if M is None else ""

    w(f"  gpu.func @{kname}(%X: {src_t}, %O: {out_t}) kernel attributes "
      f"{{known_block_size = array<i32: {plan.num_subgroups * 16}, 1, 1>, xe.subgroup_size = 16 : i32}} {{")
    w(f"    %cw = arith.constant {wm} : index")
    w("    %bid = gpu.block_id y")
    w("    %p = arith.muli %bid, %cw : index")
    bases = {}
    for name, v, vt in (("%X2", "%X", src_t), ("%O2", "%O", out_t)):
        if len(form.shape) == 1:
            w(f"    {name} = memref.expand_shape {v} [[0, 1]] output_shape [1, {N}] : {vt} into {view_t}")
        elif len(form.shape) == 3:
            w(f"    {name} = memref.collapse_shape {v} [[0, 1], [2]] : {vt} into {view_t}")
        bases[v] = (v, vt) if len(form.shape) == 2 else (name, view_t)
        if M is None:
            col(N), col(1)    # defined before any loop that uses them
            w(f"    %rows{v[1:]} = memref.dim {v}, {col(0)} : {vt}")
    ind = "    "
    if chunk is None:
        pieces = _pieces(0, N, W)
        vals = [load(off, width, ind) for off, width in pieces]
        m = None
        for v, (_, width) in zip(vals, pieces):
            r = reduce("maximumf", v, width, ind)
            m = r if m is None else binop("arith.maximumf", m, r, rv, rwg, ind)
        es, s = [], None
        for v, (_, width) in zip(vals, pieces):
            e = exp_shifted(v, m, width, ind)
            es.append(e)
            r = reduce("add", e, width, ind)
            s = r if s is None else binop("arith.addf", s, r, rv, rwg, ind)
        for e, (off, width) in zip(es, pieces):
            store(e, s, off, width, ind)
    else:
        loop_end = N // chunk * chunk
        pieces = _pieces(loop_end, N, W)
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
        for off, width in pieces:
            v = load(off, width, ind)
            m, s = online(v, m, s, width, ind)
        w("    scf.for %k2 = %c0 to %cend step %cstep {")
        v = load("%k2", chunk, ind + "  ")
        store(exp_shifted(v, m, chunk, ind + "  "), s, "%k2", chunk, ind + "  ")
        w("    }")
        for off, width in pieces:
            v = load(off, width, ind)
            store(exp_shifted(v, m, width, ind), s, off, width, ind)
    w("    gpu.return")
    w("  }")
    return "\n".join(L)


class SoftmaxIO:
    def __init__(self, form: SoftmaxForm):
        self.host_args = [form.src, form.out]


def emit_launch(form: SoftmaxForm, plan, mod_name: str, kname: str, io: SoftmaxIO):
    from mlir.dialects import arith

    op = form.op
    with op.context, ir.InsertionPoint(op), op.location:
        idx = ir.IndexType.get()

        def const(v):
            return arith.ConstantOp(idx, v).result

        one = const(1)
        if form.m is None:
            from mlir.dialects import memref

            gy = arith.CeilDivUIOp(memref.DimOp(form.src, const(0)).result, const(plan.wg_tile[0])).result
        else:
            gy = const(-(-form.m // plan.wg_tile[0]))
        threads = const(plan.num_subgroups * 16)
        launch = ir.Operation.create(
            "gpu.launch_func",
            operands=[one, gy, one, threads, one, one] + io.host_args,
            attributes={
                "kernel": ir.SymbolRefAttr.get([mod_name, kname]),
                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0]),
            })
    op.erase()
    return launch
