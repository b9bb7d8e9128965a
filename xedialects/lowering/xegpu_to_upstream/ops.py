"""Op translation table: one function per exported op, from our op to its upstream text line."""
from __future__ import annotations

from mlir import ir

from .literal_offsets import LITERAL_OFFSETS
from .types import ExportTypeError, cache_hint, flatten_vnni, properties, vector_parts, vector_text, vnni_factor

DYNAMIC = -9223372036854775808


class ExportOpError(Exception):
    """An op (or attribute of it) upstream xegpu cannot express."""


def _attr(op, name):
    return op.attributes[name] if name in op.attributes else None


def _str(op, name):
    a = _attr(op, name)
    return None if a is None else ir.StringAttr(a).value


def _ints(a) -> list[int]:
    return list(ir.DenseI64ArrayAttr(a))


def _segments(op) -> list[int]:
    return list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))


def _mixed(values, static) -> str:
    it = iter(values)
    return ", ".join(next(it) if s == DYNAMIC else str(s) for s in static)


def _hints(op) -> list[tuple[str, str]]:
    return [(h, cache_hint(_str(op, h))) for h in ("l1_hint", "l2_hint", "l3_hint") if _attr(op, h) is not None]


def _require_vc(op, ex) -> None:
    if _str(op, "mode") != "vc":
        raise ExportOpError(f"'{op.name}' in SIMT mode is not exported; export the VC-mode kernel "
                            "(before xegpu-simt-distribute)")


def create_nd_tdesc(op, ex) -> str:
    _require_vc(op, ex)
    return create_nd_text(op, ex)


def create_nd_text(op, ex) -> str:
    """The upstream line of a create_nd_tdesc (offsets only in the descriptors form)."""
    n_src, n_off, n_shape, n_str = _segments(op)
    ops = [ex.name(v) for v in op.operands]
    src, rest = ops[0], ops[1:]
    offs, shape, strides = rest[:n_off], rest[n_off:n_off + n_shape], rest[n_off + n_shape:]
    text = f"{ex.result(op)} = xegpu.create_nd_tdesc {src}"
    st_off = _ints(op.attributes["static_offsets"])
    if st_off and ex.plan is None:
        text += f"[{_mixed(offs, st_off)}]"
    st_shape, st_str = _ints(op.attributes["static_shape"]), _ints(op.attributes["static_strides"])
    if st_shape:
        text += f", shape : [{_mixed(shape, st_shape)}], strides : [{_mixed(strides, st_str)}]"
    return text + f" : {ex.type(op.operands[0].type)} -> {ex.type(op.result.type)}"


def update_nd_offset(op, ex) -> str:
    _require_vc(op, ex)
    ops = [ex.name(v) for v in op.operands]
    st = _ints(op.attributes["static_offsets"])
    if ex.plan is not None:  # offsets form: folded into the accesses
        return "\n".join(ex.plan.replace[op])
    return (f"{ex.result(op)} = xegpu.update_nd_offset {ops[0]}, [{_mixed(ops[1:], st)}] : "
            f"{ex.type(op.result.type)}")


def load_nd(op, ex) -> str:
    """VNNI loads (vnni_axis) load the plain 2D block: upstream packs at lane level (the B layout's
    lane_data = [2, 1] / [4, 1] makes xegpu-subgroup-distribute emit `packed`)."""
    _require_vc(op, ex)
    props = _hints(op)
    if _attr(op, "transpose") is not None:
        props.append(("transpose", f"array<i64: {', '.join(map(str, _ints(op.attributes['transpose'])))}>"))
    res = str(op.result.type)
    if _attr(op, "vnni_axis") is not None:
        ex.add_vnni(res, ir.IntegerAttr(op.attributes["vnni_axis"]).value)
    td = op.operands[0]
    if ex.plan is not None and _transposed_16bit(op, ex):
        return _transposed_load(op, td, ex, [p for p in props if p[0] != "transpose"])
    split = _split_load(op, td, ex, props)
    if split is not None:
        return split
    pre, ref = _access(op, td, ex)
    return pre + (f"{ex.result(op)} = xegpu.load_nd {ref}{properties(props)} : {ex.type(td.type)} -> "
                  f"{ex.type(op.result.type)}")


def _transposed_16bit(op, ex) -> bool:
    from ...core.typeinfo import element_bits

    if _attr(op, "transpose") is None or _ints(op.attributes["transpose"]) != [1, 0]:
        return False
    full = ex.type(op.operands[0].type)
    shape, elt = vector_parts("vector<" + full[len("!xegpu.tensor_desc<"):].split(",")[0].rstrip(">") + ">")
    return len(shape) == 2 and element_bits(elt) == 16


