"""The pass registry: `register_pass` / `register_pipeline` declare Python passes and named
pipelines, `lookup` resolves a name (importing the pass modules of `xedialects.passes.pass_modules`
lazily, on first use)."""
from __future__ import annotations

import importlib
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from .errors import PassPipelineError, pipeline_error
from .options import Option, PassOptions, split_option_text
from .pipeline_text import parse_pipeline_text


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
        import difflib  # error paths only: not at module level (xe-opt start-up)

        valid = "; ".join(o.describe() for o in self.options) or "none"
        close = difflib.get_close_matches(name, [o.name for o in self.options], n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        return pipeline_error(f"pass '{self.name}' has no option '{name}'{hint}; valid options: {valid}")

    def make_options(self, values: Mapping[str, Any] | str | None = None) -> PassOptions:
        """Typed options from a `k=v k2=v2` string or a mapping (keys with '-' or '_'); unknown
        names and bad values raise PassPipelineError listing the valid options."""
        opts = PassOptions((o.name, list(o.default) if isinstance(o.default, list) else o.default)
                           for o in self.options)
        if values is None:
            return opts
        inherited = values.given if isinstance(values, PassOptions) else None
        if isinstance(values, str):
            try:
                tokens = split_option_text(values, [o.name for o in self.options])
            except ValueError as e:
                raise pipeline_error(f"pass '{self.name}': {e}") from None
            items = []
            for tok in tokens:
                key, eq, val = tok.partition("=")
                opt = self.option(key.strip())
                if opt is None:
                    raise self._option_error(key.strip())
                if not eq:
                    if opt.type is not bool:
                        raise pipeline_error(f"option '{opt.name}' of pass '{self.name}' needs a value "
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
                raise pipeline_error(f"invalid value '{val}' for option '{opt.name}' of pass "
                                      f"'{self.name}': {e} ({opt.describe()})") from None
        opts.given = frozenset(inherited if inherited is not None else (opt.name for opt, _ in items))
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
    parse_pipeline_text(pipeline)  # syntax errors surface at registration
    _PASSES.pop(name, None)
    info = PipelineInfo(name, description, pipeline, module)
    _PIPELINES[name] = info
    return info


def load_pass_modules() -> dict[str, BaseException]:
    """Import every module listed in `xedialects.passes.pass_modules.PASS_MODULES` (once each). Returns
    the modules that failed to import (their passes are then unknown); XE_OPT_DEBUG=1 re-raises."""
    from ..pass_modules import PASS_MODULES

    for name in list(PASS_MODULES):
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


def name_suggestions(name: str) -> str:
    """The hint after "unknown pass or pass pipeline": close registered names, pass modules that
    failed to import."""
    import difflib

    names = list(_PASSES) + list(_PIPELINES)
    close = difflib.get_close_matches(name, names, n=2)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    broken = ""
    if _LOAD_ERRORS:
        broken = "; note: pass modules failed to import: " + ", ".join(
            f"{m} ({type(e).__name__}: {e})" for m, e in _LOAD_ERRORS.items())
    return hint + broken
