"""Fuse a fill prologue and element-wise epilogues into the GEMM kernel of `convert-linalg-to-xetile`
(xetla-programming-guidelines.md "epilogue": bias, activation, alpha/beta scaling applied to the
accumulator before the store).

Host side (`plan_fusion`), for one matched matmul writing buffer C:

* prologue: a `linalg.fill` of C that is the previous access of C in the same block starts the
  accumulator at the fill value (C is then not read);
* epilogue: the element-wise linalg ops that follow (`linalg.generic` with all-parallel 2D loops,
  the named element-wise ops `linalg.add/sub/mul/div/max/min/exp/tanh/erf/...`,
  `linalg.elementwise`, `linalg.broadcast`, `linalg.copy`, `linalg.fill`), up to the first op that
  is neither fusible nor free of memory effects. Each fused op must write a 2D buffer of C's shape
  with the identity map; its inputs are 2D buffers (identity map), rows `(d1)` or columns `(d0)` of
  1D buffers (bias vectors) or scalars (`() -> ()`, rank-0 memrefs, values captured by the body).
  Buffers written by the chain are kept in registers between the ops; each one is stored once at
  the end unless it is a temporary (`memref.alloc` whose only other uses are the fused ops and
  deallocs), which is erased with the fused ops.

Kernel side (`KernelIO`): the kernel arguments (A, B, C when read or written, epilogue buffers and
scalars) and the text of the accumulator initialisation and of the epilogue: every vector op
(arith/math from the linalg bodies, constants, broadcasts) works on the whole work-group tile and
carries the `wg_map` of the C tile; bias vectors are loaded with their own 1 x N (or M x 1) tile and
expanded with `xetile.tile_broadcast` (rfc-xetile.md appendix 2.2); the results are stored with
C-shaped tiles.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from mlir import ir

from ...core.typeinfo import memref_info
from .linalg_match import identity_layout
from .wg_map_rule import map_text

NAMED_ELEMENTWISE = frozenset(f"linalg.{n}" for n in (
    "add", "sub", "mul", "div", "div_unsigned", "max", "min", "powf", "exp", "log", "abs", "ceil",
    "floor", "negf", "reciprocal", "round", "sqrt", "rsqrt", "square", "tanh", "erf", "select", "copy"))
_MAPPED = ("linalg.generic", "linalg.elementwise")
FUSIBLE_NAMES = NAMED_ELEMENTWISE | frozenset(_MAPPED) | {"linalg.broadcast", "linalg.fill"}

# host ops that touch no buffer contents (they may sit between the matmul and its epilogue)
_NEUTRAL_PREFIXES = ("arith.", "math.", "index.")
_NEUTRAL_OPS = ("affine.apply", "memref.dim", "memref.alloc", "memref.alloca", "memref.dealloc",
                "ub.poison", "memref.get_global")
TILE_ELEMENT_TYPES = ("f32", "f16", "bf16", "i32", "i16", "i8")


class NotFusible(Exception):
    """An op (or operand) that cannot be fused; `reason` becomes a remark."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _defining(v):
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _attrs(op) -> dict:
    return {name: op.attributes[name] for name in op.attributes}


def _is_memref(v) -> bool:
    return isinstance(v.type, ir.MemRefType) or str(v.type).startswith("memref<")


def _scalar_ok(t) -> bool:
    s = str(t)
    return bool(re.fullmatch(r"(bf16|f16|f32|f64|i1|i8|i16|i32|i64)", s))


def _results(amap):
    return [str(e) for e in amap.results]


# ------------------------------------------------------------------------------------------------
# element-wise linalg ops


@dataclass
class EwInput:
    value: object  # host ir.Value (memref or scalar)
    kind: str      # "full" | "row" | "col" | "scalar" | "rank0"


@dataclass
class EwOp:
    op: object
    inputs: list
    output: object
    block: object

    @property
    def reads_output(self) -> bool:
        return len(list(self.block.arguments[len(self.inputs)].uses)) > 0

    def captured(self):
        """Values the body uses but does not define (scalars from the enclosing function)."""
        inside = set(self.block.arguments)
        out = []
        for bop in self.block.operations:
            bop = bop.operation
            for v in bop.operands:
                if v not in inside and v not in out:
                    out.append(v)
            inside.update(bop.results)
        return out


