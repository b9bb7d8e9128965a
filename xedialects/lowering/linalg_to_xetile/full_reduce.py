"""`linalg.reduce` over every dimension of a 1D or 2D memref into a 0-D memref (a sum, max or min
to a scalar) as two work-group XeTile kernels launched one after the other (the two-stage form):

1. `<name>_partials`: work-group g reduces its share of the input (a band of `band` elements of
   a 1D input or of a contiguous 2D one seen as one row; other 2D inputs: `rows` whole rows) to
   one value with `xetile.tile_reduce` and stores it in element g of a temporary buffer the
   host allocates (`memref.alloc`, freed after the second launch);
2. `<name>_final`: one work-group reduces the partial values and the rows (columns) the grid did
   not cover, combines the result with the output's initial value and stores it.

Two stages rather than atomics: the result is the same on every run, max/min need no float atomic
(portable SPIR-V has none) and f16/bf16 sums need no 16-bit atomic add (PVC has none). Every tile
lies inside the array (whole tiles, then one exactly as wide or high as the remainder), so neither
zero padding nor clamping is needed. f16/bf16 accumulate in f32 (partials in f32), rounded once.
Dynamic shapes (sums only): `full_reduce_dynamic.py`."""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from .gemm_epilogue import NotFusible, _buffer_ok
from .launch import SourceOutputIO, index_const, launch_func
from .linalg_match import identity_layout
from .reduce import KINDS, _FLOATS, body_name, identity_value, match_body
from .softmax import _pieces


@dataclass
class FullReduceForm:
    op: object
    src: object
    out: object
    shape: tuple      # the shape reduced: 1D, or 2D (a static row-major 2D input is flattened to 1D)
    combiner: str
    kind: str
    elt: str                  # the input's element type
    out_elt: str = ""         # the output's (a body may extend the input first: bf16 -> f32, i8 -> i32)

    def __post_init__(self):
        self.out_elt = self.out_elt or self.elt

    @property
    def acc(self) -> str:
        return "f32" if self.out_elt in ("f16", "bf16") else self.out_elt


