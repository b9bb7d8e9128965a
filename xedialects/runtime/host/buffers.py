"""Device memory of a whole program: every `gpu.alloc`, tracked from allocation to `gpu.dealloc`.

Each buffer is its own anonymous mapping (zero-filled by the kernel: device memory reads 0 until
written, docs/whole-programs.md), recorded with its size and the op that allocated it. `gpu.dealloc`
returns the pages to the system but keeps the addresses reserved and inaccessible (PROT_NONE), so a
freed buffer is never mistaken for a later allocation and a host access to it stops the program
(SIGSEGV, reported by the supervisor). The runtime asks `check` before every copy, memset, launch
and runner utility: a freed buffer, or a view reaching beyond its buffer, is a located error naming
the op, and `free` reports a second `gpu.dealloc` of the same buffer or one of host memory.
"""
from __future__ import annotations

import ctypes
import mmap
from dataclasses import dataclass

from ...diagnostics import DiagnosticError, at

_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.mmap.restype = ctypes.c_void_p
_LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_MAP_FAILED = ctypes.c_void_p(-1).value
_MAP_FIXED = 0x10
_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)
_PAGE = mmap.PAGESIZE
_PROT_NONE = 0


@dataclass
class Buffer:
    address: int
    nbytes: int                 # as allocated (the mapping is rounded up to whole pages)
    type: str                   # the memref type of the gpu.alloc
    alloc_loc: str              # location of the gpu.alloc
    free_loc: str | None = None  # location of the gpu.dealloc that freed it

    @property
    def mapped(self) -> int:
        return max(_PAGE, -(-self.nbytes // _PAGE) * _PAGE)


def _error(loc, message, *notes):
    raise DiagnosticError([at(loc, "error", message, [at(nloc, "note", ntext) for nloc, ntext in notes])])


class DeviceMemory:
    """The buffers gpu.alloc returned, live and freed, by address."""

    def __init__(self):
        self.buffers: dict[int, Buffer] = {}

    def alloc(self, nbytes: int, type_text: str, loc: str) -> int:
        """Address of `nbytes` zero bytes (page aligned); a located error when the system refuses."""
        b = Buffer(0, nbytes, type_text, loc)
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
        addr = _LIBC.mmap(None, b.mapped, mmap.PROT_READ | mmap.PROT_WRITE, flags, -1, 0)
        if addr in (None, _MAP_FAILED):
            err = ctypes.get_errno()
            why = "not enough memory" if err == 12 else f"mmap failed (errno {err})"
            _error(loc, f"gpu.alloc of {type_text} ({nbytes} bytes) failed: {why}")
        b.address = addr
        self.buffers[addr] = b
        return addr

    def free(self, allocated: int, type_text: str, loc: str) -> None:
        """gpu.dealloc of the buffer whose allocated pointer is `allocated`."""
        b = self.buffers.get(allocated)
        if b is None:
            _error(loc, f"gpu.dealloc of a {type_text} that gpu.alloc did not return (host memory or an address "
                        "inside a buffer); only gpu.alloc buffers can be freed with gpu.dealloc")
        if b.free_loc is not None:
            _error(loc, f"gpu.dealloc of a buffer that is already freed ({b.type}, {b.nbytes} bytes)",
                   (b.free_loc, "freed here"), (b.alloc_loc, "allocated here"))
        b.free_loc = loc
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_FIXED | _MAP_NORESERVE
        _LIBC.mmap(ctypes.c_void_p(b.address), b.mapped, _PROT_NONE, flags, -1, 0)

    def containing(self, address: int) -> Buffer | None:
        """The buffer (live or freed) whose bytes hold `address`; None for other memory."""
        for b in self.buffers.values():
            if b.address <= address < b.address + max(b.nbytes, 1):
                return b
        return None

    def check(self, allocated: int, first: int, nbytes: int, what: str, loc: str) -> None:
        """Error at `loc` when the view `what` (`nbytes` from address `first`, of the allocation whose
        allocated pointer is `allocated`) is in a freed buffer or reaches beyond its buffer;
        host memory is not checked."""
        b = self.buffers.get(allocated)
        if b is None:
            return
        if b.free_loc is not None:
            _error(loc, f"{what} is a buffer freed by gpu.dealloc ({b.type}, {b.nbytes} bytes)",
                   (b.free_loc, "freed here"), (b.alloc_loc, "allocated here"))
        if nbytes and (first < b.address or first + nbytes > b.address + b.nbytes):
            _error(loc, f"{what} reaches bytes {first - b.address}..{first - b.address + nbytes - 1} of a "
                        f"{b.nbytes}-byte buffer ({b.type})", (b.alloc_loc, "allocated here"))
