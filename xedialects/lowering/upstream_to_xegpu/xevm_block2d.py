"""Lane-level XeVM block ops (2D: `xevm.blockload2d` / `blockstore2d` / `blockprefetch2d`; subgroup
block reads / writes `xevm.blockload` / `blockstore` and `xevm.prefetch`: per-lane scattered
accesses), `xevm.memfence` and the id ops (`xevm.lane_id`, `local_id.x`, ...) -> our SIMT XeGPU
(sg_map `wi_layout = [1, 16]`) and gpu ids.

The raw global pointer becomes an i64 address (`llvm.ptrtoint`) under a descriptor whose 2D base is
given by the op's operands: height `base_height` rows, width `base_width` and row stride
`base_pitch` bytes (divided by the element size), block at [y, x] of `tile_height` x `tile_width`.
A lane holds column `lane` of every row (two consecutive bytes of a 32-wide 8-bit block: wi_data
[1, 2]), as the OpenCL builtins the ops lower to; `pack_register` of a 16-bit block changes only
how the lane's values are grouped (column `lane`, rows in order, two to an i32), so it is the plain
load bitcast. `v_blocks` blocks side by side are loaded one by one (a lane holds block 0's values,
then block 1's, ...); a transposed 32-bit load of 16 rows gives lane l row l (`wi_layout = [16, 1]`,
our `load_nd {transpose = [1, 0]}`). Cache controls become our l1/l2/l3 hints.
docs/upstream-xegpu-reference.md "XeVM".
"""
from __future__ import annotations

from mlir import ir

from .op_attrs import ImportOpError, attr
from .types import element_bits, vector_parts, vector_text

_LOAD_HINT = {"uc": "uncached", "c": "cached", "s": "streaming"}
_STORE_HINT = {"uc": "uncached", "wb": "write_back", "wt": "write_through", "s": "streaming"}
# xevm.memfence scope -> our fence_scope (narrower scopes than the work-group: the work-group fence)
_SCOPE = {"lane": "group", "subgroup": "group", "workgroup": "group", "cluster": "gpu", "device": "gpu",
          "system": "system"}
_KINDS = {"global": ("ugm",), "shared": ("slm",), "generic": ("ugm", "slm")}


def _int(op, name: str) -> int:
    a = attr(op, name)
    if a is None:
        raise ImportOpError(f"'{op.name}' without its '{name}' attribute")
    return ir.IntegerAttr(a).value


def _flag(op, name: str) -> bool:
    """A boolean property (`true`, or an integer as upstream's examples spell `false : i32`)."""
    a = attr(op, name)
    if a is None:
        return False
    try:
        return ir.BoolAttr(a).value
    except ValueError:
        return ir.IntegerAttr(a).value != 0


def _hints(op, table) -> str:
    """` {l1_hint = ..., l2_hint = ..., l3_hint = ...}` of the op's cache_control (none: empty)."""
    a = attr(op, "cache_control")
    if a is None:
        return ""
    s = str(a)
    value = s[s.index("<") + 1:s.rindex(">")]
    if value == "ir":
        return " {l1_hint = read_invalidate}"
    parts = value.split("_")
    if len(parts) != 3:
        raise ImportOpError(f"'{op.name}' cache_control {s} has no equivalent in our xegpu")
    items = []
    for level, p in zip(("l1", "l2", "l3"), parts):
        kind = p[2:]
        if kind not in table:
            raise ImportOpError(f"'{op.name}' cache_control {s} has no equivalent in our xegpu")
        items.append(f"{level}_hint = {table[kind]}")
    return " {" + ", ".join(items) + "}"


