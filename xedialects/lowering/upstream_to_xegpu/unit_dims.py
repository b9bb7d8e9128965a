"""Row values with a unit dim (`vector<128x1xf32>` made from a reduction by a unit-dim-expanding
`vector.shape_cast`) kept 1D for LLVM 22's `xegpu-wg-to-sg-distribute`, which distributes such a
shape_cast only when every user is a `vector.broadcast` (IMEX's flash attention scales, maxes, adds
and loop-carries its row max / row sum as 128x1 values).

Rewritten before upstream's passes, exactly: every value connected to such a shape_cast through
arith/math elementwise ops and scf.for carries takes the shape without the unit dims and the layout
without them (`sg_layout = [8, 1], sg_data = [16, 1]` -> `[8]`, `[16]`); the shape_cast becomes an
identity `math.copysign %x, %x` carrying that layout, and each `vector.broadcast` of such a value
reads `vector.shape_cast` (to the 2D type, its only user the broadcast) of a `math.copysign` carrying
the slice of the 2D layout (what LLVM 22 wants). `levels.drop_identities` removes the copysigns
after the passes. Any other op on such a value is a located error naming it.
"""
from __future__ import annotations

import re

from mlir import ir

from ...diagnostics import DiagnosticError, at
from ...passes.utils.ir_walk import walk

PASS_NAME = "convert-upstream-xegpu"
_LAYOUT = re.compile(r"^#xegpu\.layout<(.*)>$")
_FIELD = re.compile(r"^\s*(\w+)\s*=\s*\[([\d,\s]*)\]\s*$")
_SLICE = re.compile(r"^#xegpu\.slice<(#xegpu\.layout<[^<>]*>), dims = \[([\d,\s]*)\]>$")
_FOR_OPERANDS = 3  # scf.for: lower bound, upper bound, step, then the inits


class _Unsupported(Exception):
    """What stops the rewrite, at the op `op` (reported as a located DiagnosticError)."""

    def __init__(self, op, message):
        super().__init__(message)
        self.op = op


def _fields(layout_text: str):
    """[(name, [ints])] of a `#xegpu.layout<...>`, or None when it is not one of list fields only."""
    m = _LAYOUT.match(layout_text)
    if not m:
        return None
    out = []
    for part in re.split(r",\s*(?=\w+\s*=)", m.group(1)):
        f = _FIELD.match(part)
        if not f:
            return None
        out.append((f.group(1), [int(x) for x in f.group(2).split(",") if x.strip()]))
    return out


def _collapsed_layout(text: str, dims) -> str | None:
    """The layout without the unit dims `dims` (`order` renumbered), or None when some field is not 1
    there (a subgroup or lane would hold part of the unit dim)."""
    fields = _fields(text)
    if fields is None:
        return None
    parts = []
    for name, vals in fields:
        if name == "order":
            kept = [v for v in vals if v not in dims]
            vals = [sorted(kept).index(v) for v in kept]
        else:
            if any(i < len(vals) and vals[i] != 1 for i in dims):
                return None
            vals = [v for i, v in enumerate(vals) if i not in dims]
        parts.append(f"{name} = [{', '.join(map(str, vals))}]")
    return f"#xegpu.layout<{', '.join(parts)}>"


