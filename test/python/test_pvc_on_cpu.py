"""pvc SPIR-V binaries (Intel DPAS / 2D block builtins) run on the OpenCL CPU device with the
emulation library (xedialects.runtime.pvc_emulation) linked: every input program of
test_linalg_lowering (FORMS, EPILOGUES, TENSORS) through `xe-gemm-to-spirv` (pvc), compared with
upstream MLIR on the CPU; xe-run --backend both on a pvc pipeline.

Dynamic surfaces get a run-time test of the 2D block surface rules, once at the kernel entry when
they come from its arguments (surface versioning: a fast copy with unguarded builtins, a slow copy
with a test around each block message and a per-lane fallback when it fails): one binary of a
dynamic GEMM runs with a 64-byte-wide A surface (K = 32 bf16: the builtins) and a 48-byte-wide one
(K = 24: the fallback), both match; with either copy emptied, the dims of the other path no longer
match, so each path ran.
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


def _keep_one_surface_version(module, keep):
    """Empty the other branch of each kernel's surface versioning (the spirv.mlir.selection at the
    top of the spirv.func: then = the fast copy, else = the slow copy); returns how many."""
    n = 0
    for op in _walk(module.operation):
        if op.name != "spirv.func" or not len(op.regions[0].blocks):       # declarations of builtins
            continue
        top = [o.operation for o in op.regions[0].blocks[0].operations if o.operation.name == "spirv.mlir.selection"]
        if len(top) != 1:
            continue
        blocks = list(top[0].regions[0].blocks)          # header, then, else, merge
        drop = blocks[2] if keep == "fast" else blocks[1]
        for child in reversed([o.operation for o in drop.operations][:-1]):
            child.erase()
        n += 1
    return n


def _walk(op):
    yield op
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield from _walk(child.operation)


@needs_rt
def test_surface_versions_each_path_runs():
    """A dynamic GEMM's surfaces come from kernel arguments: the kernel tests the 2D block surface
    rules once, at its entry, and runs either the copy with unguarded builtins (fast) or the copy
    with a test at each access (slow; docs/spirv.md). K = 32 bf16 (64-byte rows: the rules hold) and
    K = 36 (72-byte row pitch, not a multiple of 16: they do not) both match the CPU reference. Each
    path ran: with the slow copy emptied, K = 32 still matches (the fast copy computed it) and
    K = 36 does not; with the fast copy emptied, K = 36 matches (the slow copy did) and K = 32 does
    not. An unguarded builtin on the 72-byte pitch would be an error of the emulation."""
    good, bad = LL.tensor_inout(40, 72, 32, dyn=True), LL.tensor_inout(40, 72, 36, dyn=True)
    assert good.src == bad.src

    def lowered(keep=None):
        m = xedialects.parse(good.src, "gemm_dynamic.mlir")
        run(m, "builtin.module(xe-gemm-to-spirv)")
        if keep is not None:
            assert _keep_one_surface_version(m, keep) == 1
        program = program_for_module(m, RT)
        assert program.emulated
        return m, program

    m, program = lowered()
    assert_opencl_matches_cpu("K=32", good, m, program)
    assert_opencl_matches_cpu("K=36", bad, m, program)
    for keep, runs, skips in (("fast", good, bad), ("slow", bad, good)):
        m, program = lowered(keep)
        assert_opencl_matches_cpu(f"{keep} copy only, K={runs.k}", runs, m, program)
        with pytest.raises(AssertionError):
            assert_opencl_matches_cpu(f"{keep} copy only, K={skips.k}", skips, m, program)


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



def _bf16_bits_expected(f32):
    """The f32 -> bf16 rule of the simulator and the pvc emulation (docs/numerics.md): nearest even,
    a NaN the canonical quiet NaN with its sign."""
    import numpy as np

    u = f32.view(np.uint32).astype(np.uint64)
    hi = u >> 16
    rne = ((u + 0x7FFF + (hi & 1)) >> 16) & 0xFFFF
    return np.where(np.isnan(f32), (hi & 0x8000) | 0x7FC0, rne).astype(np.uint16)


def _sim_and_pvc_emulation(src, args, name):
    """Output buffer bits of `src` through xe-gemm-to-spirv (pvc): (simulator, OpenCL emulation)."""
    import numpy as np

    from xedialects.runtime.opencl import run_opencl
    from xedialects.sim import simulate

    m = xedialects.parse(src, name)
    run(m, "builtin.module(xe-gemm-to-spirv)")
    assert "__spirv_ConvertFToBF16INTEL" in str(m)
    sim = simulate(m, "f", [x.copy() for x in args]).buffers[-1].view(np.uint16)
    ocl = run_opencl(m, "f", [x.copy() for x in args], runtime=RT,
                     program=program_for_module(m, RT)).result.buffers[-1].view(np.uint16)
    return sim, ocl


_TRUNCF = """#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%A: memref<16x64xf32>, %C: memref<16x64xbf16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%A : memref<16x64xf32>) outs(%C : memref<16x64xbf16>) {
  ^bb0(%a: f32, %c: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}
