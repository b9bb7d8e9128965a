"""pvc SPIR-V binaries (Intel DPAS / 2D block builtins) run on the OpenCL CPU device with the
emulation library (xedialects.runtime.pvc_emulation) linked: every input program of
test_linalg_lowering (FORMS, EPILOGUES, TENSORS) through `xe-gemm-to-spirv` (pvc), compared with
upstream MLIR on the CPU; xe-run --backend both on a pvc pipeline.

Two dynamic-shape programs (K = 24 bf16: a 48-byte-wide A surface) get 2D block messages on a surface
narrower than the hardware's 64-byte minimum: the lowering cannot see the size statically and emits
no run-time guard. The emulation reports that (the test expects the error); a PVC would not run them.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import xedialects
from xedialects.diagnostics import DiagnosticError
from xedialects.passes import run
from xedialects.runtime.opencl import program_for_module, run_opencl
from xedialects.sim.reference import compare, run_reference

sys.path.insert(0, os.path.dirname(__file__))
import test_linalg_lowering as LL  # noqa: E402
from opencl_support import RT, needs_rt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINALG = {f"{group.lower()}:{name}": case for group in ("FORMS", "EPILOGUES", "TENSORS")
          for name, case in getattr(LL, group).items()}


# programs whose pvc binary violates a 2D block surface rule at run time -> the expected report
VIOLATES = {
    "epilogues:bias_col_dynamic": "surface width 48 bytes is below the minimum 64",
    "tensors:inout_dynamic": "surface width 48 bytes is below the minimum 64",
}


@needs_rt
@pytest.mark.parametrize("name", list(LINALG))
def test_linalg_program_as_pvc_binary_matches_cpu_reference(name):
    case = LINALG[name]
    m = xedialects.parse(case.src, f"{name}.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv)")
    program = program_for_module(m, RT)
    assert program.emulated
    args = case.inputs(0)
    want, want_ret = run_reference(LL._reference_program(case), case.entry, [np.copy(a) for a in args],
                                   returns=True)
    if name in VIOLATES:
        with pytest.raises(DiagnosticError, match=r"kernel @\w+ \(pvc builtins emulated .*\): "
                                                  r"intel_sub_group_2d_block_\w+: the " + VIOLATES[name]):
            run_opencl(m, case.entry, [np.copy(a) for a in args], runtime=RT, program=program)
        return
    res = run_opencl(m, case.entry, [np.copy(a) for a in args], runtime=RT, program=program).result
    pairs = [(f"arg{i}", got, ref) for i, (got, ref, a) in enumerate(zip(res.buffers, want, args)) if np.ndim(a)]
    pairs += [(f"result{i}", got, ref) for i, (got, ref) in enumerate(zip(res.returns, want_ret))]
    assert len(res.returns) == len(want_ret)
    bad = []
    for label, got, ref in pairs:
        ok, max_abs, max_rel = compare(got, ref, case.in_type, np.asarray(ref).dtype, k=case.k)
        if not ok:
            bad.append(f"{label}: max abs {max_abs:.3g}, max rel {max_rel:.3g}")
    assert not bad, f"{name}: " + "; ".join(bad)


@needs_rt
def test_xe_run_both_backends_on_a_pvc_binary():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), os.path.join(ROOT, "examples", "gemm_bf16.mlir"),
                        "--pipeline=xe-gemm-to-spirv", "--backend=both", "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "backends agree" in r.stdout and "PASS" in r.stdout


@needs_rt
def test_xe_run_reports_a_violated_surface_rule(tmp_path):
    case = LL.TENSORS["inout_dynamic"]
    f = tmp_path / "inout_dynamic.mlir"
    f.write_text(case.src)
    dims = ",".join(f"{n}={'x'.join(map(str, shape))}" for n, (shape, _) in zip(("A", "B", "C"), case.args))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), str(f), "--pipeline=xe-gemm-to-spirv",
                        "--backend=opencl", "--check", "--dims", dims], capture_output=True, text=True)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "inout_dynamic.mlir:" in r.stderr and "intel_sub_group_2d_block_" in r.stderr, r.stderr
    assert "below the minimum 64" in r.stderr


def test_pvc_module_declares_no_device_enqueue():
    # spirv-update-vce listed DeviceEnqueue (implied by SubgroupDispatch); the kernels enqueue nothing
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv

    m = xedialects.parse(LL.FORMS["plain"].src, "plain.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv)")
    _, meta = export_spirv(m)            # validated by spirv-val
    assert meta["target"] == "pvc" and "SubgroupDispatch" in meta["capabilities"]
    assert "DeviceEnqueue" not in meta["capabilities"]
