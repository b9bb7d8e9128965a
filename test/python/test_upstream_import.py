"""Import of upstream MLIR xegpu (xedialects.lowering.upstream_to_xegpu): the round trip -- every
linalg lowering program of test_upstream_export.py lowered by xe-gemm-to-xegpu, exported to upstream
xegpu, imported back and simulated -- gives the same bits as simulating our own XeGPU; each level
(subgroup -> VC mode, work-group through upstream's passes, lane -> SIMT mode) runs numerically;
what cannot be imported is a located error naming the op. xe-run and xe-opt take upstream input."""
import os
import subprocess
import sys

import numpy as np
import pytest

import xedialects
from xedialects.diagnostics import DiagnosticError
from xedialects.lowering.upstream_to_xegpu import import_upstream, looks_upstream, to_ours_text
from xedialects.lowering.xegpu_to_upstream import export_upstream
from xedialects.passes import run
from xedialects.sim import simulate

sys.path.insert(0, os.path.dirname(__file__))
import test_upstream_export as UE  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROUND_TRIP = [n for n in UE.PROGRAMS if n not in UE.SCATTERED]


def _launched_kernel(params: str, threads: int, body: str, prelude: str = "") -> str:
    """A program of upstream xegpu: gpu.module @k with kernel @f(`params`) -- its ops `body`, then
    gpu.return -- and func @main(`params`) launching it on one work-group of `threads` work-items
    (after `prelude`: attribute aliases)."""
    return (f"\n{prelude}gpu.module @k {{\n  gpu.func @f({params}) kernel {{\n{body}    gpu.return\n  }}\n}}\n"
            f"func.func @main({params}) {{\n  %c1 = arith.constant 1 : index\n"
            f"  %c{threads} = arith.constant {threads} : index\n"
            f"  gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c{threads}, %c1, %c1) "
            f"args({params.replace(': ', ' : ')})\n  return\n}}\n")


def _ours(case):
    mod = xedialects.parse(case.src, "case.mlir")
    run(mod, "builtin.module(xe-gemm-to-xegpu)")
    return mod


# the descriptors form (offsets on create_nd_tdesc, update_nd_offset chains) on a cross-section
DESCRIPTORS = ["form:plain", "form:transposed_b", "form:batch", "form:dynamic", "form:i8_i32", "form:tf32",
               "epilogue:bias_col_dynamic", "tensor:inout_dynamic"]


@pytest.mark.parametrize("name,form", [(n, "offsets") for n in ROUND_TRIP] + [(n, "descriptors") for n in DESCRIPTORS])
def test_round_trip_is_bit_identical(name, form):
    """export (either form) -> import -> simulate == simulate our VC-mode XeGPU, buffer by buffer,
    bit for bit."""
    case = UE.PROGRAMS[name]
    mod = _ours(case)
    text = export_upstream(mod, form=form)
    assert looks_upstream(text)
    UE.assert_same_buffers(mod, import_upstream(text, f"{name}.up.mlir"), case.entry, case.inputs())


def test_round_trip_covers_every_program():
    """Here the block-access programs; the scattered-fallback ones round-trip in
    test_upstream_export.test_scattered_program_round_trip: all 35 between the two."""
    assert set(UE.PROGRAMS) - set(ROUND_TRIP) == UE.SCATTERED


SG = _launched_kernel("%a: memref<16x32xf16>, %b: memref<32x16xf16>, %c: memref<16x16xf32>", 16, """\
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %ta = xegpu.create_nd_tdesc %a : memref<16x32xf16> -> !xegpu.tensor_desc<8x16xf16, #xegpu.block_tdesc_attr<array_length = 2>>
    %tb = xegpu.create_nd_tdesc %b : memref<32x16xf16> -> !xegpu.tensor_desc<32x16xf16>
    %tbt = xegpu.create_nd_tdesc %c : memref<16x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %vb = xegpu.load_nd %tb[0, 0] <{l1_hint = #xegpu.cache_hint<cached>}> : !xegpu.tensor_desc<32x16xf16> -> vector<32x16xf16>
    %b0 = vector.extract_strided_slice %vb {offsets = [0, 0], sizes = [16, 16], strides = [1, 1]} : vector<32x16xf16> to vector<16x16xf16>
    %b1 = vector.extract_strided_slice %vb {offsets = [16, 0], sizes = [16, 16], strides = [1, 1]} : vector<32x16xf16> to vector<16x16xf16>
    %r = scf.for %i = %c0 to %c8 step %c8 iter_args(%x = %c0) -> (index) {
      %va = xegpu.load_nd %ta[%i, 0] : !xegpu.tensor_desc<8x16xf16, #xegpu.block_tdesc_attr<array_length = 2>> -> vector<2x8x16xf16>
      %a0 = vector.extract %va[0] : vector<8x16xf16> from vector<2x8x16xf16>
      %a1 = vector.extract %va[1] : vector<8x16xf16> from vector<2x8x16xf16>
      %d0 = xegpu.dpas %a0, %b0 : vector<8x16xf16>, vector<16x16xf16> -> vector<8x16xf32>
      %d1 = xegpu.dpas %a1, %b1, %d0 : vector<8x16xf16>, vector<16x16xf16>, vector<8x16xf32> -> vector<8x16xf32>
      xegpu.store_nd %d1, %tbt[%i, 0] : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      scf.yield %x : index
    }
""")