def _buffer_ok(v, rank, what):
    info = memref_info(v)
    if info is None:
        raise NotFusible(f"{what} is not a memref ({v.type})")
    shape, elt, strides, space = info
    if len(shape) != rank:
        raise NotFusible(f"{what} has rank {len(shape)}, expected {rank}")
    if elt not in TILE_ELEMENT_TYPES:
        raise NotFusible(f"{what} has element type {elt} (tiles hold {', '.join(TILE_ELEMENT_TYPES)})")
    if space not in (None, "0", "0 : i64", "0 : i32"):
        raise NotFusible(f"{what} is not in global memory")
    identity = identity_layout(v)
    if rank == 2 and all(s is not None for s in shape):
        if strides is None or strides[1] != 1:
            raise NotFusible(f"{what} ({v.type}) needs a row-major strided layout")
    elif not identity:
        raise NotFusible(f"{what} ({v.type}) needs the identity layout")
    return shape, elt


def ins_and_out(op) -> tuple[list, object]:
    """The inputs and the one output of a destination-style linalg op on memrefs, or NotFusible."""
    name = op.name
    operands = list(op.operands)
    if len(op.results):
        raise NotFusible(f"'{name}' works on tensors (bufferize first)")
    if "operandSegmentSizes" in op.attributes:
        n_in, n_out = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    else:
        n_in, n_out = len(operands) - 1, 1
    if n_out != 1:
        raise NotFusible(f"'{name}' has {n_out} outputs, expected 1")
    return operands[:n_in], operands[n_in]


def elementwise_form(op) -> EwOp:
    """The normalised view of a fusible element-wise linalg op, or NotFusible."""
    name = op.name
    if name not in FUSIBLE_NAMES:
        raise NotFusible(f"'{name}' is not an element-wise op")
    ins, out = ins_and_out(op)
    if name in _MAPPED:
        if "indexing_maps" not in op.attributes:
            raise NotFusible(f"'{name}' has no indexing_maps")
        maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
        if name == "linalg.generic":
            iters = [str(x) for x in ir.ArrayAttr(op.attributes["iterator_types"])]
            if any("parallel" not in s for s in iters):
                raise NotFusible("linalg.generic has a reduction loop")
        results = [_results(m) for m in maps]
        if maps and maps[0].n_dims != 2:
            raise NotFusible(f"'{name}' has {maps[0].n_dims} loops; epilogues fuse 2D element-wise ops only")
    elif name == "linalg.broadcast":
        dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
        if len(dims) != 1 or dims[0] not in (0, 1):
            raise NotFusible("linalg.broadcast: only 1D -> 2D broadcasts fuse")
        results = [["d1"] if dims == [0] else ["d0"], ["d0", "d1"]]
    elif name == "linalg.fill":
        results = [[], ["d0", "d1"]]
    else:
        results = [["d0", "d1"] for _ in [*ins, out]]
    if results[-1] != ["d0", "d1"]:
        raise NotFusible(f"'{name}' output map {results[-1]} is not the identity")
    _buffer_ok(out, 2, f"the output of '{name}'")
    inputs = []
    kinds = {("d0", "d1"): "full", ("d1",): "row", ("d0",): "col", (): "scalar"}
    for i, (v, res) in enumerate(zip(ins, results)):
        kind = kinds.get(tuple(res))
        what = f"input {i} of '{name}'"
        if kind is None:
            raise NotFusible(f"{what} has the map ({', '.join(res)}) "
                             "(fusible: identity, (d1) row, (d0) column, () scalar)")
        if kind == "scalar":
            if _is_memref(v):
                if memref_info(v)[0]:
                    raise NotFusible(f"{what}: a () map needs a scalar or a rank-0 memref")
                kind = "rank0"
            elif not _scalar_ok(v.type):
                raise NotFusible(f"{what} has type {v.type}")
        else:
            _buffer_ok(v, 2 if kind == "full" else 1, what)
        inputs.append(EwInput(v, kind))
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        raise NotFusible(f"'{name}' has no single-block body")
    block = op.regions[0].blocks[0]
    if len(block.arguments) != len(ins) + 1:
        raise NotFusible(f"'{name}' body arguments do not match its operands")
    ew = EwOp(op, inputs, out, block)
    body = [o.operation for o in block.operations]
    for bop in body[:-1]:
        if not bop.name.startswith(("arith.", "math.")) or bop.regions:
            raise NotFusible(f"'{bop.name}' in the body of '{name}' (only arith/math ops are fused)")
        if len(bop.results) != 1:
            raise NotFusible(f"'{bop.name}' in the body of '{name}' has {len(bop.results)} results")
        for v in list(bop.operands) + list(bop.results):
            if not _scalar_ok(v.type):
                raise NotFusible(f"'{bop.name}' in the body of '{name}' works on {v.type}")
    term = body[-1]
    if term.name != "linalg.yield" or len(term.operands) != 1:
        raise NotFusible(f"the body of '{name}' does not yield one value")
    for v in ew.captured():
        if not _scalar_ok(v.type):
            raise NotFusible(f"the body of '{name}' uses a value of type {v.type} from outside")
    return ew


