"""The one place that tells user-caused exceptions from internal errors, for the tools' last resort.

Stages report what they check as located `DiagnosticError`s. An exception that escapes them is an
internal error ("internal error: ..., set XE_OPT_DEBUG=1") unless the user's input causes it by
itself: a `UserError` raised where the input is checked without a location at hand (the message
says what to change), or running out of memory for the sizes the user asked for (`MemoryError`:
shapes, `--dims`, pass options). `xe-opt` and `xe-run` print `user_message(e)` as a plain error for
those (exit 1), never "internal error".

    from xedialects.user_errors import UserError, user_message, nbytes_text
    raise UserError("--dims A=...: ...")
"""
from __future__ import annotations

import os
import sys


class UserError(Exception):
    """An error in the user's input or options (the message names what and how to fix it)."""


def user_message(e: BaseException) -> str | None:
    """The error message for an exception the user's input caused (itself or the exception it was
    raised from, e.g. a pass's `PassInternalError`), or None (an internal error)."""
    where = f"pass '{e.pass_name}': " if getattr(e, "pass_name", None) else ""
    cause, seen = e, 0
    while cause is not None and seen < 8:
        if isinstance(cause, UserError):
            return where + str(cause)
        if isinstance(cause, MemoryError):
            what = f" ({cause})" if str(cause) else ""
            return (f"{where}out of memory{what}: the sizes of the input (its shapes, --dims, pass options) need "
                    f"more memory than this machine has ({nbytes_text(physical_memory())})")
        cause, seen = cause.__cause__, seen + 1
    return None


def physical_memory() -> int:
    """Bytes of memory of this machine (0 when unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def nbytes_text(n: int) -> str:
    """12884901888 -> '12 GiB' (binary units, 3 significant digits)."""
    if n <= 0:
        return "unknown"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if n < 1024 or unit == "EiB":
            return f"{n:.3g} {unit}" if unit != "B" else f"{n} B"
        n /= 1024
    return f"{n:.3g} EiB"


def unexpected_error_exit(prog: str, e: Exception, debug_var: str) -> int:
    """How a tool ends on an exception that is neither a usage error nor a diagnostic: re-raised (a
    traceback) when the environment variable `debug_var` is set and not 0; else `PROG: error: ...` for
    an error the input caused (`user_message`) or `PROG: internal error: ...`, and exit status 1."""
    if os.environ.get(debug_var, "") not in ("", "0"):
        raise e
    sys.stdout.flush()                 # the output so far comes before the error
    message = user_message(e)
    if message is not None:
        print(f"{prog}: error: {message}", file=sys.stderr)
    else:
        print(f"{prog}: internal error: {type(e).__name__}: {e} (set {debug_var}=1 for a traceback)",
              file=sys.stderr)
    return 1


def stdout_closed_exit() -> int:
    """How a tool ends when the reader of its stdout has gone (`| head`): quietly, exit status 1."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError:
        pass
    return 1