def _ab(m=16, k=32, n=16, seed=1):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    return a, b


def test_subgroup_kernel_runs_in_vc_mode():
    """array_length loads, slices of a 2D B put in VNNI layout once per value, dpas without acc."""
    text = to_ours_text(SG, "sg.mlir")
    assert "mode = vc" in text and "#xegpu.block_tdesc_attr" not in text and text.count("vector.transpose") == 2
    a, b = _ab()
    out = simulate(import_upstream(SG, "sg.mlir"), "main", [a, b, np.zeros((16, 16), np.float32)]).buffers[2]
    want = a.astype(np.float32)[:8] @ b.astype(np.float32)
    assert np.array_equal(out[:8], want)      # integers: exact


# an 8x16x16 f16 DPAS's operands at lane level (%a, %b, %c: A, B, C): A lane l column l, B packed
LANE_F16_OPERANDS = """\
    %ta = xegpu.create_nd_tdesc %a : memref<8x16xf16> -> !xegpu.tensor_desc<8x16xf16>
    %tb = xegpu.create_nd_tdesc %b : memref<16x16xf16> -> !xegpu.tensor_desc<16x16xf16>
    %tc = xegpu.create_nd_tdesc %c : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %va = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<8x16xf16> -> vector<8xf16>
    %vb = xegpu.load_nd %tb[0, 0] <{packed}> : !xegpu.tensor_desc<16x16xf16> -> vector<16xf16>
"""
LANE = _launched_kernel(
    "%a: memref<8x16xf16>, %b: memref<16x16xf16>, %c: memref<8x16xf32>, %o: memref<16xf32>", 16, LANE_F16_OPERANDS + """\
    %d = xegpu.dpas %va, %vb : vector<8xf16>, vector<16xf16> -> vector<8xf32>
    xegpu.store_nd %d, %tc[0, 0] : vector<8xf32>, !xegpu.tensor_desc<8x16xf32>
    %t = gpu.thread_id x
    %m = arith.constant true
    %x = vector.extract %d[0] : f32 from vector<8xf32>
    %v = vector.from_elements %x : vector<1xf32>
    xegpu.store %v, %o[%t], %m : vector<1xf32>, memref<16xf32>, index, i1
""")


def test_lane_kernel_runs_in_simt_mode():
    """Lane-level: per-lane 1D vectors become sg_map fragments; a scattered store with per-lane offsets."""
    text = to_ours_text(LANE, "lane.mlir")
    assert "mode = vc" not in text and "sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>" in text
    assert "xegpu.store_scatter" in text and "gpu.thread_id" in text
    a, b = _ab(8, 16, 16)
    res = simulate(import_upstream(LANE, "lane.mlir"), "main",
                   [a, b, np.zeros((8, 16), np.float32), np.zeros(16, np.float32)]).buffers
    want = a.astype(np.float32) @ b.astype(np.float32)
    assert np.array_equal(res[2], want) and np.array_equal(res[3], want[0])


WG = _launched_kernel("%a: memref<32x32xf32>, %c: memref<32x32xf32>", 64, """\
    %c0 = arith.constant 0 : index
    %t = xegpu.create_nd_tdesc %a : memref<32x32xf32> -> !xegpu.tensor_desc<32x32xf32, #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16]>>
    %v = xegpu.load_nd %t[%c0, %c0] {layout = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16]>} : !xegpu.tensor_desc<32x32xf32, #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16]>> -> vector<32x32xf32>
    %e = math.exp %v {layout_result_0 = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16]>} : vector<32x32xf32>
    %tc = xegpu.create_nd_tdesc %c : memref<32x32xf32> -> !xegpu.tensor_desc<32x32xf32, #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16]>>
    xegpu.store_nd %e, %tc[%c0, %c0] {layout = #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16]>} : vector<32x32xf32>, !xegpu.tensor_desc<32x32xf32, #xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16]>>
""")


def test_workgroup_kernel_goes_through_upstream_passes():
    """sg_layout programs: upstream's wg-to-sg distribution and blocking, then VC mode (8x16 blocks)."""
    text = to_ours_text(WG, "wg.mlir")
    assert "gpu.subgroup_id" in text and "sg_layout" not in text and "#xegpu.layout" not in text
    assert text.count("xegpu.load_nd") == 2 and "tensor_desc<8x16xf32>" in text
    a = np.random.default_rng(2).uniform(-1, 1, (32, 32)).astype(np.float32)
    out = simulate(import_upstream(WG, "wg.mlir"), "main", [a, np.zeros_like(a)]).buffers[1]
    assert np.allclose(out, np.exp(a), rtol=1e-6)


