"""Intel's OpenCL CPU runtime for the tests that run SPIR-V: loaded once here. `needs_rt` skips a
test only when the runtime is not installed (the `run` extra left out); with XE_NO_SKIPS=1 (CI)
a missing runtime is an error at import."""
import os

import pytest

from xedialects.runtime import opencl_env
from xedialects.runtime.opencl import OpenCLError


def _runtime_or_reason():
    try:
        return opencl_env.load(), None
    except OpenCLError as e:
        return None, str(e)


RT, WHY = _runtime_or_reason()
if RT is None and os.environ.get("XE_NO_SKIPS") == "1":   # CI installs the runtime: never skip there
    raise RuntimeError(f"XE_NO_SKIPS=1 but the OpenCL runtime is unavailable: {WHY}")
needs_rt = pytest.mark.skipif(RT is None, reason=f"OpenCL runtime unavailable (pip install -e '.[run]'): {WHY}")


def assert_opencl_matches_cpu(name, case, module, program):
    """Run the lowered `module` of a test_linalg_lowering case on the device with `program` and
    compare every buffer and returned value with the original program run on the CPU by upstream
    MLIR (the kernels must have written something)."""
    import numpy as np

    from test_linalg_lowering import _reference_program
    from xedialects.runtime.opencl import run_opencl
    from xedialects.sim.reference import compare, run_reference

    args = case.inputs(0)
    want, want_ret = run_reference(_reference_program(case), case.entry, [np.copy(a) for a in args], returns=True)
    res = run_opencl(module, case.entry, [np.copy(a) for a in args], runtime=RT, program=program).result
    pairs = [(f"arg{i}", got, ref) for i, (got, ref, a) in enumerate(zip(res.buffers, want, args)) if np.ndim(a)]
    pairs += [(f"result{i}", got, ref) for i, (got, ref) in enumerate(zip(res.returns, want_ret))]
    assert len(res.returns) == len(want_ret)
    assert want_ret or any(np.ndim(a) and not np.array_equal(g, a) for g, a in zip(res.buffers, args))
    bad = []
    for label, got, ref in pairs:
        ok, max_abs, max_rel = compare(got, ref, case.in_type, np.asarray(ref).dtype, k=case.k)
        if not ok:
            bad.append(f"{label}: max abs {max_abs:.3g}, max rel {max_rel:.3g}")
    assert not bad, f"{name}: " + "; ".join(bad)
