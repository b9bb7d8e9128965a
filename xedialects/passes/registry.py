"""Pass registry and pipeline runner: declare a Python pass once, run it in textual pipelines mixed
with any upstream MLIR pass.

    @register_pass("xetile-blocking", "Split subgroup tiles into hardware-sized blocks",
                   options=[Option("arch", str, "pvc", "target architecture"),
                            Option("mma-m", int, 0, "DPAS M block (0: from the arch)")],
                   dependent_dialects=["vector"])
    def xetile_blocking(module_op, options, ctx):
        ...                      # options.arch / options["mma-m"]; ctx.error(op, "msg") fails the pass

    run(module, "builtin.module(canonicalize, xetile-blocking{arch=pvc mma-m=8}, func.func(cse))")
    Pipeline().add("xetile-blocking", arch="pvc").add("canonicalize").run(module)

A pipeline becomes ONE `mlir.passmanager.PassManager`: upstream elements are added textually
(`pm.add("func.func(cse)")`), our passes as Python callbacks (`pm.add(callable, name=..., argument=...)`).
Our passes run on `builtin.module` only. After each of our passes the IR is verified (MLIR's
structural verifier, then `xedialects.verify.verify_module`, the RFC rules); a failure raises
`PassFailure` (a `DiagnosticError`): "pass 'x' failed" followed by the located diagnostics.
Named pipelines (`register_pipeline`) expand in place wherever their name is used.
IR printing (`print_ir_before_all/after_all`) and timing use MLIR's own instrumentation; the dumps
are rewritten into our readable syntax before they reach stderr.
"""
from __future__ import annotations

import contextlib
import difflib
import importlib
import io
import os
import re
import sys
import tempfile
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from ..diagnostics import Diagnostic, DiagnosticError, at, split_location

__all__ = [
    "Option", "PassOptions", "PassContext", "PassInfo", "PipelineInfo", "Pipeline", "PassFailure",
    "PassPipelineError", "PassInternalError", "register_pass", "register_pipeline", "registered_passes",
    "registered_pipelines", "lookup", "run", "load_pass_modules",
]

ANCHOR = "builtin.module"
_OUR_DIALECTS = ("xetile", "xegpu")


# ------------------------------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------------------------------
class PlainDiagnostic(Diagnostic):
    """A diagnostic without a source position (a pipeline or driver problem): prints
    `[where: ]severity: message` instead of `<unknown>: ...`."""

    def location_str(self) -> str:
        if self.line is not None:
            return super().location_str()
        return self.filename or ""

    def format(self) -> str:
        where = self.location_str()
        text = f"{where + ': ' if where else ''}{self.severity}: {self.message}"
        for note in self.notes:
            text += "\n" + note.format()
        return text


class PassPipelineError(DiagnosticError, ValueError):
    """A pipeline cannot be built: syntax error, unknown pass, bad option name or value."""


class PassFailure(DiagnosticError):
    """A pass failed while running. `.diagnostics` is the summary ("pass 'x' failed") followed by
    the located diagnostics; `.located` holds only the latter, `.pass_name` the failing pass."""

    def __init__(self, pass_name: str, summary: Diagnostic, located: list[Diagnostic]):
        self.pass_name = pass_name
        self.summary = summary
        self.located = list(located)
        super().__init__([summary, *self.located])


class PassInternalError(RuntimeError):
    """A Python pass raised an unexpected exception (a bug in the pass); the original exception is
    chained as `__cause__`."""

    def __init__(self, pass_name: str, exc: BaseException):
        self.pass_name = pass_name
        super().__init__(f"pass '{pass_name}' raised {type(exc).__name__}: {exc}")


def _pipeline_error(message: str, text: str | None = None, col: int | None = None) -> PassPipelineError:
    if text is not None and col is not None:
        return PassPipelineError([Diagnostic("error", message, "<pass-pipeline>", 1, col)])
    return PassPipelineError([PlainDiagnostic("error", message)])


# ------------------------------------------------------------------------------------------------
# Options
# ------------------------------------------------------------------------------------------------
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
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list):
            return ",".join(self.format_value(v) for v in value)
        s = str(value)
        if s == "" or re.search(r"[\s{}]", s):
            return '"' + s + '"'
        return s

    def describe(self) -> str:
        default = self.format_value(self.default) if self.default is not None else '""'
        choices = f", one of {'|'.join(map(str, self.choices))}" if self.choices else ""
        return f"{self.name}=<{self.type_name}> (default: {default}{choices})"


