"""Block accesses of the lane-level export: SIMT `create_nd_tdesc` / `update_nd_offset` /
`load_nd` / `store_nd` / `prefetch_nd` as upstream's lane-level block IO (offsets on the accesses,
1D per-lane vectors in the 2D block IO register order: lane l holds elements l, l + 16, ... of the
block; of an 8-bit block 32 wide, bytes 2l, 2l + 1 of every row), reordered into and out of our
fragments. Transposed 16-bit VNNI loads become 16-row transposed loads, blocks narrower than 16
columns are loaded 16 wide or element by element, 8-bit blocks wider than 32 in 32-wide pieces."""
from __future__ import annotations

import numpy as np

from mlir import ir

from ...core.typeinfo import element_bits
from .lane_order import LANES, Reorder, ours_coords, ours_ids, upstream_block_ids
from .lane_values import elt_text, from_1d, reorder, require_simt, to_1d, vec_type
from .literal_offsets import LITERAL_OFFSETS
from .ops import ExportOpError, _attr, _hints, _ints, create_nd_text
from .types import properties, simt_parts

# widest 2D block prefetch / store upstream's XeVM lowering takes, by element bits
PREFETCH_WIDTH = {8: 32, 16: 16}
STORE_WIDTH = {8: 32, 16: 16}
# widest 8-bit block loaded plainly: wider ones are loaded in pieces this wide (the lane order of a
# wider 8-bit block IO is not modelled: lane_order.upstream_block_ids)
LOAD_WIDTH_8BIT = 2 * LANES


def _block(op, td, narrow_ok=False) -> dict:
    parts = simt_parts(str(td.type))
    shape, elt = parts["shape"], parts["elt"]
    bits = element_bits(elt)
    if bits not in (8, 16, 32):
        raise ExportOpError(f"'{op.name}' of {elt} data is not exported at lane level (8-, 16- and 32-bit block "
                            "data only)")
    if bits == 8 and len(shape) == 2 and shape[1] > LANES and shape[1] % LOAD_WIDTH_8BIT:
        raise ExportOpError(f"'{op.name}' of the {'x'.join(map(str, shape))} block of 8-bit data is not exported at "
                            f"lane level (8-bit blocks 16 wide or a multiple of {LOAD_WIDTH_8BIT} wide only)")
    if narrow_ok and len(shape) == 2 and shape[1] < LANES and LANES % shape[1] == 0:
        return parts
    if len(shape) != 2 or shape[1] % LANES or (shape[0] * shape[1]) % LANES:
        raise ExportOpError(f"'{op.name}' of the {'x'.join(map(str, shape))} block is not exported at lane level "
                            "(2D blocks whose width is a multiple of 16 only)")
    return parts


def _matrix_ids(shape, transpose, loaded_width=None, bits=16):
    """Upstream's plain block order as ids of the (transposed when `transpose`) block; a block loaded
    `loaded_width` wide (a narrow block widened) has ids < 0 for the columns past the block."""
    h, w = shape
    lw = loaded_width or w
    e = upstream_block_ids((h, lw), bits)
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


def load_ids(op, parts):
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
    require_simt(op)
    td = op.operands[0]
    parts = _block(op, td, narrow_ok=True)
    ours, tp, va = load_ids(op, parts)
    shape, elt = parts["shape"], parts["elt"]
    lines: list[str] = []
    width = shape[1]
    rows16 = _transposed_rows(op, td, ex, shape, elt) if tp and va is not None else None
    if rows16 is not None:  # lane l: memory rows l, l + 16, ... (a row per lane and 16 rows)
        loaded, up = rows16
        lines += loaded[0]
        ex.loads[op.result] = (loaded[1], up, ours)
        x = reorder(ex, lines, loaded[1], up, ours, elt, op)
        from_1d(x, ours.shape[1], elt, ex.result(op), str(op.result.type), lines, ex)
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
    elif element_bits(elt) == 8 and (tp or (va is not None and shape[1] != LANES)):
        raise ExportOpError(f"'{op.name}' of the {shape[0]}x{shape[1]} block of 8-bit data {'transposed' if tp else 'in VNNI layout'}"
                            " is not exported at lane level (8-bit VNNI blocks 16 wide only)")
    elif element_bits(elt) == 8 and shape[1] > LOAD_WIDTH_8BIT:
        return _load_8bit_pieces(op, td, ex, shape, elt, ours, lines)
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
    lines.append(f"{loaded} = xegpu.load_nd {ref}{text} : {ttext} -> {vec_type(n, elt)}")
    up = _matrix_ids(shape, tp, width, element_bits(elt))
    ex.loads[op.result] = (loaded, up, ours)
    x = reorder(ex, lines, loaded, up, ours, elt, op)
    from_1d(x, ours.shape[1], elt, ex.result(op), str(op.result.type), lines, ex)
    return "\n".join(lines)