WG_T = _launched_kernel("%a: memref<32x32xf16>, %b: memref<16x32xf16>, %c: memref<32x16xf32>", 32, """\
    %c0 = arith.constant 0 : index
    %ta = xegpu.create_nd_tdesc %a : memref<32x32xf16> -> !xegpu.tensor_desc<32x32xf16, #a>
    %va = xegpu.load_nd %ta[%c0, %c0] {layout = #a} : !xegpu.tensor_desc<32x32xf16, #a> -> vector<32x32xf16>
    %tb = xegpu.create_nd_tdesc %b : memref<16x32xf16> -> !xegpu.tensor_desc<16x32xf16, #k>
    %vb = xegpu.load_nd %tb[%c0, %c0] {layout = #k} : !xegpu.tensor_desc<16x32xf16, #k> -> vector<16x32xf16>
    %bt = vector.transpose %vb, [1, 0] {layout_result_0 = #kt} : vector<16x32xf16> to vector<32x16xf16>
    %z = arith.constant {layout_result_0 = #c} dense<0.0> : vector<32x16xf32>
    %d = xegpu.dpas %va, %bt, %z {layout_a = #a, layout_b = #kt, layout_cd = #c} : vector<32x32xf16>, vector<32x16xf16>, vector<32x16xf32> -> vector<32x16xf32>
    %tc = xegpu.create_nd_tdesc %c : memref<32x16xf32> -> !xegpu.tensor_desc<32x16xf32, #c>
    xegpu.store_nd %d, %tc[%c0, %c0] {layout = #c} : vector<32x16xf32>, !xegpu.tensor_desc<32x16xf32, #c>
""", prelude="""\
#k = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 32], inst_data = [16, 16]>
#kt = #xegpu.layout<sg_layout = [1, 2], sg_data = [32, 16], inst_data = [16, 16]>
#a = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 32], inst_data = [8, 16]>
#c = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 16], inst_data = [8, 16]>
""")


def test_workgroup_transpose_every_subgroup_holds_whole():
    """A work-group vector.transpose (B^T of a dpas, each subgroup holding the whole 16x32 operand, as
    IMEX's flash attention transposes K): LLVM 22's wg-to-sg cannot legalize it; the import hands it
    to upstream's passes at subgroup level and C = A x B^T runs numerically. One whose subgroups hold
    parts stays upstream's located error."""
    a = np.random.default_rng(3).integers(-3, 4, (32, 32)).astype(np.float16)
    b = np.random.default_rng(4).integers(-3, 4, (16, 32)).astype(np.float16)
    mod = import_upstream(WG_T, "wgt.mlir")
    out = simulate(mod, "main", [a, b, np.zeros((32, 16), np.float32)]).buffers[2]
    assert np.array_equal(out, a.astype(np.float32) @ b.astype(np.float32).T)
    split = WG_T.replace("#k = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 32]",
                         "#k = #xegpu.layout<sg_layout = [1, 2], sg_data = [16, 16]")
    with pytest.raises(DiagnosticError) as e:
        import_upstream(split, "wgt.mlir")
    assert "wgt.mlir:13:" in str(e.value) and "vector.transpose" in str(e.value)


WG_ROWSUM = _launched_kernel("%a: memref<32x16xf32>, %c: memref<32x16xf32>", 32, """\
    %c0 = arith.constant 0 : index
    %t = xegpu.create_nd_tdesc %a : memref<32x16xf32> -> !xegpu.tensor_desc<32x16xf32, #l16>
    %v = xegpu.load_nd %t[%c0, %c0] {layout = #l16} : !xegpu.tensor_desc<32x16xf32, #l16> -> vector<32x16xf32>
    %z = arith.constant {layout_result_0 = #xegpu.slice<#l16, dims = [1]>} dense<0.0> : vector<32xf32>
    %r = vector.multi_reduction <add>, %v, %z {layout_result_0 = #xegpu.slice<#l16, dims = [1]>} [1] : vector<32x16xf32> to vector<32xf32>
    %s = vector.shape_cast %r {layout_result_0 = #l1} : vector<32xf32> to vector<32x1xf32>
    %b = vector.broadcast %s {layout_result_0 = #l16} : vector<32x1xf32> to vector<32x16xf32>
    %d = arith.subf %v, %b {layout_result_0 = #l16} : vector<32x16xf32>
    %tc = xegpu.create_nd_tdesc %c : memref<32x16xf32> -> !xegpu.tensor_desc<32x16xf32, #l16>
    xegpu.store_nd %d, %tc[%c0, %c0] {layout = #l16} : vector<32x16xf32>, !xegpu.tensor_desc<32x16xf32, #l16>
""", prelude="""\
#l16 = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 16], inst_data = [8, 16]>
#l1 = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 1], inst_data = [8, 1]>
""")


def test_workgroup_row_reduction_expanded_to_its_own_layout():
    """x - rowsum(x) at work-group level: the reduction's slice (of the 32x16 layout) feeds a
    shape_cast to 32x1 whose layout is another one distributing the rows alike (LLVM 22 wants the
    slice of exactly that layout); the import re-slices it and the kernel runs numerically."""
    text = to_ours_text(WG_ROWSUM, "rowsum.mlir")
    assert "copysign" not in text and "sg_layout" not in text
    a = np.random.default_rng(5).uniform(-1, 1, (32, 16)).astype(np.float32)
    out = simulate(import_upstream(WG_ROWSUM, "rowsum.mlir"), "main", [a, np.zeros_like(a)]).buffers[1]
    assert np.allclose(out, a - a.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("src,message", [
    ("gpu.module @k {\n gpu.func @f(%s: memref<1024xf32, 3>) kernel {\n"
     "  %m = xegpu.create_mem_desc %s : memref<1024xf32, 3> -> !xegpu.mem_desc<32x64xf16>\n  gpu.return\n }\n}\n",
     "'xegpu.create_mem_desc' of memref<1024xf32, 3> as f16 elements"),
    ("gpu.module @k {\n gpu.func @f(%b: memref<64xf16>, %o: vector<16xindex>) kernel {\n"
     "  %s = xegpu.load_matrix %b[0] : memref<64xf16> -> vector<16xf16>\n  gpu.return\n }\n}\n",
     "'xegpu.load_matrix'"),
])
def test_not_imported_is_a_located_error(src, message):
    with pytest.raises(DiagnosticError) as e:
        import_upstream(src, "bad.mlir")
    d = e.value.diagnostics[0]
    assert message in d.message and d.filename == "bad.mlir" and d.line == 3 and d.col == 8


def _tool(name, *args, stdin=None):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", name), *args], input=stdin,
                          capture_output=True, text=True, timeout=300)