# ------------------------------------------------------------------------------------------------
# the fusion plan


@dataclass
class Fusion:
    """What one GEMM kernel computes besides C (+)= A x B, and what happens to the host ops."""

    spec: object
    fill: object = None            # linalg.fill op fused as the accumulator start
    fill_value: object = None
    ops: list = field(default_factory=list)       # EwOp, in program order
    stored: list = field(default_factory=list)    # host buffers written back (first-write order)
    erased: list = field(default_factory=list)    # temporaries removed with the fused ops
    read: list = field(default_factory=list)      # host buffers read from memory (besides A, B)
    notes: list = field(default_factory=list)     # why fusion stopped (remarks)
    anchor: object = None                         # host op before which the launch goes
    dequant: object = None                        # dequant.Dequant fused into the B path (or None)

    @classmethod
    def unfused(cls, spec) -> "Fusion":
        """The plain kernel: C is loaded, accumulated and stored."""
        return cls(spec, stored=[spec.c], anchor=spec.op)

    @property
    def fused(self) -> bool:
        return self.fill is not None or bool(self.ops)

    @property
    def load_c(self) -> bool:
        return self.fill is None

    def describe(self) -> str:
        lines = []
        if self.fill is not None:
            lines.append("  prologue         : linalg.fill fused (the accumulator starts at the fill value; "
                         "C is not read)")
        if self.ops:
            names = ", ".join(e.op.name for e in self.ops)
            lines.append(f"  epilogue         : {len(self.ops)} fused element-wise op(s): {names}")
        if self.fused:
            lines.append(f"  kernel stores    : {len(self.stored)} buffer(s); {len(self.erased)} temporary "
                         f"buffer(s) removed")
        return "\n".join(lines)


def _block_ops(block):
    return [o.operation for o in block.operations]


def _ancestor_in(op, block):
    """The op of `block` containing `op` (itself when it is in `block`), or None."""
    while op is not None:
        if op.block == block:
            return op
        parent = op.parent
        op = parent.operation if parent is not None else None
    return None


def _users_in(value, block):
    out = []
    for use in value.uses:
        owner = use.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        anc = _ancestor_in(owner, block)
        out.append(anc)
    return out


def _neutral(op) -> bool:
    if op.regions:
        return False
    name = op.name
    if name in _NEUTRAL_OPS:
        return True
    if name.startswith(_NEUTRAL_PREFIXES):
        return not any(_is_memref(v) for v in op.operands)
    return False


def _is_constant(v) -> bool:
    d = _defining(v)
    return d is not None and d.name == "arith.constant" and not _is_memref(v)


def _is_temp(v) -> bool:
    d = _defining(v)
    return d is not None and d.name in ("memref.alloc", "memref.alloca")


