"""One class per op: operands, results, attributes, readable format, verifier and builder together.

    class LoadTileOp(Op):
        name = "load_tile"
        tile = Operand(TileT)
        padding = Attribute(Raw(), optional=True)
        result = Result(AnyVector)
        format = "$tile attr-dict `:` type($tile) `->` type($result)"

        def verify(self): ...   # yields error messages

From the class, the dialect derives the IRDL op, the readable parser/printer (`asmformat`), the
Python accessors (`LoadTileOp(op).padding`), the builder (`LoadTileOp.build(...)`, which derives
result types by `same_as` / `derive` and turns Python values into attributes through their kind)
and the docstrings and signatures `help()` shows (`opdoc`).
"""
from __future__ import annotations

import math
import numbers
from types import SimpleNamespace

from mlir import ir

from .asmformat import Format, Formats
from .kinds import DYNAMIC, IntList, Kind
from .scanner import Scanner


class Operand:
    def __init__(self, constraint, *, variadic: bool = False, optional: bool = False, doc: str = ""):
        self.constraint = constraint
        self.variadic = variadic
        self.optional = optional
        self.doc = doc
        self.name = None

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        values = obj._operand_group(self.name)
        if self.variadic:
            return values
        return values[0] if values else None


class Result:
    """`same_as`: the result type is that operand's type. `derive(args) -> ir.Type | None`: the type
    the RFC defines from the builder's arguments (`args.<operand>` values, `args.<attribute>` Python
    values or None), None when they do not determine it; its docstring says the rule."""

    def __init__(self, constraint, *, same_as: str | None = None, derive=None, doc: str = ""):
        self.constraint = constraint
        self.same_as = same_as  # the result type is the type of this operand (not written)
        self.derive = derive
        self.doc = doc
        self.name = None

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        idx = [r.name for r in objtype.results_].index(self.name)
        return obj.op.results[idx]


def derived(rule, *names):
    """A `Result(derive=...)` calling `rule` with the builder's arguments `names` (operands and
    attributes); its docstring (the rule's) is what `help()` shows for the result."""
    def derive(args):
        return rule(*(getattr(args, n) for n in names))

    derive.__doc__ = rule.__doc__
    return derive


class Attribute:
    """`number_type_of`: a builder given a bare number types it as that operand's element type
    (`padding=0` on a bf16 tile is `0.0 : bf16`)."""

    def __init__(self, kind: Kind, *, optional: bool = False, default=None, doc: str = "",
                 number_type_of: str | None = None):
        self.kind = kind
        self.optional = optional or default is not None
        self.default = default
        self.doc = doc
        self.number_type_of = number_type_of
        self.name = None

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return obj.attr(self.name)


_ATTR_CACHE: dict = {}


def attr_value(kind: Kind, attr: ir.Attribute):
    """Parse a generic attribute through its kind, cached by the (uniqued) attribute."""
    key = (id(kind), attr)
    try:
        return _ATTR_CACHE[key]
    except KeyError:
        pass
    sc = Scanner(str(attr))
    value = kind.parse_generic(sc, None)
    _ATTR_CACHE[key] = value
    return value


