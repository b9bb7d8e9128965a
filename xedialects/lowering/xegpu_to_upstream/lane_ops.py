"""Op table of the lane-level export: one function per SIMT-mode xegpu op, from our op to upstream's
lane-level text (descriptors without layouts, 1D per-lane vectors, offsets on the accesses).

Our fragments cross to upstream's 1D vectors by `vector.shape_cast` where both hold the same
elements in the same slots, else through a reorder (`lane_order.Reorder`: in-lane `vector.shuffle`
or `gpu.shuffle idx` across lanes). Block accesses load / store upstream's register order of the
block (row-major over the lanes); DPAS operands are brought from our SIMT operand order (docs/simt.md:
the order of the defining load, else packed A / VNNI B / [1, 16] C) to the DPAS register order;
tf32 DPAS is `xevm.mma` with tf32 types (LLVM 22's xegpu has no tf32 DPAS)."""
from __future__ import annotations

import numpy as np

from mlir import ir

from ...core.typeinfo import element_bits
from .lane_order import LANES, Reorder, ours_coords, ours_ids, upstream_block_ids, upstream_tf32_a_ids
from .ops import ExportOpError, _attr, _flat_source, _hints, _ints, create_nd_text
from .offsets import LITERAL_OFFSETS
from .types import ExportTypeError, properties, simt_parts, vector_parts

# widest 2D block prefetch / store upstream's XeVM lowering takes, by element bits
PREFETCH_WIDTH = {16: 16}
STORE_WIDTH = {16: 16}


def elt_text(elt: str) -> str:
    """tf32 data is stored as 32-bit floats; the export spells it f32 (the DPAS rounds it)."""
    return "f32" if elt == "tf32" else elt


def _vec(n: int, elt: str) -> str:
    return f"vector<{n}x{elt_text(elt)}>"


def _require_simt(op) -> None:
    if _attr(op, "mode") is not None:
        raise ExportOpError(f"'{op.name}' in VC mode is not exported at lane level; distribute the kernel to lanes "
                            "first (xegpu-simt-distribute), or export it at subgroup level")


def _block(op, td, narrow_ok=False) -> dict:
    parts = simt_parts(str(td.type))
    shape, elt = parts["shape"], parts["elt"]
    bits = element_bits(elt)
    if bits not in (16, 32):
        raise ExportOpError(f"'{op.name}' of {elt} data is not exported at lane level (16- and 32-bit block data "
                            "only: upstream's lane-level 8-bit register order is not modelled)")
    if narrow_ok and len(shape) == 2 and shape[1] < LANES and LANES % shape[1] == 0:
        return parts
    if len(shape) != 2 or shape[1] % LANES or (shape[0] * shape[1]) % LANES:
        raise ExportOpError(f"'{op.name}' of the {'x'.join(map(str, shape))} block is not exported at lane level "
                            "(2D blocks whose width is a multiple of 16 only)")
    return parts


def _to_1d(name: str, t: str, elt: str, lines, ex) -> tuple[str, int]:
    shape, _ = vector_parts(t) if t.startswith("vector<") else ([1], t)
    n = int(np.prod(shape))
    flat = _vec(n, elt)
    if not t.startswith("vector<"):
        x = ex.fresh()
        lines.append(f"{x} = vector.from_elements {name} : {flat}")
        return x, n
    if ex.type_text(t) == flat:
        return name, n
    x = ex.fresh()
    lines.append(f"{x} = vector.shape_cast {name} : {ex.type_text(t)} to {flat}")
    return x, n


def _from_1d(name: str, n: int, elt: str, result: str, t: str, lines, ex) -> None:
    """`result` = the 1D vector `name` as our type `t` (shape_cast, or extract of a scalar)."""
    if not t.startswith("vector<"):
        lines.append(f"{result} = vector.extract {name}[0] : {elt_text(elt)} from {_vec(n, elt)}")
    elif ex.type_text(t) == _vec(n, elt):
        lines.append(f"{result} = vector.shape_cast {name} : {_vec(n, elt)} to {_vec(n, elt)}")
    else:
        lines.append(f"{result} = vector.shape_cast {name} : {_vec(n, elt)} to {ex.type_text(t)}")


