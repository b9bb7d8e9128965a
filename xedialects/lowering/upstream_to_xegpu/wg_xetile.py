"""Work-group upstream xegpu -> our work-group XeTile (`wg_map` from `sg_layout` / `sg_data`), for our
own distribution (`xetile-wg-to-sg`) when LLVM 22's cannot distribute a kernel (docs/upstream-xegpu.md,
"The work-group fallback"). Each access becomes an `xetile.init_tile` at its offsets and the XeTile
access; `dpas` becomes `tile_mma` with the maps of its operands' layouts. Returns the module's text.
"""
from __future__ import annotations

import re

from mlir import ir

from ...diagnostics import DiagnosticError, at
from ...passes.utils.ir_walk import walk
from .op_attrs import HINTS, ImportOpError, attr, check_attrs, hint, ints
from .sg_ops import _create_parts, _defining, mixed, segments
from .types import ImportTypeError, Layout, parse_tdesc

_ACCESSES = ("xegpu.load_nd", "xegpu.store_nd", "xegpu.prefetch_nd")
_TARGET = re.compile(r"^\s*(?:%[\w$.#:-]+ = )?xegpu\.\w+ ")


def wg_map(layout: Layout, what: str) -> str:
    """`#xetile.wg_map<...>` parameters of a work-group layout (inst_data and lane fields are the
    blocking's and lanes' business: dropped); `order` other than row-major is an error."""
    if layout is None or not layout.workgroup or layout.sg_data is None:
        raise ImportOpError(f"{what} has no work-group layout (sg_layout and sg_data)")
    if layout.order not in (None, [1, 0]):
        raise ImportOpError(f"{what}: layout order {layout.order} (column-major subgroups) has no wg_map")
    return f"sg_layout = {layout.sg_layout}, sg_data = {layout.sg_data}"


class _WG:
    def __init__(self, state):
        self.state = state
        self.counter = 0

    def name(self, v) -> str:
        return v.get_name(self.state)

    def fresh(self) -> str:
        self.counter += 1
        return f"%wgt_{self.counter}"


def _layout_of(value):
    """The work-group layout of a vector value: its producer's `layout` / `layout_result_<n>`."""
    owner = _defining(value)
    if owner is None:
        return None
    for a in ("layout", f"layout_result_{ir.OpResult(value).result_number}"):
        if a in owner.attributes and "sg_layout" in str(owner.attributes[a]):
            return Layout.parse(str(owner.attributes[a]))
    return None


def _tile(op, td_value, offsets, tr, lines):
    """(name, type) of an init_tile of `td_value`'s block at the access `offsets`."""
    create = _defining(td_value)
    if create is None or create.name != "xegpu.create_nd_tdesc":
        raise ImportOpError(f"'{op.name}': its descriptor does not come from an xegpu.create_nd_tdesc in view "
                            "(carried by a loop or block argument)")
    src, srct, extra, _ = _create_parts(create, tr)
    if extra or not isinstance(create.operands[0].type, ir.MemRefType):
        raise ImportOpError(f"'{op.name}': a descriptor on a pointer or with explicit shape/strides")
    n_off = segments(create)[1]
    own = mixed([tr.name(v) for v in list(create.operands)[1:1 + n_off]], ints(attr(create, "const_offsets")))
    if offsets is None:
        offsets = own
    elif own:
        raise ImportOpError(f"'{op.name}': offsets on both the access and its descriptor")
    td = parse_tdesc(str(td_value.type))
    if td.array_length != 1 or td.scattered or td.memory_space != "global":
        raise ImportOpError(f"'{op.name}': {td_value.type} (array_length, scattered or SLM descriptors are not "
                            "taken by the work-group fallback)")
    rank = ir.MemRefType(create.operands[0].type).rank
    offs = ["0"] * (rank - len(offsets)) + list(offsets)
    names = []
    for o in offs:
        if o.startswith("%"):
            names.append(o)
        else:
            n = tr.fresh()
            lines.append(f"{n} = arith.constant {o} : index")
            names.append(n)
    tile_t = (f"!xetile.tile<{td.block}, #xetile.tile_attr<wg_map = <{wg_map(td.layout, str(td_value.type))}>>>")
    t = tr.fresh()
    lines.append(f"{t} = xetile.init_tile {src}[{', '.join(names)}] : {srct} -> {tile_t}")
    return t, tile_t