def test_xe_run_and_xe_opt_take_upstream_input(tmp_path):
    """xe-run imports upstream xegpu by itself (single host function mode, --check-less); xe-opt
    --convert-upstream-xegpu prints our xegpu; a bad program is a located error, exit 1."""
    f = tmp_path / "sg.mlir"
    f.write_text(SG)
    out = tmp_path / "out.npz"
    r = _tool("xe-run.py", str(f), "--entry", "main", "--output", str(out))
    assert r.returncode == 0, r.stderr
    r = _tool("xe-opt.py", "--convert-upstream-xegpu", str(f))
    assert r.returncode == 0 and "{mode = vc}" in r.stdout and "#xegpu.block_tdesc_attr" not in r.stdout
    bad = tmp_path / "bad.mlir"
    bad.write_text("gpu.module @k {\n gpu.func @f(%s: memref<1024xf32, 3>) kernel {\n"
                   "  %m = xegpu.create_mem_desc %s : memref<1024xf32, 3> -> !xegpu.mem_desc<32x64xf16>\n"
                   "  gpu.return\n }\n}\n")
    for tool, args in (("xe-opt.py", ["--convert-upstream-xegpu"]), ("xe-run.py", [])):
        r = _tool(tool, *args, str(bad))
        assert r.returncode == 1 and f"{bad}:3:8: error:" in r.stderr and "Traceback" not in r.stderr


def test_upstream_abort_is_a_located_error():
    """LLVM 22 asserts while verifying create_mem_desc of a non-i8 memref: the upstream side runs in
    a forked child, so the abort becomes an error at the file (exit 1 in the tools), not a crash."""
    src = ("gpu.module @k {\n gpu.func @f(%a: memref<16x16xf32>) kernel {\n"
           "  %m = xegpu.create_mem_desc %a : memref<16x16xf32> -> !xegpu.mem_desc<16x16xf32>\n  gpu.return\n }\n}\n")
    with pytest.raises(DiagnosticError) as e:
        import_upstream(src, "abort.mlir")
    d = e.value.diagnostics[0]
    assert d.filename == "abort.mlir" and "upstream MLIR stopped (SIGABRT)" in d.message


GATHER = _launched_kernel("%a: memref<64xf32>, %c: memref<64xf32>", 16, """\
    %o = arith.constant dense<[0, 4, 2, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]> : vector<16xindex>
    %m = arith.constant dense<true> : vector<16xi1>
    %v = xegpu.load %a[%o], %m <{chunk_size = 2}> : memref<64xf32>, vector<16xindex>, vector<16xi1> -> vector<16x2xf32>
    %w = arith.addf %v, %v : vector<16x2xf32>
    xegpu.store %w, %c[%o], %m <{chunk_size = 2, l1_hint = #xegpu.cache_hint<write_back>}> : vector<16x2xf32>, memref<64xf32>, vector<16xindex>, vector<16xi1>
    xegpu.alloc_nbarrier 2
    %i = arith.constant 1 : i8
    %n = arith.constant 1 : i8
    %nb = xegpu.init_nbarrier %i, %n : i8, i8 -> !xegpu.nbarrier
    xegpu.nbarrier_arrive %nb : !xegpu.nbarrier
    xegpu.nbarrier_wait %nb : !xegpu.nbarrier
""")


def test_subgroup_scattered_chunks_and_named_barriers():
    """Subgroup-level xegpu.load/store with offsets and chunk_size 2 -> create_tdesc + gather/scatter."""
    text = to_ours_text(GATHER, "gather.mlir")
    assert "chunk_size_per_lane = 2" in text and "xegpu.init_nbarrier" in text
    a = np.arange(64, dtype=np.float32)
    c = simulate(import_upstream(GATHER, "gather.mlir"), "main", [a, np.zeros(64, np.float32)]).buffers[1]
    want = np.zeros(64, np.float32)
    for o in [0, 4, 2, 6] + list(range(8, 31, 2)):
        want[o:o + 2] = 2 * a[o:o + 2]
    assert np.array_equal(c, want)


