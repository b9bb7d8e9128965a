"""pvc SPIR-V binaries (Intel DPAS / 2D block builtins) run on the OpenCL CPU device with the
emulation library (xedialects.runtime.pvc_emulation) linked: every input program of
test_linalg_lowering (FORMS, EPILOGUES, TENSORS) through `xe-gemm-to-spirv` (pvc), compared with
upstream MLIR on the CPU; xe-run --backend both on a pvc pipeline.

Dynamic surfaces get a run-time test of the 2D block surface rules around each block message and
a per-lane fallback when it fails: one binary of a dynamic GEMM runs with a 64-byte-wide A surface
(K = 32 bf16: the builtins) and a 48-byte-wide one (K = 24: the fallback), both match.
"""
import os
import subprocess
import sys

import pytest

import xedialects
from xedialects.passes import run
from xedialects.runtime.opencl import program_for_module

sys.path.insert(0, os.path.dirname(__file__))
import test_linalg_lowering as LL  # noqa: E402
from opencl_support import RT, assert_opencl_matches_cpu, needs_rt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINALG = {f"{group.lower()}:{name}": case for group in ("FORMS", "EPILOGUES", "TENSORS")
          for name, case in getattr(LL, group).items()}


@needs_rt
@pytest.mark.parametrize("name", list(LINALG))
def test_linalg_program_as_pvc_binary_matches_cpu_reference(name):
    case = LINALG[name]
    m = xedialects.parse(case.src, f"{name}.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv)")
    program = program_for_module(m, RT)
    assert program.emulated
    assert_opencl_matches_cpu(name, case, m, program)


@needs_rt
def test_xe_run_both_backends_on_a_pvc_binary():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), os.path.join(ROOT, "examples", "gemm_bf16.mlir"),
                        "--pipeline=xe-gemm-to-spirv", "--backend=both", "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "backends agree" in r.stdout and "PASS" in r.stdout


@needs_rt
@pytest.mark.parametrize("k", [32, 24], ids=["valid_surface_builtins", "narrow_surface_fallback"])
def test_dynamic_surface_guard_takes_builtin_or_fallback(k):
    """One pvc binary of a dynamic GEMM: each 2D block access on a dynamic surface is guarded by a
    run-time test of the surface rules. K = 32 bf16 gives a 64-byte-wide A surface (rules hold: the
    builtins run, so the emulation checks them); K = 24 a 48-byte-wide one (the emulation would
    report a builtin on it: the per-lane fallback runs). Both match the CPU reference."""
    case = LL.tensor_inout(40, 72, k, dyn=True)
    m = xedialects.parse(case.src, f"inout_dynamic_k{k}.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv)")
    text = str(m)
    assert "intel_sub_group_2d_block_read" in text and "spirv.ConvertPtrToU" not in text
    program = program_for_module(m, RT)
    assert program.emulated
    assert_opencl_matches_cpu(f"k={k}", case, m, program)


@needs_rt
def test_xe_run_on_a_narrow_dynamic_surface(tmp_path):
    case = LL.TENSORS["inout_dynamic"]
    f = tmp_path / "inout_dynamic.mlir"
    f.write_text(case.src)
    dims = ",".join(f"{n}={'x'.join(map(str, shape))}" for n, (shape, _) in zip(("A", "B", "C"), case.args))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), str(f), "--pipeline=xe-gemm-to-spirv",
                        "--backend=opencl", "--check", "--dims", dims], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "PASS" in r.stdout, r.stdout


def test_pvc_module_declares_no_device_enqueue():
    # spirv-update-vce listed DeviceEnqueue (implied by SubgroupDispatch); the kernels enqueue nothing
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv

    m = xedialects.parse(LL.FORMS["plain"].src, "plain.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv)")
    _, meta = export_spirv(m)            # validated by spirv-val
    assert meta["target"] == "pvc" and "SubgroupDispatch" in meta["capabilities"]
    assert "DeviceEnqueue" not in meta["capabilities"]


@needs_rt
def test_bmg_binary_emulated_with_the_recorded_arch(monkeypatch):
    """A binary converted for arch=bmg records bmg in its metadata; the launcher links the emulation
    with bmg's surface rules and reads its error records as bmg's, and the GEMM matches the CPU."""
    from xedialects.runtime import pvc_emulation

    asked = []
    options, describe = pvc_emulation.options, pvc_emulation.describe_error
    monkeypatch.setattr(pvc_emulation, "options", lambda arch="pvc": asked.append(("options", arch)) or options(arch))
    monkeypatch.setattr(pvc_emulation, "describe_error",
                        lambda words, arch="pvc": asked.append(("describe", arch)) or describe(words, arch))
    case = LL.mm(64, 64, 32)
    m = xedialects.parse(case.src, "bmg.mlir")
    run(m, "builtin.module(xe-gemm-to-spirv{arch=bmg})")
    program = program_for_module(m, RT)
    assert program.meta["arch"] == "bmg" and program.arch == "bmg" and program.emulated
    assert_opencl_matches_cpu("bmg", case, m, program)
    assert ("options", "bmg") in asked and ("describe", "bmg") in asked
    assert all(arch == "bmg" for _, arch in asked)


def test_unknown_arch_in_the_metadata_is_a_clear_error():
    from xedialects.runtime.opencl import OpenCLError, Program

    with pytest.raises(OpenCLError, match=r"metadata names an unknown architecture: unknown architecture 'bmg2'"):
        Program(RT, b"", {"target": "pvc", "arch": "bmg2", "kernels": []})
