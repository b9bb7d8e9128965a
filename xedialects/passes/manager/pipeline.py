"""The pipeline runner: `Pipeline` (built from text or `.add()` calls, named pipelines expanded in
place), `CompiledPipeline` (ONE `mlir.passmanager.PassManager` bound to a context: upstream elements
added textually, our passes as Python callbacks, the IR verified after each of them) and `run`."""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any, Mapping

from ...diagnostics import Diagnostic, DiagnosticError, split_location
from .errors import PassFailure, PassInternalError, PassPipelineError, PlainDiagnostic, pipeline_error
from .native_stderr import capture_native_stderr, clean_mlir_message, prettify_dumps
from .options import PassOptions, flag_to_upstream_options
from .pass_context import PassContext
from .pipeline_text import ANCHOR, PASS_NAME, Element, element_error, parse_pipeline_text, walk_elements
from .registry import PassInfo, PipelineInfo, lookup, name_suggestions

_OUR_DIALECTS = ("xetile", "xegpu")


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
                    raise element_error(el, e.diagnostics[0].message) from None
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
                raise pipeline_error(f"dialect '{d}' (a dependent dialect of the pipeline) is not available") from None
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
            for child in walk_elements(el.children):
                if child.children is None and lookup(child.name) is not None:
                    raise element_error(el if child.col is None else child,
                                         f"'{child.name}' runs on 'builtin.module' and cannot be nested in "
                                         f"'{el.name}(...)'; put it at the top level of builtin.module(...)")
        scratch = passmanager.PassManager(self.pipeline.anchor, self.context)
        with capture_native_stderr() as cap:
            try:
                scratch.add(text)
                return
            except ValueError as e:
                err = str(e)
        message = clean_mlir_message(err + "\n" + cap["text"])
        m = re.search(r"'([^']+)' does not refer to a registered pass or pass pipeline", message)
        if m:
            raise element_error(el, f"unknown pass or pass pipeline '{m.group(1)}'{name_suggestions(m.group(1))} "
                                     "(see 'xe-opt --list-passes'; any upstream MLIR pass is accepted too)")
        if el.children is None and el.options:
            raise element_error(el, f"invalid options for pass '{el.name}': {message}"
                                     f"{_upstream_option_list(self.pipeline.anchor, self.context, el.name)}")
        raise element_error(el, f"invalid pipeline element '{text}': {message}")

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
            from ...diagnostics import from_mlir

            upstream_notes.append(from_mlir(diag))
            return True

        handle = self.context.attach_diagnostic_handler(handler)
        mlir_error = None
        try:
            with capture_native_stderr(self.printing) as cap:
                try:
                    self._pm.run(op)
                except ir.MLIRError as e:
                    from ...diagnostics import from_mlir

                    mlir_error = [from_mlir(d) for d in e.error_diagnostics]
        finally:
            handle.detach()
            if self.printing:
                dumps = prettify_dumps(cap["text"], self.generic)
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

    from ...diagnostics import from_mlir

    try:
        op.verify()
    except ir.MLIRError as e:
        return [from_mlir(d) for d in e.error_diagnostics] or [PlainDiagnostic("error", "IR does not verify")]
    try:
        from ...verifier import verify_module
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
        anchor, elements = parse_pipeline_text(text)
        if anchor != self.anchor:
            if self.elements:
                raise pipeline_error(f"cannot add a '{anchor}' pipeline to a '{self.anchor}' pipeline")
            self.anchor = anchor
        self.elements.extend(elements)
        return self

    def add(self, name: str, options: str | Mapping[str, Any] | None = None, /, **kwargs) -> "Pipeline":
        """Append one pass or named pipeline with options (a `k=v` string, a mapping, or keyword
        arguments with '_' for '-'), or a textual fragment such as "func.func(cse)"."""
        name = name.strip()
        if not PASS_NAME.fullmatch(name):
            if options is not None or kwargs:
                raise pipeline_error(f"options given for the pipeline fragment '{name}'")
            return self.extend(name)
        if options is not None and kwargs:
            raise pipeline_error("give pass options either as one argument or as keywords, not both")
        opts = dict(kwargs) if kwargs else options
        info = lookup(name)
        if isinstance(info, PassInfo):
            opts = info.make_options(opts)  # validate now: errors point at the add() call
        elif isinstance(info, PipelineInfo) and opts:
            opts = _pipeline_options(name, opts)  # forwarded to its passes when expanded
            _expand(Element(name, opts), self.anchor, (), top=True)  # validate now
        elif isinstance(opts, Mapping):
            opts = {k.replace("_", "-"): v for k, v in opts.items()}
        elif isinstance(opts, str) and info is None:
            opts = flag_to_upstream_options(opts)  # upstream passes want spaces; accept commas too
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
        raise element_error(el, f"pipeline '{el.name}' includes itself ({' -> '.join(seen + (el.name,))})")
    sub_anchor, parsed = parse_pipeline_text(info.pipeline)
    elements = [_relocate(c, el) for c in parsed]
    if el.options:
        try:
            forwarded = _pipeline_options(el.name, el.options)
        except PassPipelineError as e:
            raise element_error(el, str(e)) from None
    explicit = info.pipeline.strip().startswith(sub_anchor + "(") or info.pipeline.strip().startswith(sub_anchor + " (")
    if not top and explicit:
        raise element_error(el, f"pipeline '{el.name}' runs on '{sub_anchor}' and cannot be nested in '{anchor}(...)'")
    out = []
    for c in elements:
        out.extend(_expand(c, anchor, seen + (el.name,), top))
    if el.options:
        out = _forward(el, out, forwarded)
    return out


