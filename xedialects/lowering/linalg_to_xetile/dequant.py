"""Recognize a weight-dequantizing `linalg.generic` feeding a GEMM's B operand (W8A16 / W4A16) so that
`convert-linalg-to-xetile` fuses it into the GEMM kernel's B path (docs/quantized-gemm.md).

The host form (after bufferization): a temporary K x N f16/bf16 buffer written only by an all-parallel 2D
`linalg.generic` whose inputs are the integer weights (identity map), scales and optional zero points
per column (`(d1)`) or per group of K rows (`(d0 floordiv G, d1)`), and read by the matmul as B; or the
framework layout, an N x K temporary the matmul reads transposed (weights N x K, parameters `(d0)` or
`(d0, d1 floordiv G)`, i4 packed along K; docs/quantized-gemm.md "N x K weights"). The kernel
side is `dequant_kernel.py`. A producer that dequantizes but is not in this form gets a remark and keeps
its own kernel. The same checks (`recognize_generic`, the dimensions' roles in `Roles`) serve the matrix of a
gemv (`recognize_gemv`: a matvec's N x K weights, a vecmat's K x N; kernel side `dequant_gemv.py`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from mlir import ir

from ...core.typeinfo import memref_info
from .gemm_epilogue import _block_ops, _defining, _neutral, _users_in
from .linalg_match import identity_layout

WEIGHT_TYPES = ("i8", "i4")
OUT_TYPES = ("f16", "bf16")
PARAM_TYPES = ("f16", "bf16", "f32", "i8")
BODY_OPS = ("arith.sitofp", "arith.extsi", "arith.extf", "arith.truncf", "arith.subf", "arith.mulf",
            "arith.addf", "arith.subi", "arith.constant")


class NotDequant(Exception):
    """A producer of B that dequantizes but is not fused; `reason` becomes a remark at it."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class DqInput:
    value: object   # host memref (or scalar)
    kind: str       # "weights" | "col" | "group" | "scalar"


@dataclass
class Dequant:
    op: object            # the linalg.generic
    buffer: object        # the K x N temporary it writes (the matmul's B; a gemv's matrix: Roles; N x K weights: N x K)
    weights: object       # the K x N integer memref (a matvec's and GEMM_B_NK's: N x K)
    wtype: str            # "i8" | "i4"
    out_type: str         # "f16" | "bf16"
    inputs: list          # DqInput per block argument, in operand order
    block: object
    group: int | None     # G of the per-group inputs (None: per output only)
    kernel_weights: object = None   # what the kernel takes for the weights (host_view); None: `weights`
    k_dim: int = 0        # the reduced dimension of the matrix (Roles.k_dim: 1 for a matvec's N x K weights)
    role: str = "B"       # the operand it becomes: a GEMM's B, a gemv's A

    @property
    def nk(self) -> bool:
        """A GEMM's B from weights stored N x K (GEMM_B_NK: the matmul reads B transposed)."""
        return self.role == "B" and self.k_dim == 1

    @property
    def params(self) -> list:
        """Host memrefs the kernel reads besides A and the weights (scales, zero points)."""
        return [i.value for i in self.inputs if i.kind in ("col", "group")]

    def describe(self) -> str:
        along = "rows" if self.k_dim == 0 else "columns"
        per = f"per group of {self.group} K {along}" if self.group else f"per {'column' if self.k_dim == 0 else 'row'}"
        kinds = ", ".join(f"{i.kind} {memref_info(i.value)[1]}" for i in self.inputs if i.kind != "weights")
        return (f"  {self.role} prologue       : {self.wtype} weights dequantized to {self.out_type} in registers "
                f"({per}; {kinds}); the {self.out_type} {self.role} is never written")


def _is_int_weights(v) -> bool:
    info = memref_info(v)
    return info is not None and info[1] in WEIGHT_TYPES


def producer(spec):
    """The linalg.generic writing the matmul's B just before it (same block), or None."""
    return _int_producer(spec.b, spec.op)


GEMV_MATRIX = {"linalg.matvec": 0, "linalg.vecmat": 1}   # which operand of a gemv is the weight matrix


def gemv_producer(op):
    """The dequantizing generic writing the matrix of a linalg.matvec / vecmat, or None: such gemvs keep
    their own kernel (the remark says how to get the fused one)."""
    i = GEMV_MATRIX.get(op.name)
    return None if i is None else _int_producer(op.operands[i], op)


