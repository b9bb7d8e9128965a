"""xetile-canonicalize on every linalg input form of the end-to-end tests: the canonical subgroup
XeTile and the XeGPU lowered from it are simulated and checked against the original linalg function
compiled for the CPU by upstream MLIR. Transposed operands keep the code the converter produced
before canonicalization (transposed 2D block loads, no extra in-register transposes)."""
import re

import pytest

import xedialects
from xedialects.passes import run
from xedialects.sim import simulate
from xedialects.sim.reference import compare, run_reference

from test_e2e_pipeline import CASES, _inputs, _mm_t

SG = "convert-linalg-to-xetile,xetile-wg-to-sg"
PIPELINES = {
    "canon": f"{SG},xetile-canonicalize",
    "vc": f"{SG},xetile-canonicalize,convert-xetile-to-xegpu,canonicalize,cse",
    # with the blocking stage in between (it leaves tiles whose loads feed tile_transpose 2D)
    "blocked_vc": f"{SG},xetile-canonicalize,xetile-blocking,convert-xetile-to-xegpu,canonicalize,cse",
}
BASELINE_VC = f"{SG},convert-xetile-to-xegpu,canonicalize,cse"


def _f32_t(M, N, K, which):
    """A transposed f32 (tf32) matmul: 32-bit transposed block loads, no VNNI."""
    src, specs = _mm_t(M, N, K, which)
    return src.replace("bf16", "f32"), [(s, "f32") for s, _e in specs]


def _dynamic_t(M, N, K, which):
    """A transposed matmul on dynamic memrefs: the tiles carry explicit base shape and strides."""
    src, specs = _mm_t(M, N, K, which)
    for (r, c), _e in specs:
        src = src.replace(f"memref<{r}x{c}x", "memref<?x?x")
    return src, specs


EXTRA = {
    "f32_transposed_a": _f32_t(64, 48, 40, "a"),
    "f32_transposed_b": _f32_t(48, 64, 40, "b"),
    "dynamic_transposed_a": _dynamic_t(72, 40, 56, "a"),
    "dynamic_transposed_b": _dynamic_t(72, 40, 56, "b"),
}
ALL = {**CASES, **EXTRA}


def _lower(src, pipeline):
    module = xedialects.parse(src, "case.mlir")
    run(module, f"builtin.module({pipeline})")
    return module


def _check(src, specs, pipeline, seed=0):
    args = _inputs(specs, seed)
    want = run_reference(src, "f", [a.copy() for a in args])[2]
    module = _lower(src, pipeline)
    got = simulate(module, "f", [a.copy() for a in args]).buffers[2]
    k = specs[1][0][-2]
    return module, compare(got, want, specs[0][1], specs[2][1], k=max(k, specs[1][0][-1]))


@pytest.mark.parametrize("stage", list(PIPELINES))
@pytest.mark.parametrize("case", list(ALL))
def test_canonicalized_matches_cpu_reference(case, stage):
    src, specs = ALL[case]
    module, (ok, max_abs, max_rel) = _check(src, specs, PIPELINES[stage])
    assert ok, f"{case} after {stage}: max abs {max_abs:.3g}, max rel {max_rel:.3g}"
    text = xedialects.print_ir(module)
    if stage == "canon":
        assert "order = [0, 1]" not in text, "every column-major tile is normalized"
        assert "memref.transpose" not in text


def _counts(text):
    """Load/transpose forms in XeGPU text, SSA names dropped."""
    out = {}
    for line in text.splitlines():
        if re.search(r"xegpu\.load_nd|vector\.transpose|xetile\.tile_transpose", line):
            key = re.sub(r"%[\w#]+", "%", line.strip())
            out[key] = out.get(key, 0) + 1
    return out


TRANSPOSED = [c for c in ALL if "transposed" in c]


@pytest.mark.parametrize("case", TRANSPOSED)
def test_transposed_operands_keep_transposed_loads(case):
    src, _specs = ALL[case]
    new = xedialects.print_ir(_lower(src, PIPELINES["vc"]))
    old = xedialects.print_ir(_lower(src, BASELINE_VC))
    assert _counts(new) == _counts(old)
    if case in ("transposed_a", "dynamic_transposed_a"):
        # a bf16 A operand has no transposed block load on PVC (only 32-bit and VNNI B forms):
        # plain load + in-register transpose, as before canonicalization
        assert "vector.transpose" in new
    else:
        assert "transpose = [1, 0]" in new
        assert "vector.transpose" not in new
    assert "xetile." not in new
    blocked = xedialects.print_ir(_lower(src, PIPELINES["blocked_vc"]))
    n_t = lambda text: len(re.findall(r"xegpu\.load_nd .*transpose = \[1, 0\]", text))  # noqa: E731
    assert n_t(blocked) == n_t(old)
    assert blocked.count("vector.transpose") == old.count("vector.transpose")


def test_option_normalize_order_off_keeps_column_major_tiles():
    src, _specs = CASES["transposed_b"]
    module = _lower(src, f"{SG},xetile-canonicalize{{normalize-order=false}}")
    text = xedialects.print_ir(module)
    assert "order = [0, 1]" in text
    assert "xetile.tile_transpose" not in text
