"""Subgroup-level upstream xegpu -> our VC-mode XeGPU, one function per op (each returns text lines).

Offsets on accesses become a descriptor at those offsets (a fresh `create_nd_tdesc` when the upstream
descriptor was created without offsets in view, else `update_nd_offset`); `array_length = N` accesses
become N single-block accesses (results stacked with `vector.insert`); dpas B (plain <K x N>) is put
in VNNI layout <K/v x N x v> by `vector.shape_cast` + `vector.transpose`, once per value and block;
`gpu.thread_id` / `gpu.global_id` become the values of the subgroup's first lane.
"""
from __future__ import annotations

from mlir import ir

from ...core.kinds import ATOMIC_RMW_KINDS
from . import matrix_ops, xevm_block2d
from .op_attrs import DYNAMIC, HINTS, ImportOpError, attr, check_attrs, ints, props
from .types import (ImportTypeError, element_bits, ours, parse_tdesc, vector_parts, vector_text, zero_of)

FENCE_KIND = {"global": "ugm", "slm": "slm"}
FENCE_SCOPE = {"workgroup": "group", "gpu": "gpu"}


def segments(op) -> list[int]:
    return list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))


def _enum(a) -> str:
    """`#xegpu<memory_space global>` (or `#xegpu.x<global>`) -> `global`."""
    s = str(a)
    s = s[s.index("<") + 1:s.rindex(">")] if "<" in s else s
    return s.split()[-1]


def mixed(names: list[str], static: list[int]) -> list[str]:
    it = iter(names)
    return [next(it) if s == DYNAMIC else str(s) for s in static] if static else list(names)


class Translator:
    """State of one module's translation: value names, fresh names, VNNI conversions done per block."""

    def __init__(self, module_op, state):
        self.state = state
        self.counter = 0
        self.vnni_done: dict[tuple, str] = {}
        self.block = 0          # id of the printed block being translated (set by the driver)
        self.scope = 0          # number of the function being translated: value names are per function
        self.simt = False       # lane-level kernel: SIMT mode with sg_map (set by the driver)
        self.rows_types = frozenset()  # lane level: descriptor types loaded transposed (lane i: row i)
        self.loaded: dict[str, tuple[str, str]] = {}  # lane level: load result -> (our fragment, its type)
        self.vnni_values: dict[str, str] = {}  # loads done in VNNI layout (dpas B only) -> their type
        self.replace: dict[str, list[str]] = {}  # non-xegpu ops whose line a translation replaced
        self.mem_views: dict[tuple, tuple] = {}  # mem_desc names -> (their SLM view's type, MemDesc)

    @property
    def mode(self) -> str:
        """The mode attribute of a translated op: ` {mode = vc}` at subgroup level, none in SIMT mode."""
        return "" if self.simt else " {mode = vc}"

    def name(self, v) -> str:
        return v.get_name(self.state)

    def fresh(self) -> str:
        self.counter += 1
        return f"%imp_{self.counter}"

    def const(self, value: int, lines: list[str]) -> str:
        n = self.fresh()
        lines.append(f"{n} = arith.constant {value} : index")
        return n


# ---------------------------------------------------------------------------------------------- helpers

def _tdesc_of(v):
    return parse_tdesc(str(v.type))


def _defining(v):
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _access_offsets(op, tr, n_td=1):
    """The offsets of an access (names or literals), or None when the op has none."""
    names = [tr.name(v) for v in list(op.operands)[n_td:]]
    static = ints(attr(op, "const_offsets"))
    if not names and not static:
        return None
    return mixed(names, static)


def _create_parts(create, tr):
    """(source name, source type, shape/strides text) of an upstream create_nd_tdesc."""
    n_src, n_off, n_shape, n_str = segments(create)
    names = [tr.name(v) for v in create.operands]
    shape = mixed(names[1 + n_off:1 + n_off + n_shape], ints(attr(create, "const_shape")))
    strides = mixed(names[1 + n_off + n_shape:], ints(attr(create, "const_strides")))
    extra = f", [{', '.join(shape)}], [{', '.join(strides)}]" if shape else ""
    return names[0], str(create.operands[0].type), extra, len(shape)


def _source_rank(create, tr) -> int:
    t = create.operands[0].type
    if isinstance(t, ir.MemRefType):
        return ir.MemRefType(t).rank
    return _create_parts(create, tr)[3] or len(_tdesc_of(create.result).shape)


