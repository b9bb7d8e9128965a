"""Progress on stderr for long runs: work-groups done of total, rate, time left (tqdm).

Off unless a tool turns it on (`configure(True)`, xe-run does unless --quiet), and shown only
when stderr is a terminal and the run has lasted `DELAY` seconds. `bar(desc, total)` returns an
object with `update(n)`, `refresh()` and `close()`; when progress is off it does nothing.
"""
from __future__ import annotations

import sys

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

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class _Bar(_Null):
    def __init__(self, tqdm, desc, total, unit):
        self._t = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, delay=DELAY, leave=False,
                       dynamic_ncols=True, mininterval=0.5)

    def update(self, n=1):
        self._t.update(n)

    def refresh(self):
        self._t.update(0)

    def close(self):
        self._t.close()


def bar(desc: str, total: int, unit: str = "wg"):
    if not active():
        return _Null()
    try:
        from tqdm import tqdm
    except ImportError:   # progress is a convenience: without tqdm there is none
        return _Null()
    return _Bar(tqdm, desc, total, unit)
