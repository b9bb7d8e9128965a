"""A tool's output files, all or nothing: every file of a result is written to a temporary file beside its
target, and the targets are replaced only when all of them are ready, so a failure leaves no file
behind (nor a half-written one) and names the file it could not write.

    check_writable("out/k.spv")                                  # early: before the work
    write_all([("k.spv", binary), ("k.spv.json", meta_text)])    # OutputError(path, reason) on failure

A target that exists and is not a regular file (`/dev/null`, a FIFO) is written in place, last.
"""
from __future__ import annotations

import os
import stat
import tempfile


class OutputError(Exception):
    """An output file could not be written (the message names it and why)."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"cannot write output file '{path}': {reason}")
        self.path = path


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def _special(path: str) -> bool:
    try:
        return not stat.S_ISREG(os.stat(path).st_mode) and not stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def check_writable(path: str) -> None:
    """OutputError unless `path` can be written: its folder exists and is writable, it is not a folder,
    and an existing file is writable."""
    if os.path.isdir(path):
        raise OutputError(path, "is a directory")
    if _special(path):
        if not os.access(path, os.W_OK):
            raise OutputError(path, "permission denied")
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise OutputError(path, f"no such directory '{os.path.dirname(path) or '.'}'")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(path, f"directory '{os.path.dirname(path) or '.'}' is not writable")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise OutputError(path, "permission denied")


def write_all(files) -> None:
    """Write every (path, bytes | str) of `files`, or none of them (see the module docstring)."""
    files = [(p, d.encode("utf-8") if isinstance(d, str) else bytes(d)) for p, d in files]
    for path, _ in files:
        check_writable(path)
    staged, direct = [], []
    try:
        for path, data in files:
            if _special(path):
                direct.append((path, data))
                continue
            fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                                       dir=os.path.dirname(os.path.abspath(path)))
            staged.append((path, tmp))
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
            except OSError as e:
                raise OutputError(path, _reason(e)) from None
        for path, tmp in staged:
            try:
                os.replace(tmp, path)
            except OSError as e:
                raise OutputError(path, _reason(e)) from None
        staged = []
        for path, data in direct:
            try:
                with open(path, "wb") as f:
                    f.write(data)
            except OSError as e:
                raise OutputError(path, _reason(e)) from None
    finally:
        for _, tmp in staged:
            try:
                os.unlink(tmp)
            except OSError:
                pass