SCATTER_TDESC = _launched_kernel("%a: memref<64xf32>, %c: memref<64xf32>", 16, """\
    %o = arith.constant dense<[0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]> : vector<16xindex>
    %d = arith.constant dense<1> : vector<16xindex>
    %m = arith.constant dense<true> : vector<16xi1>
    %t = xegpu.create_tdesc %a, %o : memref<64xf32>, vector<16xindex> -> !xegpu.tensor_desc<16x2xf32, #xegpu.scatter_tdesc_attr<chunk_size = 2>>
    xegpu.prefetch %t <{l1_hint = #xegpu.cache_hint<cached>}> : !xegpu.tensor_desc<16x2xf32, #xegpu.scatter_tdesc_attr<chunk_size = 2>>
    %v = xegpu.load %t, %m : !xegpu.tensor_desc<16x2xf32, #xegpu.scatter_tdesc_attr<chunk_size = 2>>, vector<16xi1> -> vector<16x2xf32>
    %tc = xegpu.create_tdesc %c, %o : memref<64xf32>, vector<16xindex> -> !xegpu.tensor_desc<16x2xf32, #xegpu.scatter_tdesc_attr<chunk_size = 2>>
    xegpu.store %v, %tc, %m : vector<16x2xf32>, !xegpu.tensor_desc<16x2xf32, #xegpu.scatter_tdesc_attr<chunk_size = 2>>, vector<16xi1>
    %t1 = xegpu.create_tdesc %c, %o : memref<64xf32>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.scatter_tdesc_attr<>>
    %t2 = xegpu.update_offset %t1, %d : !xegpu.tensor_desc<16xf32, #xegpu.scatter_tdesc_attr<>>, vector<16xindex>
    %one = arith.constant dense<1.0> : vector<16xf32>
    %r = xegpu.atomic_rmw addf %t2, %m, %one : !xegpu.tensor_desc<16xf32, #xegpu.scatter_tdesc_attr<>>, vector<16xi1>, vector<16xf32> -> vector<16xf32>
""")


def test_scattered_descriptor_form():
    """create_tdesc (chunk_size 2), prefetch, load/store through the descriptor, update_offset and
    atomic_rmw: our VC-mode scattered ops."""
    text = to_ours_text(SCATTER_TDESC, "scatter.mlir")
    for op in ("xegpu.create_tdesc", "xegpu.prefetch", "xegpu.load_gather", "xegpu.store_scatter",
               "xegpu.update_offset", "xegpu.atomic_rmw addf"):
        assert op in text
    a = np.arange(64, dtype=np.float32)
    c = simulate(import_upstream(SCATTER_TDESC, "scatter.mlir"), "main", [a, np.zeros(64, np.float32)]).buffers[1]
    want = np.zeros(64, np.float32)
    want[:32] = a[:32]
    want[1:32:2] += 1.0        # atomic add at offsets + 1
    assert np.array_equal(c, want)


LANE_TRANSPOSED_B = _launched_kernel("%a: memref<8x16xf16>, %bt: memref<16x8xf32>, %c: memref<8x16xf32>", 16, """\
    %ta = xegpu.create_nd_tdesc %a : memref<8x16xf16> -> !xegpu.tensor_desc<8x16xf16>
    %tb = xegpu.create_nd_tdesc %bt : memref<16x8xf32> -> !xegpu.tensor_desc<16x8xf32>
    %tc = xegpu.create_nd_tdesc %c : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %va = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<8x16xf16> -> vector<8xf16>
    %vb32 = xegpu.load_nd %tb[0, 0] <{transpose = array<i64: 1, 0>}> : !xegpu.tensor_desc<16x8xf32> -> vector<8xf32>
    %vb = vector.bitcast %vb32 : vector<8xf32> to vector<16xf16>
    %d = xegpu.dpas %va, %vb : vector<8xf16>, vector<16xf16> -> vector<8xf32>
    xegpu.store_nd %d, %tc[0, 0] : vector<8xf32>, !xegpu.tensor_desc<8x16xf32>
""")


def test_lane_transposed_b_load():
    """IMEX's transposed-B idiom at lane level: B^T (N x K f16) read as 32-bit words by a transposed
    load (lane n gets row n: our sg_map wi_layout [16, 1]), bitcast to f16 pairs, used as dpas B."""
    text = to_ours_text(LANE_TRANSPOSED_B, "tb.mlir")
    assert "wi_layout = [16, 1]" in text and "transpose = [1, 0]" in text
    a, b = _ab(8, 16, 16, seed=3)
    bt = np.ascontiguousarray(b.T).view(np.float32)         # 16 x 8 words of f16 pairs
    c = simulate(import_upstream(LANE_TRANSPOSED_B, "tb.mlir"), "main",
                 [a, bt, np.zeros((8, 16), np.float32)]).buffers[2]
    assert np.array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


LANE_STRIDED_GATHER = _launched_kernel("%a: memref<64xf16>, %o: memref<32xf16>", 16, """\
    %k = gpu.block_dim x
    %s = memref.subview %a[%k] [40] [1] : memref<64xf16> to memref<40xf16, strided<[1], offset: ?>>
    %t = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %i = arith.muli %t, %c2 : index
    %m = arith.constant true
    %v = xegpu.load %s[%i], %m <{chunk_size = 2}> : memref<40xf16, strided<[1], offset: ?>>, index, i1 -> vector<2xf16>
    xegpu.store %v, %o[%i], %m <{chunk_size = 2}> : vector<2xf16>, memref<32xf16>, index, i1
""")


