"""Value kinds: how one attribute/parameter value is read and written in readable and generic form.

A kind converts between a Python value, the readable text (`[1, 0]`, `slm`, `<sg_layout = ...>`)
and the generic MLIR text (`array<i64: 1, 0>`, `"slm"`, `#xetile.wg_map<...>`), and contributes the
IRDL constraint for the value.
"""
from __future__ import annotations

from .scanner import Scanner, ScanError

DYNAMIC = -9223372036854775808  # ShapedType::kDynamic, marks an SSA entry in static_* lists
# arith::AtomicRMWKind by value: the `kind` of memref.atomic_rmw / upstream xegpu.atomic_rmw in MLIR's generic
# form prints as this integer
ATOMIC_RMW_KINDS = {0: "addf", 1: "addi", 2: "andi", 3: "assign", 4: "maximumf", 5: "maxnumf", 6: "maxs", 7: "maxu",
                    8: "minimumf", 9: "minnumf", 10: "mins", 11: "minu", 12: "mulf", 13: "muli", 14: "ori", 15: "xori"}


def _is_int(v) -> bool:
    """A Python or numpy integer (not a bool)."""
    import numbers

    return isinstance(v, numbers.Integral) and not isinstance(v, bool) and type(v).__name__ != "bool_"


class Kind:
    description = "attribute"
    python_type = "str"   # the Python value builders take (docstrings; `coerce` accepts it)

    def parse_pretty(self, sc: Scanner, env) -> object:
        return self.parse_generic(sc, env)

    def parse_generic(self, sc: Scanner, env) -> object:  # pragma: no cover - abstract
        raise NotImplementedError

    def pretty(self, value) -> str:
        return self.generic(value)

    def generic(self, value) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def irdl(self, b) -> str:
        """Emit the IRDL constraint for this kind with builder `b`; returns its SSA name."""
        return b.op("irdl.any")

    def validate(self, value) -> str | None:
        """An error message when `value` is not acceptable (used by builders)."""
        return None

    def coerce(self, value):
        """The value `generic` writes for a Python value a user passes to a builder (a tuple for a
        list, an int for a numpy integer, ...); ValueError saying what was expected."""
        msg = self.validate(value)
        if msg:
            raise ValueError(msg)
        return value


def _alias(sc: Scanner, env, prefix: str):
    """Resolve `#name`/`!name` alias references through the converter's alias table."""
    sc.skip_ws()
    if sc.text.startswith(prefix, sc.pos) and env is not None:
        start = sc.pos
        sc.pos += 1
        name = sc.ident()
        if name and "." not in name and name in env.aliases:
            return env.aliases[name]
        sc.pos = start
    return None


class IntList(Kind):
    description = "list of integers"
    python_type = "list[int]"

    def __init__(self, rank: int | None = None, allow_dynamic: bool = False):
        self.rank = rank
        self.allow_dynamic = allow_dynamic

    def parse_pretty(self, sc, env):
        sc.skip_ws()
        if sc.peek("array"):
            return self.parse_generic(sc, env, elements=("i64", "i32"))
        start = sc.pos
        sc.expect("[", "to start a list of integers")
        vals = []
        if not sc.accept("]"):
            while True:
                vals.append(sc.expect_int("in list"))
                if sc.accept("]"):
                    break
                sc.expect(",", "or ']' in list of integers")
        return self._check(tuple(vals), sc, start)

    def parse_generic(self, sc, env, elements=("i64",)):
        start = sc.pos
        sc.expect("array")
        sc.expect("<")
        elt = sc.ident()
        if elt not in elements:  # readable text may also spell a list `array<i32: ...>` (IMEX)
            raise sc.error(f"expected {' or '.join(elements)} (element type of a dense array), got {elt}")
        vals = []
        if sc.accept(":"):
            while True:
                vals.append(sc.expect_int("in array"))
                if not sc.accept(","):
                    break
        sc.expect(">")
        return self._check(tuple(vals), sc, start)

    def _check(self, vals, sc, start):
        if self.rank is not None and len(vals) != self.rank:
            raise ScanError(f"expected {self.rank} integers, got {len(vals)}", start)
        return vals

    def pretty(self, value):
        return "[" + ", ".join(str(v) for v in value) + "]"

    def generic(self, value):
        if not value:
            return "array<i64>"
        return "array<i64: " + ", ".join(str(v) for v in value) + ">"

    def irdl(self, b):
        return b.op('irdl.base "#builtin.dense_array"')

    def validate(self, value):
        if not isinstance(value, (tuple, list)) or not all(isinstance(v, int) for v in value):
            return "expected a list of integers"
        if self.rank is not None and len(value) != self.rank:
            return f"expected {self.rank} integers"
        return None

    def coerce(self, value):
        if hasattr(value, "tolist") and not _is_int(value):   # a numpy array
            value = value.tolist()
        if not isinstance(value, (tuple, list)) or not all(_is_int(v) for v in value):
            raise ValueError("expected a list of integers")
        vals = tuple(int(v) for v in value)
        msg = self.validate(vals)
        if msg:
            raise ValueError(msg)
        return vals