class Op:
    """Base of every op definition; an instance wraps one `ir.Operation`."""

    dialect = None  # set by Dialect.op
    name = ""
    summary = ""
    format = ""
    operands_: list = []
    results_: list = []
    attributes_: list = []

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        ops, res, attrs = [], [], []
        for v in vars(cls).values():
            if isinstance(v, Operand):
                ops.append(v)
            elif isinstance(v, Result):
                res.append(v)
            elif isinstance(v, Attribute):
                attrs.append(v)
        cls.operands_ = ops
        cls.results_ = res
        cls.attributes_ = attrs
        cls._attr_by_name = {a.name: a for a in attrs}
        cls._format = None

    # -- definition-derived facts ------------------------------------------------------------------
    @classmethod
    def full_name(cls) -> str:
        return f"{cls.dialect.name}.{cls.name}"

    @classmethod
    def needs_segments(cls) -> bool:
        return sum(1 for o in cls.operands_ if o.variadic or o.optional) > 1

    @classmethod
    def asm(cls) -> Format:
        if cls._format is None:
            fmt = cls.format
            cls._format = Formats(cls, fmt) if isinstance(fmt, (tuple, list)) else Format(cls, fmt)
        return cls._format

    @classmethod
    def format_for(cls, g) -> int:
        """With several readable forms (`format` a tuple): the index of the one that prints the
        generic op `g` (an `asmformat.GenericOp`). Overridden by such ops."""
        return 0

    @classmethod
    def irdl_definition(cls, b) -> None:
        with b.block(f"irdl.operation @{cls.name}"):
            if cls.operands_:
                parts = []
                for o in cls.operands_:
                    v = o.constraint.irdl(b)
                    mark = "variadic " if o.variadic else "optional " if o.optional else ""
                    parts.append(f"{o.name}: {mark}{v}")
                b.line(f"irdl.operands({', '.join(parts)})")
            req = [a for a in cls.attributes_ if not a.optional]
            if req:
                parts = [f'"{a.name}" = {a.kind.irdl(b)}' for a in req]
                b.line(f"irdl.attributes {{{', '.join(parts)}}}")
            if cls.results_:
                parts = [f"{r.name}: {r.constraint.irdl(b)}" for r in cls.results_]
                b.line(f"irdl.results({', '.join(parts)})")

    # -- instance accessors ------------------------------------------------------------------------
    def __init__(self, op):
        self.op = op.operation if hasattr(op, "operation") else op

    @property
    def location(self):
        return self.op.location

    def segment_sizes(self) -> list[int]:
        cls = type(self)
        n = len(self.op.operands)
        if cls.needs_segments():
            attr = self.op.attributes["operandSegmentSizes"]
            return [int(x) for x in ir.DenseI32ArrayAttr(attr)]
        fixed = sum(1 for o in cls.operands_ if not (o.variadic or o.optional))
        return [n - fixed if (o.variadic or o.optional) else 1 for o in cls.operands_]

    def _operand_group(self, name: str) -> list:
        sizes = self.segment_sizes()
        start = 0
        for o, size in zip(type(self).operands_, sizes):
            if o.name == name:
                return [self.op.operands[i] for i in range(start, start + size)]
            start += size
        raise KeyError(name)

    def has_attr(self, name: str) -> bool:
        return name in self.op.attributes

    def attr(self, name: str):
        spec = type(self)._attr_by_name[name]
        if name not in self.op.attributes:
            return spec.default
        return attr_value(spec.kind, self.op.attributes[name])

    def mixed(self, operand_name: str, static_name: str) -> list:
        """A mixed static/dynamic index list: ints for constants, ir.Values for SSA entries."""
        dyn = iter(self._operand_group(operand_name))
        return [next(dyn) if v == DYNAMIC else v for v in self.attr(static_name)]

    def verify(self):
        """Yield error messages (str) or (severity, message) pairs. Overridden per op."""
        return ()

    # -- builder ---------------------------------------------------------------------------------
    @classmethod
    def build(cls, *, result_types=(), loc=None, ip=None, **kwargs) -> "Op":
        """Create the op. Operands are passed by name (lists for variadic groups), attributes as
        Python values (or ir.Attribute); mixed index lists may be given as one list of ints/Values
        under the operand name, e.g. `offsets=[i, 0]`."""
        known = {o.name for o in cls.operands_} | set(cls._attr_by_name)
        unknown = [k for k in kwargs if k not in known]
        if unknown:
            raise ValueError(f"{cls.full_name()}: unknown argument(s) {', '.join(unknown)}; "
                             f"expected {', '.join(sorted(known))}")
        operands, sizes, attrs, given = [], [], {}, {}
        for o in cls.operands_:
            v = kwargs.pop(o.name, None)
            static_name = f"static_{o.name}"
            if static_name in cls._attr_by_name and static_name not in kwargs:
                vals = list(v or [])
                kwargs[static_name] = [DYNAMIC if isinstance(x, ir.Value) else x for x in vals]  # ints: coerce
                v = [x for x in vals if isinstance(x, ir.Value)]
            if o.variadic:
                group = list(v or [])
            elif o.optional:
                group = [] if v is None else [v]
            else:
                if v is None:
                    raise ValueError(f"{cls.full_name()}: operand '{o.name}' is required")
                group = [v]
            group = [x.result if hasattr(x, "result") and not isinstance(x, ir.Value) else x for x in group]
            bad = [x for x in group if not isinstance(x, ir.Value)]
            if bad:
                raise ValueError(f"{cls.full_name()}: operand '{o.name}' expects {o.constraint.description} "
                                 f"(an ir.Value{', or a list of them' if o.variadic else ''}), got {bad[0]!r}")
            given[o.name] = group
            operands += group
            sizes.append(len(group))
        values = {}
        for a in cls.attributes_:
            v = kwargs.pop(a.name, None)
            if v is None:
                if not a.optional:
                    raise ValueError(f"{cls.full_name()}: attribute '{a.name}' is required")
                values[a.name] = a.default
                continue
            attrs[a.name], values[a.name] = cls._attribute(a, v, given)
        if cls.needs_segments():
            attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(sizes)
        from ..syntax.convert import type_from_text  # text: readable or MLIR's encoding

        rtypes = [type_from_text(t) if isinstance(t, str) else t for t in result_types or ()]
        if not rtypes and cls.results_:
            rtypes = cls._derived_result_types(given, values)
        elif len(rtypes) != len(cls.results_):
            raise ValueError(f"{cls.full_name()}: {len(rtypes)} result type(s) given, the op has "
                             f"{len(cls.results_)} ({', '.join(r.name for r in cls.results_) or 'none'})")
        op = ir.Operation.create(cls.full_name(), results=rtypes, operands=operands,
                                 attributes=attrs, loc=loc, ip=ip)
        return cls(op)


    @classmethod
    def _attribute(cls, a: Attribute, v, given: dict):
        """(ir.Attribute, Python value) of attribute `a` given `v` (an ir.Attribute or a Python value
        of its kind); ValueError naming the op, the attribute, the kind expected and `v`."""
        if isinstance(v, ir.Attribute):
            return v, attr_value(a.kind, v)
        try:
            if a.number_type_of and isinstance(v, numbers.Number) and not isinstance(v, bool):
                v = _typed_number(v, given.get(a.number_type_of) or [])
            value = a.kind.coerce(v)
            return ir.Attribute.parse(a.kind.generic(value)), value
        except (ValueError, TypeError, ir.MLIRError) as e:
            why = str(e).splitlines()[0].removeprefix("Unable to parse attribute").strip(": ")
            number = f" or a number (typed as {a.number_type_of}'s elements)" if a.number_type_of else ""
            raise ValueError(f"{cls.full_name()}: attribute '{a.name}' expects {a.kind.description} "
                             f"({a.kind.python_type}{number}), got {v!r}" + (f": {why}" if why else "")) from None

    @classmethod
    def _derived_result_types(cls, given: dict, values: dict) -> list:
        """Result types the definition derives (a result with `same_as` takes its operand's type, one
        with `derive` the RFC's rule); ValueError naming the results whose type must be given."""
        out, missing = [], []
        args = None
        for r in cls.results_:
            src = given.get(r.same_as) if r.same_as else None
            t = src[0].type if src else None
            if t is None and r.derive is not None:
                if args is None:
                    args = SimpleNamespace(**values, **{o.name: (g if o.variadic else (g[0] if g else None))
                                                        for o, g in ((o, given[o.name]) for o in cls.operands_)})
                t = r.derive(args)
                t = ir.Type.parse(t) if isinstance(t, str) else t
            if t is not None:
                out.append(t)
            else:
                missing.append(r.name)
        if missing:
            names = ", ".join(f"'{n}'" for n in missing)
            raise ValueError(f"{cls.full_name()}: the type of result {names} cannot be derived from the operands; "
                             f"pass result_types=[...] with {len(cls.results_)} type(s), e.g. "
                             f"result_types=[ir.Type.parse(\"...\")]")
        return out


def _typed_number(v, group: list) -> str:
    """A number as attribute text typed by the element type of the operand in `group` (a tile,
    tensor_desc or vector), e.g. `0.0 : bf16`."""
    from .typeinfo import is_float, our_type, vector_info

    if not group:
        raise ValueError("its operand is not given, so the number has no type; give text such as '0.0 : f32'")
    t = our_type(group[0]) or None
    elt = t.element_type if t is not None else (vector_info(group[0]) or (None, str(group[0].type)))[1]
    if is_float(elt):
        if not math.isfinite(v):
            raise ValueError("give a non-finite value as text with its bits, e.g. '0x7F800000 : f32'")
        text = repr(float(v))
        return f"{text if '.' in text else text.replace('e', '.0e')} : {elt}"
    if isinstance(v, numbers.Integral) or float(v).is_integer():
        return f"{int(v)} : {elt}"
    raise ValueError(f"{v!r} is not an integer, and the elements are {elt}")


def static_list_attr(doc: str = "") -> Attribute:
    return Attribute(IntList(allow_dynamic=True), doc=doc)
