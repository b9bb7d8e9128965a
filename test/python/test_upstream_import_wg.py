"""Work-group upstream xegpu through the import: row statistics of an online softmax (the shape of
IMEX's flash attention) whose row max / row sum are expanded to 32x1 by `vector.shape_cast` and then
scaled, maxed, exponentiated and loop-carried -- what LLVM 22's xegpu-wg-to-sg-distribute takes only
after `unit_dims.collapse_unit_dim_values` keeps those values 1D. Checked: the rewrite itself, the
numbers (simulated, against float64 loops), and the located errors where the rewrite stops."""
import os
import sys

import numpy as np
import pytest

from xedialects.diagnostics import DiagnosticError
from xedialects.lowering.upstream_to_xegpu import import_upstream, to_ours_text
from xedialects.sim import simulate

sys.path.insert(0, os.path.dirname(__file__))
from test_upstream_import import _launched_kernel  # noqa: E402

PRELUDE = """\
#t = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 16], inst_data = [8, 16]>
#r = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 1], inst_data = [8, 1]>
#v = #xegpu.layout<sg_layout = [2], sg_data = [16], inst_data = [8]>
"""

# m, l of each row of x (32x64) over four 32x16 column blocks, scale 1/2:
#   m' = max(m, rowmax(x_j) * s);  l' = l * exp(m - m') + rowsum(exp(x_j * s - m'))
# then m and l broadcast to 32x16 and stored side by side in o (32x32).
STATS_BODY = """\
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %tx = xegpu.create_nd_tdesc %x : memref<32x64xf32> -> !xegpu.tensor_desc<32x16xf32, #t>
    %m0 = arith.constant {layout_result_0 = #r} dense<0xFF800000> : vector<32x1xf32>
    %l0 = arith.constant {layout_result_0 = #r} dense<0.0> : vector<32x1xf32>
    %s1 = arith.constant {layout_result_0 = #r} dense<0.5> : vector<32x1xf32>
    %s16 = arith.constant {layout_result_0 = #t} dense<0.5> : vector<32x16xf32>
    %ninf = arith.constant {layout_result_0 = #v} dense<0xFF800000> : vector<32xf32>
    %zero = arith.constant {layout_result_0 = #v} dense<0.0> : vector<32xf32>
    %res:2 = scf.for %j = %c0 to %c64 step %c16 iter_args(%m = %m0, %l = %l0) -> (vector<32x1xf32>, vector<32x1xf32>) {
      %xt = xegpu.load_nd %tx[%c0, %j] {layout = #t} : !xegpu.tensor_desc<32x16xf32, #t> -> vector<32x16xf32>
      %mx = vector.multi_reduction <maximumf>, %xt, %ninf {layout_result_0 = #xegpu.slice<#t, dims = [1]>} [1] : vector<32x16xf32> to vector<32xf32>
      %mx2 = vector.shape_cast %mx {layout_result_0 = #r} : vector<32xf32> to vector<32x1xf32>
      %mxs = arith.mulf %mx2, %s1 {layout_result_0 = #r} : vector<32x1xf32>
      %mn = arith.maximumf %mxs, %m {layout_result_0 = #r} : vector<32x1xf32>
      %xs = arith.mulf %xt, %s16 {layout_result_0 = #t} : vector<32x16xf32>
      %mb = vector.broadcast %mn {layout_result_0 = #t} : vector<32x1xf32> to vector<32x16xf32>
      %d = arith.subf %xs, %mb {layout_result_0 = #t} : vector<32x16xf32>
      %e = math.exp %d {layout_result_0 = #t} : vector<32x16xf32>
      %sum = vector.multi_reduction <add>, %e, %zero {layout_result_0 = #xegpu.slice<#t, dims = [1]>} [1] : vector<32x16xf32> to vector<32xf32>
      %sum2 = vector.shape_cast %sum {layout_result_0 = #r} : vector<32xf32> to vector<32x1xf32>
      %dm = arith.subf %m, %mn {layout_result_0 = #r} : vector<32x1xf32>
      %alpha = math.exp %dm {layout_result_0 = #r} : vector<32x1xf32>
      %la = arith.mulf %l, %alpha {layout_result_0 = #r} : vector<32x1xf32>
      %ln = arith.addf %la, %sum2 {layout_result_0 = #r} : vector<32x1xf32>
      scf.yield %mn, %ln : vector<32x1xf32>, vector<32x1xf32>
    } {layout_result_0 = #r, layout_result_1 = #r}
    %mo = vector.broadcast %res#0 {layout_result_0 = #t} : vector<32x1xf32> to vector<32x16xf32>
    %lo = vector.broadcast %res#1 {layout_result_0 = #t} : vector<32x1xf32> to vector<32x16xf32>
    %to = xegpu.create_nd_tdesc %o : memref<32x32xf32> -> !xegpu.tensor_desc<32x16xf32, #t>
    xegpu.store_nd %mo, %to[%c0, %c0] {layout = #t} : vector<32x16xf32>, !xegpu.tensor_desc<32x16xf32, #t>
    xegpu.store_nd %lo, %to[%c0, %c16] {layout = #t} : vector<32x16xf32>, !xegpu.tensor_desc<32x16xf32, #t>
"""
PARAMS = "%x: memref<32x64xf32>, %o: memref<32x32xf32>"
STATS = _launched_kernel(PARAMS, 32, STATS_BODY, PRELUDE)