def _pipeline_options(name: str, options) -> dict:
    """`k=v` options of a named pipeline (text or mapping) as {name: raw value}."""
    from .options import split_option_text

    if isinstance(options, Mapping):
        return {str(k).replace("_", "-"): v for k, v in options.items()}
    out = {}
    for tok in split_option_text(str(options)):
        key, eq, val = tok.partition("=")
        if not eq:
            raise pipeline_error(f"option '{key.strip()}' of pipeline '{name}' needs a value")
        out[key.strip()] = val.strip()
    return out


def _forward(el: Element, elements: list[Element], options: dict) -> list[Element]:
    """A named pipeline's options go to each of its passes that declares an option of that name
    (`xe-gemm-to-spirv{arch=bmg}`: every pass with `arch=`); an option no pass takes is an error."""
    used = set()

    def visit(e: Element) -> Element:
        if e.children is not None:
            return Element(e.name, e.options, [visit(c) for c in e.children], e.col, e.text, e.origin)
        info = lookup(e.name)
        if not isinstance(info, PassInfo):
            return e
        mine = {k: v for k, v in options.items() if info.option(k) is not None}
        if not mine:
            return e
        used.update(mine)
        typed = {}
        for k, v in mine.items():
            opt = info.option(k)
            try:
                typed[opt.name] = opt.convert(v)
            except ValueError as err:
                raise element_error(el, f"invalid value '{v}' for option '{k}' of pipeline "
                                        f"'{el.name}': {err} ({opt.describe()})") from None
        if isinstance(e.options, Mapping):
            merged = {**e.options, **typed}
        else:   # option text: the forwarded options come last and win
            from .options import format_option_value

            extra = " ".join(f"{k}={format_option_value(v)}" for k, v in typed.items())
            merged = f"{e.options} {extra}" if e.options else extra
        return Element(e.name, merged, None, e.col, e.text, e.origin)

    out = [visit(e) for e in elements]
    unused = sorted(set(options) - used)
    if unused:
        if not any(isinstance(i, PassInfo) and i.options for i in map(lookup, _leaf_names(elements))):
            raise element_error(el, f"pipeline '{el.name}' takes no options")
        raise element_error(el, f"pipeline '{el.name}' has no pass with option '{unused[0]}'")
    return out


def _leaf_names(elements: list[Element]) -> list[str]:
    out = []
    for e in elements:
        out += _leaf_names(e.children) if e.children is not None else [e.name]
    return out


def _relocate(el: Element, ref: Element) -> Element:
    """An element of a named pipeline, positioned (for errors) at the reference to that pipeline."""
    kids = None if el.children is None else [_relocate(c, ref) for c in el.children]
    return Element(el.name, el.options, kids, ref.col, ref.text, ref.origin or ref.name)


def run(module, pipeline: "str | Pipeline", **kwargs):
    """Run a textual pipeline (or a Pipeline) on `module` in place; see `Pipeline.run`."""
    p = pipeline if isinstance(pipeline, Pipeline) else Pipeline(pipeline)
    return p.run(module, **kwargs)
