"""xegpu-simt-distribute on accesses narrower than a subgroup (fewer elements than its 16
work-items), numerically: linalg kernels lowered to VC-mode XeGPU and distributed to SIMT mode,
simulated and compared with the original program run on the CPU by upstream MLIR."""
import os
import sys

import pytest

from xedialects.arch import get_arch
from xedialects.lowering.linalg_to_xetile import gemv

sys.path.insert(0, os.path.dirname(__file__))
from test_linalg_gemv import named  # noqa: E402
from test_linalg_lowering import assert_ok  # noqa: E402


@pytest.mark.parametrize("m,n", [(24, 1000), (37, 700)])
def test_split_matvec_column_atomics_add_once(monkeypatch, m, n):
    """A matvec whose reduction the gemv planner is made to split: each work-group adds its partial
    sums into a column of y, one element per row (one-lane atomics, which every work-item would
    otherwise repeat)."""
    plan = gemv.plan_gemv
    monkeypatch.setattr(gemv, "plan_gemv", lambda m_, n_, dim, batch, elt, hw, can_split=False:
                        plan(m_, n_, dim, batch, elt, hw, can_split=True))
    assert plan(m, n, 1, 1, "f32", get_arch("pvc"), can_split=True).slices > 1
    case = named("matvec", m, n, "f32")
    assert_ok(case, "vc", "split matvec")
    assert_ok(case, "simt", "split matvec")