def test_lane_gather_from_strided_memref_with_dynamic_offset():
    """A lane-level gather (two elements per lane) from a subview at a dynamic offset: the element
    type is the memref's own (f16), not text after its last '<' (the strided layout)."""
    text = to_ours_text(LANE_STRIDED_GATHER, "strided.mlir")
    assert "!xegpu.tensor_desc<16xf16, #xegpu.tdesc_attr<scattered = true" in text
    a = np.arange(64, dtype=np.float16)
    out = simulate(import_upstream(LANE_STRIDED_GATHER, "strided.mlir"), "main", [a, np.zeros(32, np.float16)]).buffers[1]
    assert np.array_equal(out, a[16:48])


I8_SG = _launched_kernel("%a: memref<8x64xi8>, %b: memref<64x16xi8>, %c: memref<8x16xi32>", 16, """\
    %ta = xegpu.create_nd_tdesc %a : memref<8x64xi8> -> !xegpu.tensor_desc<8x32xi8>
    %tb = xegpu.create_nd_tdesc %b : memref<64x16xi8> -> !xegpu.tensor_desc<32x16xi8>
    %tc = xegpu.create_nd_tdesc %c : memref<8x16xi32> -> !xegpu.tensor_desc<8x16xi32>
    %a0 = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<8x32xi8> -> vector<8x32xi8>
    %b0 = xegpu.load_nd %tb[0, 0] : !xegpu.tensor_desc<32x16xi8> -> vector<32x16xi8>
    %a1 = xegpu.load_nd %ta[0, 32] : !xegpu.tensor_desc<8x32xi8> -> vector<8x32xi8>
    %b1 = xegpu.load_nd %tb[32, 0] : !xegpu.tensor_desc<32x16xi8> -> vector<32x16xi8>
    %d0 = xegpu.dpas %a0, %b0 : vector<8x32xi8>, vector<32x16xi8> -> vector<8x16xi32>
    %a2 = arith.addi %a1, %a1 : vector<8x32xi8>
    %d1 = xegpu.dpas %a2, %b1, %d0 : vector<8x32xi8>, vector<32x16xi8>, vector<8x16xi32> -> vector<8x16xi32>
    xegpu.store_nd %d1, %tc[0, 0] : vector<8x16xi32>, !xegpu.tensor_desc<8x16xi32>
""")
UPSTREAM_DISTRIBUTE = ("builtin.module(xevm-attach-target{chip=pvc}, gpu.module(xegpu-propagate-layout{layout-kind=lane}, "
                       "xegpu-subgroup-distribute, canonicalize, cse))")