def _transposed_load(op, td, ex, props) -> str:
    """Offsets form, a transposed 16-bit load (upstream XeVM transposes only 32/64-bit elements, and its
    layout propagation expects no transpose on load_nd): the plain block loaded and `vector.transpose`d,
    which upstream's `xegpu-optimize-block-loads` turns into a 32-bit transposed load of packed pairs.
    Sliced results are loaded per slice (the transposed B of two dpas: two 16x16 blocks), each slice
    [a:a+h, b:b+w] of the result being the transpose of the source block [b:b+w, a:a+h]."""

    rshape, elt = vector_parts(ex.type(op.result.type))
    axis = ex.vnni_axis(str(op.result.type))
    users = [u.owner for u in op.result.uses]
    slices = []
    for u in users:
        if u.name != "vector.extract_strided_slice":
            slices = None
            break
        offs, sizes, strides = (_ints_any(u.attributes[k]) for k in ("offsets", "sizes", "strides"))
        if axis is not None and len(offs) == 3 and offs[2] == 0 and sizes[2] == vnni_factor(elt):
            v = vnni_factor(elt)
            offs = [offs[0] * v, offs[1]] if axis == 0 else [offs[0], offs[1] * v]
            sizes, strides = flatten_vnni(sizes, axis), strides[:2]
            ex.add_vnni(str(u.result.type), axis)
        if len(offs) != 2 or any(x != 1 for x in strides):
            slices = None
            break
        slices.append((u, offs, sizes))
    create = ex.plan.base_create(td, op)
    if not slices or create is None:
        pre, ref = _access(op, td, ex)
        plain, full = ex.plan.fresh(), ex.type(td.type)
        src = vector_text([rshape[1], rshape[0]], elt)
        return pre + (f"{plain} = xegpu.load_nd {ref}{properties(props)} : {full} -> {src}\n"
                      f"{ex.result(op)} = vector.transpose {plain}, [1, 0] : {src} to {ex.type(op.result.type)}")
    full = ex.type(td.type)
    _, syms = ex.plan.get(td, op)
    head = create_nd_tdesc(create, ex).rpartition(" -> ")[0].split(" = ", 1)[1]
    lines, descs = [], {}
    for u, (a, b), (h, w) in slices:
        narrow = full.replace(f"<{rshape[1]}x{rshape[0]}x{elt}", f"<{w}x{h}x{elt}", 1)
        if narrow not in descs:
            descs[narrow] = ex.plan.fresh()
            lines.append(f"{descs[narrow]} = {head} -> {narrow}")
        row, lr = ex.plan.materialize((syms[0][0], syms[0][1] + b), literal_ok=LITERAL_OFFSETS)
        col, lc = ex.plan.materialize((syms[1][0], syms[1][1] + a), literal_ok=LITERAL_OFFSETS)
        plain, src = ex.plan.fresh(), vector_text([w, h], elt)
        lines += lr + lc + [f"{plain} = xegpu.load_nd {descs[narrow]}[{row}, {col}]{properties(props)} : "
                            f"{narrow} -> {src}",
                            f"{ex.result(u)} = vector.transpose {plain}, [1, 0] : {src} to {ex.type(u.result.type)}"]
        ex.dropped.add((ex.scope, ex.result(u)))
    return "\n".join(lines)


# element widths whose sliced loads are split into one load per slice (upstream's subgroup distribution,
# LLVM 22, does not distribute a slice of a lane_data = [1, 2] 8-bit A block: the i8 A 8x64 of two K steps);
# loads of any width are split when a slice takes fewer rows (the 32x32 A block of a 32-row subgroup tile)
SPLIT_LOAD_BITS = (8,)


def _split_load(op, td, ex, props):
    """Offsets form: a plain 2D load used only by unit-stride slices, of SPLIT_LOAD_BITS elements or
    sliced along rows, as one load per slice through a descriptor of the slice's shape on the same source; the slices' lines are
    dropped (`ex.dropped`), their results are the loads'. None when not applicable."""
    if ex.plan is None or any(k == "transpose" for k, _ in props) or _attr(op, "vnni_axis") is not None:
        return None
    from ...core.typeinfo import element_bits


    shape, elt = vector_parts(str(op.result.type))
    users = [u.owner for u in op.result.uses]
    if len(shape) != 2 or not users:
        return None
    slices = []
    for u in users:
        if u.name != "vector.extract_strided_slice":
            return None
        offs, sizes, strides = (_ints_any(u.attributes[k]) for k in ("offsets", "sizes", "strides"))
        if len(offs) != 2 or len(sizes) != 2 or any(x != 1 for x in strides):
            return None
        slices.append((u, offs, sizes))
    if element_bits(elt) not in SPLIT_LOAD_BITS and all(sz[0] == shape[0] for _, _, sz in slices):
        return None
    create = ex.plan.base_create(td, op)
    if create is None:
        return None
    full = ex.type(td.type)
    _, syms = ex.plan.get(td, op)
    head = create_nd_tdesc(create, ex).rpartition(" -> ")[0].split(" = ", 1)[1]
    lines, descs = [], {}
    for u, offs, sizes in slices:
        if _column(u.result, create, (syms[0][0], syms[0][1] + offs[0]), (syms[1][0], syms[1][1] + offs[1]), ex):
            ex.dropped.add((ex.scope, ex.result(u)))
            continue
        narrow = full.replace(f"<{shape[0]}x{shape[1]}x{elt}", f"<{sizes[0]}x{sizes[1]}x{elt}", 1)
        if narrow not in descs:
            descs[narrow] = ex.plan.fresh()
            lines.append(f"{descs[narrow]} = {head} -> {narrow}")
        row, lr = ex.plan.materialize((syms[0][0], syms[0][1] + offs[0]), literal_ok=LITERAL_OFFSETS)
        col, lc = ex.plan.materialize((syms[1][0], syms[1][1] + offs[1]), literal_ok=LITERAL_OFFSETS)
        lines += lr + lc + [f"{ex.result(u)} = xegpu.load_nd {descs[narrow]}[{row}, {col}]{properties(props)} : "
                            f"{narrow} -> {ex.type(u.result.type)}"]
        ex.dropped.add((ex.scope, ex.result(u)))
    return "\n".join(lines)


