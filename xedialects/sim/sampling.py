"""Which work-groups a sampled simulation runs (xe-run --sample-groups K).

The corners of the grid (first and last work-group in every dimension: the ones that meet the
unaligned right and bottom edges of a GEMM) always run; the rest of the K are spread over the
other work-groups, chosen by a generator seeded with the run's seed, so a sample is repeatable.
"""
from __future__ import annotations

import itertools

import numpy as np


def edge_groups(grid) -> np.ndarray:
    """Linear ids (x fastest) of the first/last work-group in each grid dimension, combined."""
    gx, gy, gz = (int(g) for g in grid)
    ids = {x + gx * (y + gy * z) for x, y, z in itertools.product({0, gx - 1}, {0, gy - 1}, {0, gz - 1})}
    return np.array(sorted(ids), dtype=np.int64)


def sample_groups(grid, k: int, seed: int = 0) -> np.ndarray:
    """Sorted linear ids of max(k, corners) work-groups of `grid` (all of them when k >= their
    number): the corners plus a seeded spread of the others."""
    nwg = int(np.prod(grid))
    if k >= nwg:
        return np.arange(nwg, dtype=np.int64)
    edges = edge_groups(grid)
    rest = np.setdiff1d(np.arange(nwg, dtype=np.int64), edges)
    extra = max(0, k - edges.size)
    if extra:
        rng = np.random.default_rng([abs(int(seed)), *(int(g) for g in grid)])
        pick = rng.choice(rest, size=extra, replace=False)
        edges = np.concatenate([edges, pick])
    return np.sort(edges)


def sampled_masks(scheduler, labels, returns) -> dict:
    """{label: flat bool mask} of the elements the sampled work-groups wrote, for the memref
    arguments (`labels[i]` is argument i, buffer `argi`) and the returned buffers (`result0`...:
    matched to the one written buffer of their size that is no argument, else absent)."""
    masks = {}
    for i, lab in enumerate(labels):
        m = scheduler.written_mask(f"arg{i}")
        if m is not None:
            masks[lab] = m
    others = [(b, m) for b, m in scheduler.written.items() if not b.name.startswith("arg")]
    for j, r in enumerate(returns):
        fits = [m for b, m in others if m.size == np.size(r)]
        if len(fits) == 1:
            masks[f"result{j}"] = fits[0]
    return masks