@pytest.mark.skipif(UE.MLIR_OPT is None, reason="upstream mlir-opt not installed")
def test_lane_i8_gemm_in_upstreams_own_distribution():
    """An i8 GEMM (K = 64: a loaded A, and a computed A = 2 A1) at subgroup level, distributed to lane
    level by LLVM 22's own xegpu-subgroup-distribute (A: vector<16xi8>, lane l bytes 2l, 2l + 1 of
    every row; B packed: vector<32xi8>, column l), imported at lane level (A loads as wi_data
    [1, 2], the computed A reordered across lanes into our packed [2, 8] x [1, 4]) gives exactly the
    subgroup-level import's numbers and numpy's."""
    src = "module attributes {gpu.container_module} {\n" + I8_SG + "}\n"
    r = subprocess.run([UE.MLIR_OPT, "-", f"--pass-pipeline={UPSTREAM_DISTRIBUTE}"], input=src, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lane = r.stdout
    assert "-> vector<16xi8>" in lane and "<{packed}> : !xegpu.tensor_desc<32x16xi8> -> vector<32xi8>" in lane
    text = to_ours_text(lane, "i8lane.mlir")
    assert "tensor_desc<8x32xi8, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 2]>>>" in text
    assert "-> vector<8x2xi8>" in text and "gpu.shuffle idx" in text
    rng = np.random.default_rng(7)
    a = rng.integers(-20, 21, (8, 64)).astype(np.int8)
    b = rng.integers(-20, 21, (64, 16)).astype(np.int8)
    want = (a[:, :32].astype(np.int32) @ b[:32].astype(np.int32)
            + (2 * a[:, 32:].astype(np.int32)) @ b[32:].astype(np.int32))
    got = {}
    for name, prog in (("sg", src), ("lane", lane)):
        got[name] = simulate(import_upstream(prog, f"{name}.mlir"), "main",
                             [a, b, np.zeros((8, 16), np.int32)]).buffers[2]
    assert np.array_equal(got["sg"], want) and np.array_equal(got["lane"], want)


def test_lane_8bit_block_of_other_width_is_a_located_error():
    src = _launched_kernel("%a: memref<8x64xi8>, %o: memref<8x64xi8>", 16, """\
    %ta = xegpu.create_nd_tdesc %a : memref<8x64xi8> -> !xegpu.tensor_desc<8x64xi8>
    %v = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<8x64xi8> -> vector<32xi8>
    %to = xegpu.create_nd_tdesc %o : memref<8x64xi8> -> !xegpu.tensor_desc<8x64xi8>
    xegpu.store_nd %v, %to[0, 0] : vector<32xi8>, !xegpu.tensor_desc<8x64xi8>
""")
    with pytest.raises(DiagnosticError) as e:
        import_upstream(src, "w64.mlir")
    d = e.value.diagnostics[0]
    assert d.line is not None and "8-bit blocks are imported 16 or 32 wide only" in d.message, d.message


LANE_I8_AS_I16 = _launched_kernel("%a: memref<8x32xi8>, %o: memref<8x16xi16>, %p: memref<8x32xi8>", 16, """\
    %ta = xegpu.create_nd_tdesc %a : memref<8x32xi8> -> !xegpu.tensor_desc<8x32xi8>
    %v = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<8x32xi8> -> vector<16xi8>
    %w = vector.bitcast %v : vector<16xi8> to vector<8xi16>
    %to = xegpu.create_nd_tdesc %o : memref<8x16xi16> -> !xegpu.tensor_desc<8x16xi16>
    xegpu.store_nd %w, %to[0, 0] : vector<8xi16>, !xegpu.tensor_desc<8x16xi16>
    %tp = xegpu.create_nd_tdesc %p : memref<8x32xi8> -> !xegpu.tensor_desc<8x32xi8>
    xegpu.store_nd %v, %tp[0, 0] : vector<16xi8>, !xegpu.tensor_desc<8x32xi8>
""")


def test_lane_8bit_block_holds_the_16bit_units_of_its_registers():
    """A 32-wide 8-bit block's lane vector is the same registers as the 16-bit block of the same rows
    (lane l: bytes 2l, 2l + 1 = 16-bit column l): bitcast and stored as 8x16xi16 it gives the input's
    bytes; stored back as 8-bit it gives the input."""
    a = np.arange(256, dtype=np.uint8).astype(np.int8).reshape(8, 32)
    res = simulate(import_upstream(LANE_I8_AS_I16, "i8i16.mlir"), "main",
                   [a, np.zeros((8, 16), np.int16), np.zeros_like(a)]).buffers
    assert np.array_equal(res[1], a.view(np.int16)) and np.array_equal(res[2], a)


_TF32_MMA = "{shape = <m = 8, n = 16, k = 8>, types = <d = f32, a = tf32, b = tf32, c = f32>}"
LANE_TF32 = _launched_kernel(
    "%a: memref<8x8xf32>, %b: memref<8x16xf32>, %c: memref<8x16xf32>, %d: memref<8x16xf32>", 16, f"""\
    %l = gpu.lane_id
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %r0 = arith.divui %l, %c8 : index
    %col = arith.remui %l, %c8 : index
    %r1 = arith.addi %r0, %c2 : index
    %r2 = arith.addi %r1, %c2 : index
    %r3 = arith.addi %r2, %c2 : index
    %a0 = memref.load %a[%r0, %col] : memref<8x8xf32>
    %a1 = memref.load %a[%r1, %col] : memref<8x8xf32>
    %a2 = memref.load %a[%r2, %col] : memref<8x8xf32>
    %a3 = memref.load %a[%r3, %col] : memref<8x8xf32>
    %va = vector.from_elements %a0, %a1, %a2, %a3 : vector<4xf32>
    %tb = xegpu.create_nd_tdesc %b : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %tc = xegpu.create_nd_tdesc %c : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %td = xegpu.create_nd_tdesc %d : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %vb = xegpu.load_nd %tb[0, 0] : !xegpu.tensor_desc<8x16xf32> -> vector<8xf32>
    %vc = xegpu.load_nd %tc[0, 0] : !xegpu.tensor_desc<8x16xf32> -> vector<8xf32>
    %vd = xevm.mma %va, %vb, %vc {_TF32_MMA} : (vector<4xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
    xegpu.store_nd %vd, %td[0, 0] : vector<8xf32>, !xegpu.tensor_desc<8x16xf32>
""")


def _tf32(x):
    """f32 -> tf32 as an independent reference: 11-bit significands, round to nearest even (np.rint)."""
    m, e = np.frexp(x.astype(np.float64))
    return np.ldexp(np.rint(m * 2.0 ** 11), e - 11)


def test_lane_tf32_xevm_mma_in_the_builtins_lane_order():
    """A hand-written lane-level tf32 `xevm.mma` (the lane export's tf32 DPAS): lane l's float4 A
    holds A[2j + l/8][l % 8] (loaded here by memref.load in that order), B and C lane l column l.
    Our simulator rounds f32 DPAS operands to tf32 (10 explicit mantissa bits, round to nearest even)
    and accumulates exactly in float64 where the partial sums fit (here: magnitudes in [0.5, 2), 11-bit
    significands), the accumulator added once and the result rounded once to f32: exactly the float64
    reference on tf32-rounded inputs."""
    rng = np.random.default_rng(7)
    sgn = lambda s: rng.choice([-1.0, 1.0], s)  # noqa: E731
    a = (sgn((8, 8)) * rng.uniform(0.5, 2.0, (8, 8))).astype(np.float32)
    b = (sgn((8, 16)) * rng.uniform(0.5, 2.0, (8, 16))).astype(np.float32)
    c = (sgn((8, 16)) * rng.uniform(0.5, 2.0, (8, 16))).astype(np.float32)
    text = to_ours_text(LANE_TF32, "tf32.mlir")
    assert "xegpu.dpas" in text and "vector<4x1xf32>, vector<8x1xf32>, vector<8x1xf32> -> vector<8x1xf32>" in text
    got = simulate(import_upstream(LANE_TF32, "tf32.mlir"), "main", [a, b, c, np.zeros_like(c)]).buffers[3]
    want = (c.astype(np.float64) + _tf32(a) @ _tf32(b)).astype(np.float32)
    assert np.array_equal(got, want)
    full = (c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    assert not np.array_equal(got, full)  # the operands were rounded: tf32, not f32


LANE_F16_MMA = _launched_kernel(
    "%a: memref<8x16xf16>, %b: memref<16x16xf16>, %c: memref<8x16xf32>", 16, LANE_F16_OPERANDS + """\
    %ia = vector.bitcast %va : vector<8xf16> to vector<8xi16>
    %ib = vector.bitcast %vb : vector<16xf16> to vector<8xi32>
    %d = xevm.mma %ia, %ib {shape = <m = 8, n = 16, k = 16>, types = <d = f32, a = f16, b = f16>} : (vector<8xi16>, vector<8xi32>) -> vector<8xf32>
    xegpu.store_nd %d, %tc[0, 0] : vector<8xf32>, !xegpu.tensor_desc<8x16xf32>
""")


def test_lane_f16_xevm_mma_of_builtin_integer_vectors():
    """`xevm.mma` f16 on the builtins' short8 / int8 operands (A lane l: column l; B lane l: column l,
    row pairs in one i32) without an accumulator: bitcast back and imported as our SIMT dpas."""
    a, b = _ab(8, 16, 16)
    out = simulate(import_upstream(LANE_F16_MMA, "f16mma.mlir"), "main", [a, b, np.zeros((8, 16), np.float32)]).buffers[2]
    assert np.array_equal(out, a.astype(np.float32) @ b.astype(np.float32))  # small integers: exact


@pytest.mark.parametrize("src,message", [
    (LANE_TF32.replace("m = 8, n = 16, k = 8", "m = 8, n = 16, k = 16"),
     "'xevm.mma' shape <m = 8, n = 16, k = 16> for tf32 is not imported (m = 8, n = 16, k = 8)"),
    (LANE_TF32.replace("a = tf32, b = tf32", "a = tf32, b = f16"),
     "'xevm.mma' with a = tf32, b = f16 is not imported: A and B of one type among tf32, f16, bf16, s8, u8"),
    (LANE_TF32.replace("%a2, %a3 : vector<4xf32>", "%a2, %a3, %a3, %a3 : vector<6xf32>").replace("(vector<4xf32>,", "(vector<6xf32>,"),
     "'xevm.mma' A vector<6xf32>: expected vector<4xf32> (or a signless integer vector of its size)"),
])
def test_lane_xevm_mma_not_imported_is_a_located_error(src, message):
    with pytest.raises(DiagnosticError) as e:
        import_upstream(src, "mma.mlir")
    d = e.value.diagnostics[0]
    line = next(i for i, x in enumerate(src.splitlines(), 1) if "xevm.mma" in x)
    col = src.splitlines()[line - 1].index("xevm.mma") + 1
    assert d.filename == "mma.mlir" and (d.line, d.col) == (line, col), (d.line, d.col, d.message)
    assert message in d.message, d.message


def _lane_i8_mma(t: str) -> str:
    return _launched_kernel("%a: memref<8x32xi8>, %b: memref<32x16xi8>, %c: memref<8x16xi32>", 16, f"""\
    %ta = xegpu.create_nd_tdesc %a : memref<8x32xi8> -> !xegpu.tensor_desc<8x32xi8>
    %va = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<8x32xi8> -> vector<16xi8>
    %tb = xegpu.create_nd_tdesc %b : memref<32x16xi8> -> !xegpu.tensor_desc<32x16xi8>
    %vb = xegpu.load_nd %tb[0, 0] <{{packed}}> : !xegpu.tensor_desc<32x16xi8> -> vector<32xi8>
    %tc = xegpu.create_nd_tdesc %c : memref<8x16xi32> -> !xegpu.tensor_desc<8x16xi32>
    %vc = xegpu.load_nd %tc[0, 0] : !xegpu.tensor_desc<8x16xi32> -> vector<8xi32>
    %d = xevm.mma %va, %vb, %vc {{shape = <m = 8, n = 16, k = 32>, types = <d = s32, a = {t}, b = {t}, c = s32>}} : (vector<16xi8>, vector<32xi8>, vector<8xi32>) -> vector<8xi32>
    xegpu.store_nd %d, %tc[0, 0] : vector<8xi32>, !xegpu.tensor_desc<8x16xi32>
""")


@pytest.mark.parametrize("t", ["s8", "u8"])
def test_lane_8bit_xevm_mma_signed_and_unsigned(t):
    """s8 / u8 `xevm.mma` (A lane l: bytes 2l, 2l + 1 of each row, B lane l: column l): the same
    bytes read as signed or unsigned; integers, so the result is exact."""
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (8, 32)).astype(np.int8)
    b = rng.integers(-128, 128, (32, 16)).astype(np.int8)
    c = rng.integers(-1000, 1000, (8, 16)).astype(np.int32)
    out = simulate(import_upstream(_lane_i8_mma(t), f"{t}.mlir"), "main", [a, b, c.copy()]).buffers[2]
    x, y = (a, b) if t == "s8" else (a.view(np.uint8), b.view(np.uint8))
    assert np.array_equal(out, c + x.astype(np.int64) @ y.astype(np.int64))
