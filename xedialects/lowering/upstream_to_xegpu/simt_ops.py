"""Lane-level upstream xegpu -> our SIMT-mode XeGPU (sg_map `wi_layout = [1, 16], wi_data = [1, 1]`).

Upstream's per-lane vectors are 1D (`vector<8xf16>` of an 8x16 block); ours are the sg_map's 2D
fragments (`vector<8x1xf16>`) in the same element order, so values cross with `vector.shape_cast`.
An 8-bit block 32 wide (a DPAS A of i8) gives each lane two consecutive bytes of every row (LLVM 22's
lane order: types.lane_group), our `wi_data = [1, 2]` (`vector<8x2xi8>`).
B of dpas (`packed` or not, the per-lane order is the same: column `lane`, rows in order) becomes
our VNNI fragment <K/v x 1 x v>, the accumulator <M x 1>. A loaded by `load_nd` is passed as the
load's own fragment; any other A is reordered across lanes (`gpu.shuffle idx`) into the packed
order our SIMT dpas takes for computed operands (`wi_layout [2, 8], wi_data [1, 32/bits]`, docs/simt.md).
"""
from __future__ import annotations

from mlir import ir

from .matrix_ops import lane_load_matrix, lane_store_matrix
from .op_attrs import ImportOpError, attr, check_attrs, hint, HINTS, ints, props
from .sg_ops import _blocks
from .simt_dpas import cast, emit_dpas, packed_a
from .types import check_lane_order, lane_group, vector_parts, vector_text, zero_of
from .xevm_block2d import TABLE as XEVM_BLOCK2D
from .xevm_ops import mma

