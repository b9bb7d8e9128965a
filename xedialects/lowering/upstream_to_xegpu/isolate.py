"""Run the upstream side of the import in a forked child process.

Upstream's C++ verifiers and passes can assert on odd input (e.g. `xegpu.create_mem_desc` of a
non-i8 memref aborts LLVM 22 while parsing); in a child the abort becomes a located error and the
tool still exits 1 with a message. The child returns the translated text (or diagnostics) through a
pipe; its stderr is captured and its last line quoted when it dies.
"""
from __future__ import annotations

import os
import pickle
import selectors
import signal

from ...diagnostics import Diagnostic, DiagnosticError


def _read_all(fds: list[int]) -> list[bytes]:
    """Everything written to the pipes `fds` until all are closed (read together: no deadlock)."""
    sel = selectors.DefaultSelector()
    out = {fd: [] for fd in fds}
    for fd in fds:
        sel.register(fd, selectors.EVENT_READ)
    open_fds = set(fds)
    while open_fds:
        for key, _ in sel.select():
            chunk = os.read(key.fd, 65536)
            if chunk:
                out[key.fd].append(chunk)
            else:
                sel.unregister(key.fd)
                open_fds.discard(key.fd)
    return [b"".join(out[fd]) for fd in fds]


def run(fn, *args, filename: str = "-"):
    """fn(*args) computed in a forked child; DiagnosticError raised in it is re-raised here, and a
    child killed by a signal (an LLVM assertion or crash) becomes a DiagnosticError at `filename`."""
    if not hasattr(os, "fork"):
        return fn(*args)
    r, w = os.pipe()
    er, ew = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never returns
        code = 0
        try:
            os.close(r)
            os.close(er)
            os.dup2(ew, 2)
            import faulthandler

            faulthandler.disable()  # an abort is reported by the parent, not dumped by the child
            try:
                res = ("ok", fn(*args))
            except DiagnosticError as e:
                res = ("diag", e.diagnostics)
            except BaseException as e:  # noqa: BLE001 - reported by the parent as an internal error
                res = ("exc", f"{type(e).__name__}: {e}")
            with os.fdopen(w, "wb") as f:
                f.write(pickle.dumps(res))
        except BaseException:  # noqa: BLE001
            code = 3
        finally:
            os._exit(code)
    os.close(w)
    os.close(ew)
    try:
        data, err = _read_all([r, er])
    finally:
        os.close(r)
        os.close(er)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) or not data:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        lines = [ln for ln in err.decode(errors="replace").splitlines() if ln.strip()]
        why = lines[-1][:300] if lines else "no message"
        name = signal.Signals(sig).name if sig else f"exit status {os.WEXITSTATUS(status)}"
        raise DiagnosticError([Diagnostic("error", f"convert-upstream-xegpu: upstream MLIR stopped ({name}) while "
                                                   f"parsing or transforming this program: {why}", filename, 1, 1)])
    kind, value = pickle.loads(data)
    if kind == "ok":
        return value
    if kind == "diag":
        raise DiagnosticError(value)
    raise DiagnosticError([Diagnostic("error", f"convert-upstream-xegpu: internal error: {value}", filename, 1, 1)])
