"""Index tables of data movement on distributed vectors: which piece elements an insert writes
where, boxes of fragment positions (strided slices), broadcast sources, and positions that are
the same in every work-item (a move that stays inside the work-items)."""
from __future__ import annotations

import numpy as np

from .common import SG
from .layouts import Layout


def _insert_region(dest_lay: Layout, offsets, pshape):
    """For every work-item and destination fragment position: the flat piece index that
    insert_strided_slice(piece, dest, offsets) writes there, or -1 outside the piece."""
    dshape = dest_lay.shape
    k = len(dshape) - len(pshape)
    coords = np.unravel_index(dest_lay.tbl, dshape)
    inside = np.ones(dest_lay.tbl.shape, bool)
    for d in range(k):
        inside &= coords[d] == offsets[d]
    rel = []
    for j, sz in enumerate(pshape):
        r = coords[k + j] - offsets[k + j]
        inside &= (r >= 0) & (r < sz)
        rel.append(np.clip(r, 0, sz - 1))
    pidx = np.ravel_multi_index(tuple(rel), tuple(pshape)) if pshape else np.zeros_like(dest_lay.tbl)
    return np.where(inside, pidx, -1)


def piece_layout(dest_lay: Layout, offsets, pshape):
    """The layout of a piece inserted into a destination distributed as `dest_lay` in which every
    work-item holds the piece elements its destination fragment needs (in fragment order). Work-items
    that need fewer (none of a row that belongs to other work-items) are padded with the elements of
    work-items that need all, so every work-item holds the same count; None when nobody needs any."""
    region = _insert_region(dest_lay, offsets, pshape)
    rows = [[int(x) for x in r if x >= 0] for r in region]
    n = max(len(r) for r in rows)
    if n == 0:
        return None
    full = [i for i, r in enumerate(rows) if len(r) == n]
    short = [i for i, r in enumerate(rows) if len(r) < n]
    for j, i in enumerate(short):
        donor = rows[full[j % len(full)]]
        rows[i] = rows[i] + [x for x in donor if x not in rows[i]][:n - len(rows[i])]
        if len(rows[i]) < n:
            return None
    tbl = np.array(rows, np.int64)
    return Layout(tuple(pshape), tbl, (n,), "gen")


def insert_pairs(piece_lay: Layout, dest_lay: Layout, offsets):
    """Per work-item, the (destination position, piece position) pairs of an insert_strided_slice: every
    destination element the work-item holds inside the piece must come from its own piece fragment.
    None when some work-item would need another work-item's piece element."""
    region = _insert_region(dest_lay, offsets, piece_lay.shape)
    out = []
    for lane in range(SG):
        pos = {int(x): p for p, x in enumerate(piece_lay.tbl[lane])}
        pairs = []
        for q in np.nonzero(region[lane] >= 0)[0]:
            p = pos.get(int(region[lane, q]))
            if p is None:
                return None
            pairs.append((int(q), p))
        out.append(tuple(pairs))
    return out


def uniform_positions(src_tbl, res_src_idx):
    """For every lane l and result position p, the position q with src_tbl[l, q] == res_src_idx[l, p];
    returns the (uniform) q per p, or None when it differs between work-items or is missing."""
    out = np.full(res_src_idx.shape, -1, np.int64)
    for lane in range(SG):
        pos = {int(x): q for q, x in enumerate(src_tbl[lane])}
        for p, x in enumerate(res_src_idx[lane]):
            q = pos.get(int(x))
            if q is None:
                return None
            out[lane, p] = q
    if not (out == out[0:1]).all():
        return None
    return out[0]


def box_in(positions, shape):
    """(first, sizes) when the flat `positions` (in order) are the row-major elements of a box of
    `shape`; else None."""
    pos = np.asarray(positions, np.int64)
    coords = np.unravel_index(pos, tuple(shape))
    first = [int(c.min()) for c in coords]
    sizes = [int(c.max()) - f + 1 for c, f in zip(coords, first)]
    if int(np.prod(sizes)) != pos.size:
        return None
    grid = np.indices(sizes).reshape(len(sizes), -1)
    flat = np.ravel_multi_index(tuple(grid[d] + first[d] for d in range(len(sizes))), tuple(shape))
    if not np.array_equal(flat, pos):
        return None
    return first, sizes


def box_offsets(positions, src_shape, res_shape):
    """Offsets when `positions` (flat indices into a src_shape array, result row-major) form a box
    of shape res_shape in src_shape; else None."""
    if len(src_shape) != len(res_shape):
        return None
    n = int(np.prod(res_shape))
    if len(positions) != n:
        return None
    first = np.unravel_index(int(positions[0]), src_shape)
    grid = np.indices(res_shape).reshape(len(res_shape), -1)
    coords = tuple(grid[d] + first[d] for d in range(len(res_shape)))
    if any((coords[d] >= src_shape[d]).any() for d in range(len(res_shape))):
        return None
    flat = np.ravel_multi_index(coords, src_shape)
    if not np.array_equal(flat, positions):
        return None
    return [int(x) for x in first]


def broadcast_ok(sshape, rshape) -> bool:
    """True when vector.broadcast takes shape sshape to rshape (dims aligned at the end, each equal
    or 1 in the source)."""
    k = len(rshape) - len(sshape)
    return k >= 0 and all(s in (1, r) for s, r in zip(sshape, tuple(rshape)[k:]))


def broadcast_src_index(sshape, rshape):
    """Flat source index of every (row-major) result element of a vector.broadcast."""
    k = len(rshape) - len(sshape)
    src = np.arange(int(np.prod(sshape)), dtype=np.int64).reshape((1,) * k + tuple(sshape))
    return np.broadcast_to(src, tuple(rshape)).reshape(-1)
