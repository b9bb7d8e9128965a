"""Assembly-format engine: an ODS-like `format` string drives both the readable parser and printer.

Directives: `` `lit` `` literals, `$operand` / `$attribute`, `type($operand_or_result)`, `attr-dict`,
`custom<IndexList>($operands, $static_attr)` (mixed `[%i, 8]` lists), and optional groups
`( ... )?` present when their first operand/attribute is.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .kinds import DYNAMIC, IntList
from .scanner import ScanError, Scanner


@dataclass
class GenericOp:
    """An op as MLIR's generic form sees it (all texts in the generic spelling)."""

    name: str
    operands: list = field(default_factory=list)       # SSA names, in order
    operand_types: list = field(default_factory=list)  # type texts
    attrs: dict = field(default_factory=dict)          # name -> attribute text
    result_types: list = field(default_factory=list)

    def text(self) -> str:
        s = f'"{self.name}"({", ".join(self.operands)})'
        if self.attrs:
            s += " {" + ", ".join(f"{k} = {v}" for k, v in self.attrs.items()) + "}"
        res = self.result_types
        rt = "()" if not res else res[0] if len(res) == 1 else "(" + ", ".join(res) + ")"
        if len(res) == 1 and res[0].startswith("("):
            rt = f"({res[0]})"
        return s + f" : ({', '.join(self.operand_types)}) -> {rt}"


class Lit:
    def __init__(self, text):
        self.text = text


class Ref:
    def __init__(self, name):
        self.name = name


class TypeOf:
    def __init__(self, name):
        self.name = name


class AttrDict:
    pass


class IndexList:
    def __init__(self, operand, static):
        self.operand = operand
        self.static = static


class Group:
    def __init__(self, elements):
        self.elements = elements
        first = next((e for e in _flat(elements) if isinstance(e, (Ref, TypeOf, IndexList))), None)
        self.anchor = first


def _flat(elements):
    for e in elements:
        if isinstance(e, Group):
            yield from _flat(e.elements)
        else:
            yield e


_TOKEN = re.compile(r"\s*(`[^`]*`|\$[A-Za-z_][A-Za-z0-9_]*|type\(\$[A-Za-z_0-9]+\)|attr-dict|"
                    r"custom<IndexList>\(\$[A-Za-z_0-9]+,\s*\$[A-Za-z_0-9]+\)|\(|\)\?)")


def _parse_format(text: str):
    pos = 0
    stack = [[]]
    while pos < len(text):
        if not text[pos:].strip():
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"bad format near: {text[pos:pos + 20]!r}")
        tok = m.group(1)
        pos = m.end()
        if tok.startswith("`"):
            stack[-1].append(Lit(tok[1:-1]))
        elif tok.startswith("$"):
            stack[-1].append(Ref(tok[1:]))
        elif tok.startswith("type("):
            stack[-1].append(TypeOf(tok[6:-1]))
        elif tok == "attr-dict":
            stack[-1].append(AttrDict())
        elif tok.startswith("custom<IndexList>"):
            a, b = re.findall(r"\$([A-Za-z_0-9]+)", tok)
            stack[-1].append(IndexList(a, b))
        elif tok == "(":
            stack.append([])
        elif tok == ")?":
            g = stack.pop()
            stack[-1].append(Group(g))
    if len(stack) != 1:
        raise ValueError("unbalanced optional group in format")
    return stack[0]


class _Printer:
    def __init__(self):
        self.parts: list[str] = []

    def tok(self, text: str, space: bool | None = None):
        if not text:
            return
        last = self.parts[-1][-1] if self.parts else " "
        if space is None:
            space = True
            if text[0] in ",])>":
                space = False
            elif last in "[(<":
                space = False
            elif text[0] == "[" and last not in ",":
                space = False
        if space and self.parts:
            self.parts.append(" ")
        self.parts.append(text)

    def text(self):
        return "".join(self.parts)