def _distribution(text: str, shape) -> tuple | None:
    """(sg_layout, sg_data) a layout or a slice gives `shape` (sg_data derived when absent)."""
    m = _SLICE.match(text)
    dims = set()
    if m:
        text, dims = m.group(1), {int(x) for x in m.group(2).split(",") if x.strip()}
    fields = _fields(text)
    if fields is None:
        return None
    f = dict(fields)
    sg_layout = [v for i, v in enumerate(f.get("sg_layout", [])) if i not in dims]
    sg_data = [v for i, v in enumerate(f.get("sg_data", [])) if i not in dims]
    if not sg_layout or len(sg_layout) != len(shape):
        return None
    if not sg_data:
        sg_data = [s // n for s, n in zip(shape, sg_layout)]
    return tuple(sg_layout), tuple(sg_data)


def _expanded_dims(src_shape, res_shape, src_layout: str | None):
    """The unit dims a shape_cast from `src_shape` to `res_shape` inserts, or None when it does not
    only insert unit dims (the source layout's slice dims decide between equal candidates)."""
    if len(res_shape) <= len(src_shape):
        return None
    m = _SLICE.match(src_layout or "")
    if m:
        dims = [int(x) for x in m.group(2).split(",") if x.strip()]
        if (all(d < len(res_shape) and res_shape[d] == 1 for d in dims)
                and [s for i, s in enumerate(res_shape) if i not in dims] == list(src_shape)):
            return tuple(dims)
    dims, j = [], 0
    for i, r in enumerate(res_shape):
        if j < len(src_shape) and r == src_shape[j]:
            j += 1
        elif r == 1:
            dims.append(i)
        else:
            return None
    return tuple(dims) if j == len(src_shape) else None


def _layout_of(value) -> str | None:
    """The work-group layout text of a value: its producer's `layout_result_<n>`, or for a loop body's
    argument the loop's layout of the matching result."""
    if isinstance(value, ir.BlockArgument):
        owner = value.owner.owner
        if owner.name != "scf.for" or value.arg_number == 0:
            return None
        name, op = f"layout_result_{value.arg_number - 1}", owner
    else:
        op = value.owner
        op = op.operation if hasattr(op, "operation") else op
        name = f"layout_result_{ir.OpResult(value).result_number}"
    return str(op.attributes[name]) if name in op.attributes else None


def _is_elementwise(op) -> bool:
    """arith / math ops (elementwise on vectors) whose operands are all vectors of the result's shape."""
    if op.name.split(".")[0] not in ("arith", "math") or op.name == "arith.constant" or len(op.results) != 1:
        return False
    rt = op.results[0].type
    if not isinstance(rt, ir.VectorType):
        return False
    shape = ir.VectorType(rt).shape
    return all(isinstance(v.type, ir.VectorType) and ir.VectorType(v.type).shape == shape for v in op.operands)


def _is_seed(op) -> bool:
    """A work-group unit-dim-expanding shape_cast with a user that is not a vector.broadcast."""
    if op.name != "vector.shape_cast" or "layout_result_0" not in op.attributes:
        return False
    if "sg_layout" not in str(op.attributes["layout_result_0"]):
        return False
    src = ir.VectorType(op.operands[0].type).shape
    res = ir.VectorType(op.results[0].type).shape
    if _expanded_dims(src, res, _layout_of(op.operands[0])) is None:
        return False
    return any(_op(u.owner).name != "vector.broadcast" for u in op.results[0].uses)


def _op(owner):
    return owner.operation if hasattr(owner, "operation") else owner


def _maker(v):
    """The op that makes `v` (for a loop body's argument: the loop)."""
    return _op(v.owner.owner) if isinstance(v, ir.BlockArgument) else _op(v.owner)


class _Component:
    """The values connected to a seed shape_cast through elementwise ops and scf.for carries (values
    hash by the value they name), with the ops that make them and the broadcasts that read them."""

    def __init__(self, seed):
        self.values, self._seen, self._todo = [], set(), []
        self.seeds, self.constants, self.elementwise = [], [], []
        self.loops = []        # (scf.for, carried index)
        self.broadcasts = []   # (vector.broadcast, the value it reads)
        self.dims = None       # the unit dims the seeds insert
        self._add(seed.results[0])
        while self._todo:
            v = self._todo.pop()
            self._producer(v)
            self._users(v)

    def _add(self, v):
        if v not in self._seen:
            self._seen.add(v)
            self.values.append(v)
            self._todo.append(v)

    @staticmethod
    def _once(ops: list, op) -> None:
        if op not in ops:
            ops.append(op)

    def _loop(self, for_op, i):
        for_op = _op(for_op)
        self._once(self.loops, (for_op, i))
        body = for_op.regions[0].blocks[0]
        for v in (for_op.results[i], for_op.operands[_FOR_OPERANDS + i], body.arguments[i + 1],
                  _op(list(body.operations)[-1]).operands[i]):
            self._add(v)

    def _producer(self, v):
        op = _maker(v)
        if isinstance(v, ir.BlockArgument):
            if op.name != "scf.for" or v.arg_number == 0:
                raise _Unsupported(op, f"'{op.name}' carries it")
            self._loop(op, v.arg_number - 1)
        elif op.name == "vector.shape_cast":
            dims = _expanded_dims(ir.VectorType(op.operands[0].type).shape, ir.VectorType(v.type).shape,
                                  _layout_of(op.operands[0]))
            if dims is None:
                raise _Unsupported(op, "'vector.shape_cast' makes it without only inserting unit dims")
            if self.dims not in (None, dims):
                raise _Unsupported(op, "'vector.shape_cast' inserts other unit dims than another one it meets")
            self.dims = dims
            self._once(self.seeds, op)
        elif op.name == "arith.constant":
            value = op.attributes["value"]
            if not isinstance(value, ir.DenseElementsAttr) or not value.is_splat:
                raise _Unsupported(op, "'arith.constant' makes it, not as a splat")
            self._once(self.constants, op)
        elif _is_elementwise(op):
            self._once(self.elementwise, op)
            for w in op.operands:
                self._add(w)
        elif op.name == "scf.for":
            self._loop(op, v.result_number)
        else:
            raise _Unsupported(op, f"'{op.name}' makes it")

    def _users(self, v):
        for use in v.uses:
            user = _op(use.owner)
            if user.name == "vector.broadcast":
                self.broadcasts.append((user, v))
            elif _is_elementwise(user):
                self._add(user.results[0])
            elif user.name == "scf.yield" and _op(user.parent).name == "scf.for":
                self._loop(user.parent, use.operand_number)
            elif user.name == "scf.for" and use.operand_number >= _FOR_OPERANDS:
                self._loop(user, use.operand_number - _FOR_OPERANDS)
            else:
                raise _Unsupported(user, f"'{user.name}' uses it")


def _collapsed_type(t, dims):
    vt = ir.VectorType(t)
    return ir.VectorType.get([s for i, s in enumerate(vt.shape) if i not in dims], vt.element_type)


def _identity(v, layout: str):
    """`math.copysign %v, %v` (v itself, for floats exactly) carrying `layout`, before the insertion point."""
    return ir.Operation.create("math.copysign", results=[v.type], operands=[v, v],
                               attributes={"layout_result_0": ir.Attribute.parse(layout)}).results[0]


def _check(c: _Component) -> dict:
    """value -> (its 2D layout, the layout without the unit dims, its 2D type); _Unsupported when a
    value has no work-group layout, one that splits a unit dim, or a seed reads a value distributed
    otherwise than the 1D value will be."""
    dims, layouts = set(c.dims), {}
    for v in c.values:
        text, op = _layout_of(v), _maker(v)
        if text is None or "sg_layout" not in text:
            raise _Unsupported(op, f"'{op.name}' makes it without a work-group layout")
        flat = _collapsed_layout(text, dims)
        if flat is None:
            raise _Unsupported(op, f"'{op.name}' gives it the layout {text}, not one of lists with 1 "
                                   f"in the unit dims")
        layouts[v] = (text, flat, v.type)
    for sc in c.seeds:
        text, flat, t = layouts[sc.results[0]]
        shape = ir.VectorType(_collapsed_type(t, dims)).shape
        src_layout = _layout_of(sc.operands[0])
        if src_layout is None or _distribution(src_layout, shape) != _distribution(flat, shape):
            raise _Unsupported(sc, f"'vector.shape_cast' reads a value distributed otherwise ({src_layout}) "
                                   f"than its result ({text})")
    return layouts


def _rewrite(c: _Component) -> None:
    """Retype the component in place (see the module docstring); nothing is changed when it raises."""
    layouts, dims = _check(c), set(c.dims)
    flat_attr = {v: ir.Attribute.parse(flat) for v, (_, flat, _) in layouts.items()}
    seed_results = {sc.results[0] for sc in c.seeds}
    for v in c.values:
        if v not in seed_results:
            v.set_type(_collapsed_type(v.type, dims))
    for for_op, i in c.loops:
        for_op.attributes[f"layout_result_{i}"] = flat_attr[for_op.results[i]]
    for op in c.constants:
        op.attributes["value"] = ir.DenseElementsAttr.get_splat(op.results[0].type,
                                                                op.attributes["value"].get_splat_value())
        op.attributes["layout_result_0"] = flat_attr[op.results[0]]
    for op in c.elementwise:
        op.attributes["layout_result_0"] = flat_attr[op.results[0]]
        for i, w in enumerate(op.operands):
            if f"layout_operand_{i}" in op.attributes and w in flat_attr:
                op.attributes[f"layout_operand_{i}"] = flat_attr[w]
    for sc in c.seeds:  # the shape_cast's result is the source itself, in the 1D layout
        res = sc.results[0]
        with ir.InsertionPoint(sc), sc.location:
            flat = _identity(sc.operands[0], layouts[res][1])
        layouts[flat] = layouts[res]
        c.broadcasts = [(b, flat if w == res else w) for b, w in c.broadcasts]
        res.replace_all_uses_with(flat)
        sc.erase()
    unit = ", ".join(map(str, sorted(dims)))
    for b, v in c.broadcasts:  # each broadcast reads a shape_cast of its own, the one user LLVM 22 takes
        text, _, t = layouts[v]
        with ir.InsertionPoint(b), b.location:
            sliced = _identity(v, f"#xegpu.slice<{text}, dims = [{unit}]>")
            expand = ir.Operation.create("vector.shape_cast", results=[t], operands=[sliced],
                                         attributes={"layout_result_0": ir.Attribute.parse(text)})
        b.operands[0] = expand.results[0]


def collapse_unit_dim_values(module_op, filename: str = "-") -> int:
    """Rewrite (see the module docstring) every component of unit-dim values around a shape_cast LLVM
    22 cannot distribute; returns how many shape_casts were removed. DiagnosticError, located at the op
    that stops it, when a component reaches an op the rewrite does not take."""
    count = 0
    while True:  # each rewrite removes its component's seeds
        op = next((o for o in walk(module_op) if _is_seed(o)), None)
        if op is None:
            return count
        try:
            comp = _Component(op)
            _rewrite(comp)
        except _Unsupported as e:
            d = at(e.op.location, "error",
                   f"{PASS_NAME}: a unit-dim value made by a work-group 'vector.shape_cast' "
                   f"({op.operands[0].type} to {op.results[0].type}) that LLVM 22's xegpu-wg-to-sg-distribute "
                   f"cannot distribute (it takes only vector.broadcast users) is kept 1D through arith/math "
                   f"elementwise ops, scf.for carries and vector.broadcast, but {e}")
            if d.filename in (None, "-", "<unknown>"):
                d.filename = filename
            raise DiagnosticError([d]) from None
        count += len(comp.seeds)
