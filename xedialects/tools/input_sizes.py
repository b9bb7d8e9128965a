"""xe-run's generated arguments checked against the machine's memory before they are made: a shape
from `--dims` too large is an error naming the argument, its shape and the bytes it would need (not a
MemoryError from numpy, nor a size past int64).

    check_input_sizes(types, shapes, labels)     # InputError (a UserError) when they do not fit
"""
from __future__ import annotations

import math

import numpy as np

from ..user_errors import UserError, nbytes_text, physical_memory

INT64_MAX = 2 ** 63 - 1


def _what(i, labels, t) -> str:
    return f"argument %{labels[i]} ({t.text})" if labels and i < len(labels) else f"argument {i} ({t.text})"


def check_input_sizes(types, shapes, labels=None, error=UserError) -> None:
    """`error` when a memref argument of `types` with its shape (`shapes[i]` or static) holds more than
    int64 elements or the arguments together need more bytes than this machine's memory."""
    total, largest = 0, None
    for i, t in enumerate(types):
        if t.kind != "memref" or t.dtype is None:
            continue
        shape = shapes.get(i) or tuple(int(d) for d in t.shape)
        if any(d < 0 for d in shape):
            continue
        n = math.prod(shape)
        size = n * np.dtype(t.dtype).itemsize
        if n > INT64_MAX:
            raise error(f"--dims: {_what(i, labels, t)} of shape {'x'.join(map(str, shape))} has {n} elements, more "
                        f"than a size can hold (2^63 - 1)")
        total += size
        if largest is None or size > largest[0]:
            largest = (size, i, t, shape, n)
    memory = physical_memory()
    if largest is None or not memory or total <= memory:
        return
    size, i, t, shape, n = largest
    raise error(f"--dims: {_what(i, labels, t)} of shape {'x'.join(map(str, shape))} would need {nbytes_text(size)} "
                f"({n} elements of {np.dtype(t.dtype).itemsize} bytes); the arguments together need "
                f"{nbytes_text(total)}, more than this machine's memory ({nbytes_text(memory)}): give smaller sizes")