class Format:
    def __init__(self, opcls, fmt: str):
        self.opcls = opcls
        self.elements = _parse_format(fmt)
        self.operands = {o.name: o for o in opcls.operands_}
        self.attributes = {a.name: a for a in opcls.attributes_}
        self.results = {r.name: r for r in opcls.results_}
        self.format_attrs = set()
        typed = set()
        for e in _flat(self.elements):
            if isinstance(e, Ref) and e.name in self.attributes:
                self.format_attrs.add(e.name)
            elif isinstance(e, IndexList):
                self.format_attrs.add(e.static)
            elif isinstance(e, TypeOf):
                typed.add(e.name)
            if isinstance(e, (Ref, TypeOf)) and not (e.name in self.operands or e.name in self.attributes
                                                     or e.name in self.results):
                raise ValueError(f"{opcls.full_name()}: format names unknown '{e.name}'")
        for o in opcls.operands_:
            if o.name not in typed and o.constraint.buildable is None:
                raise ValueError(f"{opcls.full_name()}: operand '{o.name}' needs type(${o.name}) in its format")
        for r in opcls.results_:
            if r.name not in typed and r.same_as is None:
                raise ValueError(f"{opcls.full_name()}: result '{r.name}' needs type(${r.name}) in its format")

    # -- readable -> generic ---------------------------------------------------------------------
    def parse(self, sc: Scanner, env) -> GenericOp:
        st = {"ops": {}, "types": {}, "attrs": {}}
        self._parse_elements(self.elements, sc, env, st)
        cls = self.opcls
        g = GenericOp(cls.full_name())
        sizes = []
        for o in cls.operands_:
            names = st["ops"].get(o.name, [])
            if not names and not (o.variadic or o.optional):
                raise sc.error(f"missing operand '{o.name}' of {cls.full_name()}")
            types = st["types"].get(o.name)
            for i, n in enumerate(names):
                g.operands.append(n)
                if types is not None:
                    g.operand_types.append(types[i] if i < len(types) else types[-1])
                else:
                    g.operand_types.append(o.constraint.buildable)
            sizes.append(len(names))
        for a in cls.attributes_:
            if a.name in st["attrs"]:
                g.attrs[a.name] = st["attrs"][a.name]
        for k, v in st["attrs"].items():
            if k not in g.attrs:
                g.attrs[k] = v
        for a in cls.attributes_:
            if not a.optional and a.name not in g.attrs and isinstance(a.kind, IntList) and a.name.startswith("static_"):
                g.attrs[a.name] = "array<i64>"
        if cls.needs_segments():
            g.attrs["operandSegmentSizes"] = "array<i32: " + ", ".join(map(str, sizes)) + ">"
        g.result_types = []
        for r in cls.results_:
            if r.name in st["types"]:
                g.result_types.append(st["types"][r.name][0])
            else:
                g.result_types.append(st["types"][r.same_as][0])
        return g

    def _parse_elements(self, elements, sc, env, st):
        for e in elements:
            if isinstance(e, Group):
                save_pos = sc.pos
                save = {k: dict(v) for k, v in st.items()}
                try:
                    self._parse_elements(e.elements, sc, env, st)
                except ScanError as err:
                    if sc.pos > save_pos + 1 and getattr(err, "committed", False):
                        raise
                    sc.pos = save_pos
                    for k in st:
                        st[k] = save[k]
            elif isinstance(e, Lit):
                sc.expect(e.text, f"in {self.opcls.full_name()}")
            elif isinstance(e, Ref):
                if e.name in self.operands:
                    o = self.operands[e.name]
                    names = []
                    if o.variadic:
                        v = sc.ssa()
                        while v is not None:
                            names.append(v)
                            save = sc.pos
                            if not sc.accept(","):
                                break
                            v = sc.ssa()
                            if v is None:
                                sc.pos = save
                    else:
                        v = sc.ssa()
                        if v is None:
                            raise sc.error(f"expected SSA operand '{o.name}' of {self.opcls.full_name()}, "
                                           f"found {sc.describe_next()}")
                        names.append(v)
                    st["ops"][e.name] = names
                else:
                    a = self.attributes[e.name]
                    value = a.kind.parse_pretty(sc, env)
                    st["attrs"][e.name] = a.kind.generic(value)
            elif isinstance(e, TypeOf):
                start = sc.pos
                t = sc.type_text()
                st["types"].setdefault(e.name, []).append(env.convert_fragment(t, start))
            elif isinstance(e, IndexList):
                sc.expect("[", f"to start the {e.operand} list of {self.opcls.full_name()}")
                names, static = [], []
                if not sc.accept("]"):
                    while True:
                        v = sc.ssa()
                        if v is not None:
                            names.append(v)
                            static.append(DYNAMIC)
                        else:
                            i = sc.integer()
                            if i is None:
                                raise sc.error(f"expected SSA value or integer in the {e.operand} list, "
                                               f"found {sc.describe_next()}")
                            static.append(i)
                        if sc.accept("]"):
                            break
                        sc.expect(",", f"or ']' in the {e.operand} list")
                st["ops"][e.operand] = names
                st["attrs"][e.static] = IntList().generic(tuple(static))
            elif isinstance(e, AttrDict):
                if sc.accept("{"):
                    if not sc.accept("}"):
                        while True:
                            start = sc.pos
                            key = sc.ident() or (sc.string() or "")
                            if not key:
                                raise sc.error(f"expected attribute name, found {sc.describe_next()}")
                            if key in st["attrs"] or key in self.format_attrs:
                                raise ScanError(f"attribute '{key}' of {self.opcls.full_name()} "
                                                "is written by the op syntax, not the attribute dictionary"
                                                if key in self.format_attrs else f"duplicate attribute '{key}'", start)
                            if sc.accept("="):
                                a = self.attributes.get(key)
                                if a is not None:
                                    st["attrs"][key] = a.kind.generic(a.kind.parse_pretty(sc, env))
                                else:
                                    vstart = sc.pos
                                    st["attrs"][key] = env.convert_fragment(sc.attr_text(), vstart)
                            else:
                                st["attrs"][key] = "unit"
                            if sc.accept("}"):
                                break
                            sc.expect(",", "or '}' in attribute dictionary")

    # -- generic -> readable ---------------------------------------------------------------------
    def print(self, g: GenericOp, env) -> str:
        cls = self.opcls
        groups, types = {}, {}
        sizes = None
        if cls.needs_segments():
            seg = g.attrs.get("operandSegmentSizes", "")
            sizes = [int(x) for x in re.findall(r"-?\d+", seg.split(":", 1)[1])] if ":" in seg else None
        if sizes is None:
            fixed = sum(1 for o in cls.operands_ if not (o.variadic or o.optional))
            sizes = [len(g.operands) - fixed if (o.variadic or o.optional) else 1 for o in cls.operands_]
        i = 0
        for o, n in zip(cls.operands_, sizes):
            groups[o.name] = g.operands[i:i + n]
            types[o.name] = g.operand_types[i:i + n]
            i += n
        for r, t in zip(cls.results_, g.result_types):
            types[r.name] = [t]
        p = _Printer()
        self._print_elements(self.elements, g, groups, types, p, env)
        return p.text()

    def _present(self, anchor, g, groups):
        if isinstance(anchor, IndexList):
            return g.attrs.get(anchor.static, "array<i64>") != "array<i64>" or bool(groups.get(anchor.operand))
        name = anchor.name
        if name in groups:
            return bool(groups[name])
        if name in self.attributes:
            return name in g.attrs
        return True

    def _print_elements(self, elements, g, groups, types, p, env):
        for e in elements:
            if isinstance(e, Group):
                if e.anchor is None or self._present(e.anchor, g, groups):
                    self._print_elements(e.elements, g, groups, types, p, env)
            elif isinstance(e, Lit):
                p.tok(e.text)
            elif isinstance(e, Ref):
                if e.name in groups:
                    for k, n in enumerate(groups[e.name]):
                        if k:
                            p.tok(",")
                        p.tok(n)
                else:
                    a = self.attributes[e.name]
                    last = p.parts[-1][-1] if p.parts else " "
                    p.tok(a.kind.pretty(env.attr_value(a.kind, g.attrs[e.name])), space=last not in "[(<")
            elif isinstance(e, TypeOf):
                for t in types.get(e.name, []):
                    p.tok(env.convert_fragment(t))
            elif isinstance(e, IndexList):
                static = env.attr_value(IntList(), g.attrs.get(e.static, "array<i64>"))
                dyn = iter(groups.get(e.operand, []))
                items = [next(dyn) if v == DYNAMIC else str(v) for v in static]
                p.tok("[" + ", ".join(items) + "]")
            elif isinstance(e, AttrDict):
                items = []
                declared = [a.name for a in self.opcls.attributes_ if a.name in g.attrs]
                ordered = declared + [k for k in g.attrs if k not in self.attributes]
                for k in ordered:
                    v = g.attrs[k]
                    if k in self.format_attrs or k == "operandSegmentSizes":
                        continue
                    if v == "array<i64>" and k.startswith("static_"):  # re-created by the parser
                        continue
                    a = self.attributes.get(k)
                    if a is not None:
                        val = env.attr_value(a.kind, v)
                        if a.default is not None and val == a.default:
                            continue
                        items.append(f"{k} = {a.kind.pretty(val)}")
                    elif v == "unit":
                        items.append(k)
                    else:
                        items.append(f"{k} = {env.convert_fragment(v)}")
                if items:
                    p.tok("{" + ", ".join(items) + "}", space=True)


