"""Stand-alone `linalg.reduce` of a 2D memref along one dimension (sum: arith.addf/addi, max/min:
arith.maximumf/minimumf/maxsi/minsi) into a 1D memref, as a work-group XeTile kernel: each
work-group owns a band of output rows (dimension 1 reduced) or columns (dimension 0), loops over
the reduced dimension combining each tile element-wise into a tile accumulator, and reduces that
once after the loop with `xetile.tile_reduce` into a row / column (rfc-xetile.md appendix 2.2:
each subgroup owns whole rows / columns, so there is no cross-subgroup exchange), combines it with
the output's initial value and stores it. (Reducing every loaded tile across lanes inside the loop
cost IGC 95 instructions per 2D block load; docs/igc.md.)
Unaligned reduced extents: sums read zero-padded tiles; max/min clamp the last tile inside the
array (reading some elements twice does not change them). Dynamic shapes: the kernel reads the
sizes with memref.dim; a max/min needs a static reduced extent (the clamp needs one whole tile)."""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref

from .gemm_epilogue import NotFusible, _buffer_ok
from .launch import SourceOutputIO, index_const, launch_func

KINDS = {"arith.addf": "add", "arith.addi": "add", "arith.maximumf": "maximumf", "arith.minimumf": "minimumf",
         "arith.maxsi": "maxsi", "arith.minsi": "minsi", "arith.maxnumf": "maxnumf", "arith.minnumf": "minnumf"}
_FLOATS = {"f32", "f16", "bf16"}
_NEG_INF = {"f32": "0xFF800000", "f16": "0xFC00", "bf16": "0xFF80"}
_POS_INF = {"f32": "0x7F800000", "f16": "0x7C00", "bf16": "0x7F80"}
_IMIN = {"i32": -2**31, "i16": -2**15, "i8": -128}


@dataclass
class ReduceForm:
    op: object
    src: object
    out: object
    dim: int          # the reduced dimension of src
    combiner: str     # arith op name
    kind: str         # tile_reduce kind
    m: int
    n: int
    elt: str                  # the input's element type
    out_elt: str | None = None  # the init's (accumulator's) type when the body extends the input first
    ext: str | None = None      # that extension (arith.extf / arith.extsi)

    def __post_init__(self):
        self.out_elt = self.out_elt or self.elt

    @property
    def idempotent(self) -> bool:
        return self.kind != "add"


_EXTS = {("f16", "f32"): "arith.extf", ("bf16", "f32"): "arith.extf", ("i8", "i32"): "arith.extsi",
         ("i16", "i32"): "arith.extsi"}


def match_body(op, elt: str, oelt: str):
    """(combiner op, extension op name or None) of a reduce body `yield comb(x, acc)`, or with the
    input extended to the init's type first (`yield comb(ext(x), acc)`); NotFusible otherwise."""
    block = op.regions[0].blocks[0]
    body = [o.operation for o in block.operations]
    args = list(block.arguments)
    ext = None
    if len(body) == 3 and body[0].name in ("arith.extf", "arith.extsi"):
        ext, body = body[0], body[1:]
        if _EXTS.get((elt, oelt)) != ext.name or ext.operands[0] != args[0]:
            raise NotFusible(f"'linalg.reduce' body extends its input with {ext.name} from {elt} into {oelt} "
                             f"(supported: {', '.join(f'{a}->{b}' for a, b in _EXTS)} of the input value)")
    elif oelt != elt:
        raise NotFusible(f"'linalg.reduce' from {elt} into {oelt} without an extension of the input in the body")
    if len(body) != 2 or body[0].name not in KINDS:
        found = ", ".join(o.name for o in body[:-1])
        raise NotFusible(f"'linalg.reduce' body ({found}) is not one of {', '.join(sorted(KINDS))}")
    comb = body[0]
    want = {ext.results[0], args[1]} if ext is not None else set(args)
    if set(comb.operands) != want or body[1].operands[0] != comb.results[0]:
        raise NotFusible("'linalg.reduce' body does not combine its two arguments and yield the result")
    if (oelt in _FLOATS) != comb.name.endswith("f"):
        raise NotFusible(f"'{comb.name}' on {oelt}")
    return comb, (ext.name if ext is not None else None)