def plan_fusion(spec, allow_epilogue: bool = True) -> Fusion:
    """Find the fill prologue and the element-wise epilogue of the matmul `spec.op`."""
    mm = spec.op
    fusion = Fusion(spec, anchor=mm)
    block = mm.block
    ops = _block_ops(block)
    pos = {o: i for i, o in enumerate(ops)}
    i_mm = pos[mm]
    C = spec.c
    batched = spec.batch is not None
    # -- prologue ------------------------------------------------------------------------------------
    before = [pos[u] for u in _users_in(C, block) if u is not None and pos[u] < i_mm]
    if before:
        i_fill = max(before)
        prev = ops[i_fill]
        if prev.name == "linalg.fill" and len(prev.operands) == 2 and prev.operands[1] == C \
                and not prev.results and prev.operands[0].type == ir.MemRefType(C.type).element_type \
                and all(_neutral(o) for o in ops[i_fill + 1:i_mm]):
            fusion.fill, fusion.fill_value = prev, prev.operands[0]
    if batched or not allow_epilogue:
        return _finish(fusion)
    # -- epilogue ------------------------------------------------------------------------------------
    live = [C]
    read = [] if fusion.fill is not None else [C]
    M, N = spec.m, spec.n
    for op in ops[i_mm + 1:]:
        if op.name in FUSIBLE_NAMES:
            touches = any(v in live for v in op.operands)
            try:
                ew = elementwise_form(op)
                _check_epilogue_op(ew, live, M, N, spec)
            except NotFusible as e:
                if touches:
                    fusion.notes.append((op, f"element-wise op not fused into the GEMM kernel: {e.reason}"))
                break
            for inp in ew.inputs:
                if inp.kind != "scalar" and inp.value not in live and inp.value not in read:
                    read.append(inp.value)
            if ew.reads_output and ew.output not in live and ew.output not in read:
                read.append(ew.output)
            if ew.output not in live:
                live.append(ew.output)
            fusion.ops.append(ew)
            fusion.anchor = op
            continue
        if _neutral(op):
            continue
        break
    fusion.read = [v for v in read if v != C]
    fused_ops = {e.op for e in fusion.ops} | {mm} | ({fusion.fill} if fusion.fill is not None else set())
    for b in live:
        dead = _is_temp(b) and b not in read and all(
            u is not None and (u in fused_ops or u.name == "memref.dealloc") for u in _users_in(b, block))
        (fusion.erased if dead else fusion.stored).append(b)
    return _finish(fusion)


def _finish(fusion):
    if not fusion.ops:
        fusion.stored = [fusion.spec.c]
        fusion.erased = []
    return fusion


def rewrite_host(fusion: Fusion, launch, kernel_args) -> None:
    """After the launch was inserted before `fusion.anchor`: erase the matmul, the fused fill and
    element-wise ops, the dead temporaries and the host constants only they used; deallocations
    of buffers the kernel uses that sat between the matmul and the launch move after it."""
    mm = fusion.spec.op
    block = mm.block
    ops = _block_ops(block)
    pos = {o: i for i, o in enumerate(ops)}
    lo, hi = pos[mm], pos[launch]
    for v in kernel_args:
        if not _is_memref(v):
            continue
        for u in _users_in(v, block):
            if u is not None and u.name == "memref.dealloc" and lo < pos[u] < hi:
                u.move_after(launch)
    scalars = [fusion.fill_value] if fusion.fill is not None else []
    for e in fusion.ops:
        scalars += e.captured() + [i.value for i in e.inputs if i.kind == "scalar"]
    constants = []
    for v in scalars:
        d = _defining(v)
        if d is not None and d.name == "arith.constant" and d.block == block and d not in constants:
            constants.append(d)
    for e in reversed(fusion.ops):
        e.op.erase()
    mm.erase()
    if fusion.fill is not None:
        fusion.fill.erase()
    for t in fusion.erased:
        for u in list(t.uses):
            owner = u.owner.operation if hasattr(u.owner, "operation") else u.owner
            owner.erase()
        _defining(t).erase()
    for c in constants:  # host constants only the fused ops used
        if not list(c.results[0].uses):
            c.erase()


_VIEW_OPS = ("memref.subview", "memref.cast", "memref.reinterpret_cast", "memref.expand_shape",
             "memref.collapse_shape", "memref.transpose", "memref.view", "memref.memory_space_cast")


def _root(v):
    """The buffer a memref view is taken of (following view ops), else `v` itself."""
    while True:
        d = _defining(v)
        if d is None or d.name not in _VIEW_OPS:
            return v
        v = d.operands[0]