class Formats:
    """Several readable forms of one op (e.g. IMEX's spelling beside the RFC's): parsing tries
    them in order and reports the error of the attempt that got furthest; printing uses the form
    `opcls.format_for(generic_op)` chooses (default the first)."""

    def __init__(self, opcls, fmts):
        self.opcls = opcls
        self.alternatives = [Format(opcls, f) for f in fmts]

    def parse(self, sc: Scanner, env) -> GenericOp:
        start, best = sc.pos, None
        for f in self.alternatives:
            sc.pos = start
            try:
                return f.parse(sc, env)
            except ScanError as e:
                if best is None or e.pos > best.pos:
                    best = e
        raise best

    def print(self, g: GenericOp, env) -> str:
        return self.alternatives[self.opcls.format_for(g)].print(g, env)


class SpellingFormat:
    """Parses a `Spelling` (an op's alias name with its own format) into the op's generic form."""

    def __init__(self, spelling):
        self.spelling = spelling
        self.format = Format(spelling.opcls, spelling.fmt)
        # an alias key in the attribute dictionary is read with the kind of the attribute it names
        for old, new in spelling.renames.items():
            if new in self.format.attributes:
                self.format.attributes = {**self.format.attributes, old: self.format.attributes[new]}

    def parse(self, sc: Scanner, env) -> GenericOp:
        start = sc.pos
        g = self.format.parse(sc, env)
        for old, new in self.spelling.renames.items():
            if old in g.attrs:
                if new in g.attrs:
                    raise ScanError(f"'{old}' and '{new}' both given to {self.spelling.opcls.full_name()}", start)
                g.attrs[new] = g.attrs.pop(old)
        return g

    def print(self, g: GenericOp, env) -> str:
        return self.spelling.opcls.asm().print(g, env)
