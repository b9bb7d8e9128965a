"""Upstream's shared-local-memory matrices (`create_mem_desc`, `load_matrix`, `store_matrix`) -> our
SLM view + scattered accesses.

`!xegpu.mem_desc<RxCxT, #xegpu.mem_layout<stride = .., block = ..>>` over an SLM buffer becomes a flat
1D view `memref<R*C x T, 3>` of the buffer (`memref.view` of an i8 buffer, `memref.reinterpret_cast`
of a typed one); an element's place in it is LLVM 22's `MemDescType::getLinearOffsets` (blocked
offsets [x/B, x%B] times `getStrideShape`'s outer and inner strides), reproduced here exactly.
Subgroup level (VC): the block's element addresses (a sum of one term per dimension) are gathered /
scattered 16 lanes at a time. Lane level (SIMT): a lane's N elements are the N elements after its
linear offset (convert-xegpu-to-xevm's `llvm.load` of a vector), or with `subgroup_block_io` a
subgroup block read's (element k of lane l at offset + 16 k + l).
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .op_attrs import DYNAMIC, ImportOpError, attr, check_attrs, ints
from .types import ImportTypeError, attr_params, int_list, split_top, vector_text, zero_of

_HEAD = "!xegpu.mem_desc<"
LANES = 16                    # lanes of a gather / scatter message, and of a subgroup block read
SLM_SPACES = ("3", "#gpu.address_space<workgroup>")


@dataclass
class MemDesc:
    """A mem_desc type: shape, element type and LLVM 22's blocked strides of its mem_layout."""
    shape: list[int]
    elt: str
    stride: list[int]
    block: list[int]

    @property
    def blocked(self) -> bool:
        """LLVM 22: a block shape equal to the matrix shape means no blocking."""
        return self.block != self.shape

    @property
    def count(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def strides(self) -> tuple[list[int], list[int]]:
        """(outer, inner) element strides: `MemDescType::getStrideShape` of LLVM 22 (only the order of
        `stride` and, for blocked layouts, the ratios of consecutive strides count; C++'s truncating
        division)."""
        n = len(self.shape)
        perm = sorted(range(n), key=lambda d: self.stride[d])
        if self.stride[perm[0]] != 1:
            raise ImportTypeError(f"mem_layout stride {self.stride}: the innermost stride must be 1")
        inner = [0] * n
        inner[perm[0]] = 1
        for i in range(1, n):
            inner[perm[i]] = inner[perm[i - 1]] * self.block[perm[i - 1]]
        blocks = [0] * n
        for i in range(n - 1):
            blocks[perm[i]] = (self.stride[perm[i + 1]] // self.stride[perm[i]]) // self.block[perm[i]]
        outer = [0] * n
        outer[perm[0]] = self.count_block()
        for i in range(n - 1):
            outer[perm[i + 1]] = outer[perm[i]] * blocks[perm[i]]
        return outer, inner

    def count_block(self) -> int:
        n = 1
        for d in self.block:
            n *= d
        return n

    def term(self, d: int, x: int) -> int:
        """Dimension d's part of the linear offset of coordinate x (the offset is their sum)."""
        outer, inner = self.strides()
        if not self.blocked:
            return x * inner[d]
        b = self.block[d]
        return _divsi(x, b) * outer[d] + _remsi(x, b) * inner[d]

    def linear(self, offsets: list[int]) -> int:
        return sum(self.term(d, x) for d, x in enumerate(offsets))


def _divsi(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _remsi(a: int, b: int) -> int:
    return a - _divsi(a, b) * b


def parse_mem_desc(text: str) -> MemDesc:
    text = str(text).strip()
    if not text.startswith(_HEAD):
        raise ImportTypeError(f"expected !xegpu.mem_desc, got {text}")
    parts = split_top(text[len(_HEAD):-1])
    dims = parts[0].split("x")
    shape, elt = [int(d) for d in dims[:-1]], dims[-1]
    stride, block = None, None
    for a in parts[1:]:
        if not a.startswith("#xegpu.mem_layout"):
            raise ImportTypeError(f"mem_desc attribute {a} is not supported")
        p = attr_params(a)
        stride = int_list(p.pop("stride")) if "stride" in p else None
        block = int_list(p.pop("block")) if "block" in p else None
        if p:
            raise ImportTypeError(f"'#xegpu.mem_layout' parameter(s) {', '.join(p)} not supported")
    if len(shape) != 2:
        raise ImportTypeError(f"mem_desc of rank {len(shape)}: only 2D matrices are imported")
    if stride is None:
        stride = [shape[1], 1]
    if block is None:
        block = list(shape)
    if len(stride) != 2 or len(block) != 2 or any(b <= 0 for b in block):
        raise ImportTypeError(f"mem_layout stride {stride}, block {block} of a 2D mem_desc")
    md = MemDesc(shape, elt, stride, block)
    md.strides()   # checks the stride order
    return md


def view_type(md: MemDesc, space: str, offset: int = 0) -> str:
    layout = f", strided<[1], offset: {offset}>" if offset else ""
    return f"memref<{md.count}x{md.elt}{layout}, {space}>"


def _space(t: ir.MemRefType) -> str:
    ms = t.memory_space
    s = "" if ms is None else str(ir.IntegerAttr(ms).value) if isinstance(ms, ir.IntegerAttr) else str(ms)
    if s not in SLM_SPACES:
        raise ImportOpError(f"'xegpu.create_mem_desc' of a memref in memory space '{s or 'default'}': only shared "
                            "local memory (3, #gpu.address_space<workgroup>) is imported")
    return s


def create_mem_desc(op, tr) -> list[str]:
    """The mem_desc becomes a flat typed view of its SLM buffer, under the mem_desc's own name."""
    check_attrs(op, ())
    src = op.operands[0]
    md = parse_mem_desc(str(op.result.type))
    t = ir.MemRefType(src.type)
    space = _space(t)
    res, sname = tr.name(op.result), tr.name(src)
    src_elt = str(t.element_type)
    if src_elt == "i8" and t.get_strides_and_offset() == ([1], 0) and md.elt != "i8":
        vt = view_type(md, space)
        lines: list[str] = []
        c0 = tr.const(0, lines)
        lines.append(f"{res} = memref.view {sname}[{c0}][] : {src.type} to {vt}")
    elif src_elt == md.elt:
        strides, offset = t.get_strides_and_offset()
        if offset == DYNAMIC:
            raise ImportOpError(f"'xegpu.create_mem_desc' of {src.type}: a dynamic offset is not imported")
        vt = view_type(md, space, offset)
        lines = [f"{res} = memref.reinterpret_cast {sname} to offset: [{offset}], sizes: [{md.count}], "
                 f"strides: [1] : {src.type} to {vt}"]
    else:
        raise ImportOpError(f"'xegpu.create_mem_desc' of {src.type} as {md.elt} elements: only a 1D i8 buffer "
                            f"(identity layout) or a buffer of {md.elt} is imported")
    tr.mem_views[(tr.scope, res)] = (vt, md)
    return lines


def _view_of(op, v, tr) -> tuple[str, str, MemDesc]:
    name = tr.name(v)
    found = tr.mem_views.get((tr.scope, name))
    if found is None:
        raise ImportOpError(f"'{op.name}' on a mem_desc not created by xegpu.create_mem_desc in the same function "
                            "(arguments and loop-carried mem_descs are not imported)")
    return name, found[0], found[1]


def _offsets(op, tr, n_lead: int, md: MemDesc) -> list[str]:
    names = [tr.name(v) for v in list(op.operands)[n_lead:]]
    static = ints(attr(op, "const_offsets"))
    it = iter(names)
    offs = [next(it) if s == DYNAMIC else str(s) for s in static]
    if len(offs) != len(md.shape):
        raise ImportOpError(f"'{op.name}' with {len(offs)} offsets on a {len(md.shape)}D mem_desc (one per dimension "
                            "is imported)")
    return offs


def _access(op, tr, md_at: int) -> tuple[str, str, MemDesc, list[str]]:
    """A load_matrix / store_matrix whose mem_desc is operand `md_at` (its dynamic offsets follow):
    (the mem_desc's view name, the view's type, the MemDesc, the offsets)."""
    check_attrs(op, ("const_offsets", "subgroup_block_io"))
    md_name, vt, md = _view_of(op, op.operands[md_at], tr)
    return md_name, vt, md, _offsets(op, tr, md_at + 1, md)


def _slm_tdesc(n: int, elt: str, simt: bool) -> str:
    sg = ", sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>" if simt else ""
    return f"!xegpu.tensor_desc<{n}x{elt}, #xegpu.tdesc_attr<memory_scope = slm, scattered = true{sg}>>"


# ------------------------------------------------------------------------------------- subgroup level

def _dim_terms(md: MemDesc, d: int, off: str, n: int, tr, lines) -> tuple[str, list[int] | None]:
    """(vector<n x index> of dimension d's offset terms for coordinates off + 0..n-1, or None and
    the terms as integers when off is a literal)."""
    if off.lstrip("-").isdigit():
        return "", [md.term(d, int(off) + k) for k in range(n)]
    outer, inner = md.strides()
    vt = vector_text([n], "index")
    f = tr.fresh
    step, base, x = f(), f(), f()
    lines += [f"{step} = arith.constant dense<[{', '.join(str(k) for k in range(n))}]> : {vt}",
              f"{base} = vector.broadcast {off} : index to {vt}",
              f"{x} = arith.addi {base}, {step} : {vt}"]
    if not md.blocked:
        c, g = f(), f()
        lines += [f"{c} = arith.constant dense<{inner[d]}> : {vt}", f"{g} = arith.muli {x}, {c} : {vt}"]
        return g, None
    cb, q, r, co, ci, a, b, g = f(), f(), f(), f(), f(), f(), f(), f()
    lines += [f"{cb} = arith.constant dense<{md.block[d]}> : {vt}",
              f"{q} = arith.divsi {x}, {cb} : {vt}", f"{r} = arith.remsi {x}, {cb} : {vt}",
              f"{co} = arith.constant dense<{outer[d]}> : {vt}", f"{ci} = arith.constant dense<{inner[d]}> : {vt}",
              f"{a} = arith.muli {q}, {co} : {vt}", f"{b} = arith.muli {r}, {ci} : {vt}",
              f"{g} = arith.addi {a}, {b} : {vt}"]
    return g, None


def _lanes(count: int) -> int:
    return next(n for n in (LANES, 8, 4, 2, 1) if count % n == 0)


def _block_addresses(op, md: MemDesc, offs: list[str], shape: list[int], tr, lines) -> tuple[str, int, int]:
    """(name of vector<rows x lanes x index> of the block's element offsets in row-major order, rows,
    lanes)."""
    h, w = shape
    lanes = _lanes(h * w)
    rows = h * w // lanes
    flat_t = vector_text([rows, lanes], "index")
    g0, s0 = _dim_terms(md, 0, offs[0], h, tr, lines)
    g1, s1 = _dim_terms(md, 1, offs[1], w, tr, lines)
    if s0 is not None and s1 is not None:
        flat = [a + b for a in s0 for b in s1]
        body = ", ".join("[" + ", ".join(str(x) for x in flat[r * lanes:(r + 1) * lanes]) + "]" for r in range(rows))
        out = tr.fresh()
        lines.append(f"{out} = arith.constant dense<[{body}]> : {flat_t}")
        return out, rows, lanes
    full_t = vector_text([h, w], "index")
    parts = []
    for g, s, n in ((g0, s0, h), (g1, s1, w)):
        if s is not None:
            g = tr.fresh()
            lines.append(f"{g} = arith.constant dense<[{', '.join(str(x) for x in s)}]> : {vector_text([n], 'index')}")
        parts.append(g)
    col, rowsb, colsb, lin = tr.fresh(), tr.fresh(), tr.fresh(), tr.fresh()
    lines += [f"{col} = vector.shape_cast {parts[0]} : {vector_text([h], 'index')} to {vector_text([h, 1], 'index')}",
              f"{rowsb} = vector.broadcast {col} : {vector_text([h, 1], 'index')} to {full_t}",
              f"{colsb} = vector.broadcast {parts[1]} : {vector_text([w], 'index')} to {full_t}",
              f"{lin} = arith.addi {rowsb}, {colsb} : {full_t}"]
    if full_t == flat_t:
        return lin, rows, lanes
    out = tr.fresh()
    lines.append(f"{out} = vector.shape_cast {lin} : {full_t} to {flat_t}")
    return out, rows, lanes


def _subgroup_shape(op, data_t, md: MemDesc) -> list[int]:
    if not isinstance(data_t, ir.VectorType) or ir.VectorType(data_t).rank != 2:
        raise ImportOpError(f"'{op.name}' of {data_t} at subgroup level: a 2D block is imported (scalars and 1D "
                            "vectors are lane-level forms, imported in lane-level kernels)")
    return list(ir.VectorType(data_t).shape)


def load_matrix(op, tr) -> list[str]:
    md_name, vt, md, offs = _access(op, tr, 0)
    shape = _subgroup_shape(op, op.result.type, md)
    lines: list[str] = []
    addr, rows, lanes = _block_addresses(op, md, offs, shape, tr, lines)
    elt = md.elt
    td_t, row_t, stack_t = _slm_tdesc(lanes, elt, False), vector_text([lanes], elt), vector_text([rows, lanes], elt)
    mask = tr.fresh()
    lines.append(f"{mask} = arith.constant dense<true> : {vector_text([lanes], 'i1')}")
    acc = tr.fresh()
    lines.append(f"{acc} = arith.constant dense<{zero_of(elt)}> : {stack_t}")
    for r in range(rows):
        o, t, v, nxt = tr.fresh(), tr.fresh(), tr.fresh(), tr.fresh()
        lines += [f"{o} = vector.extract {addr}[{r}] : {vector_text([lanes], 'index')} from "
                  f"{vector_text([rows, lanes], 'index')}",
                  f"{t} = xegpu.create_tdesc {md_name}, {o} {{mode = vc}} : {vt}, {vector_text([lanes], 'index')} -> "
                  f"{td_t}",
                  f"{v} = xegpu.load_gather {t}, {mask} {{mode = vc}} : {td_t}, {vector_text([lanes], 'i1')} -> "
                  f"{row_t}",
                  f"{nxt} = vector.insert {v}, {acc} [{r}] : {row_t} into {stack_t}"]
        acc = nxt
    res = tr.name(op.result)
    if str(op.result.type) == stack_t:
        lines[-1] = lines[-1].replace(f"{acc} = ", f"{res} = ", 1)
    else:
        lines.append(f"{res} = vector.shape_cast {acc} : {stack_t} to {op.result.type}")
    return lines


def store_matrix(op, tr) -> list[str]:
    data = op.operands[0]
    md_name, vt, md, offs = _access(op, tr, 1)
    shape = _subgroup_shape(op, data.type, md)
    lines: list[str] = []
    addr, rows, lanes = _block_addresses(op, md, offs, shape, tr, lines)
    elt = md.elt
    td_t, row_t, stack_t = _slm_tdesc(lanes, elt, False), vector_text([lanes], elt), vector_text([rows, lanes], elt)
    mask, stack = tr.fresh(), tr.name(data)
    lines.append(f"{mask} = arith.constant dense<true> : {vector_text([lanes], 'i1')}")
    if str(data.type) != stack_t:
        stack = tr.fresh()
        lines.append(f"{stack} = vector.shape_cast {tr.name(data)} : {data.type} to {stack_t}")
    for r in range(rows):
        o, t, v = tr.fresh(), tr.fresh(), tr.fresh()
        lines += [f"{o} = vector.extract {addr}[{r}] : {vector_text([lanes], 'index')} from "
                  f"{vector_text([rows, lanes], 'index')}",
                  f"{t} = xegpu.create_tdesc {md_name}, {o} {{mode = vc}} : {vt}, {vector_text([lanes], 'index')} -> "
                  f"{td_t}",
                  f"{v} = vector.extract {stack}[{r}] : {row_t} from {stack_t}",
                  f"xegpu.store_scatter {v}, {t}, {mask} {{mode = vc}} : {row_t}, {td_t}, "
                  f"{vector_text([lanes], 'i1')}"]
    return lines


# ------------------------------------------------------------------------------------- lane level

def _lane_linear(md: MemDesc, offs: list[str], tr, lines) -> str:
    """This lane's linear offset (index), as getLinearOffsets computes it (literal offsets folded)."""
    outer, inner = md.strides()
    static, terms = 0, []
    for d, off in enumerate(offs):
        if off.lstrip("-").isdigit():
            static += md.term(d, int(off))
            continue
        if not md.blocked:
            c, g = tr.const(inner[d], lines), tr.fresh()
            lines.append(f"{g} = arith.muli {off}, {c} : index")
            terms.append(g)
            continue
        cb = tr.const(md.block[d], lines)
        q, r, g1, g2, g = tr.fresh(), tr.fresh(), tr.fresh(), tr.fresh(), tr.fresh()
        co, ci = tr.const(outer[d], lines), tr.const(inner[d], lines)
        lines += [f"{q} = arith.divsi {off}, {cb} : index", f"{r} = arith.remsi {off}, {cb} : index",
                  f"{g1} = arith.muli {q}, {co} : index", f"{g2} = arith.muli {r}, {ci} : index",
                  f"{g} = arith.addi {g1}, {g2} : index"]
        terms.append(g)
    if static or not terms:
        terms.append(tr.const(static, lines))
    total = terms[0]
    for t in terms[1:]:
        s = tr.fresh()
        lines.append(f"{s} = arith.addi {total}, {t} : index")
        total = s
    return total


def _lane_count(op, t) -> int:
    if isinstance(t, ir.VectorType):
        n = 1
        for d in ir.VectorType(t).shape:
            n *= d
        return n
    return 1


def _lane_addresses(op, md: MemDesc, offs, n: int, tr, lines) -> list[str]:
    """The offsets of this lane's n elements: consecutive after its linear offset, or a subgroup
    block read's (offset + 16 k + lane) with `subgroup_block_io`."""
    base = _lane_linear(md, offs, tr, lines)
    block_io = attr(op, "subgroup_block_io") is not None
    if block_io:
        lane, b = tr.fresh(), tr.fresh()
        lines += [f"{lane} = gpu.lane_id", f"{b} = arith.addi {base}, {lane} : index"]
        base = b
    out = []
    for k in range(n):
        if k == 0:
            out.append(base)
            continue
        c, a = tr.const(k * LANES if block_io else k, lines), tr.fresh()
        lines.append(f"{a} = arith.addi {base}, {c} : index")
        out.append(a)
    return out


def lane_load_matrix(op, tr) -> list[str]:
    md_name, vt, md, offs = _access(op, tr, 0)
    lines: list[str] = []
    rt = op.result.type
    addrs = _lane_addresses(op, md, offs, _lane_count(op, rt), tr, lines)
    td_t, mask = _slm_tdesc(LANES, md.elt, True), tr.fresh()
    lines.append(f"{mask} = arith.constant true")
    vals = []
    for a in addrs:
        t, v = tr.fresh(), tr.fresh()
        lines += [f"{t} = xegpu.create_tdesc {md_name}, {a} : {vt}, index -> {td_t}",
                  f"{v} = xegpu.load_gather {t}, {mask} : {td_t}, i1 -> {md.elt}"]
        vals.append(v)
    res = tr.name(op.result)
    if not isinstance(rt, ir.VectorType):
        lines[-1] = lines[-1].replace(f"{vals[0]} = ", f"{res} = ", 1)
        return lines
    lines.append(f"{res} = vector.from_elements {', '.join(vals)} : {rt}")
    return lines


def lane_store_matrix(op, tr) -> list[str]:
    data = op.operands[0]
    md_name, vt, md, offs = _access(op, tr, 1)
    lines: list[str] = []
    n = _lane_count(op, data.type)
    addrs = _lane_addresses(op, md, offs, n, tr, lines)
    td_t, mask = _slm_tdesc(LANES, md.elt, True), tr.fresh()
    lines.append(f"{mask} = arith.constant true")
    vals = [tr.name(data)]
    if isinstance(data.type, ir.VectorType):
        flat_t = vector_text([n], md.elt)
        flat = tr.name(data)
        if str(data.type) != flat_t:
            flat = tr.fresh()
            lines.append(f"{flat} = vector.shape_cast {tr.name(data)} : {data.type} to {flat_t}")
        vals = []
        for k in range(n):
            x = tr.fresh()
            lines.append(f"{x} = vector.extract {flat}[{k}] : {md.elt} from {flat_t}")
            vals.append(x)
    for a, v in zip(addrs, vals):
        t = tr.fresh()
        lines += [f"{t} = xegpu.create_tdesc {md_name}, {a} : {vt}, index -> {td_t}",
                  f"xegpu.store_scatter {v}, {t}, {mask} : {md.elt}, {td_t}, i1"]
    return lines


SG_TABLE = {
    "xegpu.create_mem_desc": create_mem_desc,
    "xegpu.load_matrix": load_matrix,
    "xegpu.store_matrix": store_matrix,
}

LANE_TABLE = {
    "xegpu.create_mem_desc": create_mem_desc,
    "xegpu.load_matrix": lane_load_matrix,
    "xegpu.store_matrix": lane_store_matrix,
}
