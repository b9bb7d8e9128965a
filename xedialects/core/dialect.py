"""Dialect registry: groups op/type/attribute definitions and emits the dialect's IRDL."""
from __future__ import annotations

from mlir import ir

from .irdl_builder import IrdlBuilder
from .scanner import Scanner

_TYPE_CACHE: dict = {}


class Dialect:
    def __init__(self, name: str, summary: str):
        self.name = name
        self.summary = summary
        self.ops: dict[str, type] = {}
        self.types: dict[str, object] = {}
        self.attrs: dict[str, object] = {}
        self.spellings: dict[str, "Spelling"] = {}

    def spelling(self, name: str, opcls, fmt: str, renames: dict | None = None) -> "Spelling":
        """Another readable name and format of op `opcls` (e.g. IMEX's `xetile.reduction` for
        `xetile.tile_reduce`): it parses into the op and prints as the op; no second op exists."""
        sp = Spelling(name, opcls, fmt, renames or {})
        self.spellings[name] = sp
        return sp

    def op(self, cls):
        from .opdoc import document

        cls.dialect = self
        self.ops[cls.name] = cls
        document(cls)
        return cls

    def type(self, typedef):
        self.types[typedef.name] = typedef
        return typedef

    def attr(self, attrdef):
        self.attrs[attrdef.name] = attrdef
        return attrdef

    def irdl_definition(self, b: IrdlBuilder) -> None:
        with b.block(f"irdl.dialect @{self.name}"):
            for a in self.attrs.values():
                a.irdl_definition(b)
            for t in self.types.values():
                t.irdl_definition(b)
            for cls in self.ops.values():
                cls.irdl_definition(b)


DIALECTS: dict[str, Dialect] = {}


def register(dialect: Dialect) -> Dialect:
    DIALECTS[dialect.name] = dialect
    return dialect


def op_class(name: str):
    """The op definition class for a full op name like 'xetile.load_tile' (or None)."""
    d, _, short = name.partition(".")
    dialect = DIALECTS.get(d)
    if dialect is None:
        return None
    return dialect.ops.get(short) or dialect.spellings.get(short)


class Spelling:
    """A readable alias of an op: `name` with its own `format`; attribute-dictionary keys in
    `renames` (alias key -> op attribute) are renamed while parsing."""

    def __init__(self, name, opcls, fmt, renames):
        self.name = name
        self.opcls = opcls
        self.fmt = fmt
        self.renames = renames
        self._asm = None

    def asm(self):
        if self._asm is None:
            from .asmformat import SpellingFormat
            self._asm = SpellingFormat(self)
        return self._asm

    def verify(self):  # never reached for IR ops (they carry the op's own name)
        return ()


def type_value(t):
    """Parse one of our types (`ir.Type` or text) into its Python value, cached by the type."""
    try:
        return _TYPE_CACHE[t]
    except (KeyError, TypeError):
        pass
    text = str(t)
    dname = text[1:].split(".", 1)[0]
    dialect = DIALECTS.get(dname)
    if dialect is None or not text.startswith("!"):
        return None
    tname = text[len(dname) + 2:].split("<", 1)[0]
    typedef = dialect.types.get(tname)
    if typedef is None:
        return None
    value = typedef.parse_generic(Scanner(text), None)
    try:
        _TYPE_CACHE[t] = value
    except TypeError:
        pass
    return value


def to_ir_type(typedef, value) -> ir.Type:
    return ir.Type.parse(typedef.generic(value))
