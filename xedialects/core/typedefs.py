"""Declarative type and attribute definitions (struct-like attributes, shaped types, plain types).

Each definition is a `Kind`, so it can be a parameter of another definition or an op attribute. It
reads and writes its readable form (`#xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 128]>`,
`!xetile.tile<64x32xbf16, #xetile.tile_attr<...>>`) and its generic IRDL form, and emits its
`irdl.attribute` / `irdl.type` definition.
"""
from __future__ import annotations

import re
from collections import namedtuple
from dataclasses import dataclass

from .kinds import IntList, Kind, Optional, _alias
from .scanner import ScanError

_SHAPE = re.compile(r"((?:[0-9]+x)+)")
_ELEMENT = re.compile(r"(bf16|f16|f32|f64|tf32|i1|i8|i16|i32|i64|ui8|si8|index|f8E4M3FN|f8E5M2)\b")


@dataclass(frozen=True)
class Field:
    name: str
    kind: Kind
    default: object = None  # None: absent unless given
    doc: str = ""
    required: bool = False


class StructAttrDef(Kind):
    """`#dialect.name<f1 = v1, f2 = v2>` with named, optional fields; generic: all values in order."""

    def __init__(self, dialect: str, name: str, fields: list[Field], summary: str,
                 elide_when_default: bool = False, aliases: dict | None = None):
        self.dialect = dialect
        self.name = name
        self.fields = list(fields)
        self.summary = summary
        self.description = f"#{dialect}.{name}"
        self.mnemonic = f"#{dialect}.{name}"
        self.python_type = f"{dialect}.attributes.{name}(...) or dict of {', '.join(f.name for f in fields)}"
        self.elide_when_default = elide_when_default
        self.field_aliases = aliases or {}
        self.value_class = namedtuple(f"{name}_value", [f.name for f in self.fields])
        self.value_class.definition = self
        self._by_name = {f.name: f for f in self.fields}

    # -- values -------------------------------------------------------------------------------
    def make(self, **kwargs):
        vals = {}
        for f in self.fields:
            v = kwargs.pop(f.name, None)
            if v is None:
                v = f.default
            elif isinstance(v, list):
                v = tuple(v)
            if v is None and f.required:
                raise ValueError(f"{self.mnemonic}: field '{f.name}' is required")
            if v is not None:
                err = f.kind.validate(v)
                if err:
                    raise ValueError(f"{self.mnemonic}: field '{f.name}': {err}")
            vals[f.name] = v
        if kwargs:
            raise ValueError(f"{self.mnemonic} has no field(s) {', '.join(kwargs)}; "
                             f"fields are {', '.join(self._by_name)}")
        return self.value_class(**vals)

    def is_default(self, value) -> bool:
        return all(getattr(value, f.name) == f.default for f in self.fields)

    # -- readable form --------------------------------------------------------------------------
    def parse_pretty(self, sc, env):
        aliased = _alias(sc, env, "#")
        if aliased is not None:
            if getattr(aliased, "definition", None) is not self:
                raise sc.error(f"alias does not name a {self.mnemonic} attribute")
            return aliased
        if not sc.accept(self.mnemonic):
            if not sc.peek("<"):
                raise sc.error(f"expected {self.mnemonic}<...>, found {sc.describe_next()}")
        sc.expect("<")
        return self.parse_body(sc, env)

    def parse_body(self, sc, env):
        """After '<': either the readable `name = value` list or the generic positional list."""
        sc.skip_ws()
        save = sc.pos
        word = sc.ident()
        is_pretty = sc.peek(">") if word is None else sc.peek("=")
        sc.pos = save
        if word is not None and not is_pretty and word in ("array", "unit", "true", "false"):
            return self._generic_body(sc, env)
        if word is None and not sc.peek(">"):
            return self._generic_body(sc, env)
        vals = {}
        if not sc.accept(">"):
            while True:
                start = sc.pos
                key = sc.ident()
                if key is None:
                    raise sc.error(f"expected a field name of {self.mnemonic}, found {sc.describe_next()}")
                key = self.field_aliases.get(key, key)
                f = self._by_name.get(key)
                if f is None:
                    raise ScanError(f"unknown field '{key}' in {self.mnemonic}; expected one of: "
                                    f"{', '.join(self._by_name)}", start)
                if key in vals:
                    raise ScanError(f"field '{key}' given twice in {self.mnemonic}", start)
                sc.expect("=", f"after field '{key}'")
                vals[key] = f.kind.parse_pretty(sc, env)
                if sc.accept(">"):
                    break
                sc.expect(",", f"or '>' in {self.mnemonic}")
        try:
            return self.make(**vals)
        except ValueError as e:
            raise sc.error(str(e)) from None

    def pretty(self, value, short: bool = False) -> str:
        parts = []
        for f in self.fields:
            v = getattr(value, f.name)
            if v is None or v == f.default:
                continue
            kind = f.kind
            if isinstance(kind, StructAttrDef):
                parts.append(f"{f.name} = {kind.pretty(v, short=True)}")
            else:
                parts.append(f"{f.name} = {kind.pretty(v)}")
        body = "<" + ", ".join(parts) + ">"
        return body if short else self.mnemonic + body

    # -- generic form ---------------------------------------------------------------------------
    def parse_generic(self, sc, env):
        sc.expect(self.mnemonic)
        sc.expect("<")
        return self.parse_body(sc, env)

    def _generic_body(self, sc, env):
        vals = {}
        for i, f in enumerate(self.fields):
            if i:
                sc.expect(",", f"between parameters of {self.mnemonic}")
            kind = f.kind if f.default is not None or f.required else Optional(f.kind)
            vals[f.name] = kind.parse_generic(sc, env)
        sc.expect(">", f"after the {len(self.fields)} parameters of {self.mnemonic}")
        return self.make(**vals)

    def generic(self, value) -> str:
        parts = []
        for f in self.fields:
            kind = f.kind if f.default is not None or f.required else Optional(f.kind)
            parts.append(kind.generic(getattr(value, f.name)))
        return f"{self.mnemonic}<{', '.join(parts)}>"

    # -- IRDL ------------------------------------------------------------------------------------
    def irdl(self, b):
        return b.op(f"irdl.base @{self.dialect}::@{self.name}")

    def irdl_definition(self, b) -> None:
        with b.block(f"irdl.attribute @{self.name}"):
            names = []
            for f in self.fields:
                kind = f.kind if f.default is not None or f.required else Optional(f.kind)
                names.append(f"{f.name}: {kind.irdl(b)}")
            b.line(f"irdl.parameters({', '.join(names)})")

    def validate(self, value):
        return None if getattr(value, "definition", None) is self else f"expected {self.mnemonic}"

    def coerce(self, value):
        """A value of this attribute, or a dict of its fields (`{"sg_layout": [2, 2], ...}`)."""
        if isinstance(value, dict):
            try:
                return self.make(**value)
            except (TypeError, ValueError) as e:
                raise ValueError(f"expected the fields {', '.join(f.name for f in self.fields)}: {e}") from None
        return super().coerce(value)