def _at(op, td_value, offsets, tr, lines, td: "TDescView") -> str:
    """A descriptor name for the block of `td_value` at `offsets` (None: the descriptor itself)."""
    if offsets is None:
        return tr.name(td_value)
    create = _defining(td_value)
    if create is not None and create.name == "xegpu.create_nd_tdesc" and segments(create)[1] == 0:
        src, srct, extra, _ = _create_parts(create, tr)
        rank = _source_rank(create, tr)
        offs = ["0"] * (rank - len(offsets)) + list(offsets)
        n = tr.fresh()
        lines.append(f"{n} = xegpu.create_nd_tdesc {src}[{', '.join(offs)}]{extra}{tr.mode} : {srct} -> "
                     f"{td.ours}")
        return n
    if len(offsets) != len(td.td.shape):
        raise ImportOpError(f"'{op.name}' with {len(offsets)} offsets on a {len(td.td.shape)}-D descriptor that is "
                            "not created in view (our update_nd_offset takes one offset per descriptor dimension)")
    n = tr.fresh()
    lines.append(f"{n} = xegpu.update_nd_offset {tr.name(td_value)}, [{', '.join(offsets)}]{tr.mode} : "
                 f"{td.ours}")
    return n


def _shift(offsets, dim_delta, tr, lines):
    """`offsets` with `delta` added to the last one (literal or a new arith.addi)."""
    if offsets is None:
        return None
    *head, last = offsets
    if dim_delta == 0:
        return list(offsets)
    if last.lstrip("-").isdigit():
        return head + [str(int(last) + dim_delta)]
    c = tr.const(dim_delta, lines)
    n = tr.fresh()
    lines.append(f"{n} = arith.addi {last}, {c} : index")
    return head + [n]


class TDescView:
    def __init__(self, value, simt: bool = False, rows: bool = False):
        self.td = _tdesc_of(value)
        one = parse_tdesc(str(value.type))
        one.array_length = 1
        self.ours = ours(one, simt, rows)


def _blocks(op, td_value, tr, lines, n_td=1):
    """Descriptor names for each of the array_length blocks of an access."""
    view = TDescView(td_value, tr.simt, str(td_value.type) in tr.rows_types)
    offsets = _access_offsets(op, tr, n_td)
    n = view.td.array_length
    if n == 1:
        return view, [_at(op, td_value, offsets, tr, lines, view)]
    w = view.td.shape[-1]
    if offsets is None:
        offsets = ["0"] * len(view.td.shape)
        names = [tr.name(td_value)] + [None] * (n - 1)
        for i in range(1, n):
            nm = tr.fresh()
            off = ["0"] * (len(view.td.shape) - 1) + [str(i * w)]
            lines.append(f"{nm} = xegpu.update_nd_offset {tr.name(td_value)}, [{', '.join(off)}]{tr.mode} : "
                         f"{view.ours}")
            names[i] = nm
        return view, names
    return view, [_at(op, td_value, _shift(offsets, i * w, tr, lines), tr, lines, view) for i in range(n)]


# ---------------------------------------------------------------------------------------------- ops

def create_nd_tdesc(op, tr) -> list[str]:
    bc = attr(op, "boundary_check")  # an older discardable spelling; only its default (true) is accepted
    allowed = ("boundary_check",) if str(bc) == "true" else ()
    check_attrs(op, ("const_offsets", "const_shape", "const_strides") + allowed)
    td = _tdesc_of(op.result)
    if td.scattered:
        raise ImportOpError("create_nd_tdesc of a scattered descriptor")
    src, srct, extra, _ = _create_parts(op, tr)
    n_src, n_off, n_shape, n_str = segments(op)
    names = [tr.name(v) for v in op.operands]
    offs = mixed(names[1:1 + n_off], ints(attr(op, "const_offsets")))
    if not offs:
        offs = ["0"] * _source_rank(op, tr)
    one = parse_tdesc(str(op.result.type))
    one.array_length = 1
    return [f"{tr.name(op.result)} = xegpu.create_nd_tdesc {src}[{', '.join(offs)}]{extra}{tr.mode} : {srct} "
            f"-> {ours(one, tr.simt, str(op.result.type) in tr.rows_types)}"]


def update_nd_offset(op, tr) -> list[str]:
    check_attrs(op, ("const_offsets",))
    names = [tr.name(v) for v in op.operands]
    offs = mixed(names[1:], ints(attr(op, "const_offsets")))
    view = TDescView(op.operands[0], tr.simt, str(op.operands[0].type) in tr.rows_types)
    return [f"{tr.name(op.result)} = xegpu.update_nd_offset {names[0]}, [{', '.join(offs)}]{tr.mode} : "
            f"{view.ours}"]