def match_reduce(op) -> ReduceForm:
    if len(op.results):
        raise NotFusible("'linalg.reduce' works on tensors (bufferize first)")
    operands = list(op.operands)
    if len(operands) != 2:
        raise NotFusible(f"'linalg.reduce' with {len(operands) // 2} inputs (one input, one init supported)")
    src, out = operands
    dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    shape, elt = _buffer_ok(src, 2, "the input of 'linalg.reduce'")
    oshape, oelt = _buffer_ok(out, 1, "the init of 'linalg.reduce'")
    if dims not in ([0], [1]):
        raise NotFusible(f"'linalg.reduce' over dimensions {dims} (one dimension of a 2D input supported)")
    if KINDS.get(body_name(op)) not in (None, "add") and shape[dims[0]] is None:
        raise NotFusible(f"'linalg.reduce' <{KINDS[body_name(op)]}> over a dynamic extent (max/min clamp their "
                         "last tile inside the array: the reduced extent must be static)")
    comb, ext = match_body(op, elt, oelt)
    return ReduceForm(op, src, out, dims[0], comb.name, KINDS[comb.name], shape[0], shape[1], elt, oelt, ext)


def body_name(op) -> str:
    """The combiner's name (after an extension of the input, if any)."""
    ops = [o.operation for o in op.regions[0].blocks[0].operations]
    ops = ops[1:] if ops and ops[0].name in ("arith.extf", "arith.extsi") else ops
    return ops[0].name if ops else ""


def output_dims(form: ReduceForm):
    """(rows, cols) of the array a plan covers: the input."""
    return form.m, form.n


def identity_value(kind: str, t: str) -> str:
    """The identity of a `kind` reduction (KINDS) in element type t, as an MLIR literal: 0 for add,
    -inf / +inf for a float max / min, the least / greatest integer for an integer max / min."""
    if kind == "add":
        return "0.0" if t in _FLOATS else "0"
    if t in _FLOATS:
        return (_NEG_INF if "max" in kind else _POS_INF)[t]
    lo = _IMIN[t]
    return str(lo if "max" in kind else -lo - 1)


def check_plan(form: ReduceForm, plan) -> None:
    step = plan.wg_tile[1] if form.dim == 1 else plan.wg_tile[0]
    extent = form.n if form.dim == 1 else form.m
    if form.idempotent and extent is not None and extent < step:
        raise NotFusible(f"'linalg.reduce' <{form.kind}> over {extent} elements, fewer than one tile ({step}): "
                         "the zero padding would change the result")


