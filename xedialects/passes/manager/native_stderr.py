"""What MLIR/LLVM print to file descriptor 2 (IR dumps, cl::opt and pipeline-parser errors):
`capture_native_stderr` collects it, `prettify_dumps` rewrites IR dumps into our readable syntax,
`clean_mlir_message` turns a multi-line parser error into one line."""
from __future__ import annotations

import contextlib
import io
import os
import re
import sys


@contextlib.contextmanager
def capture_native_stderr(enabled: bool = True):
    """Redirect fd 2 to a temporary file while the block runs; Python's sys.stderr keeps going to
    the real stderr. The captured text is in `box["text"]` afterwards."""
    box = {"text": ""}
    if not enabled:
        yield box
        return
    import tempfile  # here, not at module level: xe-opt start-up

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


def prettify_dumps(text: str, generic: bool) -> str:
    """Rewrite the op bodies of MLIR's IR dumps into our readable syntax."""
    if generic or not text:
        return text
    try:
        from ...syntax.convert import to_pretty
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


def clean_mlir_message(text: str) -> str:
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
