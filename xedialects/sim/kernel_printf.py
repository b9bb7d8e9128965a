"""`gpu.printf` in simulated kernels: each execution's lines are kept with their work-group (linear id),
subgroup, lane and the op's execution count, and written once the launch (or its chunk of work-groups,
sim/parallel.py) has run, sorted in that order; a work-group-level kernel prints once per subgroup of its
work-group, a subgroup-level one once per subgroup, a SIMT one once per work-item. docs/whole-programs.md
"Printing from kernels".
"""
from __future__ import annotations

import sys

import numpy as np

from ..printf_format import render


def write_stdout(text: str) -> None:
    """The simulator's default writer of kernel output."""
    sys.stdout.write(text)
    sys.stdout.flush()


def record(st, pieces: list, values: list, floats: list) -> None:
    """One execution of a gpu.printf (its format's `pieces`, its operands' values, which are floats) by the
    active batch elements of `st`; host code prints at once."""
    vals = [np.asarray(v).reshape(-1) for v in values]
    if st.level == "host":
        st.sim.printf_out(render(pieces, _row(vals, floats, 0)))
        return
    seq = st.printf_seq
    st.printf_seq += 1
    active = range(st.B) if st.mask is None else np.flatnonzero(st.mask)
    uniform = all(v.shape[0] == 1 for v in vals)
    text = render(pieces, _row(vals, floats, 0)) if uniform else None
    out = st.printed
    for b in active:
        line = text if uniform else render(pieces, _row(vals, floats, b))
        wg = int(st.wg_ids[st.wg[b]])
        if st.level == "workgroup":
            out.extend((wg, sg, 0, seq, line) for sg in range(st.sg_per_wg))
        elif st.level == "subgroup":
            out.append((wg, int(st.sg_id[b]), 0, seq, line))
        else:
            out.append((wg, int(st.sg_id[b]), int(st.lane[b]), seq, line))


def _row(vals, floats, b) -> list:
    return [float(v[b if v.shape[0] > 1 else 0]) if fl else int(v[b if v.shape[0] > 1 else 0])
            for v, fl in zip(vals, floats)]


def ordered_text(st) -> str:
    """The launch's output so far: by work-group, subgroup, lane, then execution order; emptied."""
    lines = sorted(st.printed, key=lambda r: r[:4])
    st.printed = []
    return "".join(r[4] for r in lines)