class _Block:
    """The blocks an op addresses: element type, shape, count (`v_blocks`, side by side), per-lane
    group, our descriptor type; transposed (32-bit): lane l holds row l of a 16-row block."""

    def __init__(self, op, value_type=None, transpose: bool = False):
        self.bits = _int(op, "elem_size_in_bits")
        self.width, self.height = _int(op, "tile_width"), _int(op, "tile_height")
        self.count = _int(op, "v_blocks") if attr(op, "v_blocks") is not None else 1
        self.transpose = transpose
        if transpose:
            if self.bits != 32 or self.height != 16 or self.count != 1:
                raise ImportOpError(f"'{op.name}' with transpose = true of {self.bits}-bit elements, tile_height "
                                    f"{self.height}, v_blocks {self.count} is not imported (32-bit, 16 rows: one "
                                    "row per lane, v_blocks = 1)")
        elif (self.bits, self.width) not in ((8, 32), (16, 16), (32, 16)):
            raise ImportOpError(f"'{op.name}' of {self.bits}-bit elements {self.width} wide is not imported (16-bit "
                                "or 32-bit blocks 16 wide, 8-bit blocks 32 wide: one row across the 16 lanes)")
        if self.count not in (1, 2, 4):
            raise ImportOpError(f"'{op.name}' with v_blocks = {self.count} is not imported (1, 2 or 4)")
        self.elt = f"i{self.bits}"
        if value_type is not None:
            _, elt = vector_parts(str(value_type))
            if element_bits(elt) == self.bits and not elt.startswith("i"):
                self.elt = elt        # a float block keeps its type
        self.group = 2 if self.bits == 8 else 1
        if transpose:
            self.frag = vector_text([1, self.width], self.elt)
            layout = "wi_layout = [16, 1], wi_data = [1, 1]"
        else:
            self.frag = vector_text([self.height * self.width // (16 * self.group), self.group], self.elt)
            layout = f"wi_layout = [1, 16], wi_data = [1, {self.group}]"
        self.tdesc = (f"!xegpu.tensor_desc<{self.height}x{self.width}x{self.elt}, #xegpu.tdesc_attr<sg_map = "
                      f"<{layout}>>>")


def _descriptors(op, tr, blk: _Block, lines: list[str]) -> list[str]:
    """Our descriptors of the blocks: `create_nd_tdesc` on the pointer's i64 address, block k at
    column x + k * tile_width."""
    ptr, bw, bh, bp, x, y = (tr.name(v) for v in list(op.operands)[:6])
    if not str(op.operands[0].type).startswith("!llvm.ptr"):
        raise ImportOpError(f"'{op.name}' on {op.operands[0].type}: expected an !llvm.ptr")
    addr = tr.fresh()
    lines.append(f"{addr} = llvm.ptrtoint {ptr} : {op.operands[0].type} to i64")
    idx = {}
    for key, v in (("w", bw), ("h", bh), ("p", bp), ("x", x), ("y", y)):
        idx[key] = tr.fresh()
        lines.append(f"{idx[key]} = arith.index_cast {v} : i32 to index")
    size = tr.const(blk.bits // 8, lines)
    for key in ("w", "p"):
        elems = tr.fresh()
        lines.append(f"{elems} = arith.divui {idx[key]}, {size} : index")
        idx[key] = elems
    one, tds = tr.const(1, lines), []
    for k in range(blk.count):
        col = idx["x"]
        if k:
            step, col = tr.const(k * blk.width, lines), tr.fresh()
            lines.append(f"{col} = arith.addi {idx['x']}, {step} : index")
        td = tr.fresh()
        lines.append(f"{td} = xegpu.create_nd_tdesc {addr}[{idx['y']}, {col}], [{idx['h']}, {idx['w']}], "
                     f"[{idx['p']}, {one}] : i64 -> {blk.tdesc}")
        tds.append(td)
    return tds


def _recast(name: str, src: str, want: str, tr, lines: list[str], dest: str | None = None) -> str:
    """`name` of vector type `src` as `want` (same number of bits): shape_cast and / or bitcast through
    the flat vectors; the last step's result is named `dest` when given (`src` != `want` then)."""
    (s_shape, s_elt), (w_shape, w_elt) = vector_parts(src), vector_parts(want)
    steps = [src]
    if s_elt != w_elt:
        steps += [vector_text([_count(s_shape)], s_elt), vector_text([_count(w_shape)], w_elt)]
    steps.append(want)
    chain = [t for i, t in enumerate(steps) if i == 0 or t != steps[i - 1]]
    for i, (a, b) in enumerate(zip(chain, chain[1:])):
        out = dest if dest is not None and i == len(chain) - 2 else tr.fresh()
        kind = "bitcast" if vector_parts(a)[1] != vector_parts(b)[1] else "shape_cast"
        lines.append(f"{out} = vector.{kind} {name} : {a} to {b}")
        name = out
    return name


def _count(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _check_share(op, blk: _Block, t) -> None:
    shape, elt = vector_parts(str(t))
    bits = blk.count * blk.height * blk.width * blk.bits // 16
    if len(shape) != 1 or shape[0] * element_bits(elt) != bits:
        raise ImportOpError(f"'{op.name}' value {t} is not one lane's share of {blk.count} x {blk.height}x{blk.width} "
                            f"block of {blk.bits}-bit elements (16 lanes)")


def blockload2d(op, tr) -> list[str]:
    res_t = op.results[0].type
    blk = _Block(op, res_t, transpose=_flag(op, "transpose"))
    _check_share(op, blk, res_t)
    if _flag(op, "pack_register") and blk.bits != 16:
        raise ImportOpError(f"'xevm.blockload2d' with pack_register of {blk.bits}-bit elements is not imported "
                            "(16-bit: DPAS B)")
    lines: list[str] = []
    extra = _hints(op, _LOAD_HINT)          # ` {l1_hint = ..., ...}` or nothing
    if blk.transpose:
        extra = " {transpose = [1, 0]" + (f", {extra[2:-1]}" if extra else "") + "}"
    parts = []
    for td in _descriptors(op, tr, blk, lines):
        parts.append(tr.fresh())
        lines.append(f"{parts[-1]} = xegpu.load_nd {td}{extra} : {blk.tdesc} -> {blk.frag}")
    value, value_t = parts[0], blk.frag
    if blk.count > 1:  # block-major per lane: block 0's values, then block 1's, ...
        value_t = vector_text([blk.count] + vector_parts(blk.frag)[0], blk.elt)
        acc = tr.fresh()
        zero = "0.0" if blk.elt.startswith(("f", "bf")) else "0"
        lines.append(f"{acc} = arith.constant dense<{zero}> : {value_t}")
        for k, p in enumerate(parts):
            nxt = tr.fresh()
            lines.append(f"{nxt} = vector.insert {p}, {acc} [{k}] : {blk.frag} into {value_t}")
            acc = nxt
        value = acc
    _recast(value, value_t, str(res_t), tr, lines, dest=tr.name(op.results[0]))
    return lines


def blockstore2d(op, tr) -> list[str]:
    val = op.operands[6]
    blk = _Block(op, val.type)
    _check_share(op, blk, val.type)
    lines: list[str] = []
    td = _descriptors(op, tr, blk, lines)[0]
    frag = _recast(tr.name(val), str(val.type), blk.frag, tr, lines)
    lines.append(f"xegpu.store_nd {frag}, {td}{_hints(op, _STORE_HINT)} : {blk.frag}, {blk.tdesc}")
    return lines


def blockprefetch2d(op, tr) -> list[str]:
    blk = _Block(op)
    lines: list[str] = []
    for td in _descriptors(op, tr, blk, lines):
        lines.append(f"xegpu.prefetch_nd {td}{_hints(op, _LOAD_HINT)} : {blk.tdesc}")
    return lines


def memfence(op, tr) -> list[str]:
    """Our mfence per memory the fence covers (generic: global and shared local memory)."""
    enum = lambda name: (lambda s: s[s.index("<") + 1:s.rindex(">")])(str(attr(op, name)))  # noqa: E731
    scope = enum("scope") if attr(op, "scope") is not None else None
    space = enum("addrspace") if attr(op, "addrspace") is not None else "generic"
    if scope not in _SCOPE or space not in _KINDS:
        raise ImportOpError(f"'xevm.memfence' of scope {scope}, addrspace {space} has no equivalent in our xegpu "
                            "(global, shared or generic memory)")
    return [f'xegpu.mfence {{memory_kind = "{kind}", fence_op = "none", fence_scope = "{_SCOPE[scope]}"}}'
            for kind in _KINDS[space]]


def _scattered(op, tr, elt: str, count: int, lines: list[str]) -> tuple[list[str], str]:
    """Per-lane descriptors of a subgroup block read / write (`xevm.blockload` / `blockstore`): value
    i of lane l is element l + 16 i of the pointer (one element per lane per access)."""
    ptr = op.operands[0]
    if not str(ptr.type).startswith("!llvm.ptr"):
        raise ImportOpError(f"'{op.name}' on {ptr.type}: expected an !llvm.ptr")
    addr, lane = tr.fresh(), tr.fresh()
    lines += [f"{addr} = llvm.ptrtoint {tr.name(ptr)} : {ptr.type} to i64", f"{lane} = gpu.lane_id"]
    tdt = f"!xegpu.tensor_desc<16x{elt}, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>"
    tds = []
    for i in range(count):
        off = lane
        if i:
            step, off = tr.const(16 * i, lines), tr.fresh()
            lines.append(f"{off} = arith.addi {lane}, {step} : index")
        tds.append(tr.fresh())
        lines.append(f"{tds[-1]} = xegpu.create_tdesc {addr}, {off} : i64, index -> {tdt}")
    return tds, tdt


def _block_1d(t) -> tuple[int, str]:
    """(values per lane, element type) of a subgroup block op's scalar or 1D vector type."""
    text = str(t)
    if not text.startswith("vector<"):
        return 1, text
    shape, elt = vector_parts(text)
    return shape[0], elt


def blockload(op, tr) -> list[str]:
    res = op.results[0]
    count, elt = _block_1d(res.type)
    lines: list[str] = []
    tds, tdt = _scattered(op, tr, elt, count, lines)
    true, vals = tr.fresh(), []
    lines.append(f"{true} = arith.constant true")
    for td in tds:
        vals.append(tr.name(res) if not str(res.type).startswith("vector<") else tr.fresh())
        lines.append(f"{vals[-1]} = xegpu.load_gather {td}, {true}{_hints(op, _LOAD_HINT)} : {tdt}, i1 -> {elt}")
    if str(res.type).startswith("vector<"):
        lines.append(f"{tr.name(res)} = vector.from_elements {', '.join(vals)} : {res.type}")
    return lines


def blockstore(op, tr) -> list[str]:
    val = op.operands[1]
    count, elt = _block_1d(val.type)
    lines: list[str] = []
    tds, tdt = _scattered(op, tr, elt, count, lines)
    true = tr.fresh()
    lines.append(f"{true} = arith.constant true")
    for i, td in enumerate(tds):
        x = tr.name(val)
        if str(val.type).startswith("vector<"):
            x = tr.fresh()
            lines.append(f"{x} = vector.extract {tr.name(val)}[{i}] : {elt} from {val.type}")
        lines.append(f"xegpu.store_scatter {x}, {td}, {true}{_hints(op, _STORE_HINT)} : {elt}, {tdt}, i1")
    return lines


def prefetch(op, tr) -> list[str]:
    """`xevm.prefetch %p` (each lane's own pointer, a cache hint): a SIMT scattered prefetch of the byte
    at the lane's address."""
    ptr = op.operands[0]
    addr, zero = tr.fresh(), tr.fresh()
    tdt = "!xegpu.tensor_desc<16xi8, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>"
    td = tr.fresh()
    return [f"{addr} = llvm.ptrtoint {tr.name(ptr)} : {ptr.type} to i64", f"{zero} = arith.constant 0 : index",
            f"{td} = xegpu.create_tdesc {addr}, {zero} : i64, index -> {tdt}",
            f"xegpu.prefetch {td}{_hints(op, _LOAD_HINT)} : {tdt}"]


# xevm id op -> the gpu op of the same value (index), in a lane-level kernel
_IDS = {"lane_id": "gpu.lane_id", "subgroup_id": "gpu.subgroup_id : index", "subgroup_size": "gpu.subgroup_size : index"}
for _d in "xyz":
    _IDS.update({f"local_id.{_d}": f"gpu.thread_id {_d}", f"local_size.{_d}": f"gpu.block_dim {_d}",
                 f"group_id.{_d}": f"gpu.block_id {_d}", f"group_count.{_d}": f"gpu.grid_dim {_d}"})


def special_id(op, tr) -> list[str]:
    """`xevm.lane_id : i32` etc. as the gpu id op of the same value, cast to the op's i32 / i64."""
    gpu_op = _IDS[op.name[len("xevm."):]]
    v = tr.fresh()
    return [f"{v} = {gpu_op}", f"{tr.name(op.results[0])} = arith.index_cast {v} : index to {op.results[0].type}"]


TABLE = {
    "xevm.blockload": blockload,
    "xevm.blockstore": blockstore,
    "xevm.blockload2d": blockload2d,
    "xevm.blockstore2d": blockstore2d,
    "xevm.blockprefetch2d": blockprefetch2d,
    "xevm.prefetch": prefetch,
    "xevm.memfence": memfence,
    **{f"xevm.{name}": special_id for name in _IDS},
}
