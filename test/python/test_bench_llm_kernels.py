"""bench/llm_kernels.py (issue 33's figures) without IGC: every Llama-like quantized shape is one fused kernel
in both weight layouts, and the published figures print with their sources beside the model's."""
import contextlib
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

import llm_kernels  # noqa: E402


def _printed(fn, *args) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(*args)
    return out.getvalue()


def test_every_llama_shape_is_fused_in_both_layouts():
    for layout in ("kn", "nk"):
        text = _printed(llm_kernels.print_quantized, "pvc", False, layout)
        rows = [ln for ln in text.splitlines() if ln.startswith(("W8A16", "W4A16"))]
        assert len(rows) == 2 * len(llm_kernels.QUANT_SHAPES), text
        assert not any("not fused" in r for r in rows), text


def test_published_figures_beside_the_model():
    text = _printed(llm_kernels.print_quantized_published, False)
    assert text.count("github.com/intel/auto-round/pull/2331") == len(llm_kernels.QUANT_PUBLISHED)
    assert text.count("ours (model)") == len(llm_kernels.QUANT_PUBLISHED), text