def _reorder(ex, lines, name, src, dst, elt, op) -> str:
    try:
        return Reorder(ex.fresh, lines).run(name, src, dst, elt_text(elt))
    except ValueError as e:
        raise ExportOpError(f"'{op.name}': the lanes cannot be reordered ({e})") from None


def _matrix_ids(shape, transpose, loaded_width=None):
    """Upstream's plain block order as ids of the (transposed when `transpose`) block; a block loaded
    `loaded_width` wide (a narrow block widened) has ids < 0 for the columns past the block."""
    h, w = shape
    lw = loaded_width or w
    e = upstream_block_ids((h, lw))
    r, c = e // lw, e % lw
    ids = c * h + r if transpose else r * w + c
    return np.where(c < w, ids, -1 - e)


def _widened(op, td, ex, shape):
    """(lines, descriptor ref, type) of a 16-wide block at the offsets of the narrow block of `td`
    (a 2D load of fewer than 16 columns: the 2D block load's minimum width; the extra columns are
    never used), or None when the source is not a static 2D memref at least 16 elements wide (the
    wider block would cross a surface narrower than the block load's minimum)."""
    create = ex.plan.base_create(td, op)
    if create is None:
        return None
    src = create.operands[0]
    try:
        mt = ir.MemRefType(src.type)
    except ValueError:
        return None
    if mt.rank != 2 or mt.shape[1] < LANES or mt.shape[1] == -9223372036854775808:
        return None
    full = ex.type(td.type)
    wide = full.replace(f"<{shape[0]}x{shape[1]}x", f"<{shape[0]}x{LANES}x", 1)
    name = ex.plan.fresh()
    head = create_nd_text(create, ex).rpartition(" -> ")[0]
    _, offs, pre = ex.plan.access(td, op)
    return pre + [f"{name} = {head.split(' = ', 1)[1]} -> {wide}"], name + offs, wide


