"""The host of a whole program under supervision: lowered, JIT-compiled and run in a forked child.

Host code is the user's native code: an out-of-bounds store, a stack overflow, an abort in glibc or
upstream MLIR kills the process that runs it. Here that process is a child (the way
lowering/upstream_to_xegpu/isolate.py runs upstream passes): the parent reports `host program
crashed: SIGSEGV (...)` at the entry function, with the last runtime call the child made (a
launch, a device memory op, a runner utility; `Board.note`), and exits 1. With a time limit
(`xe-run --timeout`) the child's process group (the child and the simulator's worker processes) is
killed when the time is up, with the same kind of message.

The child writes to the parent's stdout and stderr directly (program order is kept); its result
(the run's statistics, or the diagnostics of an error it raised) comes back pickled through a
shared page. An error the child reported itself (a failing kernel or guard: `jit.die`) ends it with
status 1, which the parent passes on as `HostExit`.
"""
from __future__ import annotations

import ctypes
import mmap
import os
import pickle
import select
import signal
import sys
import time

from ...diagnostics import DiagnosticError, at

_NOTE = 4096                      # bytes of the board's note area, then the result
_SIZE = 1 << 20
_SIGNALS = {"SIGSEGV": "segmentation fault: an invalid memory access or a stack overflow",
            "SIGBUS": "bus error: an invalid memory access",
            "SIGABRT": "aborted",
            "SIGFPE": "arithmetic exception, e.g. an integer division by zero",
            "SIGILL": "illegal instruction",
            "SIGKILL": "killed, e.g. by the system when out of memory"}


class HostExit(Exception):
    """The host program ended with status `code` after reporting its error itself."""

    def __init__(self, code: int):
        super().__init__(f"host program exited with status {code}")
        self.code = code


class Board:
    """Shared memory between the supervised child and the parent: what the child did last, and
    its result."""

    def __init__(self):
        self.mem = mmap.mmap(-1, _SIZE)             # MAP_SHARED | MAP_ANONYMOUS: seen after fork
        self._cache: dict = {}

    def note(self, what: str, loc: str = "") -> None:
        """Record the child's current activity (a runtime call, a phase) and where it comes from."""
        data = self._cache.get((what, loc))
        if data is None:
            raw = f"{what}\n{loc}".encode()[:_NOTE - 2]
            data = self._cache[(what, loc)] = len(raw).to_bytes(2, "little") + raw
        self.mem[:len(data)] = data

    def clear(self) -> None:
        self.mem[:2] = bytes(2)
        self.mem[_NOTE:_NOTE + 8] = bytes(8)

    def last(self) -> tuple[str, str]:
        n = int.from_bytes(self.mem[:2], "little")
        what, _, loc = self.mem[2:2 + n].decode(errors="replace").partition("\n")
        return what, loc

    def put(self, result) -> None:
        data = pickle.dumps(result)
        if len(data) > _SIZE - _NOTE - 8:
            data = pickle.dumps(("exc", "the host program's result is too large to return"))
        self.mem[_NOTE:_NOTE + 8] = len(data).to_bytes(8, "little")
        self.mem[_NOTE + 8:_NOTE + 8 + len(data)] = data

    def get(self):
        n = int.from_bytes(self.mem[_NOTE:_NOTE + 8], "little")
        return pickle.loads(self.mem[_NOTE + 8:_NOTE + 8 + n]) if n else None


def available() -> bool:
    return hasattr(os, "fork") and hasattr(os, "setpgid")


def _flush_all() -> None:
    from .runner_utils import flush_c

    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except (OSError, ValueError):
            pass
    flush_c()


def _child(fn, board: Board) -> None:
    """The forked child: run fn, leave its result on the board, never return."""
    try:
        os.setpgid(0, 0)
        try:            # die with the parent (PR_SET_PDEATHSIG)
            ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)
        except (AttributeError, OSError):
            pass
        import faulthandler

        faulthandler.disable()      # a crash is reported by the parent, not dumped here
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        try:
            result = ("ok", fn())
        except DiagnosticError as e:
            result = ("diag", e.diagnostics)
        except HostExit as e:
            _flush_all()
            os._exit(e.code)
        except BaseException as e:  # noqa: BLE001 - reported by the parent as an internal error
            result = ("exc", f"{type(e).__name__}: {e}")
        _flush_all()
        board.put(result)
    except BaseException:           # noqa: BLE001
        os._exit(3)
    os._exit(0)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _wait(pid: int, timeout: float | None) -> int | None:
    """The child's wait status, or None when `timeout` seconds passed first."""
    if timeout is None:
        return os.waitpid(pid, 0)[1]
    deadline = time.monotonic() + timeout
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):   # no pidfd (old kernel, some sandboxes): poll
        fd = None
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if fd is not None:
                select.select([fd], [], [], left)
            else:
                time.sleep(min(left, 0.02))
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
    finally:
        if fd is not None:
            os.close(fd)


def _error(loc: str, message: str, board: Board, running: bool = True) -> DiagnosticError:
    """The error at `loc`, with what the child did last: a phase in the message (the running phase
    only with `running`), the last runtime call as a note at its op."""
    what, at_loc = board.last()
    if what and not at_loc and (running or not what.startswith("running")):
        message += f" while {what}"
    d = at(loc, "error", message)
    if what and at_loc:
        d.notes.append(at(at_loc, "note", f"the host program's last runtime call: {what}"))
    return DiagnosticError([d])


def run(fn, *, board: Board, loc: str, entry: str, timeout: float | None = None):
    """fn() computed in a supervised child (see the module docstring); its DiagnosticError is
    re-raised here, a crash or timeout becomes a DiagnosticError at `loc` (the entry function)."""
    _flush_all()
    board.clear()
    pid = os.fork()
    if pid == 0:
        _child(fn, board)
    try:
        os.setpgid(pid, pid)
    except (ProcessLookupError, PermissionError):
        pass                        # the child did it first, or has already ended
    try:
        status = _wait(pid, timeout)
    except BaseException:           # KeyboardInterrupt: stop the child and its workers too
        _kill_group(pid)
        os.waitpid(pid, 0)
        raise
    if status is None:
        _kill_group(pid)
        os.waitpid(pid, 0)
        raise _error(loc, f"@{entry} did not finish within {timeout:g} s (--timeout): stopped", board, running=False)
    if os.WIFSIGNALED(status):
        _kill_group(pid)            # simulator workers left behind
        try:
            name = signal.Signals(os.WTERMSIG(status)).name
        except ValueError:
            name = f"signal {os.WTERMSIG(status)}"
        why = _SIGNALS.get(name, "killed by a signal")
        raise _error(loc, f"host program crashed: {name} ({why})", board)
    result = board.get()
    code = os.WEXITSTATUS(status)
    if result is None:
        raise HostExit(code or 1)
    kind, value = result
    if kind == "ok":
        return value
    if kind == "diag":
        raise DiagnosticError(value)
    raise RuntimeError(value)