INTEGER_TYPES = ("i8", "i16", "i32", "i64", "index", "si8", "si16", "si32", "si64", "ui8", "ui16", "ui32", "ui64")


class Int(Kind):
    """An integer attribute of a fixed type: readable `3 : i32`, `3 : i64` (IMEX) or `3`,
    generic `3 : i32`. Readable text may give any integer type; the value keeps the kind's type."""

    def __init__(self, type_name: str = "i64"):
        self.type_name = type_name
        self.description = f"{type_name} integer"

    python_type = "int"

    def parse_generic(self, sc, env):
        v = sc.expect_int("attribute value")
        if sc.accept(":"):
            t = sc.ident()
            if t != self.type_name and t not in INTEGER_TYPES:
                raise sc.error(f"expected an integer type such as {self.type_name}, got {t}")
        return v

    def generic(self, value):
        return f"{value} : {self.type_name}"

    def pretty(self, value):
        # i64 is MLIR's default integer attribute type, so `0` reads back as `0 : i64`
        return str(value) if self.type_name == "i64" else f"{value} : {self.type_name}"

    def irdl(self, b):
        return b.op('irdl.base "#builtin.integer"')

    def validate(self, value):
        return None if isinstance(value, int) and not isinstance(value, bool) else "expected an integer"

    def coerce(self, value):
        if not _is_int(value):
            raise ValueError("expected an integer")
        return int(value)


class Bool(Kind):
    description = "boolean"
    python_type = "bool"

    def parse_generic(self, sc, env):
        if sc.accept("true"):
            return True
        if sc.accept("false"):
            return False
        raise sc.error(f"expected 'true' or 'false', found {sc.describe_next()}")

    def generic(self, value):
        return "true" if value else "false"

    def irdl(self, b):
        return b.op('irdl.base "#builtin.integer"')

    def validate(self, value):
        return None if isinstance(value, bool) else "expected a boolean"

    def coerce(self, value):
        if not (isinstance(value, bool) or type(value).__name__ == "bool_"):
            raise ValueError("expected True or False")
        return bool(value)


class Enum(Kind):
    """A keyword from a fixed set: readable bare (`vc`) or quoted (`"ugm"`), generic a string."""

    def __init__(self, values, quoted: bool = False, name: str = "value"):
        self.values = tuple(values)
        self.quoted = quoted
        self.description = name
        self.python_type = "str: " + " | ".join(repr(v) for v in self.values)

    def _read(self, sc):
        start = sc.pos
        s = sc.string()
        if s is not None:
            word = s[1:-1]
        else:
            word = sc.ident()
            if word is None:
                raise sc.error(f"expected {self.description}, found {sc.describe_next()}")
        if word not in self.values:
            raise ScanError(
                f"invalid {self.description} '{word}'; expected one of: {', '.join(self.values)}", start
            )
        return word

    parse_pretty = lambda self, sc, env: self._read(sc)  # noqa: E731
    parse_generic = parse_pretty

    def pretty(self, value):
        return f'"{value}"' if self.quoted else value

    def generic(self, value):
        return f'"{value}"'

    def irdl(self, b):
        return b.op('irdl.base "#builtin.string"')

    def validate(self, value):
        return None if value in self.values else f"expected one of {', '.join(self.values)}"


class Raw(Kind):
    """Any MLIR attribute, kept as text (e.g. a typed padding value `0.0 : bf16`)."""

    description = "attribute"
    python_type = "str (MLIR attribute text, e.g. '0.0 : bf16')"

    def parse_generic(self, sc, env):
        text = sc.attr_text()
        if not text:
            raise sc.error("expected an attribute value")
        return env.convert_fragment(text) if env is not None else text

    def generic(self, value):
        return value

    def coerce(self, value):
        # a bare number is typed by the op (`Attribute(number_type_of=...)`) before it gets here
        if not isinstance(value, str):
            raise ValueError("expected MLIR attribute text such as '0.0 : bf16'")
        return value


class Optional(Kind):
    """A value that may be absent: absent is `unit` in generic form and omitted when readable."""

    def __init__(self, inner: Kind):
        self.inner = inner
        self.description = inner.description
        self.python_type = f"{inner.python_type} | None"

    def parse_pretty(self, sc, env):
        if sc.accept("unit"):
            return None
        return self.inner.parse_pretty(sc, env)

    def parse_generic(self, sc, env):
        if sc.accept("unit"):
            return None
        return self.inner.parse_generic(sc, env)

    def pretty(self, value):
        return "unit" if value is None else self.inner.pretty(value)

    def generic(self, value):
        return "unit" if value is None else self.inner.generic(value)

    def irdl(self, b):
        # `irdl.any_of` is not loadable by LLVM 22's IRDL ("unknown IRDL constraint" abort), so an
        # optional value is unconstrained in IRDL; the Python definitions check it.
        return b.op("irdl.any")

    def validate(self, value):
        return None if value is None else self.inner.validate(value)

    def coerce(self, value):
        return None if value is None else self.inner.coerce(value)