def _load_ids(op, parts):
    """Our load_nd fragment's slots as ids of the loaded matrix (transposed / VNNI as loaded)."""
    tp = _attr(op, "transpose") is not None and _ints(op.attributes["transpose"]) == [1, 0]
    f = max(1, 32 // element_bits(parts["elt"]))
    va = ir.IntegerAttr(op.attributes["vnni_axis"]).value if _attr(op, "vnni_axis") is not None else None
    if f == 1:
        va = None
    return ours_ids(parts["shape"], parts["layout"], parts["data"], tp, va, f), tp, va


def create_nd_tdesc(op, ex) -> str:
    """A block narrower than 16 columns gets no descriptor of its own: its loads and prefetches
    create a 16-wide one (`_widened`), anything else is a located error there."""
    shape = simt_parts(str(op.result.type))["shape"]
    if len(shape) == 2 and shape[1] < LANES:
        return ""
    return create_nd_text(op, ex)


def update_nd_offset(op, ex) -> str:
    return "\n".join(ex.plan.replace[op])


def load_nd(op, ex) -> str:
    _require_simt(op)
    td = op.operands[0]
    parts = _block(op, td, narrow_ok=True)
    ours, tp, va = _load_ids(op, parts)
    shape, elt = parts["shape"], parts["elt"]
    lines: list[str] = []
    width = shape[1]
    rows16 = _transposed_rows(op, td, ex, shape, elt) if tp and va is not None else None
    if rows16 is not None:  # lane l: memory rows l, l + 16, ... (a row per lane and 16 rows)
        loaded, up = rows16
        lines += loaded[0]
        ex.loads[op.result] = (loaded[1], up, ours)
        x = _reorder(ex, lines, loaded[1], up, ours, elt, op)
        _from_1d(x, ours.shape[1], elt, ex.result(op), str(op.result.type), lines, ex)
        return "\n".join(lines)
    if shape[1] < LANES:
        wide = _widened(op, td, ex, shape)
        if wide is None and not tp and va is None:
            return _scalar_load(op, td, ex, parts)
        if wide is None:
            raise ExportOpError(f"'{op.name}' of the {shape[0]}x{shape[1]} block is not exported at lane level (a "
                                "transposed / VNNI block narrower than 16 is loaded 16 wide, which needs a static 2D "
                                "memref source at least 16 elements wide)")
        pre, ref, ttext = wide
        lines += pre
        width = LANES
    else:
        base, offs, pre = ex.plan.access(td, op)
        lines += pre
        ref, ttext = base + offs, ex.type(td.type)
    n = shape[0] * width // LANES
    props = _hints(op)
    if va == 0 and shape[1] == LANES:
        props.append(("packed", "unit"))
    loaded = ex.fresh()
    text = properties(props).replace("packed = unit", "packed")
    lines.append(f"{loaded} = xegpu.load_nd {ref}{text} : {ttext} -> {_vec(n, elt)}")
    up = _matrix_ids(shape, tp, width)
    ex.loads[op.result] = (loaded, up, ours)
    x = _reorder(ex, lines, loaded, up, ours, elt, op)
    _from_1d(x, ours.shape[1], elt, ex.result(op), str(op.result.type), lines, ex)
    return "\n".join(lines)


def _transposed_rows(op, td, ex, shape, elt):
    """A transposed 16-bit VNNI load (our transposed B) as lane-level transposed loads of 16 rows each
    (`load_nd <{transpose}> : tensor_desc<16 x W> -> vector<W>`: lane l gets memory row l, which our
    import reads as the SIMT transposed load of wi_layout [16, 1]; the route turns each into a 32-bit
    transposed load of packed pairs, text.transposed_16bit_loads): ((lines, name), upstream ids) or
    None (then the plain block is loaded and reordered across lanes)."""
    h, w = shape
    create = ex.plan.base_create(td, op)
    if element_bits(elt) != 16 or h % LANES or w % 2 or w > LANES or create is None:
        return None
    try:
        mt = ir.MemRefType(create.operands[0].type)
    except ValueError:
        return None
    if mt.rank != 2 or any(d < 0 for d in mt.shape) or mt.shape[1] % 2 or "strided" in str(mt):
        return None
    if list(ir.DenseI64ArrayAttr(create.attributes["static_shape"])):
        return None
    full = ex.type(td.type)
    narrow = full.replace(f"<{h}x{w}x", f"<{LANES}x{w}x", 1)
    name = ex.plan.fresh()
    head = create_nd_text(create, ex).rpartition(" -> ")[0]
    lines = [f"{name} = {head.split(' = ', 1)[1]} -> {narrow}"]
    _, syms = ex.plan.get(td, op)
    pieces = []
    for i in range(h // LANES):
        row, lr = ex.plan.materialize((syms[0][0], syms[0][1] + LANES * i), literal_ok=False)
        col, lc = ex.plan.materialize(syms[1], literal_ok=False)
        piece = ex.fresh()
        lines += lr + lc + [f"{piece} = xegpu.load_nd {name}[{row}, {col}] <{{transpose = array<i64: 1, 0>}}> : "
                            f"{narrow} -> {_vec(w, elt)}"]
        pieces.append(piece)
    acc, size = pieces[0], w
    for piece in pieces[1:]:
        cat = ex.fresh()
        lines.append(f"{cat} = vector.shuffle {acc}, {piece} [{', '.join(map(str, range(size + w)))}] : "
                     f"{_vec(size, elt)}, {_vec(w, elt)}")
        acc, size = cat, size + w
    lane = np.arange(LANES).reshape(-1, 1)
    slot = np.arange(h // LANES * w).reshape(1, -1)
    mem_row, mem_col = (slot // w) * LANES + lane, slot % w
    return (lines, acc), mem_col * h + mem_row  # ids of the transposed (loaded) matrix


def _scalar_load(op, td, ex, parts) -> str:
    """A narrow block no 16-wide block load can read (the 32x1 column of a bias on a memref<?x1xf32>):
    each lane loads its fragment's elements by `memref.load`, the row and column inside the
    descriptor's shape (else 0 is loaded, as the block load's boundary check gives)."""
    from .ops import DYNAMIC, _segments

    create = ex.plan.base_create(td, op)
    src = create.operands[0] if create is not None else None
    if src is None or not isinstance(src.type, ir.MemRefType) or ir.MemRefType(src.type).rank != 2:
        raise ExportOpError(f"'{op.name}' of a block narrower than 16 columns is not exported at lane level unless "
                            "its descriptor is on a 2D memref")
    shape, elt = parts["shape"], parts["elt"]
    mt = ir.MemRefType(src.type)
    lines: list[str] = []
    _, n_off, n_shape, _ = _segments(create)
    st_shape = _ints(create.attributes["static_shape"])
    dyn_shape = [ex.name(x) for x in list(create.operands)[1 + n_off:1 + n_off + n_shape]]
    bounds = []
    it = iter(dyn_shape)
    for d in range(2):
        if st_shape:
            v = st_shape[d]
            name = next(it) if v == DYNAMIC else None
        else:
            v = mt.shape[d]
            name = None
        if name is None and v == DYNAMIC:
            c, name = ex.fresh(), ex.fresh()
            lines += [f"{c} = arith.constant {d} : index", f"{name} = memref.dim {ex.name(src)}, {c} : {mt}"]
        elif name is None:
            name = ex.fresh()
            lines.append(f"{name} = arith.constant {v} : index")
        bounds.append(name)
    _, syms = ex.plan.get(td, op)
    org = []
    for sym in syms:
        x, ls = ex.plan.materialize(sym, literal_ok=False)
        lines += ls
        org.append(x)
    rows, cols = ours_coords(shape, parts["layout"], parts["data"])
    r = Reorder(ex.fresh, lines)
    zero, c0 = ex.fresh(), ex.fresh()
    et = elt_text(elt)
    lines += [f"{zero} = arith.constant {'0.0' if et.startswith(('f', 'bf')) else '0'} : {et}",
              f"{c0} = arith.constant 0 : index"]
    elems = []
    for p in range(rows.shape[1]):
        idx, ok = [], None
        for d, tab in enumerate((rows[:, p], cols[:, p])):
            t = r.table(tab, "index")
            a, inb = ex.fresh(), ex.fresh()
            lines += [f"{a} = arith.addi {org[d]}, {t} : index", f"{inb} = arith.cmpi ult, {a}, {bounds[d]} : index"]
            if ok is None:
                ok = inb
            else:
                both = ex.fresh()
                lines.append(f"{both} = arith.andi {ok}, {inb} : i1")
                ok = both
            idx.append(a)
        safe = []
        for a in idx:
            s_ = ex.fresh()
            lines.append(f"{s_} = arith.select {ok}, {a}, {c0} : index")
            safe.append(s_)
        v, x = ex.fresh(), ex.fresh()
        lines += [f"{v} = memref.load {ex.name(src)}[{safe[0]}, {safe[1]}] : {ex.type_text(str(mt))}",
                  f"{x} = arith.select {ok}, {v}, {zero} : {et}"]
        elems.append(x)
    flat = ex.fresh()
    lines.append(f"{flat} = vector.from_elements {', '.join(elems)} : {_vec(len(elems), elt)}")
    _from_1d(flat, len(elems), elt, ex.result(op), str(op.result.type), lines, ex)
    return "\n".join(lines)


def _pieces(op, td, ex, widths, shape, elt):
    """[(descriptor ref, its type, column offset, width)]: the block of `td`, or its 16-wide column
    pieces through a narrower descriptor on the same source when XeVM takes no wider block."""
    w = widths.get(element_bits(elt))
    full = ex.type(td.type)
    create = ex.plan.base_create(td, op)
    lines: list[str] = []
    if w is None or shape[1] <= w or shape[1] % w or create is None:
        base, offs, pre = ex.plan.access(td, op)
        return pre, [(base + offs, full, 0, shape[1])]
    narrow = full.replace(f"<{shape[0]}x{shape[1]}x", f"<{shape[0]}x{w}x", 1)
    name = ex.plan.fresh()
    head = create_nd_text(create, ex).rpartition(" -> ")[0]
    lines.append(f"{name} = {head.split(' = ', 1)[1]} -> {narrow}")
    _, syms = ex.plan.get(td, op)
    out = []
    for j in range(shape[1] // w):
        row, lr = ex.plan.materialize(syms[0], literal_ok=LITERAL_OFFSETS)
        col, lc = ex.plan.materialize((syms[1][0], syms[1][1] + j * w), literal_ok=LITERAL_OFFSETS)
        lines += lr + lc
        out.append((f"{name}[{row}, {col}]", narrow, j * w, w))
    return lines, out


def store_nd(op, ex) -> str:
    _require_simt(op)
    v, td = op.operands
    parts = _block(op, td)
    shape, elt = parts["shape"], parts["elt"]
    ours = ours_ids(shape, parts["layout"], parts["data"])  # (stores of narrow blocks: _block's error)
    lines: list[str] = []
    flat, _ = _to_1d(ex.name(v), str(v.type), elt, lines, ex)
    pre, pieces = _pieces(op, td, ex, STORE_WIDTH, shape, elt)
    lines += pre
    hints = properties(_hints(op))
    for ref, ttext, c0, w in pieces:
        piece = upstream_block_ids((shape[0], w))
        want = (piece // w) * shape[1] + piece % w + c0
        x = _reorder(ex, lines, flat, ours, want, elt, op)
        lines.append(f"xegpu.store_nd {x}, {ref}{hints} : {_vec(want.shape[1], elt)}, {ttext}")
    return "\n".join(lines)


def prefetch_nd(op, ex) -> str:
    _require_simt(op)
    td = op.operands[0]
    parts = simt_parts(str(td.type))
    shape, elt = parts["shape"], parts["elt"]
    if len(shape) != 2:
        raise ExportOpError(f"'{op.name}' of a {len(shape)}D block is not exported at lane level")
    hints = properties(_hints(op))
    if shape[1] < LANES:  # a hint: the 16-wide block at the same offsets, when its source allows
        wide = _widened(op, td, ex, shape)
        if wide is None:
            return ""
        pre, ref, ttext = wide
        return "\n".join(pre + [f"xegpu.prefetch_nd {ref}{hints} : {ttext}"])
    lines, pieces = _pieces(op, td, ex, PREFETCH_WIDTH, shape, elt)
    lines += [f"xegpu.prefetch_nd {ref}{hints} : {ttext}" for ref, ttext, _, _ in pieces]
    return "\n".join(lines)


def _operand_ids(v, default):
    """Our SIMT dpas operand order: its defining load_nd's, else `default` (docs/simt.md)."""
    owner = v.owner
    if isinstance(owner, ir.Operation) or hasattr(owner, "name"):
        owner = getattr(owner, "operation", owner)
        if getattr(owner, "name", None) == "xegpu.load_nd":
            parts = simt_parts(str(owner.operands[0].type))
            return _load_ids(owner, parts)[0]
    return default


def _slots(v, ex):
    """(load_nd result, slot indices) when `v` is lane-uniform slot selections (`vector.shape_cast`,
    single-source `vector.shuffle`, unit-stride `vector.extract_strided_slice`) of a load_nd result
    exported in this module: every lane holds those slots of its loaded fragment; else None."""
    owner = getattr(v.owner, "operation", v.owner)
    name = getattr(owner, "name", None)
    if v in ex.loads:
        return v, np.arange(ex.loads[v][2].shape[1])
    if name not in ("vector.shape_cast", "vector.shuffle", "vector.extract_strided_slice"):
        return None
    src = owner.operands[0]
    inner = _slots(src, ex)
    if inner is None:
        return None
    load, slots = inner
    if name == "vector.shape_cast":
        return load, slots
    if name == "vector.shuffle":
        if owner.operands[1] != src:
            return None
        mask = list(ir.DenseI64ArrayAttr(owner.attributes["mask"]))
        return load, slots[mask] if all(0 <= i < len(slots) for i in mask) else None
    shape, _ = vector_parts(str(src.type))
    offs = [ir.IntegerAttr(x).value for x in ir.ArrayAttr(owner.attributes["offsets"])]
    sizes = [ir.IntegerAttr(x).value for x in ir.ArrayAttr(owner.attributes["sizes"])]
    strides = [ir.IntegerAttr(x).value for x in ir.ArrayAttr(owner.attributes["strides"])]
    if any(x != 1 for x in strides):
        return None
    grid = slots.reshape(shape)
    box = tuple(slice(o, o + z) for o, z in zip(offs, sizes))
    return load, grid[box].reshape(-1)


def _operand_from_load(v, ex, ours_default, want, elt, lines, op):
    """The DPAS operand `v` straight from its load's upstream vector when `v` is slot selections of
    one (one reorder, often in the lane, instead of one into our order and one out of it); else None.
    `ours_default`: our order of `v` (A-matrix ids), `want`: the DPAS order (A-matrix ids)."""
    traced = _slots(v, ex)
    if traced is None:
        return None
    load, slots = traced
    loaded, up_ids, ours = ex.loads[load]
    held = ours[:, slots]  # load-matrix ids of v's slots, per lane
    if held.shape != ours_default.shape:
        return None
    to_load = {}
    for l in range(LANES):
        for p in range(held.shape[1]):
            to_load[int(ours_default[l, p])] = int(held[l, p])
    try:
        dst = np.vectorize(to_load.__getitem__)(want)
    except KeyError:
        return None
    return _reorder(ex, lines, loaded, up_ids, dst, elt, op)


def dpas(op, ex) -> str:
    _require_simt(op)
    a, b = op.operands[0], op.operands[1]
    acc = op.operands[2] if len(op.operands) > 2 else None
    (na,), (nb,), (nc,) = ([int(np.prod(vector_parts(str(x.type))[0]))] for x in (a, b, op.result))
    ea, eb = vector_parts(str(a.type))[1], vector_parts(str(b.type))[1]
    er = vector_parts(str(op.result.type))[1]
    bits = element_bits(ea)
    if bits not in (16, 32):
        raise ExportOpError(f"'xegpu.dpas' on {ea} operands is not exported at lane level (16-bit and tf32 DPAS only)")
    m = nc
    k = na * LANES // m
    fa, fb = max(1, 32 // bits), max(1, 32 // element_bits(eb))
    a_ours = _operand_ids(a, ours_ids((m, k), (2, 8), (1, fa)))
    b_ours = _operand_ids(b, ours_ids((k, LANES), (1, LANES), (fb, 1), False, 0 if fb > 1 else None, fb))
    c_ids = upstream_block_ids((m, LANES))
    a_up = upstream_tf32_a_ids(m, k) if bits == 32 else upstream_block_ids((m, k))
    b_up = upstream_block_ids((k, LANES))
    lines: list[str] = []
    xa = _operand_from_load(a, ex, a_ours, a_up, ea, lines, op)
    if xa is None:
        x, _ = _to_1d(ex.name(a), str(a.type), ea, lines, ex)
        xa = _reorder(ex, lines, x, a_ours, a_up, ea, op)
    x, _ = _to_1d(ex.name(b), str(b.type), eb, lines, ex)
    xb = _reorder(ex, lines, x, b_ours, b_up, eb, op)
    xc = None
    if acc is not None:
        x, _ = _to_1d(ex.name(acc), str(acc.type), er, lines, ex)
        xc = _reorder(ex, lines, x, _operand_ids(acc, c_ids), c_ids, er, op)
    ta, tb, tc = _vec(na, ea), _vec(nb, eb), _vec(nc, er)
    res = ex.fresh()
    if bits == 32:  # tf32 (also f32 operands: our f32 DPAS is a tf32 one)
        if xc is None:
            xc = ex.fresh()
            lines.append(f"{xc} = arith.constant dense<0.0> : {tc}")
        lines.append(f"{res} = xevm.mma {xa}, {xb}, {xc} {{shape = <m = {m}, n = {LANES}, k = {k}>, types = <d = "
                     f"{er}, a = tf32, b = tf32, c = {er}>}} : ({ta}, {tb}, {tc}) -> {tc}")
    else:
        ops_, types = [xa, xb] + ([xc] if xc else []), [ta, tb] + ([tc] if xc else [])
        lines.append(f"{res} = xegpu.dpas {', '.join(ops_)} : {', '.join(types)} -> {tc}")
    _from_1d(res, nc, er, ex.result(op), str(op.result.type), lines, ex)
    return "\n".join(lines)


def create_tdesc(op, ex) -> str:
    """Not kept: its (1D source, per-lane offsets) go into each access (upstream's lane-level
    `xegpu.load %src[%offset], %mask` takes one offset per lane and access)."""
    parts = simt_parts(str(op.result.type))
    if parts["chunk"] != 1:
        raise ExportOpError("a SIMT scattered descriptor with chunk_size_per_lane > 1 is not exported at lane level")
    lines, src, src_t = _flat_source(op.operands[0], ex)
    offs = op.operands[1]
    ot = str(offs.type)
    k = 1 if ot == "index" else int(np.prod(vector_parts(ot)[0]))
    ex.scatter[op.result] = (src, src_t, ex.name(offs), ot, k, parts["elt"])
    return "\n".join(lines)


def _scattered(op, td, ex):
    if td not in ex.scatter:
        raise ExportOpError(f"'{op.name}': scattered descriptor {ex.name(td)} does not come from create_tdesc in view "
                            "(not exported at lane level)")
    return ex.scatter[td]


def _element(name: str, t: str, i: int, elt: str, lines, ex) -> str:
    if not t.startswith("vector<"):
        return name
    x = ex.fresh()
    lines.append(f"{x} = vector.extract {name}[{i}] : {elt} from {t}")
    return x


def load_gather(op, ex) -> str:
    """Our SIMT gather of k elements per lane: k lane-level `xegpu.load`s of one element each."""
    _require_simt(op)
    td, mask = op.operands[0], op.operands[1]
    src, src_t, offs, ot, k, elt = _scattered(op, td, ex)
    lines: list[str] = []
    hints = properties(_hints(op))
    one = _vec(1, elt)
    vals = []
    for i in range(k):
        o = _element(offs, ot, i, "index", lines, ex)
        mk = _element(ex.name(mask), str(mask.type), i, "i1", lines, ex)
        g, e = ex.fresh(), ex.fresh()
        lines += [f"{g} = xegpu.load {src}[{o}], {mk}{hints} : {src_t}, index, i1 -> {one}",
                  f"{e} = vector.extract {g}[0] : {elt_text(elt)} from {one}"]
        vals.append(e)
    rt = str(op.result.type)
    if rt.startswith("vector<"):
        lines.append(f"{ex.result(op)} = vector.from_elements {', '.join(vals)} : {ex.type_text(rt)}")
    else:
        lines[-1] = lines[-1].replace(f"{vals[-1]} = ", f"{ex.result(op)} = ", 1)
    return "\n".join(lines)


def store_scatter(op, ex) -> str:
    _require_simt(op)
    v, td, mask = op.operands[0], op.operands[1], op.operands[2]
    src, src_t, offs, ot, k, elt = _scattered(op, td, ex)
    lines: list[str] = []
    hints = properties(_hints(op))
    for i in range(k):
        o = _element(offs, ot, i, "index", lines, ex)
        mk = _element(ex.name(mask), str(mask.type), i, "i1", lines, ex)
        x = _element(ex.name(v), ex.type_text(str(v.type)), i, elt_text(elt), lines, ex)
        one = ex.fresh()
        lines += [f"{one} = vector.from_elements {x} : {_vec(1, elt)}",
                  f"xegpu.store {one}, {src}[{o}], {mk}{hints} : {_vec(1, elt)}, {src_t}, index, i1"]
    return "\n".join(lines)


TABLE = {
    "xegpu.create_nd_tdesc": create_nd_tdesc,
    "xegpu.update_nd_offset": update_nd_offset,
    "xegpu.load_nd": load_nd,
    "xegpu.store_nd": store_nd,
    "xegpu.prefetch_nd": prefetch_nd,
    "xegpu.dpas": dpas,
    "xegpu.create_tdesc": create_tdesc,
    "xegpu.load_gather": load_gather,
    "xegpu.store_scatter": store_scatter,
}


def translate(op, ex) -> str:
    fn = TABLE.get(op.name)
    if fn is None:
        raise ExportOpError(f"'{op.name}' is not exported at lane level (the lane-level export translates "
                            f"{', '.join(sorted(n.split('.')[1] for n in TABLE))})")
    try:
        return fn(op, ex)
    except ExportTypeError as e:
        raise ExportOpError(f"'{op.name}': {e}") from None