def _int_producer(value, user):
    """The last linalg.generic before `user` in its block that writes `value` from an integer input."""
    block = user.block
    ops = _block_ops(block)
    pos = {o: i for i, o in enumerate(ops)}
    writers = [u for u in _users_in(value, block)
               if u is not None and u.name == "linalg.generic" and pos[u] < pos[user]]
    if not writers:
        return None
    gen = max(writers, key=pos.get)
    ins = list(gen.operands)
    if ins[-1] != value or not any(_is_int_weights(v) for v in ins[:-1]):
        return None
    return gen


@dataclass(frozen=True)
class Roles:
    """Where the dequantized matrix's dimensions go in the op that reads it. `k_dim`: the reduced one (0: a
    matmul's K x N B and a vecmat's K x N matrix; 1: a matvec's N x K matrix, a linear layer's out x in
    weight); the other is the output's. `names`: the two dimensions' letters in order; `group_rule`: why a
    group is a multiple of 16 for this kernel."""
    k_dim: int
    names: tuple
    group_rule: str

    @property
    def out_map(self) -> list:
        return [f"d{1 - self.k_dim}"]

    def group_of(self, res: list):
        """G of a per-group map: the identity with the K dimension floordiv G, else None."""
        if len(res) != 2 or res[1 - self.k_dim] != f"d{1 - self.k_dim}":
            return None
        m = re.fullmatch(rf"d{self.k_dim} floordiv (\d+)", res[self.k_dim])
        return int(m.group(1)) if m else None

    def maps_text(self) -> str:
        g = ["d0", "d1"]
        g[self.k_dim] = f"d{self.k_dim} floordiv G"
        return (f"the weights (d0, d1), per-{'column' if self.k_dim == 0 else 'row'} ({self.out_map[0]}), "
                f"per-group ({', '.join(g)})")


GEMM_B = Roles(0, ("K", "N"), "the K step of the fused kernel divides the group and is a multiple of DPAS K = 16")
GEMM_B_NK = Roles(1, ("N", "K"), GEMM_B.group_rule)   # N x K weights (the framework layout), B read transposed
GEMM_ROLES = (GEMM_B, GEMM_B_NK)
GEMV_ROLES = {"linalg.vecmat": Roles(0, ("K", "N"), "the fused gemv's K step divides the group"),
              "linalg.matvec": Roles(1, ("N", "K"), "the fused gemv's K step divides the group")}


def recognize(spec) -> Dequant | None:
    """The Dequant of `spec`'s B, None when B has no integer-weight producer, NotDequant when it has one
    this lowering does not fuse."""
    gen = producer(spec)
    if gen is None:
        return None
    if spec.batch is not None:
        raise NotDequant("only a 2D matmul (not batched) fuses the dequantization")
    if spec.dynamic:
        raise NotDequant("dynamic shapes: the fused dequantization needs static M, N, K")
    if spec.transpose_b:
        return recognize_generic(gen, spec.b, spec.op, spec.c, (spec.n, spec.k), GEMM_B_NK)
    return recognize_generic(gen, spec.b, spec.op, spec.c, (spec.k, spec.n), GEMM_B)


def recognize_gemv(form, gen) -> Dequant:
    """The Dequant of a gemv's matrix written by `gen` (gemv.GemvForm `form`), NotDequant when not fused."""
    if form.batched or form.dynamic:
        raise NotDequant("only a static 2D gemv fuses the dequantization (not batched, static sizes)")
    if form.scalars:
        raise NotDequant("a gemv scaling its product by host scalars is not fused")
    return recognize_generic(gen, form.a, form.op, form.y, (form.m, form.n), GEMV_ROLES[form.op.name])