def _column(value, create, row, col, ex) -> bool:
    """A column block `vector<h x 1>` (a column bias) used only by `vector.broadcast` to `vector<h x w>`:
    upstream's layout propagation (LLVM 22) cannot distribute the [h, 1] vector, so each broadcast is
    exported as h uniform scalar loads (`memref.load`, rows clamped into the memref: rows past its end
    are never stored) broadcast to `vector<1 x w>` rows (`driver._broadcast`). Recorded in
    `ex.columns`; False when not applicable (then the block is loaded as usual)."""
    shape, elt = vector_parts(str(value.type))
    users = [u.owner for u in value.uses]
    src = create.operands[0]
    if (len(shape) != 2 or shape[1] != 1 or not users or not str(src.type).startswith("memref<")
            or ir.MemRefType(src.type).rank != 2):
        return False
    for u in users:
        if u.name != "vector.broadcast":
            return False
        ushape, _ = vector_parts(str(u.result.type))
        if len(ushape) != 2 or ushape[0] != shape[0]:
            return False
    n_src, n_off, n_shape, _ = _segments(create)
    st_shape = _ints(create.attributes["static_shape"])
    mshape = list(ir.MemRefType(src.type).shape)
    if st_shape:
        bound = (ex.name(list(create.operands)[1 + n_off]) if st_shape[0] == DYNAMIC else None, st_shape[0])
    else:
        bound = (None, mshape[0]) if mshape[0] != DYNAMIC else ("dim", 0)
    ex.columns[value] = (ex.name(src), str(src.type), row, col, bound, shape[0], elt)
    return True


def column_broadcast(op, ex):
    """The lines of a `vector.broadcast` of a column block recorded by `_column`, or None."""

    src = op.operands[0]
    if src not in ex.columns:
        return None
    mem, mem_t, row, col, (bname, bval), h, elt = ex.columns[src]
    (_, w), _ = vector_parts(str(op.result.type))
    zero = "0.0" if elt.startswith(("f", "bf")) else "0"
    out, rt = ex.result(op), vector_text([1, w], elt)
    z, one, last = ex.fresh(), ex.fresh(), ex.fresh()
    lines = [f"{z} = arith.constant dense<{zero}> : {vector_text([h, w], elt)}", f"{one} = arith.constant 1 : index"]
    if bname == "dim":
        c0, bname = ex.fresh(), ex.fresh()
        lines += [f"{c0} = arith.constant 0 : index", f"{bname} = memref.dim {mem}, {c0} : {mem_t}"]
    elif bname is None:
        bname = ex.fresh()
        lines.append(f"{bname} = arith.constant {bval} : index")
    lines.append(f"{last} = arith.subi {bname}, {one} : index")
    c, lc = ex.plan.materialize(col, literal_ok=LITERAL_OFFSETS)
    lines += lc
    acc = z
    for i in range(h):
        r, lr = ex.plan.materialize((row[0], row[1] + i), literal_ok=LITERAL_OFFSETS)
        q, s_, b = ex.fresh(), ex.fresh(), ex.fresh()
        nxt = out if i == h - 1 else ex.fresh()
        lines += lr + [f"{q} = arith.minsi {r}, {last} : index",
                       f"{s_} = memref.load {mem}[{q}, {c}] : {mem_t}",
                       f"{b} = vector.broadcast {s_} : {elt} to {rt}",
                       f"{nxt} = vector.insert_strided_slice {b}, {acc} {{offsets = [{i}, 0], strides = [1, 1]}} : "
                       f"{rt} into {vector_text([h, w], elt)}"]
        acc = nxt
    return "\n".join(lines)


def _access(op, td, ex) -> tuple[str, str]:
    """(lines defining the offsets, `%t` or `%base[o0, o1]`) of an access of descriptor `td`."""
    if ex.plan is None:
        return "", ex.name(td)
    base, offs, lines = ex.plan.access(td, op)
    return "".join(line + "\n" for line in lines), base + offs


# widest 2D block prefetch / store upstream's XeVM lowering takes, by element bits
# (xevm.blockprefetch2d / blockstore2d: "tile_width for 16 bit elements should be equal to 16")
PREFETCH_WIDTH = {8: 32, 16: 16}
STORE_WIDTH = {16: 16}