def _reference(x: np.ndarray):
    """(m, l) of the kernel's recurrence in float64, block by block, element by element."""
    rows = x.shape[0]
    m = np.full(rows, -np.inf)
    l = np.zeros(rows)
    for j in range(0, x.shape[1], 16):
        for i in range(rows):
            blk = [float(v) * 0.5 for v in x[i, j:j + 16]]
            mn = max(max(blk), m[i])
            l[i] = l[i] * np.exp(m[i] - mn) + sum(np.exp(v - mn) for v in blk)
            m[i] = mn
    return m, l


def test_rewrite_keeps_unit_dim_values_1d():
    """Before upstream's passes: both shape_casts are gone, the loop carries 32-element vectors with
    the layout without the unit dim, and each broadcast reads a new shape_cast (its only user) of an
    identity carrying the slice of the 32x1 layout."""
    from mlir import ir

    from xedialects.lowering.upstream_to_xegpu.driver import parse_upstream
    from xedialects.lowering.upstream_to_xegpu.unit_dims import collapse_unit_dim_values
    from xedialects.passes.utils.ir_walk import walk

    ctx, module_op = parse_upstream(STATS, "stats.mlir")
    with ctx, ir.Location.unknown():
        assert collapse_unit_dim_values(module_op, "stats.mlir") == 2
        ops = list(walk(module_op))
        loop = next(op for op in ops if op.name == "scf.for" and len(op.results) == 2)
        assert [str(r.type) for r in loop.results] == ["vector<32xf32>", "vector<32xf32>"]
        flat = "#xegpu.layout<sg_layout = [2], sg_data = [16], inst_data = [8]>"
        assert str(loop.attributes["layout_result_0"]) == flat == str(loop.attributes["layout_result_1"])
        casts = [op for op in ops if op.name == "vector.shape_cast"]
        assert len(casts) == 3  # one per broadcast (%mb in the loop, %mo, %lo after it)
        assert all(u.owner.name == "vector.broadcast" for op in casts for u in op.results[0].uses)
        sliced = "#xegpu.slice<#xegpu.layout<sg_layout = [2, 1], sg_data = [16, 1], inst_data = [8, 1]>, dims = [1]>"
        assert all(str(op.operands[0].owner.attributes["layout_result_0"]) == sliced for op in casts)
        assert module_op.verify()


def test_online_softmax_row_statistics_run():
    """The whole kernel imported (upstream's passes, then VC mode) and simulated: the row max is exact
    (max and a power-of-two scale), the row sum within f32 rounding of the float64 recurrence."""
    text = to_ours_text(STATS, "stats.mlir")
    assert "copysign" not in text and "sg_layout" not in text and "vector<8xf32>" in text
    x = np.random.default_rng(11).uniform(-4, 4, (32, 64)).astype(np.float32)
    out = simulate(import_upstream(STATS, "stats.mlir"), "main", [x, np.zeros((32, 32), np.float32)]).buffers[1]
    _, l = _reference(x)
    assert np.array_equal(out[:, :16], np.repeat((x.max(1) * np.float32(0.5))[:, None], 16, 1))
    assert np.allclose(out[:, 16:], np.repeat(l[:, None], 16, 1), rtol=2e-6, atol=0)


def _line_col(text: str, needle: str):
    """(line, col) of the op `needle` ("%r = op.name") in `text`: MLIR locates an op at its name."""
    for n, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return n, line.index(needle) + needle.index("= ") + 3
    raise AssertionError(needle)


@pytest.mark.parametrize("edit,needle,message", [
    # the row max read by an op the rewrite does not take
    (lambda b: b.replace("      %mxs = ", "      %x00 = vector.extract %mx2[0, 0] : f32 from vector<32x1xf32>\n"
                                       "      %mxs = "),
     "%x00 = vector.extract", "but 'vector.extract' uses it"),
    # the reduction's rows go round robin (8 per subgroup, twice) while its 32x1 gives 16 to each
    (lambda b: b.replace("%mx = vector.multi_reduction <maximumf>, %xt, %ninf {layout_result_0 = #xegpu.slice<#t,",
                         "%mx = vector.multi_reduction <maximumf>, %xt, %ninf {layout_result_0 = #xegpu.slice<"
                         "#xegpu.layout<sg_layout = [2, 1], sg_data = [8, 16], inst_data = [8, 16]>,"),
     "%mx2 = vector.shape_cast", "'vector.shape_cast' reads a value distributed otherwise"),
])
def test_unsupported_unit_dim_use_is_a_located_error(edit, needle, message):
    text = _launched_kernel(PARAMS, 32, edit(STATS_BODY), PRELUDE)
    with pytest.raises(DiagnosticError) as e:
        import_upstream(text, "bad.mlir")
    d = e.value.diagnostics[0]
    assert (d.filename, d.line, d.col) == ("bad.mlir", *_line_col(text, needle)), d
    assert message in d.message and "convert-upstream-xegpu: a unit-dim value" in d.message
