"""gpu.printf: C's conversions rendered as C prints them, bad formats a located error (simulator and SPIR-V
lowering), the SPIR-V's OpenCL C printf, and a parallel simulation printing in the serial (documented) order."""
import contextlib
import io
import re
from pathlib import Path

import numpy as np
import pytest

import xedialects
from xedialects.passes import run as run_pipeline
from xedialects.printf_format import parse, render
from xedialects.sim import DiagnosticError, simulate
from xedialects.sim.parallel import Scheduler

LIT = Path(__file__).parents[1] / "lit" / "xe-run"
SIMT = (LIT / "gpu-printf-simt.mlir").read_text()
WORKGROUP = (LIT / "gpu-printf-workgroup.mlir").read_text()


def test_conversions_render_as_c():
    pieces = parse("%d %u %x %#o %lld %hhd %c %5.2f|%-6g|%e %a %*d %%\n",
                   ["i32", "i32", "i32", "i32", "index", "i32", "i8", "f32", "f64", "f16", "f64", "i32", "i32"])
    text = render(pieces, [-3, -1, 255, 8, -5, 300, 65, 2.5, 0.1, 1.5, 3.0, 4, 7])
    assert text == "-3 4294967295 ff 010 -5 44 A  2.50|0.1   |1.500000e+00 0x1.8p+1    7 %\n"


@pytest.mark.parametrize("fmt, types, message", [
    ("%s", ["i32"], "'%s' is not a conversion a kernel can print"),
    ("%d", ["f32"], "wants an integer for '%d' as operand 0, which is f32"),
    ("%f", ["i32"], "wants a float for '%f' as operand 0, which is i32"),
    ("%d %d", ["i32"], "the op has only 1 operand"),
    ("%d", ["i32", "i32"], "takes 1 operand, the op has 2"),
    ("50%", [], "a '%' at the end is not a conversion"),
])
def test_bad_formats(fmt, types, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse(fmt, types)


def _run(launcher=None) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        res = simulate(SIMT, "main", [np.zeros(64, np.int32)], launcher=launcher)
    assert list(res.buffers[0]) == [10 * i for i in range(64)]
    return out.getvalue()


def test_parallel_simulation_prints_in_the_serial_order():
    serial = _run()
    lines = serial.splitlines()
    assert len(lines) == 64 + 8 and lines[:3] == ["wg 0 sg 0 lane 0: x = 0 y = 0.000", "end 0",
                                                  "wg 0 sg 0 lane 1: x = 10 y = 0.500"]
    sched = Scheduler(jobs=2, min_groups=2, min_seconds=0, chunk_subgroups=1)
    assert _run(sched) == serial
    assert sched.modes == ["parallel (2 jobs)"]


def test_bad_format_is_a_located_error_in_the_simulator_and_the_lowering():
    bad = SIMT.replace('"end %d\\n", %gi : i32', '"end %f\\n", %gi : i32')
    assert bad != SIMT
    with pytest.raises(DiagnosticError, match=r"wants a float for '%f' as operand 0, which is i32"):
        simulate(bad, "main", [np.zeros(64, np.int32)])
    with pytest.raises(DiagnosticError) as e:
        run_pipeline(xedialects.parse(bad, "bad.mlir"), "builtin.module(xe-gemm-to-spirv-portable)")
    line = 1 + bad[:bad.index('"end %f')].count("\n")      # the printf's line in the lit file
    assert f"bad.mlir:{line}:7: error: gpu.printf format \"end %f\\n\" wants a float for '%f' as operand 0, which is i32" \
        in str(e.value)


def test_spirv_prints_once_per_subgroup_with_widened_operands():
    """The work-group kernel, distributed (4 subgroups) and lowered for pvc: OpenCL C printf under a lane-0
    test, index as i64, f32 kept, f16 / bf16 as f32, i8 as i32 (C's promotions)."""
    m = xedialects.parse(WORKGROUP, "wg.mlir")
    run_pipeline(m, "builtin.module(xe-gemm-to-spirv)")
    spv = str(m)
    assert re.search(r"spirv.GlobalVariable @printfMsg0 .*: !spirv.ptr<!spirv.array<\d+ x i8>, UniformConstant>", spv)
    call = re.search(r"spirv.mlir.selection \{[^}]*?spirv.CL.printf [^\n]*: !spirv.ptr<i8, UniformConstant>, "
                     r"i64, i64, f32, f32, f32, i32 -> i32", spv)
    assert call is not None and spv.count("spirv.CL.printf") == 1