def prefetch_nd(op, ex) -> str:
    """Offsets form: a prefetch wider than upstream's XeVM prefetch tile is split into prefetches of
    a narrower descriptor (created next to it) covering the same block; a prefetch is only a hint."""
    _require_vc(op, ex)
    td = op.operands[0]
    hints = properties(_hints(op))
    split = _split(op, td, ex, PREFETCH_WIDTH,
                   lambda j, ref, narrow, w: [f"xegpu.prefetch_nd {ref}{hints} : {narrow}"])
    if split is not None:
        return split
    pre, ref = _access(op, td, ex)
    return pre + f"xegpu.prefetch_nd {ref}{hints} : {ex.type(td.type)}"


def store_nd(op, ex) -> str:
    """Offsets form: a 16-bit store wider than upstream's XeVM store tile is split into stores of
    column slices of the value through a narrower descriptor."""
    _require_vc(op, ex)
    v, td = op.operands
    hints = properties(_hints(op))

    def piece(j, ref, narrow, w):
        (h, _), elt = vector_parts(str(v.type))
        part, vt = ex.plan.fresh(), vector_text([h, w], elt)
        return [f"{part} = vector.extract_strided_slice {ex.name(v)} {{offsets = [0, {j * w}], sizes = [{h}, {w}], "
                f"strides = [1, 1]}} : {ex.type(v.type)} to {vt}",
                f"xegpu.store_nd {part}, {ref}{hints} : {vt}, {narrow}"]

    split = _split(op, td, ex, STORE_WIDTH, piece)
    if split is not None:
        return split
    pre, ref = _access(op, td, ex)
    return pre + f"xegpu.store_nd {ex.name(v)}, {ref}{hints} : {ex.type(v.type)}, {ex.type(td.type)}"