def _check_epilogue_op(ew: EwOp, live, M, N, spec):
    name = ew.op.name
    if _root(ew.output) in (_root(spec.a), _root(spec.b)):
        raise NotFusible(f"'{name}' writes an input of the matmul")
    live_roots = {_root(b) for b in live}
    for v in [i.value for i in ew.inputs if i.kind != "scalar"] + [ew.output]:
        if v not in live and _root(v) in live_roots:
            raise NotFusible(f"'{name}' accesses a view of a buffer the fused kernel holds in registers")
    reads_live = any(i.kind == "full" and i.value in live for i in ew.inputs) or \
        (ew.output in live and ew.reads_output)
    oshape = memref_info(ew.output)[0]
    if not reads_live and not (M is not None and N is not None and oshape == (M, N)):
        raise NotFusible(f"'{name}' does not read the GEMM result and its iteration space is not known to "
                         "be C's")
    for s, want in zip(oshape, (M, N)):
        if s is not None and want is not None and s != want:
            raise NotFusible(f"the output of '{name}' has shape {oshape}, C is {M}x{N}")
    for i in ew.inputs:
        if i.kind in ("scalar", "rank0"):
            continue
        shape = memref_info(i.value)[0]
        want = (M, N) if i.kind == "full" else (N,) if i.kind == "row" else (M,)
        for s, w in zip(shape, want):
            if s is not None and w is not None and s != w:
                raise NotFusible(f"operand {i.value.type} of '{name}' does not match the C tile "
                                 f"({'x'.join('?' if x is None else str(x) for x in want)})")


# ------------------------------------------------------------------------------------------------
# kernel side


def _attr_name(n: str) -> str:
    return n if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.]*", n) else '"' + n + '"'


@dataclass
class KernelEnv:
    """Names and sizes of the generated kernel the epilogue refers to."""

    wm: int
    wn: int
    acc: str
    ct: str
    c_map: tuple      # (sg_layout, sg_data)
    result: str       # the matmul result in C's element type
    c_tile: str | None
    c_tile_type: str | None


class KernelIO:
    """Kernel arguments and the fusion-dependent parts of the kernel text."""

    def __init__(self, spec, fusion: Fusion | None = None):
        self.spec = spec
        self.fusion = fusion if fusion is not None else Fusion.unfused(spec)
        f = self.fusion
        self.has_c = f.load_c or spec.c in f.stored
        self.names: dict = {}
        self.params: list = []
        self.host_args: list = []
        self._add(spec.a, "%A")
        dq = self.fusion.dequant
        self._add(spec.b if dq is None else dq.kernel_weights or dq.weights, "%B")
        if self.has_c:
            self._add(spec.c, "%C")
        for v in dq.params if dq is not None else []:
            self._add(v)
        if f.fill is not None and not _is_constant(f.fill_value):
            self._add(f.fill_value)
        for e in f.ops:
            for i in e.inputs:
                self._add_operand(i.value)
            if e.output in f.read or e.output in f.stored:
                self._add(e.output)
            for v in e.captured():
                if not _is_constant(v):
                    self._add(v)
        for v in f.stored + f.read:
            if v not in f.erased:
                self._add(v)

    def _add_operand(self, v):
        if v in self.fusion.erased:
            return
        if not _is_constant(v):
            self._add(v)

    def _add(self, v, name=None):
        if v in self.names:
            return
        if name is None:
            kind = "X" if _is_memref(v) else "s"
            name = f"%{kind}{sum(1 for n, _ in self.params if n.startswith('%' + kind))}"
        self.names[v] = name
        self.params.append((name, str(v.type)))
        self.host_args.append(v)

    # -- text pieces ------------------------------------------------------------------------------
    def acc_init(self, env: KernelEnv, w) -> str | None:
        """Lines starting the accumulator from the fused fill; returns its name (None: load C)."""
        f = self.fusion
        if f.fill is None:
            return None
        wm, wn, acc, ct = env.wm, env.wn, env.acc, env.ct
        wg = map_text(env.c_map)
        vt = ir.VectorType.get([wm, wn], ir.Type.parse(acc))
        d = _defining(f.fill_value)
        if d is not None and d.name == "arith.constant":
            a = d.attributes["value"]
            val = ir.FloatAttr(a).value if acc == "f32" else ir.IntegerAttr(a).value
            elt = vt.element_type
            sa = ir.FloatAttr.get(elt, val) if acc == "f32" else ir.IntegerAttr.get(elt, val)
            dense = str(ir.DenseElementsAttr.get_splat(vt, sa)).split(" : ")[0]
            w(f'    %acc0 = "arith.constant"() {{value = {dense} : {vt}, wg_map = {wg}}} : () -> {vt}')
            return "%acc0"
        s = self.names[f.fill_value]
        w(f'    %fillv = "vector.broadcast"({s}) {{wg_map = {wg}}} : ({ct}) -> vector<{wm}x{wn}x{ct}>')
        if ct != acc:
            w(f'    %acc0 = "arith.extf"(%fillv) {{wg_map = {wg}}} : (vector<{wm}x{wn}x{ct}>) -> {vt}')
            return "%acc0"
        return "%fillv"

    def tail(self, env: KernelEnv, w) -> None:
        """Epilogue ops and the stores of every written buffer."""
        _Epilogue(self, env, w).run()


