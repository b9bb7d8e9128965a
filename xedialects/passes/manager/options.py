"""Pass options: `Option` (a declared, typed option), `PassOptions` (the values of one pass
instance) and the `k=v k2=v2` option-text syntax shared with upstream MLIR passes."""
from __future__ import annotations

import re
import typing
from dataclasses import dataclass
from typing import Any, Iterable


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
_SCALARS = (str, int, float, bool)


def _type_name(tp) -> str:
    origin = typing.get_origin(tp)
    if origin is list:
        (arg,) = typing.get_args(tp) or (str,)
        return f"list<{_type_name(arg)}>"
    return {str: "string", int: "int", float: "number", bool: "bool"}.get(tp, getattr(tp, "__name__", str(tp)))


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if len(text) >= 2 and text[0] == "{" and text[-1] == "}":
        return text[1:-1]
    return text


def _convert_scalar(tp, value):
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        s = str(value).strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
        raise ValueError("expected a boolean (true/false)")
    if tp is int:
        if isinstance(value, bool):
            raise ValueError("expected an integer")
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        try:
            return int(str(value).strip(), 0)
        except ValueError:
            raise ValueError("expected an integer") from None
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        try:
            return float(str(value).strip())
        except ValueError:
            raise ValueError("expected a number") from None
    if tp is str:
        return value if isinstance(value, str) else str(value)
    raise ValueError(f"unsupported option type {tp!r}")


@dataclass(frozen=True)
class Option:
    """One pass option: `Option("mma-m", int, 0, "DPAS M block")`.

    `type` is str, int, float, bool or list[str|int|float] (comma-separated on the command line);
    `choices` restricts the allowed values. Inside the pass the value is read as
    `options["mma-m"]` or `options.mma_m`."""

    name: str
    type: Any = str
    default: Any = None
    description: str = ""
    choices: tuple | None = None

    def __post_init__(self):
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", self.name):
            raise ValueError(f"invalid option name {self.name!r}")
        origin = typing.get_origin(self.type)
        if not (self.type in _SCALARS or (origin is list and (typing.get_args(self.type) or (str,))[0] in _SCALARS)):
            raise ValueError(f"option {self.name!r}: unsupported type {self.type!r} "
                             "(use str, int, float, bool or list[...] of those)")
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(self.choices))
        if self.default is not None:
            object.__setattr__(self, "default", self.convert(self.default))
        elif typing.get_origin(self.type) is list:
            object.__setattr__(self, "default", [])

    @property
    def type_name(self) -> str:
        return _type_name(self.type)

    def convert(self, value):
        """The typed value for `value` (a string from a pipeline or a Python value); ValueError
        with a short reason when it does not fit."""
        if typing.get_origin(self.type) is list:
            (elt,) = typing.get_args(self.type) or (str,)
            if isinstance(value, str):
                s = value.strip()
                if s[:1] in "[{" and s[-1:] in "]}":
                    s = s[1:-1]
                items = [x.strip() for x in s.split(",")] if s.strip() else []
            elif isinstance(value, Iterable):
                items = list(value)
            else:
                items = [value]
            out = [_convert_scalar(elt, _unquote(x) if isinstance(x, str) else x) for x in items]
            if self.choices is not None:
                for x in out:
                    if x not in self.choices:
                        raise ValueError(f"{x!r} is not one of {', '.join(map(str, self.choices))}")
            return out
        out = _convert_scalar(self.type, _unquote(value.strip()) if isinstance(value, str) else value)
        if self.choices is not None and out not in self.choices:
            raise ValueError(f"expected one of {', '.join(map(str, self.choices))}")
        return out

    def format_value(self, value) -> str:
        """`value` as option text (`true`, `1,2`, `"a b"`)."""
        return format_option_value(value)

    def describe(self) -> str:
        default = self.format_value(self.default) if self.default is not None else '""'
        choices = f", one of {'|'.join(map(str, self.choices))}" if self.choices else ""
        return f"{self.name}=<{self.type_name}> (default: {default}{choices})"


class PassOptions(dict):
    """Typed option values of one pass instance; keys are option names (`options["mma-m"]`),
    also readable as attributes with underscores (`options.mma_m`). `given` holds the names set
    explicitly (in the pipeline text, `Pipeline.add`, or forwarded by a named pipeline); the others
    hold their defaults (`options.is_given("arch")`: told, or free to use what the IR records)."""

    given: frozenset = frozenset()

    def is_given(self, name: str) -> bool:
        return name in self.given or name.replace("_", "-") in self.given

    def __getattr__(self, name):
        for key in (name, name.replace("_", "-")):
            if key in self:
                return self[key]
        raise AttributeError(f"no pass option {name!r} (options: {', '.join(self) or 'none'})")

    def text(self) -> str:
        return " ".join(f"{k}={format_option_value(v)}" for k, v in self.items())


def format_option_value(v) -> str:
    """A typed option value as option text: booleans as true/false, lists comma-separated, strings
    that are empty or hold spaces or braces quoted."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(format_option_value(x) for x in v)
    s = str(v)
    return '"' + s + '"' if s == "" or re.search(r"[\s{}]", s) else s


def split_option_text(text: str, known: Iterable[str] = ()) -> list[str]:
    """Split `k=v k2=v2` (or `k=v,k2=v2`) into tokens; quotes and brackets group, and a comma
    separates two options only when what follows is `name=` or a known option name."""
    known = set(known)
    tokens, cur, depth, quote = [], [], 0, None
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
            cur.append(ch)
        elif ch in "{[(":
            depth += 1
            cur.append(ch)
        elif ch in "}])":
            depth -= 1
            cur.append(ch)
        elif depth == 0 and ch.isspace():
            if cur:
                tokens.append("".join(cur))
                cur = []
        elif depth == 0 and ch == ",":
            m = re.match(r"\s*([A-Za-z][\w-]*)\s*(=|,|\s|$)", text[i + 1:])
            if m and (m.group(2) == "=" or m.group(1) in known):
                if cur:
                    tokens.append("".join(cur))
                    cur = []
            else:
                cur.append(ch)
        else:
            cur.append(ch)
        i += 1
    if quote:
        raise ValueError(f"unterminated quote {quote} in options '{text}'")
    if cur:
        tokens.append("".join(cur))
    return tokens


def flag_to_upstream_options(text: str) -> str:
    """Upstream (cl::opt) pass options are space separated; accept `a=1,b=2` too by turning commas
    that introduce `name=` into spaces (list values such as `x=1,2` are kept)."""
    return " ".join(split_option_text(text))
