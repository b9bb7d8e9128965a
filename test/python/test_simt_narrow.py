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


@pytest.mark.parametrize("m,n,e", [(24, 1000, "f32"), (37, 700, "i32")])
def test_split_matvec_column_atomics_add_once(monkeypatch, m, n, e):
    """A matvec whose reduction the gemv planner is made to split: each work-group adds its partial
    sums into a column of y, one element per row (one-lane atomics, which every work-item would
    otherwise repeat)."""
    plan = gemv.plan_gemv
    monkeypatch.setattr(gemv, "plan_gemv", lambda m_, n_, dim, batch, elt, hw, can_split=False, **kw:
                        plan(m_, n_, dim, batch, elt, hw, can_split=True, **kw))
    assert plan(m, n, 1, 1, e, get_arch("pvc"), can_split=True).slices > 1
    case = named("matvec", m, n, e)
    assert_ok(case, "vc", "split matvec")
    assert_ok(case, "simt", "split matvec")


def _case(name):
    import test_linalg_memory_bound as mb
    import test_linalg_softmax as sm
    import test_linalg_gemv as gv
    group, key = name.split(":")
    return {"gemv": gv.CASES, "reduce": mb.RCASES, "full": mb.FCASES, "softmax": sm.SCASES}[group][key]


@pytest.mark.parametrize("name", [
    "gemv:matvec-dynamic-f32-77x45",          # y view of a dynamic matvec: 8x1 block loads and stores
    "gemv:matvec-dynamic-rows-bf16-100x70",   # one-row scatters of a y block some work-items hold none of
    "reduce:addf-d1-f32-dynamic-100x70",      # 8x1 row-sum stores of slices some work-items hold none of
    "full:addf-f32-tensor-65x130",            # 1x4 and 1x1 blocks of a full reduction's partial results
    "full:maximumf-f32-strided-37x53",        # a 1x5 block
    "full:maximumf-bf16-45x77",               # gathered 1x9 blocks sharing one zero constant
    "softmax:f32-37x53",                      # remainder rows narrower than 16 columns, gathered
    "softmax:f32-5x3",
])
def test_narrow_blocks_at_simt_stage(name):
    """Blocks no sg_map spreads over the 16 work-items: scattered messages per fragment element
    (block accesses) or held whole by every work-item (gathered blocks)."""
    assert_ok(_case(name), "simt", name)
