"""Helpers shared by the tests of convert-linalg-to-xetile on memory-bound ops (test_linalg_memory_bound,
test_linalg_softmax, test_linalg_gemv): a test_linalg_lowering case lowered by a pipeline, and its
SPIR-V run on the OpenCL CPU runtime (see opencl_support.py) and compared with the CPU."""
import pytest

import xedialects
from xedialects.passes import run

from test_linalg_lowering import XEGPU


def lowered(case, pipeline="convert-linalg-to-xetile"):
    """The module of `case` after `pipeline` (after xe-bufferize for a case on tensors)."""
    m = xedialects.parse(case.src, "case.mlir")
    run(m, f"builtin.module({'xe-bufferize, ' if case.tensor else ''}{pipeline})")
    return m


def opencl_program(case, target="portable"):
    """`case` lowered to SPIR-V for `target` and built for the OpenCL CPU runtime: (module, program);
    the test is skipped when the runtime is not installed."""
    from opencl_support import RT
    if RT is None:
        pytest.skip("OpenCL runtime unavailable")
    from xedialects.runtime.opencl import program_for_module

    m = lowered(case, XEGPU + f", convert-xegpu-to-spirv{{target={target}}}")
    return m, program_for_module(m, RT)


def assert_portable_spirv_matches_cpu(name, case):
    """The portable SPIR-V of `case` on the OpenCL CPU runtime gives what the original program gives
    on the CPU (every buffer and returned value)."""
    from opencl_support import assert_opencl_matches_cpu

    m, program = opencl_program(case)
    assert_opencl_matches_cpu(name, case, m, program)
