"""Reduction kinds and the index math of distributed reductions: identities, which fragment
positions each work-item contributes to which result element, and the `ReductionPlan` the layout
analysis records per reduction (docs/simt.md, "Reductions")."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from ...utils.reduction_kinds import ARITH_COMBINE
from .common import SG, is_int_type, int_list
from .layouts import Layout


REDUCTION_OPS = ("vector.multi_reduction", "vector.reduction")
# data movement a "sparse" view passes through (the fragment is kept; only the index table changes)
VIEW_OPS = ("vector.extract_strided_slice", "vector.shape_cast", "vector.transpose", "vector.extract")
# element-wise ops that combine like a reduction kind (canonicalize folds a reduction over a unit
# dimension, e.g. the last 16x1 column of a 16x2 block, into one of them)
COMBINE_KIND = {name: kind for kind, names in ARITH_COMBINE.items() for name in names if name is not None}
# kinds gpu.subgroup_reduce combines across the work-items here; minui / maxui use gpu.shuffle xor
# butterflies (xedialects.sim's subgroup_reduce compares integers as signed)
SUBGROUP_REDUCE_KINDS = ("add", "mul", "minimumf", "maximumf", "minnumf", "maxnumf", "minsi", "maxsi", "and",
                         "or", "xor")


def reduction_kind(op) -> str:
    s = str(op.attributes["kind"])
    return s[s.index("<") + 1:s.rindex(">")].strip()


def reduction_dims(op):
    if op.name == "vector.reduction":
        return [0]
    return int_list(op.attributes["reduction_dims"])


def reduce_index(sshape, dims):
    """(flat result index of every flat source element, result element count) of a reduction of a
    `sshape` vector over `dims`."""
    n = int(np.prod(sshape))
    keep = [d for d in range(len(sshape)) if d not in dims]
    if not keep:
        return np.zeros(n, np.int64), 1
    coords = np.unravel_index(np.arange(n), tuple(sshape))
    rshape = tuple(sshape[d] for d in keep)
    return np.ravel_multi_index(tuple(coords[d] for d in keep), rshape).astype(np.int64), int(np.prod(rshape))


def identity_attr(kind, elt: str):
    """The neutral element of a reduction kind: NaN for minnumf / maxnumf (skipped by them, so a
    combination of NaNs stays NaN), +-inf for the NaN-propagating minimumf / maximumf, the extreme
    values for integer min / max, all ones for and."""
    t = ir.Type.parse(elt)
    if is_int_type(elt):
        w = 64 if elt == "index" else int(elt[1:])
        val = {"add": 0, "mul": 1, "minsi": (1 << (w - 1)) - 1, "maxsi": -(1 << (w - 1)), "minui": -1, "maxui": 0,
               "and": -1, "or": 0, "xor": 0}.get(kind)
        if val is None:
            raise ValueError(f"reduction kind '{kind}' on integers")
        return ir.IntegerAttr.get(t, val)
    val = {"add": 0.0, "mul": 1.0, "minimumf": float("inf"), "maximumf": float("-inf"), "minnumf": float("nan"),
           "maxnumf": float("nan")}.get(kind)
    if val is None:
        raise ValueError(f"reduction kind '{kind}' on floating-point values")
    return ir.FloatAttr.get(t, val)


def contributions(tbl, ridx, n_r, dedupe=True):
    """Per work-item, per result element, the fragment positions whose elements the work-item puts
    into the reduction. With `dedupe`, an element several work-items hold (or one holds twice) is
    counted once, by the lowest work-item holding it; -1 entries (outside a sparse view) are skipped.
    Without (partial values), every position counts."""
    owner = {}
    if dedupe:
        for lane in range(SG):
            for x in tbl[lane]:
                if x >= 0:
                    owner.setdefault(int(x), lane)
    out = []
    for lane in range(SG):
        rows = [[] for _ in range(n_r)]
        seen = set()
        for p, x in enumerate(tbl[lane]):
            x = int(x)
            if x < 0 or (dedupe and (owner[x] != lane or x in seen)):
                continue
            seen.add(x)
            rows[int(ridx[x])].append(p)
        out.append(rows)
    return out


def group_slots(rows, n_pos, n_r):
    """Fragment positions grouped into slots that go to the same result element in every work-item
    (positions no work-item uses are left out): (positions per slot, per work-item per result
    element the slots it takes)."""
    r_of = np.full((SG, n_pos), -1, np.int64)
    for lane in range(SG):
        for r, ps in enumerate(rows[lane]):
            for p in ps:
                r_of[lane, p] = r
    keys = {}
    for p in range(n_pos):
        col = tuple(int(x) for x in r_of[:, p])
        if any(x >= 0 for x in col):
            keys.setdefault(col, []).append(p)
    slots = list(keys.values())
    slot_rows = [[[] for _ in range(n_r)] for _ in range(SG)]
    for si, col in enumerate(keys):
        for lane in range(SG):
            if col[lane] >= 0:
                slot_rows[lane][col[lane]].append(si)
    return slots, slot_rows


def pad_rows(rows):
    """A per-result-element list of position lists as an (n_r, K) array, -1 padded (identity)."""
    k = max([len(r) for r in rows] + [1])
    out = np.full((len(rows), k), -1, np.int64)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


@dataclass
class ReductionPlan:
    """How a reduction is distributed (`Distributor.fwd_reduction`)."""
    kind: str
    elt: str
    ridx: np.ndarray        # flat result index of every flat source element
    n_r: int                # result elements
    rshape: tuple           # result shape (() for a scalar)
    mode: str               # "local": within the work-items; "cross": per-work-item partials, then combined
    res_lay: Layout | None  # the result's layout (None: a scalar every work-item holds)
    keep: bool              # cross: the result stays partial (its consumers combine the work-items)
    acc_mode: str           # "none", "local" (converted to res_lay), "partial" (every work-item's partial),
