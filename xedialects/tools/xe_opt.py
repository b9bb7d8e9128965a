"""xe-opt: the xedialects counterpart of `mlir-opt` — parse, verify, run passes, print.

    xe-opt [FILE|-] [-o OUT] [--split-input-file] [--verify-diagnostics]
           [--pass-pipeline='builtin.module(...)' | --PASS[=OPTIONS] ...] [--mlir-print-*] [--mlir-timing]

Reads readable or generic MLIR (xetile/xegpu and upstream dialects), verifies it (MLIR's structural
verifier and the RFC rules), runs the pass pipeline and prints the result in readable syntax.
Passes come from the xedialects registry (`xedialects.passes`) or are any upstream MLIR pass.
Exit status 0 on success, 1 on any error diagnostic (with --verify-diagnostics: 1 when the
diagnostics do not match the expected-* comments).
"""
from __future__ import annotations

import re
import sys
import time

PROG = "xe-opt"
DEFAULT_SPLIT_MARKER = "// -----"

# (name, takes a value: "no" | "required" | "optional", metavar, help)
_DRIVER_OPTIONS = [
    ("help", "no", "", "show this help (including every registered pass and pipeline) and exit"),
    ("o", "required", "FILE", "output file (default: stdout); written only on success"),
    ("split-input-file", "optional", "MARKER", "split the input at lines '// -----' and process each chunk "
     "independently; outputs are joined by the same marker"),
    ("output-split-marker", "required", "MARKER", "marker joining the outputs of split chunks (default '// -----')"),
    ("verify-diagnostics", "optional", "all|only-expected", "check diagnostics against the input's "
     "expected-error/warning/note/remark comments instead of printing them"),
    ("pass-pipeline", "required", "PIPELINE", "textual pipeline, e.g. 'builtin.module(canonicalize, "
     "func.func(cse))'; cannot be combined with pass flags"),
    ("allow-unregistered-dialect", "no", "", "accept operations of unregistered dialects"),
    ("mlir-print-ir-before-all", "no", "", "print the IR before every pass (stderr)"),
    ("mlir-print-ir-after-all", "no", "", "print the IR after every pass (stderr)"),
    ("mlir-print-ir-module-scope", "no", "", "with --mlir-print-ir-*: always print the whole module"),
    ("mlir-print-op-generic", "no", "", "print MLIR's generic form instead of the readable syntax"),
    ("mlir-print-debuginfo", "no", "", "print locations"),
    ("mlir-timing", "no", "", "report wall time per pass (and parse/print) on stderr"),
    ("mlir-disable-threading", "no", "", "run passes on one thread"),
    ("emit-irdl", "no", "", "print the IRDL definition of the xetile and xegpu dialects and exit"),
    ("emit", "required", "mlir|spirv-binary|device-binary|isa|upstream-xegpu", "output kind: MLIR text (default) or, with -o "
     "FILE, the SPIR-V binary of the converted kernels plus FILE.json (kernel metadata; see "
     "xedialects.lowering.xegpu_to_spirv.spirv_export); device-binary (-o FILE): IGC's binary of that SPIR-V for the device "
     "of the arch it was converted for, with the metadata's build options (docs/igc.md); isa: IGC's assembly of every "
     "kernel; upstream-xegpu: upstream MLIR xegpu text of VC-mode XeGPU for mlir-opt (docs/upstream-xegpu.md); after "
     "--xe-gemm-to-spirv-upstream, spirv-binary / device-binary / isa are those of upstream's route"),
    ("xe-target", "required", "pvc|portable", "SPIR-V target of --xe-gemm-to-spirv / --convert-xegpu-to-spirv "
     "without options and of --emit=spirv-binary (default pvc)"),
    ("xe-print-plan", "no", "", "print every GEMM plan convert-linalg-to-xetile chooses (as its print-plan=1 "
     "option does), in any pipeline that contains the pass, on stderr"),
    ("xe-draw", "required", "DIR", "write SVG pictures of every GEMM kernel's plan (work-group, subgroup and "
     "work-item views: DIR/<kernel>-workgroup.svg, -subgroup.svg, -workitem.svg) after a pipeline that lowers "
     "the GEMM to XeGPU; written only on success"),
    ("install-igc", "no", "", "install Intel's GPU compiler (IGC and ocloc, for --emit=device-binary|isa and "
     "xe-kernel-report{isa=true}) into the user cache, or report the one found, and exit (docs/igc.md)"),
    ("list-passes", "no", "", "list registered passes and pipelines with their options and exit"),
    ("version", "no", "", "print the version and exit"),
]
EMIT_KINDS = ("mlir", "spirv-binary", "device-binary", "isa", "upstream-xegpu")
_DRIVER = {name: (kind, metavar, help_) for name, kind, metavar, help_ in _DRIVER_OPTIONS}


