"""Progress on stderr for long runs: work-groups done of total, rate, time left (tqdm).

Off unless a tool turns it on (`configure(True)`, xe-run does unless --quiet), and shown only
when stderr is a terminal and the run has lasted `DELAY` seconds. `bar(desc, total)` returns an
object with `update(n)`, `refresh()` (redraw while waiting), `ticking()` (redraw from a thread
during one long step) and `close()`; when progress is off it does nothing. `wait(event, desc, total)` waits for an OpenCL event, redrawing meanwhile.
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time

DELAY = 2.0
_enabled = False


def configure(enabled: bool) -> None:
    global _enabled
    _enabled = bool(enabled)


def active() -> bool:
    """Progress would be drawn: turned on and stderr is a terminal."""
    try:
        return _enabled and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class _Null:
    def update(self, n=1):
        pass

    def refresh(self):
        pass

    def close(self):
        pass

    def ticking(self):
        return contextlib.nullcontext(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class _Bar(_Null):
    def __init__(self, tqdm, desc, total, unit):
        self._t = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, delay=DELAY, leave=False,
                       dynamic_ncols=True, mininterval=0.5)
        self._t0 = time.monotonic()

    def update(self, n=1):
        self._t.update(n)

    def refresh(self):
        """Redraw (elapsed time, rate) between updates, once the bar is due."""
        if time.monotonic() - self._t0 >= DELAY:
            self._t.refresh()

    def close(self):
        self._t.close()

    @contextlib.contextmanager
    def ticking(self, every: float = 0.5):
        """Redraw from a helper thread while the body runs (one long step, e.g. a serial launch)."""
        stop = threading.Event()

        def tick():
            while not stop.wait(every):
                self.refresh()

        t = threading.Thread(target=tick, daemon=True)
        t.start()
        try:
            yield self
        finally:
            stop.set()
            t.join()


def bar(desc: str, total: int, unit: str = "wg"):
    if not active():
        return _Null()
    try:
        from tqdm import tqdm
    except ImportError:   # progress is a convenience: without tqdm there is none
        return _Null()
    return _Bar(tqdm, desc, total, unit)


def wait(event, desc: str, total: int, poll: float = 0.25) -> None:
    """Wait for a pyopencl event; on a terminal, show `desc` with elapsed time until it completes
    (one launch is one step: the device reports no finer progress)."""
    if not active():
        event.wait()
        return
    with bar(desc, total) as b:
        while event.command_execution_status > 0:   # queued/submitted/running; 0 complete, < 0 error
            time.sleep(poll)
            b.refresh()
        event.wait()            # raises on an error status
        b.update(total)