def _load_8bit_pieces(op, td, ex, shape, elt, ours, lines) -> str:
    """An 8-bit block wider than 32 as 32-wide loads (each lane: bytes 2l, 2l + 1 of every row of
    each piece) joined into one vector, piece after piece."""
    pre, pieces = _pieces(op, td, ex, {8: LOAD_WIDTH_8BIT}, shape, elt)
    lines += pre
    hints = properties(_hints(op))
    names, ids = [], []
    for ref, ttext, c0, w in pieces:
        x = ex.fresh()
        piece = upstream_block_ids((shape[0], w), 8)
        lines.append(f"{x} = xegpu.load_nd {ref}{hints} : {ttext} -> {vec_type(piece.shape[1], elt)}")
        names.append(x)
        ids.append((piece // w) * shape[1] + piece % w + c0)
    acc, size = names[0], ids[0].shape[1]
    for x, piece in zip(names[1:], ids[1:]):
        cat, w = ex.fresh(), piece.shape[1]
        lines.append(f"{cat} = vector.shuffle {acc}, {x} [{', '.join(map(str, range(size + w)))}] : "
                     f"{vec_type(size, elt)}, {vec_type(w, elt)}")
        acc, size = cat, size + w
    up = np.concatenate(ids, axis=1)
    ex.loads[op.result] = (acc, up, ours)
    x = reorder(ex, lines, acc, up, ours, elt, op)
    from_1d(x, ours.shape[1], elt, ex.result(op), str(op.result.type), lines, ex)
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
                            f"{narrow} -> {vec_type(w, elt)}"]
        pieces.append(piece)
    acc, size = pieces[0], w
    for piece in pieces[1:]:
        cat = ex.fresh()
        lines.append(f"{cat} = vector.shuffle {acc}, {piece} [{', '.join(map(str, range(size + w)))}] : "
                     f"{vec_type(size, elt)}, {vec_type(w, elt)}")
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
    lines.append(f"{flat} = vector.from_elements {', '.join(elems)} : {vec_type(len(elems), elt)}")
    from_1d(flat, len(elems), elt, ex.result(op), str(op.result.type), lines, ex)
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
    require_simt(op)
    v, td = op.operands
    parts = _block(op, td)
    shape, elt = parts["shape"], parts["elt"]
    ours = ours_ids(shape, parts["layout"], parts["data"])  # (stores of narrow blocks: _block's error)
    lines: list[str] = []
    flat, _ = to_1d(ex.name(v), str(v.type), elt, lines, ex)
    pre, pieces = _pieces(op, td, ex, STORE_WIDTH, shape, elt)
    lines += pre
    hints = properties(_hints(op))
    for ref, ttext, c0, w in pieces:
        piece = upstream_block_ids((shape[0], w), element_bits(elt))
        want = (piece // w) * shape[1] + piece % w + c0
        x = reorder(ex, lines, flat, ours, want, elt, op)
        lines.append(f"xegpu.store_nd {x}, {ref}{hints} : {vec_type(want.shape[1], elt)}, {ttext}")
    return "\n".join(lines)


def prefetch_nd(op, ex) -> str:
    require_simt(op)
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