class UsageError(Exception):
    """A command-line problem (printed as `xe-opt: error: ...`, exit 1)."""


# ------------------------------------------------------------------------------------------------
# Command line
# ------------------------------------------------------------------------------------------------
class Args:
    def __init__(self):
        self.input = None
        self.output = None
        self.split = False
        self.split_marker = DEFAULT_SPLIT_MARKER
        self.output_split_marker = None
        self.verify_diagnostics = None  # None | "all" | "only-expected"
        self.pass_pipeline = None
        self.pass_flags: list[tuple[str, str | None, str]] = []  # (name, options, original token)
        self.flags: set[str] = set()
        self.emit = "mlir"
        self.xe_target = None
        self.xe_draw = None
        self.import_upstream = False  # --convert-upstream-xegpu
        self.import_distribute = "auto"  # its option distribute=auto|upstream|xedialects


def parse_args(argv: list[str]) -> Args:
    """mlir-opt style: options may use one or two dashes; `--opt=value` or `--opt value` for
    options that take a value; any other `--name[=options]` is a pass or pipeline flag, kept in
    command-line order."""
    a = Args()
    positional: list[str] = []
    i = 0
    only_positional = False
    while i < len(argv):
        tok = argv[i]
        i += 1
        if only_positional or tok == "-" or not tok.startswith("-"):
            positional.append(tok)
            continue
        if tok == "--":
            only_positional = True
            continue
        body = tok[2:] if tok.startswith("--") else tok[1:]
        name, eq, value = body.partition("=")
        if name == "h":
            name = "help"
        if name not in _DRIVER:
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", name):
                raise UsageError(f"invalid option '{tok}'")
            if name == "convert-upstream-xegpu":  # the import runs at parse time (lowering/upstream_to_xegpu)
                from ..lowering.upstream_to_xegpu.driver import DISTRIBUTE_MODES

                opt, _, mode = value.partition("=")
                if a.pass_flags or (eq and (opt != "distribute" or mode not in DISTRIBUTE_MODES)):
                    raise UsageError(f"'{tok}' must be the first pass (it parses upstream xegpu input) and takes "
                                     f"one option, distribute={'|'.join(DISTRIBUTE_MODES)}")
                a.import_upstream = True
                a.import_distribute = mode if eq else "auto"
                continue
            a.pass_flags.append((name, value if eq else None, tok))
            continue
        kind = _DRIVER[name][0]
        if kind == "no":
            if eq:
                raise UsageError(f"option '--{name}' takes no value")
            a.flags.add(name)
            continue
        if kind == "required" and not eq:
            if i >= len(argv):
                raise UsageError(f"option '{tok}' needs a value ({_DRIVER[name][1]})")
            value = argv[i]
            i += 1
        if name == "o":
            a.output = value
        elif name == "split-input-file":
            a.split = True
            if eq and value:
                a.split_marker = value
        elif name == "output-split-marker":
            a.output_split_marker = value
        elif name == "verify-diagnostics":
            mode = value if eq and value else "all"
            if mode not in ("all", "only-expected"):
                raise UsageError(f"invalid value '{value}' for --verify-diagnostics (all, only-expected)")
            a.verify_diagnostics = mode
        elif name == "emit":
            if value not in EMIT_KINDS:
                raise UsageError(f"invalid value '{value}' for --emit ({', '.join(EMIT_KINDS)})")
            a.emit = value
        elif name == "xe-target":
            if value not in ("pvc", "portable"):
                raise UsageError(f"invalid value '{value}' for --xe-target (pvc, portable)")
            a.xe_target = value
        elif name == "xe-draw":
            if not value:
                raise UsageError("--xe-draw needs a directory (--xe-draw=DIR)")
            a.xe_draw = value
        elif name == "pass-pipeline":
            if a.pass_pipeline is not None:
                raise UsageError("'--pass-pipeline' may only be given once")
            a.pass_pipeline = value
    if len(positional) > 1:
        raise UsageError(f"too many input files: {' '.join(positional)} (xe-opt takes one input file)")
    a.input = positional[0] if positional else "-"
    if a.emit in ("spirv-binary", "device-binary") and (not a.output or a.output == "-"):
        raise UsageError(f"--emit={a.emit} needs an output file (-o FILE)")
    if a.emit in ("spirv-binary", "device-binary", "isa") and a.split:
        raise UsageError(f"--emit={a.emit} cannot be combined with --split-input-file")
    if a.pass_pipeline is not None and a.pass_flags:
        raise UsageError("'--pass-pipeline' cannot be used with individual pass options "
                         f"({', '.join(t for _, _, t in a.pass_flags)})")
    return a