def recognize_generic(gen, buffer, user, out, shape: tuple, roles: Roles) -> Dequant:
    """The checks every fused dequantization passes: `gen` writes the temporary `buffer` (rows x cols =
    `shape`) that only `user` reads (its output `out` may be filled in between), with the weights, per-output
    and per-group parameters placed by `roles`."""
    block = user.block
    ops = _block_ops(block)
    pos = {o: i for i, o in enumerate(ops)}
    what_b = "B" if roles in GEMM_ROLES else "the matrix"
    d = _defining(buffer)
    if d is None or d.name != "memref.alloc" or not identity_layout(buffer):
        raise NotDequant(f"{what_b} is not a temporary (memref.alloc with the identity layout)")
    reader = "the matmul" if roles in GEMM_ROLES else "the gemv"
    for u in _users_in(buffer, block):
        if u not in (gen, user) and (u is None or u.name != "memref.dealloc"):
            raise NotDequant(f"the dequantized {what_b.replace('the ', '')} is also used by '{u.name if u else 'a nested op'}' (it must "
                             f"stay a temporary only {reader} reads)")
    for op in ops[pos[gen] + 1:pos[user]]:
        if not _neutral(op) and not (op.name == "linalg.fill" and op.operands[-1] == out) and \
                op.name != "memref.expand_shape":    # a view of another buffer (B's users are checked above)
            raise NotDequant(f"'{op.name}' sits between the dequantization and {reader}")
    iters = [str(x) for x in ir.ArrayAttr(gen.attributes["iterator_types"])]
    if len(iters) != 2 or any("parallel" not in s for s in iters):
        raise NotDequant("the dequantizing linalg.generic is not 2D all-parallel")
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(gen.attributes["indexing_maps"])]
    operands = list(gen.operands)
    if [str(e) for e in maps[-1].results] != ["d0", "d1"]:
        raise NotDequant(f"the dequantizing linalg.generic does not write {what_b} with the identity map")
    out_type = memref_info(buffer)[1]
    if out_type not in OUT_TYPES:
        raise NotDequant(f"dequantized type {out_type} (fused: {', '.join(OUT_TYPES)})")
    kd, (r_name, c_name) = roles.k_dim, roles.names
    K, O = shape[kd], shape[1 - kd]
    group_shape = lambda g: tuple(K // g if i == kd else O for i in range(2))  # noqa: E731
    inputs, weights, groups = [], None, set()
    for i, (v, amap) in enumerate(zip(operands[:-1], maps[:-1])):
        res = [str(e) for e in amap.results]
        info = memref_info(v)
        what = f"input {i} ({v.type})"
        if info is None:
            if res:
                raise NotDequant(f"{what} is not a memref")
            inputs.append(DqInput(v, "scalar"))
            continue
        vshape, elt, strides, space = info
        if space not in (None, "0", "0 : i64", "0 : i32"):
            raise NotDequant(f"{what} is not in global memory")
        if not identity_layout(v):
            raise NotDequant(f"{what} needs the identity layout")
        if res == ["d0", "d1"] and elt in WEIGHT_TYPES and weights is None:
            if tuple(vshape) != tuple(shape):
                raise NotDequant(f"{what}: the weights must be {r_name} x {c_name} = {shape[0]}x{shape[1]}")
            if elt == "i4" and shape[1] % 2:
                raise NotDequant(f"{what}: i4 weights need an even {c_name} (two per byte along {c_name}), "
                                 f"{c_name} = {shape[1]}")
            weights = DqInput(v, "weights")
            inputs.append(weights)
            continue
        if elt not in PARAM_TYPES:
            raise NotDequant(f"{what}: scales and zero points are {', '.join(PARAM_TYPES)}")
        if res == roles.out_map and tuple(vshape) == (O,):
            inputs.append(DqInput(v, "col"))
            continue
        g = roles.group_of(res)
        if g is not None:
            if g % 16:
                raise NotDequant(f"{what}: group {g} is not a multiple of 16 ({roles.group_rule})")
            if K % g or tuple(vshape) != group_shape(g):
                want = "x".join(map(str, group_shape(g))) if K % g == 0 else "?"
                raise NotDequant(f"{what}: per-group parameters of group {g} must be {want} with G dividing K = {K}")
            groups.add(g)
            inputs.append(DqInput(v, "group"))
            continue
        raise NotDequant(f"{what} has the map ({', '.join(res)}) (fused: {roles.maps_text()})")
    if weights is None:
        raise NotDequant(f"no {r_name} x {c_name} integer weights input with the identity map")
    if len(groups) > 1:
        raise NotDequant(f"per-group parameters with different group sizes {sorted(groups)}")
    block_ = gen.regions[0].blocks[0]
    body = [o.operation for o in block_.operations]
    for bop in body[:-1]:
        if bop.name not in BODY_OPS or len(bop.results) != 1:
            raise NotDequant(f"'{bop.name}' in the dequantization body (fused: {', '.join(BODY_OPS)})")
        if str(bop.results[0].type) == "i4":
            raise NotDequant(f"'{bop.name}' computes in i4 (the kernel holds i4 weights sign-extended in i8: only "
                             "conversions from i4 are fused)")
    for v in _captured(block_):
        d = _defining(v)
        if d is None or d.name != "arith.constant":
            raise NotDequant("the dequantization body uses a value from outside that is not a constant")
    if len(list(block_.arguments[-1].uses)):
        raise NotDequant("the dequantization body reads its output")
    group = groups.pop() if groups else None
    return Dequant(gen, buffer, weights.value, memref_info(weights.value)[1], out_type, inputs, block_, group,
                   k_dim=kd, role="B" if roles in GEMM_ROLES else "A")


DECODE_M = 32   # M up to this is a decode shape (docs/quantized-gemm.md "Decode shapes")
MAX_B_PIECE = 32 * 32   # elements of B one subgroup dequantizes per K step (docs/quantized-gemm.md "Planning")
I4_MIN_COLUMNS = 32     # columns of i4 weights in a subgroup's piece: 16 bytes, the narrowest 8-bit 2D block read
TALL_ROWS = 64          # C rows of a subgroup of a prefill plan with dequantized B (docs/quantized-gemm.md "Planning")


def register_pieces(plan, wtype: str, nk: bool = False) -> list[tuple[dict, str]]:
    """Plan overrides, best first (the first legal one wins), when a subgroup's B piece (k_step x its
    columns) exceeds MAX_B_PIECE: the dequantization's i8 / i16 / f16 copies of a larger piece spill (IGC
    2.40, pvc, a 512 x 4096 x 4096 plan with 32 x 64 pieces: 60 (i8) and 411 (i4) scratch messages per
    K-loop iteration). First subgroup C tiles of TALL_ROWS rows with the narrowest lane-per-column piece
    (i8 32 x 16, i4 32 x 32: fewer subgroup rows repeat the dequantization of a piece; IGC 2.40, pvc, 512 x
    4096 x 4096: W8A16 280 instructions per 16 DPAS, W4A16 1,223 per 32); then narrower subgroup columns at
    the same k_step (more subgroup columns, else a
    narrower work-group tile): a 32-row piece of i8 weights is read with lane = column (the 8-bit
    transform message), so the converted weights are DPAS's VNNI B operand with no lane shuffles (IGC
    2.40, 512 x 4096 x 4096 W8A16: 507 instructions per 16 DPAS against 1,065 at k_step 16 on pvc);
    else the step drops to DPAS K. i4 weights get pieces of at least I4_MIN_COLUMNS (IGC 2.40, 4096 x 4096
    W4A16 at M = 1: 1,180 instructions per 4 DPAS against 1,246 per 2 with 16-column pieces read per lane).
    `nk`: weights stored N x K, read transposed (k_step or k_step / 2 bytes along K per column of B): any
    piece 16 columns wide reads as a block, i4 ones too (docs/quantized-gemm.md "N x K weights").
    Empty when the piece fits."""
    dk, ks, n = plan.dpas[2], plan.k_step, plan.sg_data[1]
    piece = ks * n
    if wtype == "i4" and not nk and ks * I4_MIN_COLUMNS <= MAX_B_PIECE and n < I4_MIN_COLUMNS and \
            I4_MIN_COLUMNS % n == 0:
        f = I4_MIN_COLUMNS // n
        (wm, wn), (r, c) = plan.wg_tile, plan.sg_layout
        why = (f"subgroup C tile {plan.sg_data[0]}x{I4_MIN_COLUMNS}: {I4_MIN_COLUMNS} columns of i4 weights are "
               f"{I4_MIN_COLUMNS // 2} bytes, the narrowest 2D block read of bytes ({n} columns: per-lane loads)")
        return [({"wg_tile": (wm, wn * f), "sg_layout": (r, c)}, why)] + (
            [({"wg_tile": (wm, wn), "sg_layout": (r, c // f)}, why)] if c % f == 0 else [])
    if piece <= MAX_B_PIECE or ks <= dk:
        return []
    out = []
    (wm, wn), narrow = plan.wg_tile, 16 if wtype == "i8" or nk else I4_MIN_COLUMNS
    if wm % TALL_ROWS == 0 and ks * narrow <= MAX_B_PIECE:
        read = "N x K weights read transposed" if nk else f"16 bytes of {wtype}"
        why = (f"subgroup C tile {TALL_ROWS}x{narrow}: the B piece {ks} x {narrow} is the narrowest read with lane = "
               f"column ({read}), and {TALL_ROWS} C rows per subgroup halve the subgroup rows "
               f"dequantizing the same piece ({ks} x {n}: {piece} elements of B per K step, at most {MAX_B_PIECE} "
               "stay in registers)")
        out += [({"wg_tile": (wm, w), "sg_layout": (wm // TALL_ROWS, w // narrow)}, why)
                for w in (wn, wn // 2, wn // 4) if w >= narrow and w % narrow == 0]
    cols = MAX_B_PIECE // ks
    if cols >= plan.dpas[1] and n % cols == 0:
        f = n // cols
        (wm, wn), (r, c) = plan.wg_tile, plan.sg_layout
        why = (f"subgroup C tile {plan.sg_data[0]}x{cols}: a subgroup dequantizes {ks} x {cols} elements of B per "
               f"K step (at most {MAX_B_PIECE} stay in registers; {ks} x {n}: {piece}), 32-row pieces read with "
               "lane = column, the layout DPAS's B takes after conversion")
        out += [({"wg_tile": (wm, wn), "sg_layout": (r, c * f)}, why),
                ({"wg_tile": (wm, wn // f), "sg_layout": (r, c)}, why)]
    out.append(({"k_step": dk}, f"k_step {dk}: a subgroup dequantizes k_step x {n} elements of B per step, at "
                                f"most {MAX_B_PIECE} keep the dequantization's copies in registers (k_step {ks}: "
                                f"{piece})"))
    return out


def decode_reason(plan, hw) -> str | None:
    """The plan's reason for keeping DPAS at a decode shape, from the performance model's terms (None
    above DECODE_M rows or without perf facts)."""
    from ...passes.analysis.perf_model import predict, work_from_plan

    m = plan.planned_mnk[0]
    if m > DECODE_M or hw.perf is None:
        return None
    p = predict(hw, work_from_plan(plan, hw))
    comp, mem = p.terms.get("compute", 0.0), p.terms.get("hbm", 0.0)
    us = lambda t: f"{t * 1e6:.2f} us"  # noqa: E731
    if comp <= mem:
        return (f"decode shape (M = {m} <= {DECODE_M}): DPAS kept, the model's compute term {us(comp)} is below "
                f"its HBM term {us(mem)} (weights read as {plan.b_storage_type}); vector FMAs would not shorten "
                f"a kernel bound by {p.bound} (the dequantization's own vector work is not in these terms: "
                "docs/quantized-gemm.md \"Figures\")")
    return (f"decode shape (M = {m} <= {DECODE_M}): DPAS kept; the model's compute term {us(comp)} exceeds its HBM "
            f"term {us(mem)}, and vector FMAs have a lower peak than DPAS")


def _captured(block):
    inside = set(block.arguments)
    out = []
    for bop in block.operations:
        bop = bop.operation
        out += [v for v in bop.operands if v not in inside and v not in out]
        inside.update(bop.results)
    return out


def host_view(dq: Dequant):
    """The weights as the kernel takes them, set as `dq.kernel_weights`: i8 weights as they are; i4 weights
    (memref<K x N x i4>, packed two per byte along N, even elements in the low nibble) through a
    `builtin.unrealized_conversion_cast` to the memref<K x N/2 x i8> of their bytes, placed before the
    dequantizing generic (docs/quantized-gemm.md "i4 weights")."""
    if dq.wtype != "i4":
        dq.kernel_weights = dq.weights
        return dq.weights
    shape = list(ir.MemRefType(dq.weights.type).shape)
    with ir.InsertionPoint(dq.op), dq.op.location:
        t = ir.MemRefType.get(shape[:-1] + [shape[-1] // 2], ir.IntegerType.get_signless(8))
        cast = ir.Operation.create("builtin.unrealized_conversion_cast", results=[t], operands=[dq.weights])
    dq.kernel_weights = cast.results[0]
    return dq.kernel_weights


def erase_host(dq: Dequant) -> None:
    """After the fused launch: the dequantizing generic, its temporary and the temporary's deallocs go."""
    dq.op.erase()
    for u in list(dq.buffer.uses):
        owner = u.owner.operation if hasattr(u.owner, "operation") else u.owner
        owner.erase()
    _defining(dq.buffer).erase()