def _count(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _fragment(block_shape, group: int = 1) -> list[int]:
    """Our per-work-item shape of a block under wi_layout [1, 16], wi_data [1, group]."""
    if len(block_shape) == 1:
        return [max(1, block_shape[0] // 16)]
    return [_count(block_shape) // (16 * group), group]


def load_nd(op, tr) -> list[str]:
    check_attrs(op, ("const_offsets", "packed", "transpose", "transpose_bit_width") + HINTS)
    tp = ints(attr(op, "transpose"))
    if attr(op, "transpose_bit_width") is not None or tp not in ([], [1, 0]):
        raise ImportOpError("'xegpu.load_nd' with transpose_bit_width or a transpose other than [1, 0] at lane level "
                            "is not imported")
    lines: list[str] = []
    view, descs = _blocks(op, op.operands[0], tr, lines)
    shape, elt = vector_parts(op.result.type)
    check_lane_order(view.td)
    group = lane_group(view.td)
    if group > 1 and (tp or attr(op, "packed") is not None):
        raise ImportOpError(f"lane-level 'xegpu.load_nd' of tensor_desc<{view.td.block}> {'transposed' if tp else 'packed'}"
                            ": an 8-bit block is imported packed 16 wide only (DPAS B)")
    frag = _fragment(view.td.shape, group)
    extra = []
    if tp:  # lane i loads row i of the block (sg_map [16, 1]) and holds it as the transposed column
        if len(view.td.shape) != 2 or view.td.shape[0] != 16 or view.td.array_length != 1:
            raise ImportOpError(f"lane-level transposed load of tensor_desc<{view.td.block}>: only 16-row blocks "
                                "(one row per lane) are imported")
        frag = [1, view.td.shape[1]]
        extra = ["transpose = [1, 0]"]
    frag_t = vector_text(frag, elt)
    n = view.td.array_length
    if _count(shape) != _count(frag) * n:
        raise ImportOpError(f"'xegpu.load_nd' lane-level result {op.result.type} is not one lane's share of "
                            f"{n} x tensor_desc<{view.td.block}> (16 lanes)")
    res = tr.name(op.result)
    parts = []
    for d in descs:
        part = tr.fresh()
        lines.append(f"{part} = xegpu.load_nd {d}{props(op, extra, mode=None)} : {view.ours} -> {frag_t}")
        parts.append(part)
    if n == 1:
        if frag_t == str(op.result.type):
            lines[-1] = lines[-1].replace(f"{parts[0]} = ", f"{res} = ", 1)
        else:
            lines.append(f"{res} = vector.shape_cast {parts[0]} : {frag_t} to {op.result.type}")
            tr.loaded[(tr.scope, res)] = (parts[0], frag_t)
        return lines
    stack_t = vector_text([n] + frag, elt)
    acc = tr.fresh()
    lines.append(f"{acc} = arith.constant dense<{zero_of(elt)}> : {stack_t}")
    for i, p in enumerate(parts):
        nxt = tr.fresh()
        lines.append(f"{nxt} = vector.insert {p}, {acc} [{i}] : {frag_t} into {stack_t}")
        acc = nxt
    lines.append(f"{res} = vector.shape_cast {acc} : {stack_t} to {op.result.type}")
    return lines


def store_nd(op, tr) -> list[str]:
    check_attrs(op, ("const_offsets",) + HINTS)
    lines: list[str] = []
    view, descs = _blocks(op, op.operands[1], tr, lines, n_td=2)
    if len(descs) != 1:
        raise ImportOpError("'xegpu.store_nd' through an array_length descriptor")
    v = op.operands[0]
    shape, elt = vector_parts(v.type)
    check_lane_order(view.td)
    frag = _fragment(view.td.shape, lane_group(view.td))
    frag_t = vector_text(frag, elt)
    if _count(shape) != _count(frag):
        raise ImportOpError(f"'xegpu.store_nd' lane-level value {v.type} is not one lane's share of "
                            f"tensor_desc<{view.td.block}>")
    val = cast(tr.name(v), str(v.type), frag_t, tr, lines)
    lines.append(f"xegpu.store_nd {val}, {descs[0]}{props(op, mode=None)} : {frag_t}, {view.ours}")
    return lines


def dpas(op, tr) -> list[str]:
    check_attrs(op, ())
    a, b = op.operands[0], op.operands[1]
    acc = op.operands[2] if len(op.operands) > 2 else None
    lines: list[str] = []
    a_ours = packed_a(tr.name(a), str(a.type), tr, lines)
    emit_dpas(tr, lines, a_ours, (tr.name(b), str(b.type)),
              None if acc is None else (tr.name(acc), str(acc.type)), tr.name(op.result), str(op.result.type))
    return lines


def _scatter(op, tr, value_first: bool, lines):
    ops = list(op.operands)[1:] if value_first else list(op.operands)
    if len(ops) != 3:
        raise ImportOpError(f"'{op.name}' on a scattered tensor_desc (create_tdesc form) is not imported")
    src, off, mask = ops
    off_name, mask_name = tr.name(off), tr.name(mask)
    if str(off.type) == "vector<1xindex>":
        off_name = tr.fresh()
        lines.append(f"{off_name} = vector.extract {tr.name(off)}[0] : index from vector<1xindex>")
    if str(mask.type) == "vector<1xi1>":
        mask_name = tr.fresh()
        lines.append(f"{mask_name} = vector.extract {tr.name(mask)}[0] : i1 from vector<1xi1>")
    if str(off.type) not in ("index", "vector<1xindex>") or str(mask.type) not in ("i1", "vector<1xi1>"):
        raise ImportOpError(f"lane-level '{op.name}' takes one index offset and an i1 mask per lane, got "
                            f"{off.type}, {mask.type}")
    st = str(src.type)
    if not isinstance(src.type, ir.MemRefType):
        raise ImportOpError(f"'{op.name}' on a {st} source (only memrefs)")
    elt = str(ir.MemRefType(src.type).element_type)
    chunk = 1
    if attr(op, "chunk_size") is not None:
        chunk = ir.IntegerAttr(op.attributes["chunk_size"]).value
    tdt = (f"!xegpu.tensor_desc<16x{elt}, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], "
           "wi_data = [1, 1]>>>")
    descs = []
    for j in range(chunk):
        o = off_name
        if j:
            c, o2 = tr.fresh(), tr.fresh()
            lines += [f"{c} = arith.constant {j} : index", f"{o2} = arith.addi {o}, {c} : index"]
            o = o2
        d = tr.fresh()
        lines.append(f"{d} = xegpu.create_tdesc {tr.name(src)}, {o} : {st}, index -> {tdt}")
        descs.append(d)
    return descs, tdt, elt, mask_name


def _hints(op) -> str:
    items = [f"{h} = {hint(op.attributes[h])}" for h in HINTS if attr(op, h) is not None]
    return " {" + ", ".join(items) + "}" if items else ""


def load(op, tr) -> list[str]:
    """Lane-level `xegpu.load %src[%off], %mask <{chunk_size = n}>`: n gathers of one element each."""
    check_attrs(op, ("chunk_size",) + HINTS)
    lines: list[str] = []
    descs, tdt, elt, mask = _scatter(op, tr, False, lines)
    vals = []
    for d in descs:
        x = tr.fresh()
        lines.append(f"{x} = xegpu.load_gather {d}, {mask}{_hints(op)} : {tdt}, i1 -> {elt}")
        vals.append(x)
    lines.append(f"{tr.name(op.result)} = vector.from_elements {', '.join(vals)} : {op.result.type}")
    return lines


def store(op, tr) -> list[str]:
    check_attrs(op, ("chunk_size",) + HINTS)
    lines: list[str] = []
    descs, tdt, elt, mask = _scatter(op, tr, True, lines)
    v = op.operands[0]
    for j, d in enumerate(descs):
        x = tr.fresh()
        lines.append(f"{x} = vector.extract {tr.name(v)}[{j}] : {elt} from {v.type}")
        lines.append(f"xegpu.store_scatter {x}, {d}, {mask}{_hints(op)} : {elt}, {tdt}, i1")
    return lines


TABLE = {
    "xegpu.load_nd": load_nd,
    "xegpu.store_nd": store_nd,
    "xegpu.dpas": dpas,
    "xegpu.load": load,
    "xegpu.store": store,
    "xegpu.load_matrix": lane_load_matrix,
    "xegpu.store_matrix": lane_store_matrix,
    "xevm.mma": mma,  # the tf32 DPAS of the lane export; what convert-xegpu-to-xevm makes of a dpas
    **XEVM_BLOCK2D,   # XeVM-level kernels: 2D block loads / stores / prefetches on raw pointers, fences
}
