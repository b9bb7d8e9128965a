"""Unaligned static shapes that IGC 2.40 used to spill although our register estimate was small
(docs/spirv.md "spirv_layout.py", docs/planner.md "Memory-bound kernels"):

* ger (C = x yT) on 37x53: x is an 8x1 tile loaded into lane 0 and broadcast to 8x32; the product
  was computed in that single-lane layout (256 registers of one element, a shuffle per element for
  the stores). The element-wise lowering now computes in y's layout (16 registers).
* a column max of 37x129 f16: the surface takes gathers (258-byte rows), 32 per 16-row step, each
  with 64-bit per-lane addresses, all in flight at once. The planner now steps 8 rows.

Without IGC: the layout rule and the SPIR-V it gives, the plan and its reason. With IGC: the five
kernels compile with no spill and no scratch message on pvc and bmg at the metadata's GRF mode.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import test_linalg_gemv as GV  # noqa: E402
import test_linalg_memory_bound as MB  # noqa: E402
import xedialects  # noqa: E402
from xedialects.arch import get_arch  # noqa: E402
from xedialects.lowering.linalg_to_xetile.memory_plan import plan_reduction  # noqa: E402
from xedialects.lowering.xegpu_to_spirv.kernel_vector import result_layout  # noqa: E402
from xedialects.lowering.xegpu_to_spirv.spirv_lanes import DVal  # noqa: E402
from xedialects.lowering.xegpu_to_spirv.spirv_layout import Layout  # noqa: E402
from xedialects.passes import run  # noqa: E402
from xedialects.runtime.igc import igc_available  # noqa: E402

needs_igc = pytest.mark.skipif(not igc_available(), reason="IGC not installed (xe-opt --install-igc)")
LARGE = "-ze-opt-large-register-file"

KERNELS = [("gemv", "ger-f32-37x53"), ("gemv", "ger-f16-37x53"), ("gemv", "ger-bf16-37x53"),
           ("reduce", "maximumf-d0-f16-37x129"), ("reduce", "ext-maximumf-d0-f16-f32-37x129")]


def _case(kind, name):
    return GV.CASES[name] if kind == "gemv" else MB.RCASES[name]


def _spirv(kind, name, arch="pvc"):
    case = _case(kind, name)
    m = xedialects.parse(case.src, f"{name}.mlir")
    run(m, f"builtin.module({'xe-bufferize, ' if case.tensor else ''}xe-gemm-to-xegpu{{arch={arch}}})")
    run(m, f"builtin.module(convert-xegpu-to-spirv{{target=pvc arch={arch}}})")
    return m


def _dval(layout):
    return DVal(layout, [None] * layout.nslots, "f32")


def _broadcast_layout(src: Layout, shape):
    idx = np.arange(src.size).reshape(src.shape)
    return Layout.inherit(shape, src, np.broadcast_to(idx, shape))


# ---- the element-wise layout --------------------------------------------------------------------

def test_single_lane_operand_computes_in_the_other_operands_layout():
    column = _broadcast_layout(Layout.canonical((8, 1)), (8, 32))        # x in lane 0, broadcast
    row = _broadcast_layout(Layout.canonical((1, 32)), (8, 32))          # y on the lanes
    assert np.unique(column.lanes).size == 1 and column.nslots == 256 and row.nslots == 16
    assert result_layout([_dval(column), _dval(row)]) == row
    assert result_layout([_dval(row), _dval(column)]) == row


def test_multi_lane_first_operand_keeps_its_layout():
    """A first operand spread over lanes stays (matrix-wg's 8x1 index column in lanes 0-7, broadcast
    to 8x16, 16 registers against 8): the rule only leaves a single-lane layout."""
    column = _broadcast_layout(Layout.canonical((8, 1), 0), (8, 16))
    row = _broadcast_layout(Layout.canonical((16,)), (8, 16))
    assert np.unique(column.lanes).size == 8 and column.nslots == 16 and row.nslots == 8
    assert result_layout([_dval(column), _dval(row)]) == column


@pytest.mark.parametrize("name, products", [("ger-f32-37x53", 8), ("ger-f16-37x53", 16), ("ger-bf16-37x53", 16)])
def test_ger_product_is_one_register_per_16_elements(name, products):
    """The 8x32 (f32: 8x16) product of a ger tile: one multiply per lane register, not per element."""
    text = str(_spirv("gemv", name))
    assert text.count("spirv.FMul") == products
    assert text.count("spirv.GroupNonUniformShuffle") <= 9      # one per row of x (+ a lane id)


# ---- the column-reduction step ------------------------------------------------------------------

@pytest.mark.parametrize("arch", ["pvc", "bmg"])
@pytest.mark.parametrize("elt, rows", [("f16", 8), ("bf16", 8), ("f32", 16)])
def test_gathered_column_reduction_steps_fewer_rows(arch, elt, rows):
    """37x129: rows of 258 (f16/bf16) or 516 (f32) bytes break the 2D block rules; a step's gathers
    and their 64-bit addresses must fit in half the register file: 32 gathers of 192 bytes (6 KiB) do
    not, 16 (3 KiB) do."""
    p = plan_reduction(37, 129, 0, elt, get_arch(arch))
    assert p.sg_data[0] == rows and p.wg_tile[0] == rows
    why = [r for r in p.reasons if r.startswith("reduced-dimension step 8 rows")]
    assert bool(why) == (rows == 8)
    if why:
        assert "gathers, not 2D blocks" in why[0] and "must be a multiple of 4 B" in why[0]


def test_block_column_reduction_keeps_16_rows():
    """A surface the 2D block messages can read keeps the full-width 16-row step."""
    p = plan_reduction(37, 128, 0, "f16", get_arch("pvc"))
    assert p.sg_data == (16, 32)
    assert not any("gathers" in r for r in p.reasons)


# ---- IGC ----------------------------------------------------------------------------------------

@needs_igc
@pytest.mark.parametrize("arch", ["pvc", "bmg"])
@pytest.mark.parametrize("kind, name", KERNELS)
def test_compiles_without_spill(kind, name, arch):
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv
    from xedialects.runtime.igc import build_module

    binary, meta = export_spirv(_spirv(kind, name, arch), "pvc", arch)
    b = build_module(binary, meta, arch)
    want = 256 if LARGE in meta["build_options"] else 128
    for kernel, k in b.kernels.items():
        assert (k.grf_count, k.spill_bytes, k.total.scratch_messages) == (want, 0, 0), (kernel, k)