def help_text() -> str:
    from ..passes import registered_passes, registered_pipelines
    from ..passes.manager.option_help import option_line, pipeline_option_lines

    lines = [f"usage: {PROG} [options] [FILE|-]", "", __doc__.strip().split("\n\n")[0], "",
             "Options:"]
    for name, kind, metavar, help_ in _DRIVER_OPTIONS:
        flag = f"-{name}" if name == "o" else f"--{name}"
        if kind == "required":
            flag += f" {metavar}" if name == "o" else f"={metavar}"
        elif kind == "optional":
            flag += f"[={metavar}]"
        lines.append(f"  {flag:<36} {help_}")
    passes, pipelines = registered_passes(), registered_pipelines()
    lines += ["", "Passes (flags run in command-line order; options as --PASS='opt=v opt2=v' or --PASS=opt=v,opt2=v):",
              f"  --{'convert-upstream-xegpu':<34} {IMPORT_HELP}"]
    for info in passes.values():
        lines.append(f"  --{info.name:<34} {info.description}")
        lines += [f"      {option_line(o)}" for o in info.options]
    if pipelines:
        lines += ["", f"Pass pipelines ({PIPELINE_OPTIONS_HELP}):"]
        for info in pipelines.values():
            lines.append(f"  --{info.name:<34} {info.description}")
            lines += pipeline_option_lines(info.name, "      ")
    lines += ["", "Any upstream MLIR pass (e.g. --canonicalize, --cse) is accepted as a flag or pipeline element.",
              "Environment: XE_OPT_DEBUG=1 shows Python tracebacks for internal errors."]
    return "\n".join(lines) + "\n"


IMPORT_HELP = ("read upstream MLIR xegpu (LLVM 22: work-group, subgroup, lane level) and translate it to our xegpu; "
               "the first flag; option distribute=auto|upstream|xedialects: who distributes work-group kernels "
               "(auto: upstream's xegpu-wg-to-sg-distribute, ours where it fails; docs/upstream-xegpu.md)")


PIPELINE_OPTIONS_HELP = ("a pipeline's options, --PIPELINE=opt=v or PIPELINE{opt=v}, go to each of its passes "
                         "named after '->' and win over what the pipeline sets")


def list_passes_text() -> str:
    from ..passes import load_pass_modules, registered_passes, registered_pipelines
    from ..passes.manager.option_help import option_line, pipeline_option_lines

    passes, pipelines = registered_passes(), registered_pipelines()
    lines = ["Passes:", f"  convert-upstream-xegpu  -  {IMPORT_HELP}"]
    for info in passes.values():
        lines.append(f"  {info.name}  -  {info.description}")
        lines += [f"      {option_line(o)}" for o in info.options]
    lines.append(f"Pass pipelines ({PIPELINE_OPTIONS_HELP}):")
    for info in pipelines.values():
        lines.append(f"  {info.name}  -  {info.description}")
        lines.append(f"      = {info.pipeline}")
        lines += pipeline_option_lines(info.name, "      ")
    if not pipelines:
        lines.append("  (none)")
    for mod, e in load_pass_modules().items():
        lines.append(f"warning: pass module {mod} failed to import: {type(e).__name__}: {e}")
    lines.append("Upstream MLIR passes (canonicalize, cse, ...) are accepted too.")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------
# Diagnostics output and --verify-diagnostics
# ------------------------------------------------------------------------------------------------
def _loc(d) -> str:
    if d.filename is not None and d.line is not None:
        return f"{d.filename}:{d.line}:{d.col or 0}"
    return d.filename or "<unknown>:0"


def format_diag(d) -> str:
    text = f"{_loc(d)}: {d.severity}: {d.message}" if (d.filename or d.line is not None) else \
        f"{PROG}: {d.severity}: {d.message}"
    for n in d.notes:
        text += "\n" + format_diag(n)
    return text


_EXPECTED = re.compile(r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *"
                       r"\{\{(.*)\}\}$")