"""


@needs_rt
def test_bf16_conversion_bits_on_pvc():
    """f32 -> bf16 on the pvc target is the imported `__spirv_ConvertFToBF16INTEL` (the emulation
    library defines it): an element-wise truncf and a bf16-out GEMM, simulator and emulation bit
    for bit equal to the rule. truncf: ties and near-ties, overflow by rounding, infinities, -0,
    denormals, quiet / signaling / negative NaNs with payloads (the CPU runtime's own version of
    the builtin would give 0xffc1 for each; the integer sequence of the portable target keeps the
    payload). GEMM: C = B[0] + 2^-8 * B[1] in the DPAS accumulator
    (exact), so the conversion of the result decides ties, overflow to inf, inf and NaN."""
    import ml_dtypes
    import numpy as np

    special = np.array([0x3F808000, 0x3F818000, 0x3F808001, 0xBF808000, 0x7F7F8000, 0x7F7FFFFF, 0x7F800000,
                        0xFF800000, 0x80000000, 0x00008000, 0x00018000, 0x7F800001, 0x7FA00000, 0xFFC12345,
                        0x7FFFFFFF, 0xFF80FFFF], np.uint32)
    x = np.random.default_rng(3).standard_normal((16, 64)).astype(np.float32)
    x.reshape(-1)[:len(special)] = special.view(np.float32)
    sim, ocl = _sim_and_pvc_emulation(_TRUNCF, [x, np.zeros((16, 64), ml_dtypes.bfloat16)], "truncf.mlir")
    want = _bf16_bits_expected(x)
    assert np.array_equal(sim, want) and np.array_equal(ocl, want)
    assert list(want.reshape(-1)[:len(special)]) == [0x3F80, 0x3F82, 0x3F81, 0xBF80, 0x7F80, 0x7F80, 0x7F80, 0xFF80,
                                                     0x8000, 0x0000, 0x0002, 0x7FC0, 0x7FC0, 0xFFC0, 0x7FC0, 0xFFC0]

    bf = ml_dtypes.bfloat16
    a = np.zeros((64, 64), bf)
    a[:, 0], a[:, 1] = 1, 2.0 ** -8
    b = np.zeros((64, 64), bf)
    b[0, :8] = [1.0, 1.0, 1.0, 1.0, 2.0, -1.0, 3.0, 1.0]
    b[1, :8] = [1.0, 3.0, 1.0 + 2 ** -7, -1.0, 1.0, -1.0, -2.0 ** -6, 0.0]
    b[0, 8:] = np.linspace(-3, 3, 56).astype(bf)
    b[1, 8:] = np.arange(56, dtype=np.float32) - 28
    # max bf16 (+ 2^119 below: the f32 tie above it rounds to inf), inf, -inf, NaNs with payloads
    b[0, 8:13] = np.array([0x7F7F, 0x7F80, 0xFF80, 0x7F81, 0xFFC3], np.uint16).view(bf)
    b[1, 8] = 2.0 ** 127
    sim, ocl = _sim_and_pvc_emulation(LL.FORMS["bf16_bf16"].src, [a, b, np.zeros((64, 64), bf)], "bf16_bf16.mlir")
    with np.errstate(invalid="ignore"):
        exact = b[0].astype(np.float32) + np.float32(2.0 ** -8) * b[1].astype(np.float32)
    want = np.broadcast_to(_bf16_bits_expected(exact), (64, 64))
    assert np.array_equal(sim, want) and np.array_equal(ocl, want)
    assert list(want[0, :4]) == [0x3F80, 0x3F82, 0x3F81, 0x3F7F] and list(want[0, 8:13]) == [0x7F80, 0x7F80, 0xFF80,
                                                                                            0x7FC0, 0xFFC0]