class _Epilogue:
    def __init__(self, io: KernelIO, env: KernelEnv, w):
        self.io, self.env, self.w = io, env, w
        self.wg = map_text(env.c_map)
        self.n = 0
        self.cache: dict = {}

    def fresh(self, p="e"):
        self.n += 1
        return f"%{p}{self.n}"

    def vt(self, elt) -> str:
        return f"vector<{self.env.wm}x{self.env.wn}x{elt}>"

    def tile_t(self, elt, shape=None, data=None) -> str:
        env = self.env
        shape = shape or (env.wm, env.wn)
        layout, cdata = env.c_map
        data = data or cdata
        return (f"!xetile.tile<{shape[0]}x{shape[1]}x{elt}, #xetile.tile_attr<wg_map = <sg_layout = "
                f"[{layout[0]}, {layout[1]}], sg_data = [{data[0]}, {data[1]}]>>>")

    # -- operands --------------------------------------------------------------------------------
    def full_tile(self, v):
        """init_tile of host buffer `v` at the C tile position (cached)."""
        key = ("tile", v)
        if key in self.cache:
            return self.cache[key]
        w = self.w
        name = self.io.names[v]
        shape, elt = memref_info(v)[:2]
        t = self.tile_t(elt)
        shp = ""
        if any(s is None for s in shape):
            d0, d1 = self.fresh("d"), self.fresh("d")
            w(f"    {d0} = memref.dim {name}, %c0 : {v.type}")
            w(f"    {d1} = memref.dim {name}, %c1 : {v.type}")
            shp = f", [{d0}, {d1}], [{d1}, %c1]"
        tile = self.fresh("t")
        w(f"    {tile} = xetile.init_tile {name}[%m, %n]{shp} : {v.type} -> {t}")
        self.cache[key] = (tile, t)
        return tile, t

    def load_full(self, v):
        key = ("full", v)
        if key not in self.cache:
            tile, t = self.full_tile(v)
            elt = memref_info(v)[1]
            r = self.fresh()
            self.w(f"    {r} = xetile.load_tile {tile} : {t} -> {self.vt(elt)}")
            self.cache[key] = (r, elt)
        return self.cache[key]

    def load_bias(self, v, kind):
        key = (kind, v)
        if key in self.cache:
            return self.cache[key]
        w, env = self.w, self.env
        name = self.io.names[v]
        (size,), elt = memref_info(v)[:2]
        layout, data = env.c_map
        row = kind == "row"
        if size is None:
            d = self.fresh("d")
            w(f"    {d} = memref.dim {name}, %c0 : {v.type}")
            out_shape = f"[1, {d}]" if row else f"[{d}, 1]"
            mt = f"memref<{'1x?' if row else '?x1'}x{elt}>"
            shp = f", [%c1, {d}], [{d}, %c1]" if row else f", [{d}, %c1], [%c1, %c1]"
        else:
            out_shape = f"[1, {size}]" if row else f"[{size}, 1]"
            mt = f"memref<{'1x' + str(size) if row else str(size) + 'x1'}x{elt}>"
            shp = ""
        e2 = self.fresh("v")
        w(f"    {e2} = memref.expand_shape {name} [[0, 1]] output_shape {out_shape} : {v.type} into {mt}")
        shape = (1, env.wn) if row else (env.wm, 1)
        tdata = (1, data[1]) if row else (data[0], 1)
        t = self.tile_t(elt, shape, tdata)
        tile = self.fresh("t")
        off = "[%c0, %n]" if row else "[%m, %c0]"
        w(f"    {tile} = xetile.init_tile {e2}{off}{shp} : {mt} -> {t}")
        small = self.fresh()
        w(f"    {small} = xetile.load_tile {tile} : {t} -> vector<{shape[0]}x{shape[1]}x{elt}>")
        r = self.fresh()
        w(f"    {r} = xetile.tile_broadcast {small} [{0 if row else 1}] {{wg_map = {self.wg}}} : "
          f"vector<{shape[0]}x{shape[1]}x{elt}> -> {self.vt(elt)}")
        self.cache[key] = (r, elt)
        return self.cache[key]

    def scalar(self, v):
        """A host scalar (kernel argument, rank-0 memref or constant) broadcast to the C tile."""
        key = ("scalar", v)
        if key in self.cache:
            return self.cache[key]
        w = self.w
        d = _defining(v)
        if _is_memref(v):
            elt = str(ir.MemRefType(v.type).element_type)
            s = self.fresh("s")
            w(f"    {s} = memref.load {self.io.names[v]}[] : {v.type}")
        elif d is not None and d.name == "arith.constant":
            elt = str(v.type)
            vt = ir.VectorType.get([self.env.wm, self.env.wn], v.type)
            dense = str(ir.DenseElementsAttr.get_splat(vt, d.attributes["value"])).split(" : ")[0]
            r = self.fresh()
            w(f'    {r} = "arith.constant"() {{value = {dense} : {vt}, wg_map = {self.wg}}} : () -> {vt}')
            self.cache[key] = (r, elt)
            return self.cache[key]
        else:
            elt = str(v.type)
            s = self.io.names[v]
        r = self.fresh()
        w(f'    {r} = "vector.broadcast"({s}) {{wg_map = {self.wg}}} : ({elt}) -> {self.vt(elt)}')
        self.cache[key] = (r, elt)
        return self.cache[key]

    # -- ops -------------------------------------------------------------------------------------
    def run(self):
        io, env, w = self.io, self.env, self.w
        f = io.fusion
        live = {io.spec.c: (env.result, env.ct)}
        for e in f.ops:
            vals = {}
            for arg, inp in zip(e.block.arguments, e.inputs):
                if inp.kind == "full":
                    vals[arg] = live.get(inp.value) or self.load_full(inp.value)
                elif inp.kind in ("row", "col"):
                    vals[arg] = self.load_bias(inp.value, inp.kind)
                else:
                    vals[arg] = self.scalar(inp.value)
            out_arg = e.block.arguments[len(e.inputs)]
            if e.reads_output:
                vals[out_arg] = live.get(e.output) or self.load_full(e.output)
            body = [o.operation for o in e.block.operations]
            for bop in body[:-1]:
                if bop.name == "arith.constant":
                    vals[bop.results[0]] = self.scalar(bop.results[0])
                    continue
                ops = [vals[v] if v in vals else self.scalar(v) for v in bop.operands]
                res = bop.results[0]
                r = self.fresh()
                attrs = [f"{_attr_name(k)} = {a}" for k, a in _attrs(bop).items()]
                attrs.append(f"wg_map = {self.wg}")
                w(f'    {r} = "{bop.name}"({", ".join(n for n, _ in ops)}) {{{", ".join(attrs)}}} : '
                  f'({", ".join(self.vt(t) for _, t in ops)}) -> {self.vt(res.type)}')
                vals[res] = (r, str(res.type))
            y = body[-1].operands[0]
            live[e.output] = vals[y] if y in vals else self.scalar(y)
        for b in f.stored:
            val, elt = live[b]
            if b == io.spec.c:
                tile, t = env.c_tile, env.c_tile_type
            else:
                tile, t = self.full_tile(b)
            w(f"    xetile.store_tile {val}, {tile} : {self.vt(elt)}, {t}")