def load_nd(op, tr) -> list[str]:
    check_attrs(op, ("const_offsets", "packed", "transpose", "transpose_bit_width") + HINTS)
    packed = attr(op, "packed") is not None
    blocks = parse_tdesc(str(op.operands[0].type)).array_length
    if packed and (len(vector_parts(op.result.type)[0]) != (3 if blocks == 1 else 4) or ints(attr(op, "transpose"))):
        raise ImportOpError("'xegpu.load_nd' with 'packed' at subgroup level is imported only as a VNNI load "
                            "(result <K/v x N x v> per block, no transpose)")
    if attr(op, "transpose_bit_width") is not None:
        raise ImportOpError("'xegpu.load_nd' attribute 'transpose_bit_width' has no equivalent in our xegpu")
    lines: list[str] = []
    view, descs = _blocks(op, op.operands[0], tr, lines)
    extra = []
    tp = ints(attr(op, "transpose"))
    if tp:
        if tp != [1, 0]:
            raise ImportOpError(f"'xegpu.load_nd' transpose {tp} (only [1, 0])")
        extra.append("transpose = [1, 0]")
    res = tr.name(op.result)
    shape, elt = vector_parts(op.result.type)
    n = view.td.array_length
    one = shape[1:] if n > 1 else shape
    one_t = vector_text(one, elt)
    if packed:  # IMEX's VC-mode programs: a VNNI block <K/v x N x v> (per block), our vnni_axis = 0
        extra.append("vnni_axis = 0")
        if n == 1:
            lines.append(f"{res} = xegpu.load_nd {descs[0]}{props(op, extra)} : {view.ours} -> {op.result.type}")
            return lines
    if n == 1:
        if not tp and _only_dpas_b(op.result) and element_bits(elt) < 32 and len(one) == 2:
            # B of dpas only: load it in VNNI layout (our load_nd {vnni_axis = 0}), no conversion needed
            f = 32 // element_bits(elt)
            vt = vector_text([one[0] // f, one[1], f], elt)
            lines.append(f"{res} = xegpu.load_nd {descs[0]}{props(op, ['vnni_axis = 0'])} : {view.ours} -> {vt}")
            tr.vnni_values[(tr.scope, res)] = vt
            return lines
        lines.append(f"{res} = xegpu.load_nd {descs[0]}{props(op, extra)} : {view.ours} -> {one_t}")
        return lines
    parts = _static_extracts(op.result, n)
    if parts is not None:  # every use is `vector.extract %r[i]`: each takes its block's load directly
        for i, d in enumerate(descs):
            part = tr.fresh()
            lines.append(f"{part} = xegpu.load_nd {d}{props(op, extra)} : {view.ours} -> {one_t}")
            for user in parts[i]:
                tr.replace[id_of(user)] = [f"{tr.name(user.result)} = vector.shape_cast {part} : {one_t} to {one_t}"]
        return lines
    acc = tr.fresh()
    full_t = vector_text(shape, elt)
    lines.append(f"{acc} = arith.constant dense<{zero_of(elt)}> : {full_t}")
    for i, d in enumerate(descs):
        part = tr.fresh()
        lines.append(f"{part} = xegpu.load_nd {d}{props(op, extra)} : {view.ours} -> {one_t}")
        nxt = res if i == n - 1 else tr.fresh()
        lines.append(f"{nxt} = vector.insert {part}, {acc} [{i}] : {one_t} into {full_t}")
        acc = nxt
    return lines


def _only_dpas_b(v) -> bool:
    uses = list(v.uses)
    return bool(uses) and all(u.owner.name == "xegpu.dpas" and u.operand_number == 1 for u in uses)


def id_of(op):
    """A dict key for an op (operations hash and compare by identity, whatever the Python wrapper)."""
    return op.operation if hasattr(op, "operation") else op


def _static_extracts(v, n):
    """The `vector.extract %v[i]` users per block i when every use of `v` is one, else None."""
    parts = [[] for _ in range(n)]
    for u in v.uses:
        user = u.owner
        pos = attr(user, "static_position")
        if user.name != "vector.extract" or pos is None or len(user.operands) != 1:
            return None
        idx = ints(pos)
        if len(idx) != 1:
            return None
        parts[idx[0]].append(user)
    return parts


def store_nd(op, tr) -> list[str]:
    check_attrs(op, ("const_offsets",) + HINTS)
    lines: list[str] = []
    view, descs = _blocks(op, op.operands[1], tr, lines, n_td=2)
    if len(descs) != 1:
        raise ImportOpError("'xegpu.store_nd' through an array_length descriptor")
    v = op.operands[0]
    lines.append(f"xegpu.store_nd {tr.name(v)}, {descs[0]}{props(op)} : {v.type}, {view.ours}")
    return lines


def prefetch_nd(op, tr) -> list[str]:
    check_attrs(op, ("const_offsets",) + HINTS)
    lines: list[str] = []
    view, descs = _blocks(op, op.operands[0], tr, lines)
    for d in descs:
        lines.append(f"xegpu.prefetch_nd {d}{props(op, mode=None if tr.simt else 'vc')} : {view.ours}")
    return lines


def vnni_b(v, tr, lines, block) -> tuple[str, str]:
    """(name, type) of dpas operand B in VNNI layout; the conversion is emitted once per value and block."""
    shape, elt = vector_parts(v.type)
    bits = element_bits(elt)
    if bits >= 32:
        return tr.name(v), str(v.type)
    if len(shape) == 3:  # already in VNNI layout <K/v x N x v> (IMEX's VC-mode programs)
        return tr.name(v), str(v.type)
    if len(shape) != 2:
        raise ImportOpError(f"dpas B operand {v.type}: expected a 2D <K x N> vector at subgroup level")
    f = 32 // bits
    k, n = shape
    key = (block, tr.name(v))
    out_t = vector_text([k // f, n, f], elt)
    if key in tr.vnni_done:
        return tr.vnni_done[key], out_t
    mid, out = tr.fresh(), tr.fresh()
    mid_t = vector_text([k // f, f, n], elt)
    lines.append(f"{mid} = vector.shape_cast {tr.name(v)} : {v.type} to {mid_t}")
    lines.append(f"{out} = vector.transpose {mid}, [0, 2, 1] : {mid_t} to {out_t}")
    tr.vnni_done[key] = out
    return out, out_t


def dpas(op, tr) -> list[str]:
    check_attrs(op, ())
    lines: list[str] = []
    a, b = op.operands[0], op.operands[1]
    for x in (a, op.result):
        if len(vector_parts(x.type)[0]) != 2:
            raise ImportOpError(f"'xegpu.dpas' operand {x.type}: expected 2D vectors at subgroup level")
    if (tr.scope, tr.name(b)) in tr.vnni_values:
        bn, bt = tr.name(b), tr.vnni_values[(tr.scope, tr.name(b))]
    else:
        bn, bt = vnni_b(b, tr, lines, tr.block)
    names = [tr.name(a), bn] + [tr.name(c) for c in list(op.operands)[2:]]
    types = [str(a.type), bt] + [str(c.type) for c in list(op.operands)[2:]]
    lines.append(f"{tr.name(op.result)} = xegpu.dpas {', '.join(names)} {{mode = vc}} : {', '.join(types)} -> "
                 f"{op.result.type}")
    return lines


def convert_layout(op, tr) -> list[str]:
    """Layouts are dropped at subgroup level: the value passes through unchanged."""
    v = op.operands[0]
    return [f"{tr.name(op.result)} = vector.shape_cast {tr.name(v)} : {v.type} to {op.result.type}"]


def alloc_nbarrier(op, tr) -> list[str]:
    n = ir.IntegerAttr(op.attributes["nbarrier_num"]).value
    return [f"xegpu.alloc_nbarrier {n}"]


def init_nbarrier(op, tr) -> list[str]:
    a, b = op.operands
    return [f"{tr.name(op.result)} = xegpu.init_nbarrier {tr.name(a)}, {tr.name(b)} : {a.type}, {b.type} -> "
            "!xegpu.nbarrier"]


def nbarrier_arrive(op, tr) -> list[str]:
    return [f"xegpu.nbarrier_arrive {tr.name(op.operands[0])} : !xegpu.nbarrier"]


def nbarrier_wait(op, tr) -> list[str]:
    return [f"xegpu.nbarrier_wait {tr.name(op.operands[0])} : !xegpu.nbarrier"]


def fence(op, tr) -> list[str]:
    kind, scope = _enum(op.attributes["memory_kind"]), _enum(op.attributes["fence_scope"])
    if kind not in FENCE_KIND or scope not in FENCE_SCOPE:
        raise ImportOpError(f"'xegpu.fence' memory_kind {kind}, fence_scope {scope} has no equivalent")
    return [f'xegpu.mfence {{memory_kind = "{FENCE_KIND[kind]}", fence_op = "none", '
            f'fence_scope = "{FENCE_SCOPE[scope]}"}}']


def _mask_and_offsets(op, tr, value_first: bool):
    """Scattered `xegpu.load/store %src[%offsets], %mask`: (source, offsets, mask) values, or None for
    the descriptor form (`xegpu.load %tdesc, %mask`)."""
    ops = list(op.operands)
    if value_first:
        ops = ops[1:]
    if len(ops) == 2 and str(ops[0].type).startswith("!xegpu.tensor_desc<"):
        return None
    if len(ops) != 3:
        raise ImportOpError(f"'{op.name}' with {len(ops)} operands is not imported")
    return ops


def _scattered_view(v) -> str:
    td = _tdesc_of(v)
    if not td.scattered:
        raise ImportOpError(f"expected a scattered tensor_desc, got {v.type}")
    return ours(td)


def create_tdesc(op, tr) -> list[str]:
    check_attrs(op, ())
    src, offs = op.operands
    if not isinstance(offs.type, ir.VectorType):
        raise ImportOpError("'xegpu.create_tdesc' with scalar offsets (lane level) is not imported")
    return [f"{tr.name(op.result)} = xegpu.create_tdesc {tr.name(src)}, {tr.name(offs)} {{mode = vc}} : {src.type}, "
            f"{offs.type} -> {_scattered_view(op.result)}"]


def update_offset(op, tr) -> list[str]:
    check_attrs(op, ())
    t, delta = op.operands
    return [f"{tr.name(op.result)} = xegpu.update_offset {tr.name(t)}, {tr.name(delta)} {{mode = vc}} : "
            f"{_scattered_view(t)}, {delta.type}"]


def prefetch(op, tr) -> list[str]:
    check_attrs(op, ("offset_align_byte",) + HINTS)
    ops = list(op.operands)
    lines: list[str] = []
    if len(ops) == 1:
        d, tdt = tr.name(ops[0]), _scattered_view(ops[0])
    else:
        d, tdt, _ = _scatter_desc(op, ops[0], ops[1], tr, lines)
    lines.append(f"xegpu.prefetch {d}{props(op)} : {tdt}")
    return lines


OUR_RMW_KINDS = ("addf", "addi", "assign", "maximumf", "maxs", "maxu", "minimumf", "mins", "minu", "mulf", "muli",
                 "ori", "andi")


def atomic_rmw(op, tr) -> list[str]:
    check_attrs(op, ("kind",))
    t, mask, value = op.operands
    a = op.attributes["kind"]
    kind = ATOMIC_RMW_KINDS.get(ir.IntegerAttr(a).value) if isinstance(a, ir.IntegerAttr) else _enum(a)
    if kind not in OUR_RMW_KINDS:
        raise ImportOpError(f"'xegpu.atomic_rmw' kind {kind or a} has no equivalent in our xegpu")
    return [f"{tr.name(op.result)} = xegpu.atomic_rmw {kind} {tr.name(value)}, {tr.name(t)}, {tr.name(mask)} "
            f"{{mode = vc}} : {value.type}, {_scattered_view(t)}, {mask.type} -> {op.result.type}"]


def _scatter_desc(op, src, offs, tr, lines) -> tuple[str, str, int]:
    shape, _ = vector_parts(offs.type) if isinstance(offs.type, ir.VectorType) else ([1], "index")
    chunk = ir.IntegerAttr(op.attributes["chunk_size"]).value if attr(op, "chunk_size") is not None else 1
    st = src.type
    if not isinstance(st, ir.MemRefType):
        raise ImportOpError(f"'{op.name}' on a {st} source (only memrefs)")
    elt = str(ir.MemRefType(st).element_type)
    lanes = shape[0]
    body = f"{lanes}x{chunk}x{elt}" if chunk > 1 else f"{lanes}x{elt}"
    extra = f", chunk_size_per_lane = {chunk}" if chunk > 1 else ""
    tdt = f"!xegpu.tensor_desc<{body}, #xegpu.tdesc_attr<scattered = true{extra}>>"
    n = tr.fresh()
    lines.append(f"{n} = xegpu.create_tdesc {tr.name(src)}, {tr.name(offs)} {{mode = vc}} : {st}, {offs.type} -> {tdt}")
    return n, tdt, chunk


def load(op, tr) -> list[str]:
    check_attrs(op, ("chunk_size",) + HINTS)
    found = _mask_and_offsets(op, tr, False)
    lines: list[str] = []
    if found is None:
        t, mask = op.operands
        d, tdt = tr.name(t), _scattered_view(t)
    else:
        src, offs, mask = found
        d, tdt, chunk = _scatter_desc(op, src, offs, tr, lines)
    lines.append(f"{tr.name(op.result)} = xegpu.load_gather {d}, {tr.name(mask)}{props(op)} : {tdt}, {mask.type} -> "
                 f"{op.result.type}")
    return lines


def store(op, tr) -> list[str]:
    check_attrs(op, ("chunk_size",) + HINTS)
    found = _mask_and_offsets(op, tr, True)
    lines: list[str] = []
    if found is None:
        _, t, mask = op.operands
        d, tdt = tr.name(t), _scattered_view(t)
    else:
        src, offs, mask = found
        d, tdt, chunk = _scatter_desc(op, src, offs, tr, lines)
    v = op.operands[0]
    lines.append(f"xegpu.store_scatter {tr.name(v)}, {d}, {tr.name(mask)}{props(op)} : {v.type}, {tdt}, {mask.type}")
    return lines


def thread_id(op, tr) -> list[str]:
    """At subgroup level a value is one per subgroup: the ids of its first lane (linear id 16 * sg)."""
    d = str(op.attributes["dimension"]).split()[-1].rstrip(">")
    lines: list[str] = []
    sg, c16, lin = tr.fresh(), tr.fresh(), tr.fresh()
    lines += [f"{sg} = gpu.subgroup_id : index", f"{c16} = arith.constant 16 : index",
              f"{lin} = arith.muli {sg}, {c16} : index"]
    bx, by = tr.fresh(), tr.fresh()
    lines += [f"{bx} = gpu.block_dim x", f"{by} = gpu.block_dim y"]
    res = tr.name(op.result)
    local = res if op.name == "gpu.thread_id" else tr.fresh()
    if d == "x":
        lines.append(f"{local} = arith.remui {lin}, {bx} : index")
    elif d == "y":
        q = tr.fresh()
        lines += [f"{q} = arith.divui {lin}, {bx} : index", f"{local} = arith.remui {q}, {by} : index"]
    else:
        q = tr.fresh()
        lines += [f"{q} = arith.muli {bx}, {by} : index", f"{local} = arith.divui {lin}, {q} : index"]
    if op.name == "gpu.global_id":
        bid, bd, m = tr.fresh(), tr.fresh(), tr.fresh()
        lines += [f"{bid} = gpu.block_id {d}", f"{bd} = gpu.block_dim {d}", f"{m} = arith.muli {bid}, {bd} : index",
                  f"{res} = arith.addi {m}, {local} : index"]
    return lines


def lane_id(op, tr) -> list[str]:
    raise ImportOpError("'gpu.lane_id' in a subgroup-level kernel: a VC-mode kernel has one value per subgroup")


TABLE = {
    "xegpu.create_nd_tdesc": create_nd_tdesc,
    "xegpu.update_nd_offset": update_nd_offset,
    "xegpu.load_nd": load_nd,
    "xegpu.store_nd": store_nd,
    "xegpu.prefetch_nd": prefetch_nd,
    "xegpu.dpas": dpas,
    "xegpu.convert_layout": convert_layout,
    "xegpu.alloc_nbarrier": alloc_nbarrier,
    "xegpu.init_nbarrier": init_nbarrier,
    "xegpu.nbarrier_arrive": nbarrier_arrive,
    "xegpu.nbarrier_wait": nbarrier_wait,
    "xegpu.fence": fence,
    "xegpu.load": load,
    "xegpu.store": store,
    "xegpu.create_tdesc": create_tdesc,
    "xegpu.update_offset": update_offset,
    "xegpu.prefetch": prefetch,
    "xegpu.atomic_rmw": atomic_rmw,
    "gpu.thread_id": thread_id,
    "gpu.global_id": thread_id,
    "gpu.lane_id": lane_id,
    "xevm.memfence": xevm_block2d.memfence,
}


def translate(op, tr) -> list[str]:
    """Our lines for one upstream op (the shared-local-memory matrix ops are matrix_ops.py's)."""
    fn = TABLE.get(op.name) or matrix_ops.SG_TABLE.get(op.name)
    if fn is None:
        raise ImportOpError(f"'{op.name}' is not imported: no translation to our xegpu")
    try:
        return fn(op, tr)
    except ImportTypeError as e:
        raise ImportOpError(f"'{op.name}': {e}") from None