def kernel_text(form: ReduceForm, plan, kname: str, io) -> str:
    T, M, N, OT = form.elt, form.m, form.n, form.out_elt
    wm, wn = plan.wg_tile
    (lr, lc), (dr, dc) = plan.sg_layout, plan.sg_data
    rows = form.dim == 1
    src_t, out_t = str(form.src.type), str(form.out.type)
    tile = (f"!xetile.tile<{wm}x{wn}x{T}, #xetile.tile_attr<wg_map = <sg_layout = [{lr}, {lc}], "
            f"sg_data = [{dr}, {dc}]>>>")
    rshape = (wm, 1) if rows else (1, wn)
    rdata = (dr, 1) if rows else (1, dc)
    rwg = f"#xetile.wg_map<sg_layout = [{lr}, {lc}], sg_data = [{rdata[0]}, {rdata[1]}]>"
    rtile = (f"!xetile.tile<{rshape[0]}x{rshape[1]}x{OT}, #xetile.tile_attr<wg_map = <sg_layout = [{lr}, {lc}], "
             f"sg_data = [{rdata[0]}, {rdata[1]}]>>>")
    vt, rvt = f"vector<{wm}x{wn}x{T}>", f"vector<{rshape[0]}x{rshape[1]}x{OT}>"
    twg = f"#xetile.wg_map<sg_layout = [{lr}, {lc}], sg_data = [{dr}, {dc}]>"
    extent, step = (N, wn) if rows else (M, wm)
    L = []
    w = L.append
    w(f"  gpu.func @{kname}(%X: {src_t}, %O: {out_t}) kernel attributes "
      f"{{known_block_size = array<i32: {plan.num_subgroups * 16}, 1, 1>, xe.subgroup_size = 16 : i32}} {{")
    w("    %c0 = arith.constant 0 : index")
    xs = os_ = ""     # base shape and strides of dynamic-shape memrefs (init_tile operands)
    if None in (M, N):
        w("    %c0d = arith.constant 0 : index")
        w("    %c1d = arith.constant 1 : index")
        for i, (nm, ext) in enumerate((("%xm", M), ("%xn", N))):
            w(f"    {nm} = memref.dim %X, %c{i}d : {src_t}" if ext is None
              else f"    {nm} = arith.constant {ext} : index")
        xs = ", [%xm, %xn], [%xn, %c1d]"
    w(f"    %cstep = arith.constant {step} : index")
    cend = ("%xn" if rows else "%xm") if extent is None else "%cend"
    if extent is not None:
        w(f"    %cend = arith.constant {extent} : index")
        w(f"    %clast = arith.constant {max(0, extent - step)} : index")
    if rows:
        w(f"    %cw = arith.constant {wm} : index")
        w("    %bid = gpu.block_id y")
    else:
        w(f"    %cw = arith.constant {wn} : index")
        w("    %bid = gpu.block_id x")
    w("    %p = arith.muli %bid, %cw : index")
    ident = identity_value(form.kind, form.out_elt)
    avt = f"vector<{wm}x{wn}x{OT}>"          # the tile accumulator (the loaded tile's shape)
    w(f'    %acc0 = "arith.constant"() {{value = dense<{ident}> : {avt}, wg_map = {twg}}} : () -> {avt}')
    w(f"    %acct = scf.for %k = %c0 to {cend} step %cstep iter_args(%acc = %acc0) -> ({avt}) {{")
    k = "%k"
    if form.idempotent:
        w("      %kc = arith.minsi %k, %clast : index")
        k = "%kc"
    off = f"[%p, {k}]" if rows else f"[{k}, %p]"
    w(f"      %t = xetile.init_tile %X{off}{xs} : {src_t} -> {tile}")
    w(f"      %v = xetile.load_tile %t : {tile} -> {vt}")
    v = "%v"
    if form.ext:
        w(f"      %vx = {form.ext} %v {{wg_map = {twg}}} : {vt} to vector<{wm}x{wn}x{OT}>")
        v, vt = "%vx", f"vector<{wm}x{wn}x{OT}>"
    w(f"      %a = {form.combiner} %acc, {v} {{wg_map = {twg}}} : {avt}")
    w(f"      scf.yield %a : {avt}")
    w("    }")
    w(f"    %red = xetile.tile_reduce <{form.kind}> %acct [{1 if rows else 0}] {{wg_map = {rwg}}} : {avt} -> {rvt}")
    d = lambda x: "?" if x is None else str(x)  # noqa: E731
    o2 = f"memref<{d(M)}x1x{OT}>" if rows else f"memref<1x{d(N)}x{OT}>"
    kept = M if rows else N
    if kept is None:
        w(f"    %ckept = memref.dim %O, %c0d : {out_t}")
    kept_s = "%ckept" if kept is None else str(kept)
    shape = f"[{kept_s}, 1]" if rows else f"[1, {kept_s}]"
    if kept is None:
        os_ = ", [%ckept, %c1d], [%c1d, %c1d]" if rows else ", [%c1d, %ckept], [%ckept, %c1d]"
    w(f"    %O2 = memref.expand_shape %O [[0, 1]] output_shape {shape} : {out_t} into {o2}")
    off = "[%p, %c0]" if rows else "[%c0, %p]"
    w(f"    %ot = xetile.init_tile %O2{off}{os_} : {o2} -> {rtile}")
    w(f"    %init = xetile.load_tile %ot : {rtile} -> {rvt}")
    w(f"    %res = {form.combiner} %red, %init {{wg_map = {rwg}}} : {rvt}")
    w(f"    xetile.store_tile %res, %ot : {rvt}, {rtile}")
    w("    gpu.return")
    w("  }")
    return "\n".join(L)


ReduceIO = SourceOutputIO


def emit_launch(form: ReduceForm, plan, mod_name: str, kname: str, io: ReduceIO):
    op = form.op
    const = index_const
    with op.context, ir.InsertionPoint(op), op.location:
        wm, wn = plan.wg_tile
        kept = form.m if form.dim == 1 else form.n
        if kept is None:
            size = memref.DimOp(form.src, const(0 if form.dim == 1 else 1)).result
            groups = arith.CeilDivUIOp(size, const(wm if form.dim == 1 else wn)).result
        else:
            groups = const(-(-kept // (wm if form.dim == 1 else wn)))
        gx, gy = (const(1), groups) if form.dim == 1 else (groups, const(1))
        one = const(1)
        threads = const(plan.num_subgroups * 16)
        launch = launch_func(mod_name, kname, (gx, gy, one), (threads, one, one), io.host_args)
    op.erase()
    return launch