class PassOptions(dict):
    """Typed option values of one pass instance; keys are option names (`options["mma-m"]`),
    also readable as attributes with underscores (`options.mma_m`)."""

    def __getattr__(self, name):
        for key in (name, name.replace("_", "-")):
            if key in self:
                return self[key]
        raise AttributeError(f"no pass option {name!r} (options: {', '.join(self) or 'none'})")

    def text(self) -> str:
        return " ".join(f"{k}={_format_any(v)}" for k, v in self.items())


def _format_any(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(_format_any(x) for x in v)
    s = str(v)
    return '"' + s + '"' if s == "" or re.search(r"[\s{}]", s) else s


def _split_option_text(text: str, known: Iterable[str] = ()) -> list[str]:
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


def _flag_to_upstream_options(text: str) -> str:
    """Upstream (cl::opt) pass options are space separated; accept `a=1,b=2` too by turning commas
    that introduce `name=` into spaces (list values such as `x=1,2` are kept)."""
    return " ".join(_split_option_text(text))


# ------------------------------------------------------------------------------------------------
# Pass context (what a pass uses to report)
# ------------------------------------------------------------------------------------------------
def _location_of(where, fallback):
    """An `ir.Location` (or None) for an op, op view, value, location or None."""
    if where is None:
        return getattr(fallback, "location", None)
    if isinstance(where, str):
        return where
    loc = None
    try:
        loc = where.location
    except Exception:  # noqa: BLE001 - values without a location (block arguments in old bindings)
        owner = getattr(where, "owner", None)
        loc = getattr(owner, "location", None)
    if loc is None and hasattr(where, "operation"):
        loc = where.operation.location
    if loc is None:
        from mlir import ir

        if isinstance(where, ir.Location):
            return where
        return getattr(fallback, "location", None)
    return loc


class PassContext:
    """Handed to a pass: `ctx.error/warning/remark(op_or_loc, message, notes=[(op_or_loc, msg)])`.
    An error makes the pass fail once it returns (it keeps running, so several errors can be
    reported); `ctx.fail(msg)` fails without a location. Each method returns the Diagnostic."""

    def __init__(self, pass_name: str, module_op, options: PassOptions):
        self.pass_name = pass_name
        self.module = module_op
        self.options = options
        self.diagnostics: list[Diagnostic] = []

    def _emit(self, severity, where, message, notes) -> Diagnostic:
        loc = _location_of(where, self.module)
        d = at(loc, severity, str(message)) if loc is not None else Diagnostic(severity, str(message))
        for note in notes or ():
            if isinstance(note, Diagnostic):
                d.notes.append(note)
            elif isinstance(note, str):
                d.notes.append(Diagnostic("note", note, d.filename, d.line, d.col))
            else:
                nwhere, nmsg = note
                nloc = _location_of(nwhere, self.module)
                d.notes.append(at(nloc, "note", str(nmsg)) if nloc is not None else Diagnostic("note", str(nmsg)))
        self.diagnostics.append(d)
        return d

    def error(self, where, message, *, notes=None) -> Diagnostic:
        return self._emit("error", where, message, notes)

    def warning(self, where, message, *, notes=None) -> Diagnostic:
        return self._emit("warning", where, message, notes)

    def remark(self, where, message, *, notes=None) -> Diagnostic:
        return self._emit("remark", where, message, notes)

    def emit(self, diag: Diagnostic) -> Diagnostic:
        """Report a prebuilt Diagnostic (e.g. from a helper that returns diagnostics)."""
        self.diagnostics.append(diag)
        return diag

    def fail(self, message: str | None = None) -> None:
        """Fail the pass; with a message, report it at the module."""
        self._emit("error", None, message or f"pass '{self.pass_name}' failed", None)

    @property
    def failed(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)


# ------------------------------------------------------------------------------------------------
# Registry
# ------------------------------------------------------------------------------------------------
@dataclass
class PassInfo:
    """A registered Python pass."""

    name: str
    description: str
    fn: Callable
    options: list[Option] = field(default_factory=list)
    dependent_dialects: tuple[str, ...] = ()
    module: str = ""

    @property
    def display_name(self) -> str:
        """The name in IR dumps and timing reports (CamelCase, like MLIR's pass class names)."""
        return "".join(p[:1].upper() + p[1:] for p in re.split(r"[-_.]", self.name) if p)

    def option(self, name: str) -> Option | None:
        for o in self.options:
            if o.name == name or o.name == name.replace("_", "-"):
                return o
        return None

    def _option_error(self, name) -> PassPipelineError:
        valid = "; ".join(o.describe() for o in self.options) or "none"
        close = difflib.get_close_matches(name, [o.name for o in self.options], n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        return _pipeline_error(f"pass '{self.name}' has no option '{name}'{hint}; valid options: {valid}")

    def make_options(self, values: Mapping[str, Any] | str | None = None) -> PassOptions:
        """Typed options from a `k=v k2=v2` string or a mapping (keys with '-' or '_'); unknown
        names and bad values raise PassPipelineError listing the valid options."""
        opts = PassOptions((o.name, list(o.default) if isinstance(o.default, list) else o.default)
                           for o in self.options)
        if values is None:
            return opts
        if isinstance(values, str):
            try:
                tokens = _split_option_text(values, [o.name for o in self.options])
            except ValueError as e:
                raise _pipeline_error(f"pass '{self.name}': {e}") from None
            items = []
            for tok in tokens:
                key, eq, val = tok.partition("=")
                opt = self.option(key.strip())
                if opt is None:
                    raise self._option_error(key.strip())
                if not eq:
                    if opt.type is not bool:
                        raise _pipeline_error(f"option '{opt.name}' of pass '{self.name}' needs a value "
                                              f"({opt.describe()})")
                    val = "true"
                items.append((opt, val))
        else:
            items = []
            for key, val in values.items():
                opt = self.option(key)
                if opt is None:
                    raise self._option_error(key)
                items.append((opt, val))
        for opt, val in items:
            try:
                opts[opt.name] = opt.convert(val)
            except ValueError as e:
                raise _pipeline_error(f"invalid value '{val}' for option '{opt.name}' of pass "
                                      f"'{self.name}': {e} ({opt.describe()})") from None
        return opts


@dataclass
class PipelineInfo:
    """A registered named pipeline: usable as a pass name in pipelines and as an xe-opt flag."""

    name: str
    description: str
    pipeline: str
    module: str = ""


_PASSES: dict[str, PassInfo] = {}
_PIPELINES: dict[str, PipelineInfo] = {}
_LOAD_ATTEMPTED: set[str] = set()
_LOAD_ERRORS: dict[str, BaseException] = {}


def _check_new_name(name: str, module: str, qualname: str) -> None:
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", name):
        raise ValueError(f"invalid pass/pipeline name {name!r}")
    old = _PASSES.get(name) or _PIPELINES.get(name)
    if old is None:
        return
    old_q = getattr(old, "fn", None)
    same = old.module == module and (old_q is None or getattr(old_q, "__qualname__", "") == qualname)
    if not same:
        raise ValueError(f"pass or pipeline '{name}' is already registered (by {old.module or '?'})")


def register_pass(name: str, description: str, *, options: Iterable[Option] = (),
                  dependent_dialects: Iterable[str] = ()):
    """Decorator declaring a Python pass `fn(module_op, options: PassOptions, ctx: PassContext)`.
    The function is returned unchanged (with `fn.pass_info`)."""
    options = list(options)
    names = [o.name for o in options]
    if len(set(names)) != len(names):
        raise ValueError(f"pass '{name}': duplicate option names")

    def deco(fn):
        module = getattr(fn, "__module__", "") or ""
        _check_new_name(name, module, getattr(fn, "__qualname__", ""))
        _PIPELINES.pop(name, None)
        info = PassInfo(name, description, fn, options, tuple(dependent_dialects), module)
        _PASSES[name] = info
        fn.pass_info = info
        return fn

    return deco


def register_pipeline(name: str, description: str, pipeline: str) -> PipelineInfo:
    """Register a named pipeline (`builtin.module(...)` text or a bare element list). It is
    syntax-checked now; pass names are resolved when it is used."""
    frame = sys._getframe(1)
    module = frame.f_globals.get("__name__", "")
    _check_new_name(name, module, "")
    _parse_pipeline_text(pipeline)  # syntax errors surface at registration
    _PASSES.pop(name, None)
    info = PipelineInfo(name, description, pipeline, module)
    _PIPELINES[name] = info
    return info


def load_pass_modules() -> dict[str, BaseException]:
    """Import every module listed in `xedialects.passes._PASS_MODULES` (once each). Returns the
    modules that failed to import (their passes are then unknown); XE_OPT_DEBUG=1 re-raises."""
    from . import _PASS_MODULES

    for name in list(_PASS_MODULES):
        if name in _LOAD_ATTEMPTED:
            continue
        _LOAD_ATTEMPTED.add(name)
        try:
            importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 - one broken pass module must not break the others
            if os.environ.get("XE_OPT_DEBUG"):
                raise
            _LOAD_ERRORS[name] = e
    return dict(_LOAD_ERRORS)


def registered_passes() -> dict[str, PassInfo]:
    """All Python passes, by name (imports the pass modules)."""
    load_pass_modules()
    return dict(sorted(_PASSES.items()))


def registered_pipelines() -> dict[str, PipelineInfo]:
    """All named pipelines, by name (imports the pass modules)."""
    load_pass_modules()
    return dict(sorted(_PIPELINES.items()))


def lookup(name: str) -> PassInfo | PipelineInfo | None:
    """Our pass or pipeline called `name`, or None (then it may be an upstream pass)."""
    found = _PASSES.get(name) or _PIPELINES.get(name)
    if found is None:
        load_pass_modules()
        found = _PASSES.get(name) or _PIPELINES.get(name)
    return found


# ------------------------------------------------------------------------------------------------
# Textual pipelines
# ------------------------------------------------------------------------------------------------
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
        text = " ".join(f"{k.replace('_', '-')}={_format_any(v)}" for k, v in options.items())
        return f"{self.name}{{{text}}}" if text else self.name


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


class _PipelineParser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def error(self, msg, pos=None) -> PassPipelineError:
        col = (self.pos if pos is None else pos) + 1
        return _pipeline_error(f"{msg} in pass pipeline '{self.text}'", self.text, col)

    def ws(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def name(self) -> tuple[str, int]:
        self.ws()
        m = _NAME.match(self.text, self.pos)
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


def _parse_pipeline_text(text: str) -> tuple[str, list[Element]]:
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


# ------------------------------------------------------------------------------------------------
# Native stderr capture (LLVM prints IR dumps and cl::opt errors to fd 2)
# ------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _capture_native_stderr(enabled: bool = True):
    """Redirect fd 2 to a temporary file while the block runs; Python's sys.stderr keeps going to
    the real stderr. The captured text is in `box["text"]` afterwards."""
    box = {"text": ""}
    if not enabled:
        yield box
        return
    try:
        sys.stderr.flush()
    except Exception:  # noqa: BLE001
        pass
    saved = os.dup(2)
    tmp = tempfile.TemporaryFile()
    py_err = sys.stderr
    swapped = None
    try:
        try:
            if py_err is not None and py_err.fileno() == 2:
                swapped = io.TextIOWrapper(os.fdopen(os.dup(saved), "wb"), encoding="utf-8",
                                           errors="replace", line_buffering=True, write_through=True)
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            swapped = None
        os.dup2(tmp.fileno(), 2)
        if swapped is not None:
            sys.stderr = swapped
        yield box
    finally:
        if swapped is not None:
            try:
                swapped.flush()
                swapped.close()
            finally:
                sys.stderr = py_err
        os.dup2(saved, 2)
        os.close(saved)
        tmp.seek(0)
        box["text"] = tmp.read().decode("utf-8", "replace")
        tmp.close()


_DUMP_HEADER = re.compile(r"^// -----// IR Dump .*//----- //[ \t]*$", re.M)


def _prettify_dumps(text: str, generic: bool) -> str:
    """Rewrite the op bodies of MLIR's IR dumps into our readable syntax."""
    if generic or not text:
        return text
    try:
        from ..syntax.convert import to_pretty
    except Exception:  # noqa: BLE001 - syntax layer unavailable: keep MLIR's text
        return text
    out, last = [], 0
    heads = list(_DUMP_HEADER.finditer(text))
    if not heads:
        return text
    out.append(text[:heads[0].start()])
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[m.end():end]
        try:
            body = to_pretty(body)
        except Exception:  # noqa: BLE001 - never lose a dump because of a conversion problem
            pass
        out.append(m.group(0) + body)
        last = end
    return "".join(out) + text[last:]


def _clean_mlir_message(text: str) -> str:
    """One line from MLIR's multi-line pipeline/option errors (source echo and caret dropped)."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    msgs = []
    for i, ln in enumerate(lines):
        if re.fullmatch(r"\s*\^~*\s*", ln):
            continue
        if i + 1 < len(lines) and re.fullmatch(r"\s*\^~*\s*", lines[i + 1]):
            continue  # the echoed pipeline text above a caret
        ln = re.sub(r"^MLIR Textual PassPipeline Parser:\d+:\d+: error: ", "", ln)
        ln = re.sub(r"^<Pass-Options-Parser>: ", "", ln)
        ln = re.sub(r"^\S*: for the (-+[\w-]+) option: ", r"for the \1 option: ", ln)
        msgs.append(ln.strip())
    return "; ".join(dict.fromkeys(m for m in msgs if m))


# ------------------------------------------------------------------------------------------------
# Building and running
# ------------------------------------------------------------------------------------------------
def _suggest(name: str) -> str:
    names = list(_PASSES) + list(_PIPELINES)
    close = difflib.get_close_matches(name, names, n=2)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    broken = ""
    if _LOAD_ERRORS:
        broken = "; note: pass modules failed to import: " + ", ".join(
            f"{m} ({type(e).__name__}: {e})" for m, e in _LOAD_ERRORS.items())
    return hint + broken


@dataclass
class _Stage:
    kind: str  # "python" or "upstream"
    text: str  # the pipeline text of the stage
    info: PassInfo | None = None
    options: PassOptions | None = None


class _RunState:
    def __init__(self):
        self.failure: tuple[int, list[Diagnostic], str] | None = None
        self.exception: tuple[str, BaseException] | None = None
        self.started = -1
        self.notes: list[Diagnostic] = []  # non-error diagnostics from our passes


class CompiledPipeline:
    """A pipeline bound to a context: one PassManager, reusable for several modules.
    Call `close()` when done (with timing enabled, MLIR prints the report then)."""

    def __init__(self, pipeline: "Pipeline", context, *, print_ir_before_all=False, print_ir_after_all=False,
                 print_module_scope=False, timing=False, generic=False, debuginfo=False, verify=True):
        from mlir import passmanager

        self.pipeline = pipeline
        self.context = context
        self.generic = generic
        self.verify = verify
        self.printing = bool(print_ir_before_all or print_ir_after_all)
        self.stages: list[_Stage] = []
        elements = pipeline._expanded()
        anchor = pipeline.anchor
        self._pm = passmanager.PassManager(anchor, context)
        self._state = _RunState()
        dialects = set()
        for el in elements:
            info = lookup(el.name) if el.children is None else None
            if isinstance(info, PassInfo):
                try:
                    options = el.options if isinstance(el.options, PassOptions) else info.make_options(el.options)
                except PassPipelineError as e:
                    raise _element_error(el, e.diagnostics[0].message) from None
                idx = len(self.stages)
                self.stages.append(_Stage("python", el.render_with(options), info, options))
                self._pm.add(self._callback(idx, info, options), name=info.display_name,
                             argument=info.name, description=info.description)
                dialects.update(info.dependent_dialects)
            else:
                text = el.render()
                self._validate_upstream(el, text)
                self._pm.add(text)
                if self.stages and self.stages[-1].kind == "upstream":
                    self.stages[-1].text += "," + text
                else:
                    self.stages.append(_Stage("upstream", text))
        for d in sorted(dialects):
            if d in _OUR_DIALECTS:
                continue
            try:
                context.dialects[d]
            except Exception:  # noqa: BLE001
                raise _pipeline_error(f"dialect '{d}' (a dependent dialect of the pipeline) is not available") from None
        if self.printing:
            self._pm.enable_ir_printing(print_before_all=bool(print_ir_before_all),
                                        print_after_all=bool(print_ir_after_all),
                                        print_module_scope=bool(print_module_scope),
                                        enable_debug_info=bool(debuginfo), print_generic_op_form=bool(generic))
        if timing:
            self._pm.enable_timing()

    # -- building -------------------------------------------------------------------------------
    def _validate_upstream(self, el: Element, text: str) -> None:
        from mlir import passmanager

        if el.children is not None:
            for child in _walk_elements(el.children):
                if child.children is None and lookup(child.name) is not None:
                    raise _element_error(el if child.col is None else child,
                                         f"'{child.name}' runs on 'builtin.module' and cannot be nested in "
                                         f"'{el.name}(...)'; put it at the top level of builtin.module(...)")
        scratch = passmanager.PassManager(self.pipeline.anchor, self.context)
        with _capture_native_stderr() as cap:
            try:
                scratch.add(text)
                return
            except ValueError as e:
                err = str(e)
        message = _clean_mlir_message(err + "\n" + cap["text"])
        m = re.search(r"'([^']+)' does not refer to a registered pass or pass pipeline", message)
        if m:
            raise _element_error(el, f"unknown pass or pass pipeline '{m.group(1)}'{_suggest(m.group(1))} "
                                     "(see 'xe-opt --list-passes'; any upstream MLIR pass is accepted too)")
        if el.children is None and el.options:
            raise _element_error(el, f"invalid options for pass '{el.name}': {message}"
                                     f"{_upstream_option_list(self.pipeline.anchor, self.context, el.name)}")
        raise _element_error(el, f"invalid pipeline element '{text}': {message}")

    def _callback(self, idx: int, info: PassInfo, options: PassOptions):
        from mlir import ir

        def run_pass(op, pass_):
            state = self._state
            state.started = idx
            try:
                ctx = PassContext(info.name, op, options)
                if op.name != ANCHOR:
                    ctx.error(op, f"pass '{info.name}' runs on 'builtin.module', not '{op.name}'")
                else:
                    try:
                        with op.context, ir.Location.unknown(op.context):
                            info.fn(op, options, ctx)
                    except DiagnosticError as e:
                        ctx.diagnostics.extend(e.diagnostics)
                    if not ctx.failed:
                        ctx.diagnostics.extend(_verify_after(op))
            except BaseException as e:  # noqa: BLE001 - never let an exception cross into C++
                state.exception = (info.name, e)
                pass_.signal_pass_failure()
                return
            errors = [d for d in ctx.diagnostics if d.severity == "error"]
            state.notes.extend(d for d in ctx.diagnostics if d.severity != "error")
            if errors:
                state.failure = (idx, errors, info.name)
                pass_.signal_pass_failure()

        run_pass.__name__ = info.display_name
        return run_pass

    # -- running --------------------------------------------------------------------------------
    def run(self, module, *, collector=None):
        """Run on `module` (ir.Module or operation); raises PassFailure / PassInternalError."""
        from mlir import ir

        op = module.operation if hasattr(module, "operation") else module
        if not self.stages:
            return module
        self._state = state = _RunState()
        upstream_notes: list[Diagnostic] = []

        def handler(diag):
            from ..diagnostics import from_mlir

            upstream_notes.append(from_mlir(diag))
            return True

        handle = self.context.attach_diagnostic_handler(handler)
        mlir_error = None
        try:
            with _capture_native_stderr(self.printing) as cap:
                try:
                    self._pm.run(op)
                except ir.MLIRError as e:
                    from ..diagnostics import from_mlir

                    mlir_error = [from_mlir(d) for d in e.error_diagnostics]
        finally:
            handle.detach()
            if self.printing:
                dumps = _prettify_dumps(cap["text"], self.generic)
                if dumps:
                    sys.stderr.write(dumps)
                    sys.stderr.flush()
        notes = state.notes + [d for d in upstream_notes if d.severity != "error"]
        errors_seen = [d for d in upstream_notes if d.severity == "error"]
        _report_notes(notes, collector)
        if state.exception is not None:
            name, exc = state.exception
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise exc
            raise PassInternalError(name, exc) from exc
        if state.failure is not None:
            idx, errors, name = state.failure
            raise PassFailure(name, _summary(op, f"pass '{name}' failed", errors), errors)
        if mlir_error is not None:
            located = (mlir_error or []) + errors_seen
            stage = self._failed_upstream_stage(state.started)
            what = f"pass '{stage}'" if re.fullmatch(r"[\w.-]+(\{[^{}]*\})?", stage) else f"pass pipeline '{stage}'"
            raise PassFailure(stage, _summary(op, f"{what} failed", located), located)
        if self.verify and self.stages[-1].kind == "upstream":
            diags = _verify_after(op)
            errors = [d for d in diags if d.severity == "error"]
            _report_notes([d for d in diags if d.severity != "error"], collector)
            if errors:
                stage = self.stages[-1].text
                raise PassFailure(stage, _summary(op, f"IR after pass pipeline '{stage}' does not verify", errors),
                                  errors)
        return module

    def _failed_upstream_stage(self, started: int) -> str:
        for stage in self.stages[started + 1:]:
            if stage.kind == "upstream":
                return stage.text
        return self.stages[started].text if 0 <= started < len(self.stages) else str(self.pipeline)

    def close(self) -> None:
        """Release the PassManager (MLIR prints the timing report now, when enabled)."""
        pm = getattr(self, "_pm", None)
        if pm is not None:
            self._pm = None
            del pm
            try:
                sys.stderr.flush()
            except Exception:  # noqa: BLE001
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _walk_elements(elements):
    for el in elements:
        yield el
        if el.children:
            yield from _walk_elements(el.children)


def _element_error(el: Element, message: str) -> PassPipelineError:
    if el.origin:
        message += f" (in pipeline '{el.origin}')"
    if el.text is not None and el.col is not None:
        return _pipeline_error(message, el.text, el.col)
    return _pipeline_error(message)


def _upstream_option_list(anchor, context, name) -> str:
    from mlir import passmanager

    try:
        scratch = passmanager.PassManager(anchor, context)
        scratch.add(name)
        m = re.search(r"\{(.*)\}", str(scratch))
        if m and m.group(1).strip():
            return "; valid options (with defaults): " + " ".join(m.group(1).split())
        return f"; pass '{name}' takes no options"
    except Exception:  # noqa: BLE001
        return ""


def _summary(op, message: str, located: list[Diagnostic]) -> Diagnostic:
    filename = next((d.filename for d in located if d.filename), None)
    if filename is None:
        filename = split_location(op.location)[0]
    return PlainDiagnostic("error", message, filename)


def _verify_after(op) -> list[Diagnostic]:
    """MLIR's structural verifier, then our semantic verifiers (when the module exists)."""
    from mlir import ir

    from ..diagnostics import from_mlir

    try:
        op.verify()
    except ir.MLIRError as e:
        return [from_mlir(d) for d in e.error_diagnostics] or [PlainDiagnostic("error", "IR does not verify")]
    try:
        from ..verify import verify_module
    except ImportError:
        return []
    return list(verify_module(op))


def _report_notes(diags: list[Diagnostic], collector) -> None:
    if not diags:
        return
    if collector is not None:
        collector.extend(diags)
        return
    for d in diags:
        print(d.format(), file=sys.stderr)


class Pipeline:
    """A pass pipeline: `Pipeline("builtin.module(canonicalize, xetile-blocking{arch=pvc})")` or
    `Pipeline().add("xetile-blocking", arch="pvc").add("func.func(cse)")`; `.run(module)`."""

    def __init__(self, text: str | None = None, *, anchor: str = ANCHOR):
        self.anchor = anchor
        self.elements: list[Element] = []
        if text:
            self.extend(text)

    @classmethod
    def parse(cls, text: str) -> "Pipeline":
        return cls(text)

    def extend(self, text: str) -> "Pipeline":
        """Append the elements of a textual pipeline."""
        anchor, elements = _parse_pipeline_text(text)
        if anchor != self.anchor:
            if self.elements:
                raise _pipeline_error(f"cannot add a '{anchor}' pipeline to a '{self.anchor}' pipeline")
            self.anchor = anchor
        self.elements.extend(elements)
        return self

    def add(self, name: str, options: str | Mapping[str, Any] | None = None, /, **kwargs) -> "Pipeline":
        """Append one pass or named pipeline with options (a `k=v` string, a mapping, or keyword
        arguments with '_' for '-'), or a textual fragment such as "func.func(cse)"."""
        name = name.strip()
        if not _NAME.fullmatch(name):
            if options is not None or kwargs:
                raise _pipeline_error(f"options given for the pipeline fragment '{name}'")
            return self.extend(name)
        if options is not None and kwargs:
            raise _pipeline_error("give pass options either as one argument or as keywords, not both")
        opts = dict(kwargs) if kwargs else options
        info = lookup(name)
        if isinstance(info, PassInfo):
            opts = info.make_options(opts)  # validate now: errors point at the add() call
        elif isinstance(info, PipelineInfo) and opts:
            raise _pipeline_error(f"pipeline '{name}' takes no options")
        elif isinstance(opts, Mapping):
            opts = {k.replace("_", "-"): v for k, v in opts.items()}
        elif isinstance(opts, str) and info is None:
            opts = _flag_to_upstream_options(opts)  # upstream passes want spaces; accept commas too
        self.elements.append(Element(name, opts))
        return self

    def _expanded(self, _seen=()) -> list[Element]:
        out: list[Element] = []
        for el in self.elements:
            out.extend(_expand(el, self.anchor, tuple(_seen), top=True))
        return out

    def __str__(self) -> str:
        return f"{self.anchor}({','.join(e.render() for e in self.elements)})"

    def __repr__(self) -> str:
        return f"Pipeline({str(self)!r})"

    def compile(self, context, **kwargs) -> CompiledPipeline:
        """Bind to a context (validates every element); see CompiledPipeline."""
        return CompiledPipeline(self, context, **kwargs)

    def run(self, module, *, collector=None, print_ir_before_all=False, print_ir_after_all=False,
            print_module_scope=False, timing=False, generic=False, debuginfo=False, verify=True):
        """Run on `module` in place and return it. Raises PassPipelineError (bad pipeline),
        PassFailure (a pass failed; located diagnostics). Warnings and remarks go to `collector`
        (a DiagnosticCollector) or, without one, to stderr."""
        op = module.operation if hasattr(module, "operation") else module
        compiled = CompiledPipeline(self, op.context, print_ir_before_all=print_ir_before_all,
                                    print_ir_after_all=print_ir_after_all, print_module_scope=print_module_scope,
                                    timing=timing, generic=generic, debuginfo=debuginfo, verify=verify)
        try:
            compiled.run(module, collector=collector)
        finally:
            compiled.close()
        return module


def _expand(el: Element, anchor: str, seen: tuple, top: bool) -> list[Element]:
    """Replace named pipelines by their elements (recursively)."""
    if el.children is not None:
        kids = []
        for c in el.children:
            kids.extend(_expand(c, el.name, seen, top=False))
        return [Element(el.name, None, kids, el.col, el.text, el.origin)]
    info = lookup(el.name)
    if not isinstance(info, PipelineInfo):
        return [el]
    if el.name in seen:
        raise _element_error(el, f"pipeline '{el.name}' includes itself ({' -> '.join(seen + (el.name,))})")
    if el.options:
        raise _element_error(el, f"pipeline '{el.name}' takes no options")
    sub_anchor, parsed = _parse_pipeline_text(info.pipeline)
    elements = [_relocate(c, el) for c in parsed]
    explicit = info.pipeline.strip().startswith(sub_anchor + "(") or info.pipeline.strip().startswith(sub_anchor + " (")
    if not top and explicit:
        raise _element_error(el, f"pipeline '{el.name}' runs on '{sub_anchor}' and cannot be nested in '{anchor}(...)'")
    out = []
    for c in elements:
        out.extend(_expand(c, anchor, seen + (el.name,), top))
    return out


def _relocate(el: Element, ref: Element) -> Element:
    """An element of a named pipeline, positioned (for errors) at the reference to that pipeline."""
    kids = None if el.children is None else [_relocate(c, ref) for c in el.children]
    return Element(el.name, el.options, kids, ref.col, ref.text, ref.origin or ref.name)


def run(module, pipeline: "str | Pipeline", **kwargs):
    """Run a textual pipeline (or a Pipeline) on `module` in place; see `Pipeline.run`."""
    p = pipeline if isinstance(pipeline, Pipeline) else Pipeline(pipeline)
    return p.run(module, **kwargs)
