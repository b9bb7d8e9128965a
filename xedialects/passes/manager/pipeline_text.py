"""The textual pipeline syntax, `builtin.module(pass{k=v}, func.func(cse))`: `Element` (one pass or
nested pipeline) and `parse_pipeline_text`; errors point at their column in the text."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from .errors import PassPipelineError, pipeline_error
from .options import format_option_value

ANCHOR = "builtin.module"


@dataclass
class Element:
    """One pipeline element: a pass (`name{options}`) or a nested pipeline (`anchor(children)`)."""

    name: str
    options: Any = None  # raw option text, a mapping of typed values, or None
    children: list["Element"] | None = None
    col: int | None = None  # 1-based column in the pipeline text it came from
    text: str | None = None  # the pipeline text (for error positions)
    origin: str | None = None  # the named pipeline this element was expanded from

    def render(self) -> str:
        if self.children is not None:
            return f"{self.name}({','.join(c.render() for c in self.children)})"
        if self.options is None or self.options == "" or self.options == {}:
            return self.name
        if isinstance(self.options, str):
            return f"{self.name}{{{self.options}}}"
        return self.render_with(self.options)

    def render_with(self, options: Mapping[str, Any]) -> str:
        text = " ".join(f"{k.replace('_', '-')}={format_option_value(v)}" for k, v in options.items())
        return f"{self.name}{{{text}}}" if text else self.name


PASS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


class _PipelineParser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def error(self, msg, pos=None) -> PassPipelineError:
        col = (self.pos if pos is None else pos) + 1
        return pipeline_error(f"{msg} in pass pipeline '{self.text}'", self.text, col)

    def ws(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def name(self) -> tuple[str, int]:
        self.ws()
        m = PASS_NAME.match(self.text, self.pos)
        if not m:
            what = repr(self.text[self.pos]) if self.pos < len(self.text) else "end of pipeline"
            raise self.error(f"expected a pass name, got {what}")
        self.pos = m.end()
        return m.group(0), m.start()

    def options(self) -> str:
        start = self.pos  # at '{'
        depth, quote = 0, None
        i = self.pos
        while i < len(self.text):
            ch = self.text[i]
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    self.pos = i + 1
                    return self.text[start + 1:i].strip()
            i += 1
        raise self.error("missing closing '}' of pass options", start)

    def elements(self, closing: str) -> list[Element]:
        out: list[Element] = []
        if self.peek() == closing:
            return out
        while True:
            out.append(self.element())
            c = self.peek()
            if c == ",":
                self.pos += 1
                continue
            if c == closing:
                return out
            if c == "":
                raise self.error(f"expected ',' or '{closing}'" if closing else "expected ','")
            raise self.error(f"expected ',' or '{closing}', got '{c}'" if closing else f"expected ',', got '{c}'")

    def element(self) -> Element:
        name, start = self.name()
        c = self.peek()
        if c == "(":
            self.pos += 1
            children = self.elements(")")
            self.pos += 1
            return Element(name, None, children, start + 1, self.text)
        if c == "{":
            return Element(name, self.options(), None, start + 1, self.text)
        return Element(name, None, None, start + 1, self.text)


def parse_pipeline_text(text: str) -> tuple[str, list[Element]]:
    """(anchor, elements) of a textual pipeline. `builtin.module(...)` / `any(...)` give their
    anchor; a bare list (`canonicalize, cse`) or another anchor (`func.func(cse)`) is taken as
    nested in an implicit `builtin.module(...)`."""
    p = _PipelineParser(text)
    if p.peek() == "":
        return ANCHOR, []
    elements = p.elements("")
    if p.peek() != "":
        raise p.error("unexpected text after the pipeline")
    if len(elements) == 1 and elements[0].children is not None and elements[0].name in (ANCHOR, "any"):
        return elements[0].name, elements[0].children
    return ANCHOR, elements


def walk_elements(elements):
    for el in elements:
        yield el
        if el.children:
            yield from walk_elements(el.children)


def element_error(el: Element, message: str) -> PassPipelineError:
    if el.origin:
        message += f" (in pipeline '{el.origin}')"
    if el.text is not None and el.col is not None:
        return pipeline_error(message, el.text, el.col)
    return pipeline_error(message)