ShapedValue = namedtuple("ShapedValue", ["shape", "element_type", "attr"])


class ShapedTypeDef(Kind):
    """`!dialect.name<4x8xbf16[, #dialect.attr<...>]>`; generic `<array<i64: 4, 8>, bf16, attr|unit>`."""

    def __init__(self, dialect: str, name: str, attr_def: StructAttrDef, summary: str):
        self.dialect = dialect
        self.name = name
        self.attr_def = attr_def
        self.summary = summary
        self.mnemonic = f"!{dialect}.{name}"
        self.description = self.mnemonic

    def make(self, shape, element_type: str, attr=None, **fields):
        if fields:
            attr = self.attr_def.make(**fields) if attr is None else attr._replace(**fields)
        if attr is not None and self.attr_def.is_default(attr):
            attr = None
        shape = tuple(int(s) for s in shape)
        if not shape or any(s <= 0 for s in shape):
            raise ValueError(f"{self.mnemonic}: shape must be non-empty with positive sizes, got {list(shape)}")
        return ShapedValue(shape, str(element_type), attr)

    def parse_pretty(self, sc, env):
        aliased = _alias(sc, env, "!")
        if aliased is not None:
            return aliased
        sc.expect(self.mnemonic)
        sc.expect("<")
        sc.skip_ws()
        if sc.peek("array"):
            return self._generic_body(sc, env)
        start = sc.pos
        m = _SHAPE.match(sc.text, sc.pos)
        if not m:
            raise sc.error(f"expected a static shape like 8x16xbf16 in {self.mnemonic}")
        shape = [int(x) for x in m.group(1)[:-1].split("x")]
        sc.pos = m.end()
        elt = self._element(sc)
        attr = None
        if sc.accept(","):
            attr = self.attr_def.parse_pretty(sc, env)
        sc.expect(">", f"to close {self.mnemonic}")
        try:
            return self.make(shape, elt, attr)
        except ValueError as e:
            raise ScanError(str(e), start) from None

    def _element(self, sc):
        sc.skip_ws()
        m = _ELEMENT.match(sc.text, sc.pos)
        if not m:
            raise sc.error(f"expected an element type (bf16, f16, f32, i8, ...) in {self.mnemonic}, "
                           f"found {sc.describe_next()}")
        sc.pos = m.end()
        return m.group(1)

    def parse_generic(self, sc, env):
        sc.expect(self.mnemonic)
        sc.expect("<")
        return self._generic_body(sc, env)

    def _generic_body(self, sc, env):
        shape = IntList().parse_generic(sc, env)
        sc.expect(",")
        elt = self._element(sc)
        sc.expect(",")
        attr = None if sc.accept("unit") else self.attr_def.parse_generic(sc, env)
        sc.expect(">")
        return self.make(shape, elt, attr)

    def pretty(self, value) -> str:
        body = "x".join(str(s) for s in value.shape) + "x" + value.element_type
        if value.attr is not None:
            body += ", " + self.attr_def.pretty(value.attr)
        return f"{self.mnemonic}<{body}>"

    def generic(self, value) -> str:
        attr = "unit" if value.attr is None else self.attr_def.generic(value.attr)
        return f"{self.mnemonic}<{IntList().generic(value.shape)}, {value.element_type}, {attr}>"

    def irdl(self, b):
        return b.op(f"irdl.base @{self.dialect}::@{self.name}")

    def irdl_definition(self, b) -> None:
        with b.block(f"irdl.type @{self.name}"):
            shape = b.op('irdl.base "#builtin.dense_array"')
            elt = b.op("irdl.any")
            attr = b.op("irdl.any")  # tdesc/tile attr or unit (no irdl.any_of in LLVM 22)
            b.line(f"irdl.parameters(shape: {shape}, element_type: {elt}, attr: {attr})")