def _hints(op) -> str:
    items = [f"{h} = #xetile.cache_hint<{hint(op.attributes[h])}>" for h in HINTS if attr(op, h) is not None]
    return " {" + ", ".join(items) + "}" if items else ""


def _access(op, tr) -> list[str]:
    check_attrs(op, ("const_offsets",) + HINTS)
    n_td = 2 if op.name == "xegpu.store_nd" else 1
    names = [tr.name(v) for v in list(op.operands)[n_td:]]
    static = ints(attr(op, "const_offsets"))
    offsets = mixed(names, static) if names or static else None
    lines: list[str] = []
    t, tile_t = _tile(op, op.operands[n_td - 1], offsets, tr, lines)
    if op.name == "xegpu.load_nd":
        lines.append(f"{tr.name(op.results[0])} = xetile.load_tile {t}{_hints(op)} : {tile_t} -> "
                     f"{op.results[0].type}")
    elif op.name == "xegpu.store_nd":
        lines.append(f"xetile.store_tile {tr.name(op.operands[0])}, {t}{_hints(op)} : {op.operands[0].type}, "
                     f"{tile_t}")
    else:
        lines.append(f"xetile.prefetch_tile {t}{_hints(op)} : {tile_t}")
    return lines


def _dpas(op, tr) -> list[str]:
    check_attrs(op, ())
    maps = []
    for i, (own, alt) in enumerate((("layout_a", "layout_operand_0"), ("layout_b", "layout_operand_1"),
                                    ("layout_cd", "layout_result_0"))):
        a = attr(op, own) or attr(op, alt)
        lay = Layout.parse(str(a)) if a is not None else (_layout_of(op.operands[i]) if i < len(op.operands)
                                                           else None)
        maps.append(wg_map(lay, f"'xegpu.dpas' operand {'abc'[i]}"))
    operands = ", ".join(tr.name(v) for v in op.operands)
    types = ", ".join(str(v.type) for v in op.operands)
    res = op.results[0]
    return [f"{tr.name(res)} = xetile.tile_mma {operands} {{wg_map_a = #xetile.wg_map<{maps[0]}>, "
            f"wg_map_b = #xetile.wg_map<{maps[1]}>, wg_map_c = #xetile.wg_map<{maps[2]}>}} : {types} -> {res.type}"]


def _translate(op, tr) -> list[str]:
    if op.name == "xegpu.create_nd_tdesc":
        return []  # each access makes its own init_tile
    if op.name in _ACCESSES:
        return _access(op, tr)
    if op.name == "xegpu.dpas":
        return _dpas(op, tr)
    raise ImportOpError(f"'{op.name}' is not taken by the work-group fallback (it takes create_nd_tdesc, "
                        "load_nd, store_nd, prefetch_nd and dpas)")


def _fail(loc, message: str, filename: str):
    d = at(loc, "error", f"convert-upstream-xegpu: {message}")
    if d.filename in (None, "-", "<unknown>"):
        d.filename = filename
    raise DiagnosticError([d])


def to_xetile_text(module_op, filename: str, printed_lines) -> str:
    """Our-syntax text of a work-group upstream module: xegpu ops as work-group XeTile; any other
    xegpu op, or a descriptor type outside the ops translated, is a located error. `printed_lines(ops)`
    strips the layouts of non-xegpu ops and gives the module's printed lines, aliases written out."""
    state = ir.AsmState(module_op)
    tr = _WG(state)
    ops = list(walk(module_op))
    targets = [op for op in ops if op.name.startswith("xegpu.")]
    lines_of = []
    for op in targets:
        try:
            lines_of.append((op, _translate(op, tr)))
        except (ImportOpError, ImportTypeError) as e:
            _fail(op.location, f"work-group fallback: {e}", filename)
    out, k = [], 0
    for line in printed_lines(ops):
        if _TARGET.match(line):
            op, repl = lines_of[k]
            k += 1
            indent = line[:len(line) - len(line.lstrip())]
            loc = str(op.location)
            suffix = f" {loc}" if loc.startswith("loc(") and "unknown" not in loc else ""
            out += [indent + x + suffix for x in repl]
            continue
        if "!xegpu." in line or "#xegpu." in line:
            _fail(module_op.location, f"work-group fallback: a descriptor or layout outside the ops it translates: "
                                      f"{line.strip()[:200]}", filename)
        out.append(line)
    return "\n".join(out) + "\n"