def _split(op, td, ex, widths, emit):
    """Lines accessing the 2D block of `td` as column pieces `w` wide (widths[element bits]) through a
    narrower descriptor on the same source; None when not needed (or not in the offsets form)."""
    if ex.plan is None:
        return None
    from ...core.typeinfo import element_bits


    full = ex.type(td.type)
    shape, elt = vector_parts("vector<" + full[len("!xegpu.tensor_desc<"):].split(",")[0].rstrip(">") + ">")
    w = widths.get(element_bits(elt))
    create = ex.plan.base_create(td, op)
    if w is None or len(shape) != 2 or shape[1] <= w or shape[1] % w or create is None:
        return None
    narrow = full.replace(f"<{shape[0]}x{shape[1]}x{elt}", f"<{shape[0]}x{w}x{elt}", 1)
    _, syms = ex.plan.get(td, op)
    name = ex.plan.fresh()
    head = create_nd_tdesc(create, ex).rpartition(" -> ")[0]
    lines = [f"{name} = {head.split(' = ', 1)[1]} -> {narrow}"]
    for j in range(shape[1] // w):
        row, ls = ex.plan.materialize(syms[0], literal_ok=LITERAL_OFFSETS)
        col, lc = ex.plan.materialize((syms[1][0], syms[1][1] + j * w), literal_ok=LITERAL_OFFSETS)
        lines += ls + lc + emit(j, f"{name}[{row}, {col}]", narrow, w)
    return "\n".join(lines)


def dpas(op, ex) -> str:
    """2D operands: our VNNI B <K/v x N x v> (and VNNI A) are upstream's plain <K x N> / <M x K>."""
    _require_vc(op, ex)
    names = ", ".join(ex.name(v) for v in op.operands)
    types = ", ".join(ex.type(v.type) for v in op.operands)
    return f"{ex.result(op)} = xegpu.dpas {names} : {types} -> {ex.type(op.result.type)}"


def alloc_nbarrier(op, ex) -> str:
    if _attr(op, "nbarrier_num") is not None:
        n = ir.IntegerAttr(op.attributes["nbarrier_num"]).value
    else:
        n = _constant(op.operands[0]) if len(op.operands) else None
        if n is None:
            raise ExportOpError("'xegpu.alloc_nbarrier' with a non-constant count is not exported "
                                "(upstream takes the count as an attribute)")
    return f"xegpu.alloc_nbarrier {n}"


def _constant(v):
    owner = v.owner
    if isinstance(owner, ir.OpView):
        owner = owner.operation
    if getattr(owner, "name", None) == "arith.constant":
        return ir.IntegerAttr(owner.attributes["value"]).value
    return None


def init_nbarrier(op, ex) -> str:
    a, b = op.operands
    return (f"{ex.result(op)} = xegpu.init_nbarrier {ex.name(a)}, {ex.name(b)} : {a.type}, {b.type} -> "
            "!xegpu.nbarrier")


def nbarrier_arrive(op, ex) -> str:
    return f"xegpu.nbarrier_arrive {ex.name(op.operands[0])} : !xegpu.nbarrier"


def nbarrier_wait(op, ex) -> str:
    return f"xegpu.nbarrier_wait {ex.name(op.operands[0])} : !xegpu.nbarrier"


_FENCE_KIND = {"ugm": "global", "slm": "slm"}
_FENCE_SCOPE = {"group": "workgroup", "gpu": "gpu"}


def mfence(op, ex) -> str:
    kind, fop, scope = _str(op, "memory_kind"), _str(op, "fence_op"), _str(op, "fence_scope")
    if kind not in _FENCE_KIND or scope not in _FENCE_SCOPE or fop != "none":
        raise ExportOpError(f"'xegpu.mfence' (memory_kind {kind}, fence_op {fop}, fence_scope {scope}) is not "
                            "exported: upstream xegpu.fence has memory_kind global/slm, fence_scope "
                            "workgroup/gpu and no fence_op")
    return f"xegpu.fence memory_kind = {_FENCE_KIND[kind]}, fence_scope = {_FENCE_SCOPE[scope]}"


def extract_strided_slice(op, ex) -> str:
    """A slice of a VNNI vector: offsets/sizes along the packed axis scaled by the VNNI factor."""
    src = op.operands[0]
    axis = ex.vnni_axis(str(src.type))
    shape, elt = vector_parts(str(src.type))
    v = vnni_factor(elt)
    offs = _ints_any(op.attributes["offsets"])
    sizes = _ints_any(op.attributes["sizes"])
    strides = _ints_any(op.attributes["strides"])
    if len(offs) != 3 or offs[2] != 0 or sizes[2] != v or any(s != 1 for s in strides):
        raise ExportOpError("'vector.extract_strided_slice' of a VNNI vector is exported only whole along the "
                            f"VNNI dimension with unit strides (offsets {offs}, sizes {sizes})")
    o2 = [offs[0] * v, offs[1]] if axis == 0 else [offs[0], offs[1] * v]
    s2 = flatten_vnni(sizes, axis)
    res = str(op.result.type)
    ex.add_vnni(res, axis)
    return (f"{ex.result(op)} = vector.extract_strided_slice {ex.name(src)} {{offsets = {o2}, sizes = {s2}, "
            f"strides = [1, 1]}} : {vector_text(flatten_vnni(shape, axis), elt)} to {ex.type(op.result.type)}")


def _ints_any(a) -> list[int]:
    return [ir.IntegerAttr(x).value for x in ir.ArrayAttr(a)]


# ---- scattered access: upstream's xegpu.load / store / prefetch take the source and the offsets ----

_UPSTREAM_ATOMIC = ("addf", "addi", "assign", "maximumf", "maxs", "maxu", "minimumf", "mins", "minu", "mulf",
                    "muli", "ori", "andi")


def _scatter_info(t: str):
    """(lanes, chunk, element type) of our scattered descriptor type text."""
    from .types import scattered_parts

    return scattered_parts(t)


def _flat_source(src, ex) -> tuple[list[str], str, str]:
    """(lines, name, type) of the 1D source upstream's scattered ops take: a memref of rank > 1 is
    collapsed (`memref.collapse_shape`, contiguous layouts only: our offsets are element offsets from
    the memref's offset, which the collapse keeps); an i64 address stays."""
    t = src.type
    name = ex.name(src)
    if not isinstance(t, ir.MemRefType) and str(t) != "memref":
        try:
            t = ir.MemRefType(t)
        except ValueError:
            if str(t) in ("i64", "ui64", "i32", "ui32"):
                return [], name, str(t)
            raise ExportOpError(f"scattered source of type {t} is not exported (memref or i64 address only)")
    strides, offset = t.get_strides_and_offset()
    shape = list(t.shape)
    identity = "strided<" not in str(t) and "affine_map" not in str(t)  # the printed type has no layout
    contiguous, expect = True, 1
    for d in range(len(shape) - 1, -1, -1):
        if d < len(shape) - 1 or strides[d] != DYNAMIC:
            if strides[d] != expect:
                contiguous = False
                break
        if shape[d] == DYNAMIC:
            expect = DYNAMIC
        elif expect != DYNAMIC:
            expect *= shape[d]
    if not identity and not contiguous:
        raise ExportOpError(f"scattered access of the non-contiguous {t} is not exported (upstream's scattered "
                            "ops take a 1D memref; this one cannot be collapsed)")
    ms = "" if t.memory_space is None else f", {t.memory_space}"
    if len(shape) == 1 and (identity or strides[0] == 1):
        return [], name, str(t)
    size = "?" if any(x == DYNAMIC for x in shape) else str(_prod(shape))
    layout = ""
    if not identity and offset != 0:
        layout = f", strided<[1], offset: {'?' if offset == DYNAMIC else offset}>"
    flat = f"memref<{size}x{t.element_type}{layout}{ms}>"
    out = ex.fresh()
    groups = "[[" + ", ".join(str(i) for i in range(len(shape))) + "]]"
    return [f"{out} = memref.collapse_shape {name} {groups} : {t} into {flat}"], out, flat


def _prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def create_tdesc(op, ex) -> str:
    """Our scattered descriptor is not kept: its (1D source, offsets) go into each access (upstream's
    `xegpu.load %src[%offsets], %mask`); a rank > 1 memref is collapsed to 1D here."""
    _require_vc(op, ex)
    lanes, chunk, elt = _scatter_info(str(op.result.type))
    lines, src, src_t = _flat_source(op.operands[0], ex)
    offs = op.operands[1]
    if str(offs.type) != f"vector<{lanes}xindex>":
        raise ExportOpError(f"scattered offsets of type {offs.type} are not exported (vector<{lanes}xindex>)")
    ex.scatter[op.result] = (src, src_t, ex.name(offs), str(offs.type), lanes, chunk, elt)
    return "\n".join(lines)


def _scattered(op, td, ex):
    if td not in ex.scatter:
        raise ExportOpError(f"'{op.name}': scattered descriptor {ex.name(td)} does not come from create_tdesc / "
                            "update_offset in view (loop-carried or block-argument scattered descriptors are "
                            "not exported)")
    return ex.scatter[td]


def update_offset(op, ex) -> str:
    _require_vc(op, ex)
    td, delta = op.operands
    src, src_t, offs, offs_t, lanes, chunk, elt = _scattered(op, td, ex)
    out = ex.fresh()
    ex.scatter[op.result] = (src, src_t, out, offs_t, lanes, chunk, elt)
    return f"{out} = arith.addi {offs}, {ex.name(delta)} : {offs_t}"


WIDE_LANES = 16


def _widen(ex, offs, offs_t, mask, lanes):
    """A 1-lane access (a vector<1xindex> offset reads as a lane-level access upstream, not a subgroup
    one) as a 16-lane one whose lanes 1..15 are masked off: (lines, offsets, their type, mask, mask
    type, lanes). Other accesses unchanged."""
    mask_name, mask_t = (ex.name(mask), str(mask.type)) if mask is not None else (None, None)
    if lanes != 1:
        return [], offs, offs_t, mask_name, mask_t, lanes
    w = WIDE_LANES
    b = ex.fresh()
    lines = [f"{b} = vector.broadcast {offs} : {offs_t} to vector<{w}xindex>"]
    m = None
    if mask is not None:
        bm, first, m = ex.fresh(), ex.fresh(), ex.fresh()
        lane0 = ", ".join(["true"] + ["false"] * (w - 1))
        lines += [f"{bm} = vector.broadcast {mask_name} : {mask_t} to vector<{w}xi1>",
                  f"{first} = arith.constant dense<[{lane0}]> : vector<{w}xi1>",
                  f"{m} = arith.andi {bm}, {first} : vector<{w}xi1>"]
    return lines, b, f"vector<{w}xindex>", m, f"vector<{w}xi1>", w


def _scatter_props(op, chunk) -> list[tuple[str, str]]:
    props = _hints(op)
    if chunk > 1:
        props.append(("chunk_size", str(chunk)))
    return props


def load_gather(op, ex) -> str:
    """`xegpu.load %src[%offsets], %mask <{chunk_size = n}>` -> vector<lanes x n>; our transposed
    chunked load (vector<n x lanes>) is that load and a `vector.transpose`."""
    _require_vc(op, ex)
    td, mask = op.operands
    src, src_t, offs, offs_t, lanes, chunk, elt = _scattered(op, td, ex)
    lines, offs, offs_t, m, m_t, wide = _widen(ex, offs, offs_t, mask, lanes)
    shape = [lanes] if chunk == 1 else [lanes, chunk]
    vt, res = vector_text(shape, elt), ex.type(op.result.type)
    full = vector_text([wide] + shape[1:], elt)
    direct = wide == lanes and _attr(op, "transpose") is None and res == vt
    loaded = ex.result(op) if direct else ex.fresh()
    lines.append(f"{loaded} = xegpu.load {src}[{offs}], {m}{properties(_scatter_props(op, chunk))} : "
                 f"{src_t}, {offs_t}, {m_t} -> {full}")
    if direct:
        return "\n".join(lines)
    transposed = _attr(op, "transpose") is not None and chunk > 1
    if wide != lanes:  # lane 0 of the widened load
        first = ex.result(op) if not transposed and res == vt else ex.fresh()
        lines.append(f"{first} = vector.extract_strided_slice {loaded} {{offsets = {[0] * len(shape)}, "
                     f"sizes = {shape}, strides = {[1] * len(shape)}}} : {full} to {vt}")
        if first == ex.result(op):
            return "\n".join(lines)
        loaded = first
    if transposed:
        lines.append(f"{ex.result(op)} = vector.transpose {loaded}, [1, 0] : {vt} to {res}")
    else:
        lines.append(f"{ex.result(op)} = vector.shape_cast {loaded} : {vt} to {res}")
    return "\n".join(lines)


def store_scatter(op, ex) -> str:
    _require_vc(op, ex)
    v, td, mask = op.operands
    src, src_t, offs, offs_t, lanes, chunk, elt = _scattered(op, td, ex)
    lines, offs, offs_t, m, m_t, wide = _widen(ex, offs, offs_t, mask, lanes)
    vt = vector_text([lanes] if chunk == 1 else [lanes, chunk], elt)
    val = ex.name(v)
    if ex.type(v.type) != vt:
        cast = ex.fresh()
        lines.append(f"{cast} = vector.shape_cast {val} : {ex.type(v.type)} to {vt}")
        val = cast
    if wide != lanes:  # lane 0's value in every lane; lanes 1.. are masked off
        full, b = vector_text([wide] + ([] if chunk == 1 else [chunk]), elt), ex.fresh()
        lines.append(f"{b} = vector.broadcast {val} : {vt} to {full}")
        val, vt = b, full
    lines.append(f"xegpu.store {val}, {src}[{offs}], {m}{properties(_scatter_props(op, chunk))} : "
                 f"{vt}, {src_t}, {offs_t}, {m_t}")
    return "\n".join(lines)


def prefetch(op, ex) -> str:
    _require_vc(op, ex)
    td = op.operands[0]
    src, src_t, offs, offs_t, lanes, chunk, elt = _scattered(op, td, ex)
    lines, offs, offs_t, _, _, _ = _widen(ex, offs, offs_t, None, lanes)
    lines.append(f"xegpu.prefetch {src}[{offs}]{properties(_scatter_props(op, chunk))} : {src_t}, {offs_t}")
    return "\n".join(lines)


def atomic_rmw(op, ex) -> str:
    """Upstream's atomic_rmw (LLVM 22) still takes a scattered descriptor: one is created from the
    source and offsets (`#xegpu.scatter_tdesc_attr<chunk_size = n>`)."""
    _require_vc(op, ex)
    kind = _str(op, "kind")
    if kind not in _UPSTREAM_ATOMIC:
        raise ExportOpError(f"atomic kind {kind} has no upstream equivalent")
    v, td, mask = op.operands
    src, src_t, offs, offs_t, lanes, chunk, elt = _scattered(op, td, ex)
    shape = [lanes] if chunk == 1 else [lanes, chunk]
    tdt = f"!xegpu.tensor_desc<{'x'.join(map(str, shape))}x{elt}, #xegpu.scatter_tdesc_attr<chunk_size = {chunk}>>"
    vt = vector_text(shape, elt)
    if ex.type(v.type) != vt:
        raise ExportOpError(f"atomic_rmw on {v.type} is not exported (upstream takes {vt})")
    t = ex.fresh()
    return (f"{t} = xegpu.create_tdesc {src}, {offs} : {src_t}, {offs_t} -> {tdt}\n"
            f"{ex.result(op)} = xegpu.atomic_rmw {kind} {t}, {ex.name(mask)}, {ex.name(v)} : {tdt}, {mask.type}, "
            f"{vt} -> {vt}")


TABLE = {
    "xegpu.create_nd_tdesc": create_nd_tdesc,
    "xegpu.update_nd_offset": update_nd_offset,
    "xegpu.load_nd": load_nd,
    "xegpu.store_nd": store_nd,
    "xegpu.prefetch_nd": prefetch_nd,
    "xegpu.dpas": dpas,
    "xegpu.alloc_nbarrier": alloc_nbarrier,
    "xegpu.init_nbarrier": init_nbarrier,
    "xegpu.nbarrier_arrive": nbarrier_arrive,
    "xegpu.nbarrier_wait": nbarrier_wait,
    "xegpu.mfence": mfence,
    "xegpu.create_tdesc": create_tdesc,
    "xegpu.update_offset": update_offset,
    "xegpu.load_gather": load_gather,
    "xegpu.store_scatter": store_scatter,
    "xegpu.prefetch": prefetch,
    "xegpu.atomic_rmw": atomic_rmw,
}

NOT_EXPORTED = {
    "xegpu.create_nbarrier": "create_nbarrier (role-based; upstream has init_nbarrier only)",
    "xegpu.compile_hint": "compile_hint (no upstream equivalent)",
}


def not_exported_message(name: str) -> str:
    return f"'{name}' is not exported to upstream xegpu: {NOT_EXPORTED.get(name, 'no upstream translation')}"


def translate(op, ex) -> str:
    fn = TABLE.get(op.name)
    if fn is None:
        raise ExportOpError(not_exported_message(op.name))
    try:
        return fn(op, ex)
    except ExportTypeError as e:
        raise ExportOpError(f"'{op.name}': {e}") from None


# ---- a column built from 1-lane gathers (the scattered column bias) ----

def _owner(v, name):
    """The op defining `v` if it is a `name` op, else None."""
    o = v.owner
    return o if getattr(o, "name", None) == name else None


def _broadcast_scalar(v, scalar_t):
    """The scalar `x` of `v = vector.broadcast x : scalar_t to vector<1x...>`, or None."""
    b = _owner(v, "vector.broadcast")
    return b.operands[0] if b is not None and str(b.operands[0].type) == scalar_t else None


def _splat_literal(v):
    """The literal of a splat `arith.constant dense<lit> : vector<...>`, or None."""
    c = _owner(v, "arith.constant")
    if c is None:
        return None
    text = str(c.attributes["value"])
    if not text.startswith("dense<") or text.startswith("dense<["):
        return None
    return text[len("dense<"):text.index(">")]


def _gathered_row(x, ex):
    """(source Value, offset scalar, mask scalar, masked-off literal) of a `vector<1xT>` row value
    `arith.select %m, %g, %c` with `%g` a 1-lane `load_gather` under the same mask `%m`, its offsets
    and mask broadcasts of scalars, `%c` a splat constant; else None."""
    sel = _owner(x, "arith.select")
    if sel is None:
        return None
    cond, g, c = sel.operands
    lit = _splat_literal(c)
    gather = _owner(g, "xegpu.load_gather")
    if lit is None or gather is None or len(list(g.uses)) != 1:
        return None
    td, mask = list(gather.operands)[:2]
    if mask != cond or len(gather.operands) != 2 or _attr(gather, "transpose") is not None:
        return None
    create = _owner(td, "xegpu.create_tdesc")
    if create is None or len(list(td.uses)) != 1 or _scatter_info(str(td.type))[:2] != (1, 1):
        return None
    off, m = _broadcast_scalar(create.operands[1], "index"), _broadcast_scalar(mask, "i1")
    if off is None or m is None:
        return None
    return create.operands[0], off, m, lit, (sel, gather, create)


def gathered_column(bcast, ex) -> bool:
    """A `vector<h x 1>` column assembled by `vector.insert_strided_slice` of h masked 1-lane gathers
    (the column bias of a scattered epilogue, `_gathered_row`) and used only by `vector.broadcast` to
    `vector<h x w>`: LLVM 22's subgroup distribution gives each gathered row the 2D layout of the block
    and asserts (XeGPUSubgroupDistribute.cpp:90). Recorded in `ex.gcolumns` (the broadcast is then h
    uniform scalar `memref.load`s, as `_column`), the gathers and the inserts in `ex.gdrop`."""
    v = bcast.operands[0]
    if v in ex.gcolumns:
        return True
    try:
        shape, elt = vector_parts(str(v.type))
    except ExportTypeError:
        return False
    if len(shape) != 2 or shape[1] != 1:
        return False
    for u in v.uses:
        o = u.owner
        if o.name != "vector.broadcast":
            return False
        ushape, _ = vector_parts(str(o.result.type))
        if len(ushape) != 2 or ushape[0] != shape[0]:
            return False
    rows, drop, cur = {}, [], v
    while True:
        ins = _owner(cur, "vector.insert_strided_slice")
        if ins is None:
            break
        if cur != v and len(list(cur.uses)) != 1:
            return False
        offs = _ints_any(ins.attributes["offsets"])
        if str(ins.operands[0].type) != f"vector<1x{elt}>" or len(offs) != 2 or offs[1] != 0:
            return False
        rows.setdefault(offs[0], ins.operands[0])  # walking back: the last insert of a row wins
        drop.append(ins.result)
        cur = ins.operands[1]
    if sorted(rows) != list(range(shape[0])):
        return False
    info, vecs = [], []
    for i in range(shape[0]):
        x = rows[i]
        if len(list(x.uses)) != 1:
            return False
        r = _gathered_row(x, ex)
        if r is None:
            return False
        src, off, m, lit, ops = r
        if not isinstance(src.type, ir.MemRefType):
            return False
        info.append((src, off, m, lit))
        drop += [o.result for o in ops]
        sel, gather, create = ops
        vecs += [create.operands[1], gather.operands[1]]
    gone = set(drop)
    for x in vecs:  # the vector<1x...> broadcasts of the offset and the mask, when nothing else uses them
        if x not in gone and all(len(u.owner.results) == 1 and u.owner.results[0] in gone for u in x.uses):
            gone.add(x)
    ex.gcolumns[v] = (info, elt)
    ex.gdrop.update(gone)
    return True


def gathered_column_broadcast(op, ex):
    """The lines of a `vector.broadcast` of a column recorded by `gathered_column`, or None: per row,
    the offset (0 where the mask is off: masked rows read the source's first element, never past its
    end), a uniform `memref.load` of the 1D source, the masked-off value where the mask is off,
    broadcast to a `vector<1 x w>` row and inserted."""
    src = op.operands[0]
    if src not in ex.gcolumns:
        return None
    info, elt = ex.gcolumns[src]
    h = len(info)
    (_, w), _ = vector_parts(str(op.result.type))
    zero = "0.0" if elt.startswith(("f", "bf")) else "0"
    out, rt, full = ex.result(op), vector_text([1, w], elt), vector_text([h, w], elt)
    z, c0 = ex.fresh(), ex.fresh()
    lines = [f"{z} = arith.constant dense<{zero}> : {full}", f"{c0} = arith.constant 0 : index"]
    flat = {}
    acc = z
    for i, (mem, off, m, lit) in enumerate(info):
        key = ex.name(mem)
        if key not in flat:
            fl, name, t = _flat_source(mem, ex)
            lines += fl
            flat[key] = (name, t)
        name, t = flat[key]
        k, s_, d, val, b = ex.fresh(), ex.fresh(), ex.fresh(), ex.fresh(), ex.fresh()
        nxt = out if i == h - 1 else ex.fresh()
        lines += [f"{k} = arith.select {ex.name(m)}, {ex.name(off)}, {c0} : index",
                  f"{s_} = memref.load {name}[{k}] : {t}",
                  f"{d} = arith.constant {lit} : {elt}",
                  f"{val} = arith.select {ex.name(m)}, {s_}, {d} : {elt}",
                  f"{b} = vector.broadcast {val} : {elt} to {rt}",
                  f"{nxt} = vector.insert_strided_slice {b}, {acc} {{offsets = [{i}, 0], strides = [1, 1]}} : "
                  f"{rt} into {full}"]
        acc = nxt
    return "\n".join(lines)