class PlainTypeDef(Kind):
    """A parameterless type such as `!xegpu.nbarrier`."""

    def __init__(self, dialect: str, name: str, summary: str):
        self.dialect = dialect
        self.name = name
        self.summary = summary
        self.mnemonic = f"!{dialect}.{name}"
        self.description = self.mnemonic

    def parse_generic(self, sc, env):
        sc.expect(self.mnemonic)
        return ()

    def generic(self, value) -> str:
        return self.mnemonic

    def irdl(self, b):
        return b.op(f"irdl.base @{self.dialect}::@{self.name}")

    def irdl_definition(self, b) -> None:
        with b.block(f"irdl.type @{self.name}"):
            pass


class EnumAttrDef(Kind):
    """`#dialect.name<keyword>` holding one keyword of a fixed set (an ODS EnumAttr such as
    `#xetile.cache_hint<cached>`); generic `#dialect.name<"keyword">`."""

    def __init__(self, dialect: str, name: str, values, summary: str):
        self.dialect = dialect
        self.name = name
        self.values = tuple(values)
        self.summary = summary
        self.mnemonic = f"#{dialect}.{name}"
        self.description = self.mnemonic
        self.python_type = "str: " + " | ".join(repr(v) for v in self.values)

    def parse_pretty(self, sc, env):
        aliased = _alias(sc, env, "#")
        if aliased is not None:
            if aliased not in self.values:
                raise sc.error(f"alias does not name a {self.mnemonic} attribute")
            return aliased
        sc.expect(self.mnemonic)
        sc.expect("<")
        start = sc.pos
        s = sc.string()
        word = s[1:-1] if s is not None else sc.ident()
        if word not in self.values:
            raise ScanError(f"invalid {self.mnemonic} value '{word}'; expected one of: "
                            f"{', '.join(self.values)}", start)
        sc.expect(">", f"after the {self.mnemonic} value")
        return word

    parse_generic = parse_pretty

    def pretty(self, value) -> str:
        return f"{self.mnemonic}<{value}>"

    def generic(self, value) -> str:
        return f'{self.mnemonic}<"{value}">'

    def irdl(self, b):
        return b.op(f"irdl.base @{self.dialect}::@{self.name}")

    def irdl_definition(self, b) -> None:
        with b.block(f"irdl.attribute @{self.name}"):
            v = b.op('irdl.base "#builtin.string"')
            b.line(f"irdl.parameters(value: {v})")

    def validate(self, value):
        return None if value in self.values else f"expected one of {', '.join(self.values)}"