class Expectation:
    def __init__(self, kind, regex, text, comment_line, col, target):
        self.kind, self.regex, self.text = kind, regex, text
        self.comment_line, self.col, self.target = comment_line, col, target
        self.matched = False
        self.pattern = _re_pattern(text) if regex else None

    def matches(self, message: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(message) is not None
        return self.text in message


def _re_pattern(text: str):
    parts, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        parts.append(re.escape(text[pos:m.start()]))
        parts.append("(?:" + m.group(1) + ")")
        pos = m.end()
    parts.append(re.escape(text[pos:]))
    try:
        return re.compile("".join(parts))
    except re.error:
        return re.compile(re.escape(text))


def parse_expectations(source: str) -> list[Expectation]:
    """expected-* comments as MLIR reads them: `@+N`/`@-N` relative to the comment line, `@above`
    the last line without an expectation, `@below` the next such line, `@unknown` unlocated."""
    out: list[Expectation] = []
    pending_below: list[Expectation] = []
    last_plain = 0
    for idx, line in enumerate(source.split("\n")):
        lineno = idx + 1
        m = _EXPECTED.search(line.rstrip())
        if not m:
            for e in pending_below:
                e.target = lineno
            pending_below = []
            last_plain = lineno
            continue
        kind, is_re, designator, text = m.group(1), bool(m.group(2)), m.group(4), m.group(5)
        e = Expectation(kind, is_re, text, lineno, m.start() + 1, lineno)
        if designator:
            if designator[0] in "+-":
                e.target = lineno + int(designator)
            elif designator == "above":
                e.target = last_plain
            elif designator == "below":
                pending_below.append(e)
            else:
                e.target = None  # @unknown
        out.append(e)
    return out


class Verifier:
    """Matches emitted diagnostics against the expectations of one input file."""

    def __init__(self, source: str, filename: str, mode: str):
        self.filename = filename
        self.expectations = parse_expectations(source)
        self.mode = mode
        self.errors: list[str] = []

    def _candidates(self, d):
        if d.line is None or d.filename is None:
            return [e for e in self.expectations if e.target is None]
        if d.filename != self.filename:
            return []
        return [e for e in self.expectations if e.target == d.line]

    def process(self, d) -> None:
        self._one(d)
        for n in d.notes:
            # mlir-opt does not print the failing op under --verify-diagnostics; the bindings do
            if not n.message.startswith("see current operation"):
                self.process(n)

    def _one(self, d) -> None:
        cands = [e for e in self._candidates(d) if e.matches(d.message)]
        same = [e for e in cands if e.kind == d.severity]
        if same:
            pick = next((e for e in same if not e.matched), same[0])
            pick.matched = True
            return
        if cands:
            e = cands[0]
            self.errors.append(f"{self.filename}:{e.comment_line}:{e.col}: error: '{d.severity}' diagnostic "
                               f"emitted when expecting a '{e.kind}'")
            return
        if self.mode == "only-expected":
            return
        self.errors.append(f"{_loc(d)}: error: unexpected {d.severity}: {d.message}")

    def finish(self) -> list[str]:
        for e in self.expectations:
            if not e.matched:
                self.errors.append(f"{self.filename}:{e.comment_line}:{e.col}: error: expected {e.kind} "
                                   f"\"{e.text}\" was not produced")
        return self.errors


# ------------------------------------------------------------------------------------------------
# Input
# ------------------------------------------------------------------------------------------------
def _line_col(data: bytes, pos: int) -> tuple[int, int]:
    """1-based line and byte column of offset `pos` (MLIR columns count bytes too)."""
    line = data.count(b"\n", 0, pos) + 1
    return line, pos - (data.rfind(b"\n", 0, pos) + 1) + 1


def read_input(path: str) -> tuple[str, str]:
    """(display name, text). Binary or undecodable input is a located error."""
    from ..diagnostics import Diagnostic, DiagnosticError

    name = "<stdin>" if path == "-" else path
    try:
        data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
    except OSError as e:
        raise UsageError(f"cannot open input file '{path}': {e.strerror or e}") from None
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _line_col(data, nul)
        raise DiagnosticError([Diagnostic("error", "unexpected NUL character (is this a binary file?)",
                                          name, line, col)])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = _line_col(data, e.start)
        raise DiagnosticError([Diagnostic("error", f"invalid UTF-8 byte 0x{data[e.start]:02x} "
                                          "(is this a binary file?)", name, line, col)]) from None
    return name, text


def split_chunks(text: str, marker: str) -> list[tuple[int, str]]:
    """(line offset, text) of each chunk; a marker is a line that is exactly `marker` (trailing
    blanks allowed). Line numbers stay relative to the whole file, as in mlir-opt."""
    chunks, cur, start = [], [], 0
    for idx, line in enumerate(text.split("\n")):
        if line.rstrip() == marker:
            chunks.append((start, "\n".join(cur)))
            cur, start = [], idx + 1
        else:
            cur.append(line)
    chunks.append((start, "\n".join(cur)))
    return chunks


def _make_context(allow_unregistered: bool):
    """The context seam: xedialects.make_context (upstream + xetile/xegpu dialects)."""
    from .. import make_context

    return make_context(allow_unregistered=allow_unregistered)


# ------------------------------------------------------------------------------------------------
# Driver
# ------------------------------------------------------------------------------------------------
class Driver:
    def __init__(self, args: Args):
        self.args = args
        self.timings: list[tuple[str, float]] = []
        self.t0 = time.perf_counter()
        self.drawings: dict[str, str] = {}
        self.device_binary = b""

    def _time(self, name, start):
        self.timings.append((name, time.perf_counter() - start))

    def build_pipeline(self, ctx):
        from ..passes import Pipeline, lookup
        from ..passes.manager.errors import pipeline_error
        from ..passes.manager.options import flag_to_upstream_options

        a = self.args
        if a.pass_pipeline is not None:
            pipeline = Pipeline(a.pass_pipeline)
        elif a.pass_flags:
            pipeline = Pipeline()
            for name, options, tok in a.pass_flags:
                if a.xe_target is not None and options is None:
                    if name == "xe-gemm-to-spirv" and a.xe_target == "portable":
                        name = "xe-gemm-to-spirv-portable"
                    elif name == "convert-xegpu-to-spirv":
                        options = f"target={a.xe_target}"
                if lookup(name) is None and not _is_upstream_pass(name, ctx):
                    raise pipeline_error(_unknown_flag_message(tok, name))
                if options is not None and lookup(name) is None:
                    options = flag_to_upstream_options(options)
                pipeline.add(name, options if options else None)
        else:
            return None
        flags = a.flags
        return pipeline.compile(ctx, print_ir_before_all="mlir-print-ir-before-all" in flags,
                                print_ir_after_all="mlir-print-ir-after-all" in flags,
                                print_module_scope="mlir-print-ir-module-scope" in flags,
                                timing="mlir-timing" in flags, generic="mlir-print-op-generic" in flags,
                                debuginfo="mlir-print-debuginfo" in flags)

    def process_chunk(self, ctx, compiled, name, text, line_offset, verify_mode):
        """(output text or None, diagnostics) of one chunk."""
        from ..diagnostics import DiagnosticCollector, DiagnosticError
        from ..passes import PassFailure
        from ..syntax import parse_source, print_operation

        collector = DiagnosticCollector()
        diags = collector.diagnostics
        handle = ctx.attach_diagnostic_handler(lambda d: _collect(collector, d))
        try:
            t = time.perf_counter()
            try:
                if self.args.import_upstream:
                    from ..lowering.upstream_to_xegpu import import_upstream

                    module = import_upstream("\n" * line_offset + text, name, ctx,
                                             distribute=self.args.import_distribute, remarks=diags)
                else:
                    module = parse_source("\n" * line_offset + text, name, ctx, collector=collector)
            except DiagnosticError as e:
                diags.extend(e.diagnostics)
                return None, diags
            finally:
                self._time("Parser", t)
            if compiled is not None:
                t = time.perf_counter()
                try:
                    with _plan_printing("xe-print-plan" in self.args.flags), _plan_recording(self.args) as plans:
                        compiled.run(module, collector=collector)
                except PassFailure as e:
                    if verify_mode and any(d.severity == "error" for d in e.located):
                        diags.extend(e.located)
                    else:
                        diags.extend(e.diagnostics)
                    return None, diags
                finally:
                    self._time("Pass pipeline", t)
            if self.args.xe_draw is not None and not self.draw(module, plans if compiled is not None else {}, diags):
                return None, diags
            t = time.perf_counter()
            flags = self.args.flags
            kind = self.export_kind
            if kind == "upstream-spirv":  # upstream's route (lowering/upstream_route)
                out = self.export_route(module, diags)
                self._time("Output", t)
                return out, diags
            if self.args.emit == "spirv-binary":
                out = self.export_spirv(module, diags)
                self._time("Output", t)
                return out, diags
            if self.args.emit in ("device-binary", "isa"):
                out = self.export_device(module, diags)
                self._time("Output (IGC)", t)
                return out, diags
            if self.args.emit == "upstream-xegpu" or (kind in ("upstream-xegpu", "upstream-xegpu-lanes")
                                                       and self.args.emit == "mlir"):
                out = self.export_upstream(module, diags, lanes=kind == "upstream-xegpu-lanes")
                self._time("Output", t)
                return (None if out is None else out + "\n"), diags
            out = print_operation(module.operation, generic="mlir-print-op-generic" in flags,
                                  debuginfo="mlir-print-debuginfo" in flags)
            self._time("Output", t)
        finally:
            handle.detach()
        if not out.endswith("\n"):
            out += "\n"
        return out + "\n", diags

    def draw(self, module, plans, diags) -> bool:
        """--xe-draw: the SVG pictures of the module's kernels (kept until the output is written);
        False after reporting an error at the module."""
        from ..diagnostics import Diagnostic, split_location
        from ..draw import DrawError, draw_kernels

        try:
            self.drawings.update(draw_kernels(module, plans))
        except DrawError as e:
            file, line, col = split_location(module.operation.location)
            diags.append(Diagnostic("error", f"--xe-draw: {e}", file, line, col))
            return False
        return True

    def export_spirv(self, module, diags):
        """--emit=spirv-binary: the binary and metadata of the module's kernels (kept on the
        driver until the output is written); None after reporting an error."""
        from ..diagnostics import Diagnostic, DiagnosticError
        from ..lowering.xegpu_to_spirv.spirv_export import SpirvExportError, export_spirv

        try:
            self.spirv = export_spirv(module, self.args.xe_target or "pvc")
        except DiagnosticError as e:
            diags.extend(getattr(e, "located", None) or e.diagnostics)
            return None
        except (SpirvExportError, FileNotFoundError) as e:
            diags.append(Diagnostic("error", str(e)))
            return None
        return ""

    def export_device(self, module, diags, spirv: bytes | None = None):
        """--emit=device-binary|isa: IGC's build of the module's SPIR-V (of upstream's route when
        `spirv` is given); the binary is kept for -o, the assembly returned; None after an error."""
        from ..diagnostics import Diagnostic, DiagnosticError
        from ..lowering.xegpu_to_spirv.spirv_export import SpirvExportError
        from ..runtime.igc import IgcError, build_module
        from ..runtime.igc.device_build import build_ir_module, isa_text

        try:
            if spirv is None:
                build, meta = build_ir_module(module, target=self.args.xe_target or "pvc")
            else:
                build = build_module(spirv, {"arch": "pvc", "kernels": []})
        except DiagnosticError as e:
            diags.extend(getattr(e, "located", None) or e.diagnostics)
            return None
        except (SpirvExportError, IgcError, FileNotFoundError) as e:
            diags.append(Diagnostic("error", str(e)))
            return None
        if build.undefined:
            from ..diagnostics import at

            severity = "error" if self.args.emit == "device-binary" else "warning"
            diags.append(at(module.operation.location, severity,
                            f"IGC's binary for {build.device} imports {', '.join(build.undefined)}, which no library "
                            "defines: a driver cannot load it"))
            if severity == "error":
                return None
        self.device_binary = build.binary
        return "" if self.args.emit == "device-binary" else isa_text(build)

    def export_upstream(self, module, diags, lanes: bool = False):
        """--emit=upstream-xegpu: the module as upstream MLIR xegpu text (docs/upstream-xegpu.md),
        lane level after convert-xegpu-to-upstream{level=lane}; None after reporting an error."""
        from ..diagnostics import DiagnosticError
        from ..lowering.upstream_route.route import lane_text
        from ..lowering.xegpu_to_upstream import export_upstream

        try:
            return lane_text(module.operation) if lanes else export_upstream(module)
        except DiagnosticError as e:
            diags.extend(e.diagnostics)
            return None

    def export_route(self, module, diags):
        """A pipeline ending in xe-gemm-to-spirv-upstream: the route's binary (kept for -o), the
        exported upstream text with --emit=upstream-xegpu, else spirv-dis text; None after an error."""
        from ..diagnostics import Diagnostic, DiagnosticError
        from ..lowering.upstream_route import ToolError, disassemble, upstream_route

        try:
            result = upstream_route(module, distribute=self.route_distribute)
            if self.args.emit in ("device-binary", "isa"):
                return self.export_device(module, diags, spirv=result.binary)
            if self.args.emit == "spirv-binary":
                self.route_binary = result.binary
                return ""
            return result.upstream if self.args.emit == "upstream-xegpu" else disassemble(result.binary)
        except DiagnosticError as e:
            diags.extend(e.diagnostics)
        except ToolError as e:
            diags.append(Diagnostic("error", str(e)))
        return None

    def run(self) -> int:
        a = self.args
        verify_mode = a.verify_diagnostics
        self.export_kind, self.route_distribute = _export_kind(a)
        t = time.perf_counter()
        name, text = read_input(a.input)
        self._time("Read input", t)
        t = time.perf_counter()
        ctx = _make_context("allow-unregistered-dialect" in a.flags)
        if "mlir-disable-threading" in a.flags:
            ctx.enable_multithreading(False)
        self._time("Context creation", t)
        t = time.perf_counter()
        compiled = self.build_pipeline(ctx)
        self._time("Pipeline construction", t)
        chunks = split_chunks(text, a.split_marker) if a.split else [(0, text)]
        verifier = _verifier(text, name, verify_mode) if verify_mode else None
        outputs, failed = [], False
        try:
            for offset, chunk in chunks:
                out, diags = self.process_chunk(ctx, compiled, name, chunk, offset, bool(verify_mode))
                if any(d.severity == "error" for d in diags):
                    failed = True
                if verifier is not None:
                    for d in diags:
                        verifier.process(d)
                else:
                    for d in diags:
                        print(format_diag(d), file=sys.stderr)
                outputs.append(out or "")
        finally:
            if compiled is not None:
                compiled.close()
        if verifier is not None:
            problems = verifier.finish()
            for p in problems:
                print(p, file=sys.stderr)
            failed = bool(problems)
        marker = a.output_split_marker if a.output_split_marker is not None else DEFAULT_SPLIT_MARKER
        result = (marker + "\n").join(outputs) if a.split else outputs[0]
        if "mlir-timing" in a.flags:
            self.print_timing()
        if failed:
            if verifier is not None or not a.output or a.output == "-":
                _write_stdout(result)
            return 1
        if a.xe_draw is not None:
            write_drawings(a.xe_draw, self.drawings)
        if a.emit == "spirv-binary" and self.export_kind == "upstream-spirv":
            write_route_output(a.output, self.route_binary)
            return 0
        if a.emit == "spirv-binary":
            write_spirv_output(a.output, *self.spirv)
            return 0
        if a.emit == "device-binary":
            write_route_output(a.output, self.device_binary)
            return 0
        write_output(a.output, result)
        return 0

    def print_timing(self):
        total = time.perf_counter() - self.t0
        merged: dict[str, float] = {}
        for k, v in self.timings:
            merged[k] = merged.get(k, 0.0) + v
        rule = "===" + "-" * 73 + "==="
        lines = [rule, "                      ... xe-opt execution time report ...", rule,
                 f"  Total Execution Time: {total:.4f} seconds", "", "  ----Wall Time----  ----Name----"]
        for k, v in merged.items():
            lines.append(f"  {v:8.4f} ({100 * v / total if total else 0:5.1f}%)  {k}")
        lines.append(f"  {total:8.4f} (100.0%)  Total")
        print("\n".join(lines), file=sys.stderr)


def _export_kind(a):
    """(kind, distribute): kind "upstream-xegpu" / "upstream-xegpu-lanes" / "upstream-spirv" when the
    pipeline ends in the export or upstream's route (lowering/upstream_route/passes.py), else None;
    distribute: the route's mode as that last pass runs it. A malformed pipeline is reported later."""
    from ..passes.manager.errors import PassPipelineError
    from ..passes.manager.pipeline_text import parse_pipeline_text

    last = None
    if a.pass_flags:
        last = a.pass_flags[-1][:2]
    elif a.pass_pipeline is not None and "upstream" in a.pass_pipeline:
        try:
            _, elements = parse_pipeline_text(a.pass_pipeline)
        except PassPipelineError:
            return None, "auto"
        if elements and elements[-1].children is None:
            opts = elements[-1].options
            last = (elements[-1].name, opts if isinstance(opts, str) else None)
    if last is None or "upstream" not in last[0]:
        return None, "auto"
    from ..lowering.upstream_route.passes import export_kind, route_distribute

    return export_kind(*last), route_distribute(*last)


def write_route_output(path: str, binary: bytes) -> None:
    """A binary without metadata at `path`: upstream's route's SPIR-V (not runnable by xe-run), or IGC's
    device binary."""
    _write_files([(path, binary)])


def _write_files(files) -> None:
    """Every output file or none (output_files.write_all); a failure is a UsageError naming the file."""
    from ..output_files import OutputError, write_all

    try:
        write_all(files)
    except OutputError as e:
        raise UsageError(str(e)) from None


def _verifier(text, name, mode):
    return Verifier(text, name, mode)


def _collect(collector, diag):
    from ..diagnostics import from_mlir

    collector.emit(from_mlir(diag))
    return True


def _plan_printing(enabled: bool):
    """--xe-print-plan: convert-linalg-to-xetile prints its plans while the pipeline runs."""
    import contextlib

    if not enabled:
        return contextlib.nullcontext()
    from ..lowering.linalg_to_xetile.convert import plan_printing

    return plan_printing()


def _plan_recording(args):
    """--xe-draw: record the GEMM plans convert-linalg-to-xetile makes while the pipeline runs."""
    import contextlib

    if args.xe_draw is None:
        return contextlib.nullcontext({})
    from ..lowering.linalg_to_xetile.convert import plan_recording

    return plan_recording()


def write_drawings(out_dir: str, drawings: dict) -> None:
    from ..draw import write_drawings as write

    from ..output_files import OutputError

    try:
        paths = write(drawings, out_dir)
    except OutputError as e:
        raise UsageError(f"--xe-draw: {e}") from None
    except OSError as e:
        raise UsageError(f"cannot write the --xe-draw pictures to '{out_dir}': {e.strerror or e}") from None
    print(f"{PROG}: --xe-draw wrote {', '.join(paths)}", file=sys.stderr)


def _is_upstream_pass(name: str, ctx) -> bool:
    from mlir import passmanager

    from ..passes.manager.native_stderr import capture_native_stderr

    with capture_native_stderr():
        try:
            passmanager.PassManager("builtin.module", ctx).add(name)
            return True
        except ValueError:
            return False


def _unknown_flag_message(tok: str, name: str) -> str:
    import difflib

    from ..passes import registered_passes, registered_pipelines

    names = list(_DRIVER) + list(registered_passes()) + list(registered_pipelines())
    close = difflib.get_close_matches(name, names, n=2)
    hint = f"; did you mean {' or '.join('--' + c for c in close)}?" if close else ""
    return (f"unknown command line option or pass '{tok}'{hint} (see '{PROG} --help'; "
            "registered passes and any upstream MLIR pass are accepted)")


def _write_stdout(text: str) -> None:
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()


def write_output(path: str | None, text: str) -> None:
    if not path or path == "-":
        _write_stdout(text)
        return
    _write_files([(path, text)])


def write_spirv_output(path: str, binary: bytes, meta: dict) -> None:
    """The SPIR-V binary at `path` and its kernel metadata at `path + '.json'`."""
    import json

    from ..lowering.xegpu_to_spirv.spirv_export import sidecar_path

    _write_files([(path, binary), (sidecar_path(path), json.dumps(meta, indent=2, sort_keys=True) + "\n")])


def install_igc() -> int:
    """--install-igc: install IGC into the user cache (or report the copy found); 1 with the reason."""
    from ..runtime.igc import IgcError, install

    try:
        from ..runtime.igc.toolchain import user_toolchain

        tc = user_toolchain() or install(log=lambda m: print(m, file=sys.stderr))
        _write_stdout(tc.describe() + "\n")
        return 0
    except IgcError as e:
        print(f"{PROG}: error: cannot install IGC: {e}", file=sys.stderr)
        return 1


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    if "help" in args.flags:
        _write_stdout(help_text())
        return 0
    if "version" in args.flags:
        from importlib import metadata

        try:
            version = metadata.version("xedialects")
        except metadata.PackageNotFoundError:
            version = "(not installed)"
        from ..runtime.igc import IgcError, find_toolchain

        try:
            igc = find_toolchain().describe()
        except IgcError:
            igc = "not installed (xe-opt --install-igc)"
        _write_stdout(f"{PROG} {version} (xedialects; MLIR Python bindings 22)\nIGC: {igc}\n")
        return 0
    if "list-passes" in args.flags:
        _write_stdout(list_passes_text())
        return 0
    if "install-igc" in args.flags:
        return install_igc()
    if "emit-irdl" in args.flags:
        from ..irdl_gen import irdl_module_text

        text = irdl_module_text()
        write_output(args.output, text if text.endswith("\n") else text + "\n")
        return 0
    return Driver(args).run()


def main(argv=None) -> int:
    """Entry point of the `xe-opt` console script; returns the exit status."""
    from ..diagnostics import DiagnosticError

    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return run(argv)
    except UsageError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except DiagnosticError as e:
        for d in e.diagnostics:
            print(format_diag(d), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        from ..user_errors import stdout_closed_exit

        return stdout_closed_exit()
    except Exception as e:  # noqa: BLE001 - never a traceback for users
        from ..user_errors import unexpected_error_exit

        return unexpected_error_exit(PROG, e, "XE_OPT_DEBUG")


if __name__ == "__main__":
    sys.exit(main())