def is_full(op) -> bool:
    if op.name != "linalg.reduce" or len(op.operands) != 2:
        return False
    t = op.operands[0].type
    if not isinstance(t, (ir.MemRefType, ir.RankedTensorType)):
        return False
    dims = sorted(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    return t.rank in (1, 2) and dims == list(range(t.rank))


def match_full_reduce(op) -> FullReduceForm:
    if len(op.results):
        raise NotFusible("'linalg.reduce' works on tensors (bufferize first)")
    src, out = list(op.operands)
    rank = src.type.rank
    shape, elt = _buffer_ok(src, rank, "the input of 'linalg.reduce'")
    if rank == 1 and not identity_layout(src):
        raise NotFusible(f"the input of 'linalg.reduce' ({src.type}) needs the identity layout")
    oshape, oelt = _buffer_ok(out, 0, "the init of 'linalg.reduce'")
    if any(s is None for s in shape) and KINDS.get(body_name(op)) not in (None, "add"):
        raise NotFusible(f"'linalg.reduce' <{KINDS[body_name(op)]}> to a scalar with dynamic shapes (sums "
                         "supported: their zero-padded edge tiles add nothing; a max/min would need the "
                         "remainder tiles of a static shape)")
    comb, _ = match_body(op, elt, oelt)
    if rank == 2 and None not in shape and identity_layout(src):
        shape = [shape[0] * shape[1]]     # contiguous: reduced as one long row (bands fill the device)
    return FullReduceForm(op, src, out, tuple(shape), comb.name, KINDS[comb.name], elt, oelt)


def split(form: FullReduceForm, plan):
    """(groups, covered): the work-groups of stage 1 and the rows (2D) / columns (1D) they cover."""
    if len(form.shape) == 2:
        groups = form.shape[0] // plan.rows
        return groups, groups * plan.rows
    groups = form.shape[0] // plan.band
    return groups, groups * plan.band


class _Writer:
    def __init__(self, form: FullReduceForm, plan):
        self.form, self.plan = form, plan
        self.L = []
        self.n = 0
        self.consts = {}
        self.wgm = "#xetile.wg_map<sg_layout = [1, 1], sg_data = [{}, {}]>"
        self.one = f"vector<1x1x{form.acc}>"

    def w(self, line):
        self.L.append(line)

    def fresh(self, p):
        self.n += 1
        return f"%{p}{self.n}"

    def const(self, v, ind="    "):
        name = f"%k{v}"
        if name not in self.consts:
            self.consts[name] = v
            self.w(f"{ind}{name} = arith.constant {v} : index")
        return name

    def tile_t(self, h, wd, T):
        return f"!xetile.tile<{h}x{wd}x{T}, #xetile.tile_attr<wg_map = <sg_layout = [1, 1], sg_data = [{h}, {wd}]>>>"

    def reduce_tile(self, base, bt, row, colv, h, wd, ind, sizes=""):
        """The 1x1 reduction (in the accumulator type) of the h x wd tile of `base` at (row, colv);
        `sizes`: the init_tile shape and strides operands of a dynamic-shape base."""
        f, A = self.form, self.form.acc
        T = A if base == "%P2" else f.elt     # the partials are in the accumulator type
        t, v = self.fresh("t"), self.fresh("v")
        tt = self.tile_t(h, wd, T)
        self.w(f"{ind}{t} = xetile.init_tile {base}[{row}, {colv}]{sizes} : {bt} -> {tt}")
        self.w(f"{ind}{v} = xetile.load_tile {t} : {tt} -> vector<{h}x{wd}x{T}>")
        if A != T:
            x = self.fresh("x")
            ext = "arith.extf" if A in _FLOATS else "arith.extsi"
            self.w(f"{ind}{x} = {ext} {v} {{wg_map = {self.wgm.format(h, wd)}}} : vector<{h}x{wd}x{T}> to "
                   f"vector<{h}x{wd}x{A}>")
            v = x
        r = self.fresh("r")
        self.w(f"{ind}{r} = xetile.tile_reduce <{f.kind}> {v} [1] {{wg_map = {self.wgm.format(h, 1)}}} : "
               f"vector<{h}x{wd}x{A}> -> vector<{h}x1x{A}>")
        if h > 1:
            r2 = self.fresh("r")
            self.w(f"{ind}{r2} = xetile.tile_reduce <{f.kind}> {r} [0] {{wg_map = {self.wgm.format(1, 1)}}} : "
                   f"vector<{h}x1x{A}> -> {self.one}")
            r = r2
        return r

    def combine(self, a, b, ind):
        if a is None:
            return b
        r = self.fresh("c")
        self.w(f"{ind}{r} = {self.form.combiner} {a}, {b} {{wg_map = {self.wgm.format(1, 1)}}} : {self.one}")
        return r

    def region(self, base, bt, row, h, lo, hi, acc, dyn_lo=None):
        """Fold rows [row, row + h) x columns [lo, hi) of `base` into `acc`: a loop over whole
        `step`-wide tiles, then the remaining columns (whole blocks, then the exact remainder).
        `dyn_lo`: an SSA start column (the loop then runs hi - lo columns from it)."""
        step = self.plan.step
        loop = (hi - lo) // step * step
        if loop:
            if acc is None:
                acc, ident = self.fresh("i"), identity_value(self.form.kind, self.form.acc)
                self.w(f'    {acc} = "arith.constant"() {{value = dense<{ident}> : {self.one}, '
                       f'wg_map = {self.wgm.format(1, 1)}}} : () -> {self.one}')
            start = dyn_lo or self.const(lo)
            if dyn_lo:
                end = self.fresh("e")
                self.w(f"    {end} = arith.addi {dyn_lo}, {self.const(loop)} : index")
            else:
                end = self.const(lo + loop)
            res, k, a = self.fresh("l"), self.fresh("k"), self.fresh("a")
            self.w(f"    {res} = scf.for {k} = {start} to {end} step {self.const(step)} "
                   f"iter_args({a} = {acc}) -> ({self.one}) {{")
            r = self.reduce_tile(base, bt, row, k, h, step, "      ")
            y = self.combine(a, r, "      ")
            self.w(f"      scf.yield {y} : {self.one}")
            self.w("    }")
            acc = res
        for off, wd in _pieces(lo + loop, hi, self.plan.width):
            acc = self.combine(acc, self.reduce_tile(base, bt, row, self.const(off), h, wd, "    "), "    ")
        return acc

    def fold_into_output(self, acc, zero):
        """The final kernel's end: the 1x1 output %O2 becomes combine(acc, %O2) (an output element
        narrower than the accumulator is widened for it and narrowed back), then the return."""
        A, T = self.form.acc, self.form.out_elt
        ot, tt, wg = f"memref<1x1x{T}>", self.tile_t(1, 1, T), self.wgm.format(1, 1)
        self.w(f"    %ot = xetile.init_tile %O2[{zero}, {zero}] : {ot} -> {tt}")
        self.w(f"    %init = xetile.load_tile %ot : {tt} -> vector<1x1x{T}>")
        init = "%init"
        if A != T:
            self.w(f"    %initw = arith.extf %init {{wg_map = {wg}}} : vector<1x1x{T}> to {self.one}")
            init = "%initw"
        res = self.combine(acc, init, "    ")
        if A != T:
            self.w(f"    %res = arith.truncf {res} {{wg_map = {wg}}} : {self.one} to vector<1x1x{T}>")
            res = "%res"
        self.w(f"    xetile.store_tile {res}, %ot : vector<1x1x{T}>, {tt}")
        self.w("    gpu.return")
        self.w("  }")

    def header(self, name, params, threads):
        self.w(f"  gpu.func @{name}({params}) kernel attributes "
               f"{{known_block_size = array<i32: {threads}, 1, 1>, xe.subgroup_size = 16 : i32}} {{")

    def x_view(self):
        f = self.form
        if len(f.shape) == 2:
            return "%X", str(f.src.type)
        src, st = "%X", str(f.src.type)
        if f.src.type.rank == 2:     # a contiguous 2D input seen as one row
            st = f"memref<{f.shape[0]}x{f.elt}>"
            self.w(f"    %X1 = memref.collapse_shape %X [[0, 1]] : {f.src.type} into {st}")
            src = "%X1"
        vt = f"memref<1x{f.shape[0]}x{f.elt}>"
        self.w(f"    %X2 = memref.expand_shape {src} [[0, 1]] output_shape [1, {f.shape[0]}] : {st} into {vt}")
        return "%X2", vt


def kernel_text(form: FullReduceForm, plan, kname: str, io) -> str:
    if None in form.shape:
        from .full_reduce_dynamic import kernel_text_dynamic

        return kernel_text_dynamic(form, plan, kname, _Writer)
    groups, covered = split(form, plan)
    A, T = form.acc, form.out_elt
    pt = f"memref<{max(groups, 1)}x{A}>"
    pv = f"memref<1x{max(groups, 1)}x{A}>"
    out = []
    if groups:
        s1 = _Writer(form, plan)
        s1.header(f"{kname}_partials", f"%X: {form.src.type}, %P: {pt}", 16)
        base, bt = s1.x_view()
        s1.w("    %bid = gpu.block_id y")
        zero = s1.const(0)
        if len(form.shape) == 2:
            s1.w(f"    %row = arith.muli %bid, {s1.const(plan.rows)} : index")
            acc = s1.region(base, bt, "%row", plan.rows, 0, form.shape[1], None)
        else:
            s1.w(f"    %col = arith.muli %bid, {s1.const(plan.band)} : index")
            acc = s1.region(base, bt, zero, 1, 0, plan.band, None, dyn_lo="%col")
        s1.w(f"    %P2 = memref.expand_shape %P [[0, 1]] output_shape [1, {groups}] : {pt} into {pv}")
        tt = s1.tile_t(1, 1, A)
        s1.w(f"    %pt = xetile.init_tile %P2[{zero}, %bid] : {pv} -> {tt}")
        s1.w(f"    xetile.store_tile {acc}, %pt : {s1.one}, {tt}")
        s1.w("    gpu.return")
        s1.w("  }")
        out.append("\n".join(s1.L))
    s2 = _Writer(form, plan)
    ot = f"memref<1x1x{T}>"
    s2.header(f"{kname}_final", f"%X: {form.src.type}, %P: {pt}, %O2: {ot}", 16)
    base, bt = s2.x_view()
    zero = s2.const(0)
    acc = None
    if groups:
        s2.w(f"    %P2 = memref.expand_shape %P [[0, 1]] output_shape [1, {groups}] : {pt} into {pv}")
        acc = s2.region("%P2", pv, zero, 1, 0, groups, None)
    if len(form.shape) == 2:
        m, n = form.shape
        if covered < m:   # the last rows, one tile exactly as high as they are
            acc = s2.region(base, bt, s2.const(covered), m - covered, 0, n, acc)
    elif covered < form.shape[0]:
        acc = s2.region(base, bt, zero, 1, covered, form.shape[0], acc)
    s2.fold_into_output(acc, zero)
    out.append("\n".join(s2.L))
    return "\n".join(out)


FullReduceIO = SourceOutputIO


def emit_launch(form: FullReduceForm, plan, mod_name: str, kname: str, io: FullReduceIO):
    """memref.alloc of the partials, the two launches, memref.dealloc; the op is erased."""
    from mlir.dialects import memref

    op = form.op
    dynamic = None in form.shape
    groups = None if dynamic else split(form, plan)[0]
    const = index_const
    with op.context, ir.InsertionPoint(op), op.location:
        acc_t = ir.Type.parse(form.acc)
        one, threads = const(1), const(16)
        if dynamic:   # one work-group per `rows` rows (2D) / `band` columns (1D), rounded up
            extent = memref.DimOp(form.src, const(0)).result
            gv = arith.CeilDivUIOp(extent, const(plan.rows if len(form.shape) == 2 else plan.band)).result
            part = memref.AllocOp(ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], acc_t), [gv], []).result
        else:
            gv = const(groups)
            part = memref.AllocOp(ir.MemRefType.get([max(groups, 1)], acc_t), [], []).result

        def launch(name, gy, args):
            launch_func(mod_name, name, (one, gy, one), (threads, one, one), args)

        if dynamic or groups:
            launch(f"{kname}_partials", gv, [form.src, part])
        # the 0-D output as a 1x1 memref (a host-side view: the kernel sees a plain 2D memref)
        out2 = memref.ReinterpretCastOp(ir.MemRefType.get([1, 1], ir.MemRefType(form.out.type).element_type),
                                        form.out, [], [], [], static_offsets=[0], static_sizes=[1, 1],
                                        static_strides=[1, 1]).result
        launch(f"{kname}_final", one, [form.src, part, out2])
        memref.DeallocOp(part)
    op.erase()
