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
