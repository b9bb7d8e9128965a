"""Import of upstream xegpu's shared-local-memory matrices (`create_mem_desc`, `load_matrix`,
`store_matrix`, LLVM 22): the address model against upstream's own lowering, then whole kernels at
subgroup, lane and work-group level run in the simulator and compared exactly with numpy (they only
move data, or feed dpas with small integers), and located errors for what stays unsupported."""
from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from xedialects.diagnostics import DiagnosticError
from xedialects.lowering.upstream_route import tools
from xedialects.lowering.upstream_to_xegpu import import_upstream, to_ours_text
from xedialects.lowering.upstream_to_xegpu.matrix_ops import parse_mem_desc
from xedialects.sim import simulate


def _program(params: str, threads: int, body: str) -> str:
    """gpu.module @k with kernel @f(`params`) running `body`, and func @main(`params`) launching it
    on one work-group of `threads` work-items."""
    args = params.replace(": ", " : ")
    return (f"gpu.module @k {{\n  gpu.func @f({params}) kernel {{\n{body}    gpu.return\n  }}\n}}\n"
            f"func.func @main({params}) {{\n  %c1 = arith.constant 1 : index\n"
            f"  %n = arith.constant {threads} : index\n"
            f"  gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%n, %c1, %c1) args({args})\n"
            "  return\n}\n")


# ------------------------------------------------------------------------------ the address model

LAYOUTS = [((32, 32), None, None), ((32, 32), [1, 32], [16, 16]), ((32, 64), None, [16, 16]),
           ((32, 64), [1, 32], [16, 16]), ((32, 64), None, [8, 16]), ((64, 32), [1, 64], [16, 8]),
           ((32, 32), [1, 40], [16, 16]), ((32, 64), [1, 16], None), ((16, 64), [64, 1], [4, 32])]


def _md_type(shape, stride, block, elt="f16") -> str:
    parts = ([f"stride = {stride}"] if stride else []) + ([f"block = {block}"] if block else [])
    lay = f", #xegpu.mem_layout<{', '.join(parts)}>" if parts else ""
    return f"!xegpu.mem_desc<{shape[0]}x{shape[1]}x{elt}{lay}>"


def test_address_model_is_upstreams_lowering():
    """The element offset of MemDesc.linear (which the translation emits) equals the byte offset
    upstream's convert-xegpu-to-xevm computes for the same load_matrix, /2 for f16, for plain,
    blocked, column-major and padded-stride layouts."""
    rng = np.random.default_rng(0)
    funcs, want = [], []
    for shape, stride, block in LAYOUTS:
        t = _md_type(shape, stride, block)
        md = parse_mem_desc(t)
        for _ in range(4):
            offs = [int(rng.integers(s)) for s in shape]
            n = len(funcs)
            funcs.append(f"gpu.func @f{n}(%s: memref<{2 * shape[0] * shape[1]}xi8, 3>) -> f16 {{\n"
                         f"  %m = xegpu.create_mem_desc %s : memref<{2 * shape[0] * shape[1]}xi8, 3> -> {t}\n"
                         f"  %x = xegpu.load_matrix %m[{offs[0]}, {offs[1]}] : {t} -> f16\n"
                         "  gpu.return %x : f16\n}")
            want.append(md.linear(offs))
    text = 'gpu.module @m [#xevm.target<chip = "pvc">] {\n' + "\n".join(funcs) + "\n}\n"
    r = subprocess.run([tools.find("mlir-opt"), "-", "--convert-xegpu-to-xevm", "--canonicalize"], input=text,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    got = []
    for body in re.split(r"gpu\.func @f\d+", r.stdout)[1:]:
        m = re.search(r"arith\.constant (\d+) : i32", body)
        got.append(int(m.group(1)) // 2 if m else 0)
    assert got == want


# ------------------------------------------------------------------------------ subgroup level

TRANSPOSE_SG = _program("%a: memref<32x32xf16>, %b: memref<32x32xf16>, %flat: memref<32x32xf16>", 128, """\
    %sg = gpu.subgroup_id : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %q = arith.divui %sg, %c2 : index
    %r = arith.remui %sg, %c2 : index
    %m = arith.muli %q, %c8 : index
    %n = arith.muli %r, %c16 : index
    %ta = xegpu.create_nd_tdesc %a : memref<32x32xf16> -> !xegpu.tensor_desc<8x16xf16>
    %v = xegpu.load_nd %ta[%m, %n] : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
    %slm = memref.alloc() : memref<2048xi8, 3>
    %cm = xegpu.create_mem_desc %slm : memref<2048xi8, 3> -> !xegpu.mem_desc<32x32xf16, #xegpu.mem_layout<stride = [1, 32], block = [8, 16]>>
    xegpu.store_matrix %v, %cm[%m, %n] : vector<8x16xf16>, !xegpu.mem_desc<32x32xf16, #xegpu.mem_layout<stride = [1, 32], block = [8, 16]>>, index, index
    gpu.barrier
    %rm = xegpu.create_mem_desc %slm : memref<2048xi8, 3> -> !xegpu.mem_desc<32x32xf16, #xegpu.mem_layout<block = [16, 8]>>
    %w = xegpu.load_matrix %rm[%m, %n] : !xegpu.mem_desc<32x32xf16, #xegpu.mem_layout<block = [16, 8]>>, index, index -> vector<8x16xf16>
    %tb = xegpu.create_nd_tdesc %b : memref<32x32xf16> -> !xegpu.tensor_desc<8x16xf16>
    xegpu.store_nd %w, %tb[%m, %n] : vector<8x16xf16>, !xegpu.tensor_desc<8x16xf16>
    %fl = xegpu.create_mem_desc %slm : memref<2048xi8, 3> -> !xegpu.mem_desc<32x32xf16>
    %f = xegpu.load_matrix %fl[%m, %n] : !xegpu.mem_desc<32x32xf16>, index, index -> vector<8x16xf16>
    %tf = xegpu.create_nd_tdesc %flat : memref<32x32xf16> -> !xegpu.tensor_desc<8x16xf16>
    xegpu.store_nd %f, %tf[%m, %n] : vector<8x16xf16>, !xegpu.tensor_desc<8x16xf16>
""")


def _blocked_place(md_text: str, shape) -> np.ndarray:
    """For each element (r, c) of a matrix of `shape`, its offset under `md_text` (MemDesc.linear)."""
    md = parse_mem_desc(md_text)
    return np.array([[md.linear([r, c]) for c in range(shape[1])] for r in range(shape[0])])


def test_subgroup_transpose_through_slm():
    """8 subgroups store their 8x16 blocks into a column-major blocked view and load the same
    coordinates through a row-major view blocked otherwise (dynamic offsets): B is A's transpose
    wherever the two views' element places coincide, which is where column-major [8, 16] blocks of
    (r, c) land on row-major [16, 8] blocks of (c, r); the flat row-major view shows SLM itself,
    where each element sits at upstream's linear offset."""
    a = np.arange(1024, dtype=np.float16).reshape(32, 32)
    res = simulate(import_upstream(TRANSPOSE_SG, "t.mlir"), "main",
                   [a, np.zeros_like(a), np.zeros_like(a)]).buffers
    store = _blocked_place("!xegpu.mem_desc<32x32xf16, #xegpu.mem_layout<stride = [1, 32], block = [8, 16]>>",
                           (32, 32))
    slm = np.zeros(1024, np.float16)
    slm[store.reshape(-1)] = a.reshape(-1)
    assert np.array_equal(res[2].reshape(-1), slm)
    load = _blocked_place("!xegpu.mem_desc<32x32xf16, #xegpu.mem_layout<block = [16, 8]>>", (32, 32))
    assert np.array_equal(res[1], slm[load])
    assert np.array_equal(res[1], a.T)    # [8, 16] column-major blocks are [16, 8] row-major blocks of A^T


DPAS_SG = _program("%a: memref<8x16xf16>, %b: memref<16x16xf16>, %c: memref<8x16xf32>", 16, """\
    %ta = xegpu.create_nd_tdesc %a : memref<8x16xf16> -> !xegpu.tensor_desc<8x16xf16>
    %tb = xegpu.create_nd_tdesc %b : memref<16x16xf16> -> !xegpu.tensor_desc<16x16xf16>
    %va = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
    %vb = xegpu.load_nd %tb[0, 0] : !xegpu.tensor_desc<16x16xf16> -> vector<16x16xf16>
    %sa = memref.alloc() : memref<16x32xf16, 3>
    %ma = xegpu.create_mem_desc %sa : memref<16x32xf16, 3> -> !xegpu.mem_desc<16x32xf16, #xegpu.mem_layout<stride = [1, 16], block = [8, 8]>>
    xegpu.store_matrix %va, %ma[8, 16] : vector<8x16xf16>, !xegpu.mem_desc<16x32xf16, #xegpu.mem_layout<stride = [1, 16], block = [8, 8]>>
    %sb = memref.alloc() : memref<1024xi8, 3>
    %mb = xegpu.create_mem_desc %sb : memref<1024xi8, 3> -> !xegpu.mem_desc<16x32xf16, #xegpu.mem_layout<block = [16, 16]>>
    xegpu.store_matrix %vb, %mb[0, 16] : vector<16x16xf16>, !xegpu.mem_desc<16x32xf16, #xegpu.mem_layout<block = [16, 16]>>
    gpu.barrier
    %la = xegpu.load_matrix %ma[8, 16] : !xegpu.mem_desc<16x32xf16, #xegpu.mem_layout<stride = [1, 16], block = [8, 8]>> -> vector<8x16xf16>
    %lb = xegpu.load_matrix %mb[0, 16] : !xegpu.mem_desc<16x32xf16, #xegpu.mem_layout<block = [16, 16]>> -> vector<16x16xf16>
    %d = xegpu.dpas %la, %lb : vector<8x16xf16>, vector<16x16xf16> -> vector<8x16xf32>
    %tc = xegpu.create_nd_tdesc %c : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    xegpu.store_nd %d, %tc[0, 0] : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
""")


def test_subgroup_dpas_fed_from_slm():
    """A through a typed SLM buffer (memref<16x32xf16, 3>, column-major 8x8 blocks), B through a byte
    buffer, both at static offsets, back into dpas: C = A B exactly (small integers)."""
    text = to_ours_text(DPAS_SG, "d.mlir")
    assert "memref.reinterpret_cast" in text and "memref.view" in text and "xegpu.load_gather" in text
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, (8, 16)).astype(np.float16)
    b = rng.integers(-3, 4, (16, 16)).astype(np.float16)
    c = simulate(import_upstream(DPAS_SG, "d.mlir"), "main", [a, b, np.zeros((8, 16), np.float32)]).buffers[2]
    assert np.array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


# ------------------------------------------------------------------------------ lane level

TRANSPOSE_LANE = _program("%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf16>, "
                          "%s: memref<16xf32>", 16, """\
    %l = gpu.lane_id
    %c4 = arith.constant 4 : index
    %ta = xegpu.create_nd_tdesc %a : memref<16x16xf16> -> !xegpu.tensor_desc<16x16xf16>
    %va = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<16x16xf16> -> vector<16xf16>
    %slm = memref.alloc() : memref<512xi8, 3>
    %rm = xegpu.create_mem_desc %slm : memref<512xi8, 3> -> !xegpu.mem_desc<16x16xf16>
    xegpu.store_matrix %va, %rm[%l, 0] : vector<16xf16>, !xegpu.mem_desc<16x16xf16>, index
    gpu.barrier
    %bl = xegpu.create_mem_desc %slm : memref<512xi8, 3> -> !xegpu.mem_desc<16x16xf16, #xegpu.mem_layout<block = [8, 16]>>
    %vt = xegpu.load_matrix %bl[0, 0] <{subgroup_block_io}> : !xegpu.mem_desc<16x16xf16, #xegpu.mem_layout<block = [8, 16]>> -> vector<16xf16>
    %tb = xegpu.create_nd_tdesc %b : memref<16x16xf16> -> !xegpu.tensor_desc<16x16xf16>
    xegpu.store_nd %vt, %tb[0, 0] : vector<16xf16>, !xegpu.tensor_desc<16x16xf16>
    %vs = xegpu.load_matrix %rm[%l, 0] : !xegpu.mem_desc<16x16xf16>, index -> vector<2x8xf16>
    %vf = vector.shape_cast %vs : vector<2x8xf16> to vector<16xf16>
    %tc = xegpu.create_nd_tdesc %c : memref<16x16xf16> -> !xegpu.tensor_desc<16x16xf16>
    xegpu.store_nd %vf, %tc[0, 0] : vector<16xf16>, !xegpu.tensor_desc<16x16xf16>
    %fs = memref.alloc() : memref<16xf32, 3>
    %ms = xegpu.create_mem_desc %fs : memref<16xf32, 3> -> !xegpu.mem_desc<4x4xf32, #xegpu.mem_layout<stride = [1, 4]>>
    %x = vector.extract %va[3] : f16 from vector<16xf16>
    %xf = arith.extf %x : f16 to f32
    %i = arith.remui %l, %c4 : index
    %j = arith.divui %l, %c4 : index
    xegpu.store_matrix %xf, %ms[%i, %j] : f32, !xegpu.mem_desc<4x4xf32, #xegpu.mem_layout<stride = [1, 4]>>, index, index
    gpu.barrier
    %y = xegpu.load_matrix %ms[%j, %i] : !xegpu.mem_desc<4x4xf32, #xegpu.mem_layout<stride = [1, 4]>>, index, index -> f32
    %true = arith.constant true
    %yv = vector.from_elements %y : vector<1xf32>
    xegpu.store %yv, %s[%l], %true : vector<1xf32>, memref<16xf32>, index, i1
""")


def test_lane_level_slm_round_trips():
    """Lane level (SIMT mode): lane l stores its column of A as row l of a row-major matrix (its 16
    consecutive elements); a subgroup block read of 8-row blocks (element k of lane l at 16 k + l)
    gives lane l row l of A, stored as column l: A^T; a plain read of a vector<2x8> returns the
    lane's own 16 elements: A; scalars through a typed f32 buffer, column-major: lane (i + 4 j)
    writes (i, j) and reads (j, i), i.e. lane 4 i + j's value."""
    text = to_ours_text(TRANSPOSE_LANE, "l.mlir")
    assert "mode = vc" not in text and "gpu.lane_id" in text and "sg_map" in text
    a = np.arange(256, dtype=np.float16).reshape(16, 16)
    res = simulate(import_upstream(TRANSPOSE_LANE, "l.mlir"), "main",
                   [a, np.zeros_like(a), np.zeros_like(a), np.zeros(16, np.float32)]).buffers
    assert np.array_equal(res[1], a.T) and np.array_equal(res[2], a)
    lane = np.arange(16)
    assert np.array_equal(res[3], a[3, 4 * (lane % 4) + lane // 4].astype(np.float32))



# a lane-level kernel whose only xegpu ops are matrix accesses of 1D vectors and scalars
MATRIX_ONLY_LANE = _program("%a: memref<64xf32>, %o: memref<16x5xf32>", 16, """\
    %l = gpu.lane_id
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %r0 = arith.muli %l, %c4 : index
    %v = vector.load %a[%r0] : memref<64xf32>, vector<4xf32>
    %slm = memref.alloc() : memref<256xi8, 3>
    %m = xegpu.create_mem_desc %slm : memref<256xi8, 3> -> !xegpu.mem_desc<16x4xf32>
    xegpu.store_matrix %v, %m[%l, 0] : vector<4xf32>, !xegpu.mem_desc<16x4xf32>, index
    gpu.barrier
    %t = xegpu.create_mem_desc %slm : memref<256xi8, 3> -> !xegpu.mem_desc<4x16xf32>
    %w = xegpu.load_matrix %t[0, 0] <{subgroup_block_io}> : !xegpu.mem_desc<4x16xf32> -> vector<4xf32>
    %l1 = arith.addi %l, %c1 : index
    %n = arith.remui %l1, %c16 : index
    %y = xegpu.load_matrix %m[%n, %c2] : !xegpu.mem_desc<16x4xf32>, index, index -> f32
    vector.store %w, %o[%l, %c0] : memref<16x5xf32>, vector<4xf32>
    memref.store %y, %o[%l, %c4] : memref<16x5xf32>
""")


def test_lane_level_kernel_of_matrix_accesses_only():
    """No xegpu op but load_matrix / store_matrix, data 1D and scalar: the kernel is lane level
    (levels.classify). Lane l stores a[4l:4l+4] as row l of a 16x4 matrix (A = a row-major), reads
    the buffer as 4x16 by a subgroup block read (element k: a[16 k + l]) and scalar A[(l+1)%16, 2]."""
    text = to_ours_text(MATRIX_ONLY_LANE, "mo.mlir")
    assert "mode = vc" not in text and "xegpu.load_gather" in text and "xegpu.store_scatter" in text
    a = np.arange(64, dtype=np.float32) * 0.5 - 7
    o = simulate(import_upstream(MATRIX_ONLY_LANE, "mo.mlir"), "main", [a, np.zeros((16, 5), np.float32)]).buffers[1]
    lane = np.arange(16)
    assert np.array_equal(o[:, :4], a[16 * np.arange(4)[None, :] + lane[:, None]])
    assert np.array_equal(o[:, 4], a[4 * ((lane + 1) % 16) + 2])

# ------------------------------------------------------------------------------ work-group level

WG_LAYOUT = "#xegpu.layout<sg_layout = [2, 2], sg_data = [16, 16], inst_data = [8, 16]>"
TRANSPOSE_WG = _program("%a: memref<32x32xf32>, %b: memref<32x32xf32>", 64, f"""\
    %t = xegpu.create_nd_tdesc %a : memref<32x32xf32> -> !xegpu.tensor_desc<32x32xf32, {WG_LAYOUT}>
    %v = xegpu.load_nd %t[0, 0] : !xegpu.tensor_desc<32x32xf32, {WG_LAYOUT}> -> vector<32x32xf32>
    %slm = memref.alloc() : memref<4096xi8, 3>
    %cm = xegpu.create_mem_desc %slm : memref<4096xi8, 3> -> !xegpu.mem_desc<32x32xf32, #xegpu.mem_layout<stride = [1, 32], block = [16, 16]>>
    xegpu.store_matrix %v, %cm[0, 0] <{{layout = {WG_LAYOUT}}}> : vector<32x32xf32>, !xegpu.mem_desc<32x32xf32, #xegpu.mem_layout<stride = [1, 32], block = [16, 16]>>
    gpu.barrier
    %rm = xegpu.create_mem_desc %slm : memref<4096xi8, 3> -> !xegpu.mem_desc<32x32xf32, #xegpu.mem_layout<block = [16, 16]>>
    %w = xegpu.load_matrix %rm[0, 0] <{{layout = {WG_LAYOUT}}}> : !xegpu.mem_desc<32x32xf32, #xegpu.mem_layout<block = [16, 16]>> -> vector<32x32xf32>
    %tb = xegpu.create_nd_tdesc %b : memref<32x32xf32> -> !xegpu.tensor_desc<32x32xf32, {WG_LAYOUT}>
    xegpu.store_nd %w, %tb[0, 0] : vector<32x32xf32>, !xegpu.tensor_desc<32x32xf32, {WG_LAYOUT}>
""")


def test_workgroup_matrices_distributed_by_upstream():
    """Work-group level: upstream's xegpu-wg-to-sg-distribute and blocking give each subgroup two
    8x16 store_matrix / load_matrix at its own offsets; then as subgroup level: B = A^T."""
    text = to_ours_text(TRANSPOSE_WG, "w.mlir")
    assert "sg_layout" not in text and text.count("memref.view") == 2
    a = np.random.default_rng(4).uniform(-1, 1, (32, 32)).astype(np.float32)
    b = simulate(import_upstream(TRANSPOSE_WG, "w.mlir"), "main", [a, np.zeros_like(a)]).buffers[1]
    assert np.array_equal(b, a.T)


# ------------------------------------------------------------------------------ errors

SG_LANES = "#xegpu.layout<lane_layout = [1, 16], lane_data = [1, 1]>"   # a subgroup-level op's lane layout


def _kernel(params: str, body: str) -> str:
    return f"gpu.module @k {{\n gpu.func @f({params}) kernel {{\n{body}  gpu.return\n }}\n}}\n"


@pytest.mark.parametrize("src,message", [
    (_kernel("%s: memref<512xf32, 3>",
             "  %m = xegpu.create_mem_desc %s : memref<512xf32, 3> -> !xegpu.mem_desc<32x32xf16>\n"),
     "'xegpu.create_mem_desc' of memref<512xf32, 3> as f16 elements: only a 1D i8 buffer (identity layout) or a buffer of f16"),
    (_kernel("%s: memref<2048xi8, 1>",
             "  %m = xegpu.create_mem_desc %s : memref<2048xi8, 1> -> !xegpu.mem_desc<32x32xf16>\n"),
     "'xegpu.create_mem_desc' op operand #0 must be reside in share memory"),   # upstream's verifier
    (_kernel("%s: memref<2048xi8, 3>",
             "  %m = xegpu.create_mem_desc %s : memref<2048xi8, 3> -> !xegpu.mem_desc<32x32xf16>\n"
             "  %x = xegpu.load_matrix %m[0, 0] : !xegpu.mem_desc<32x32xf16> -> vector<8x16xf16>\n"),
     "'xegpu.load_matrix' of vector<8x16xf16>: its level cannot be told (a 2D vector without a layout is a "
     "subgroup block or one lane's share) and no other xegpu op of its kernel decides it"),
    (_kernel("%s: memref<2048xi8, 3>",
             "  %m = xegpu.create_mem_desc %s : memref<2048xi8, 3> -> !xegpu.mem_desc<32x32xf16>\n"
             f"  %x = xegpu.load_matrix %m[0] <{{layout = {SG_LANES}}}> : !xegpu.mem_desc<32x32xf16> -> vector<8x16xf16>\n"),
     "'xegpu.load_matrix' with 1 offsets on a 2D mem_desc"),
])
def test_unsupported_forms_are_located_errors(src, message):
    with pytest.raises(DiagnosticError) as e:
        import_upstream(src, "bad.mlir")
    d = e.value.diagnostics[0]
    assert message in d.message and d.filename == "bad.mlir" and d.line in (3, 4) and d.col > 1, d


def test_mem_desc_argument_is_an_error():
    """A mem_desc crossing a function boundary has no buffer to view: an error naming the type."""
    src = _kernel("%m: !xegpu.mem_desc<32x32xf16>",
                  f"  %x = xegpu.load_matrix %m[0, 0] <{{layout = {SG_LANES}}}> : !xegpu.mem_desc<32x32xf16> -> vector<8x16xf16>\n")
    with pytest.raises(DiagnosticError) as e:
        import_upstream(src, "arg.mlir")
    assert "!xegpu.mem_desc" in e.value.diagnostics[0].message


ODD_SG = _program("%a: memref<8x8xf32>, %b: memref<8x8xf32>, %i: index", 16, """\
    %ta = xegpu.create_nd_tdesc %a : memref<8x8xf32> -> !xegpu.tensor_desc<3x5xf32>
    %v = xegpu.load_nd %ta[1, 2] : !xegpu.tensor_desc<3x5xf32> -> vector<3x5xf32>
    %slm = memref.alloc() : memref<64xf32, 3>
    %m = xegpu.create_mem_desc %slm : memref<64xf32, 3> -> !xegpu.mem_desc<8x8xf32, #xegpu.mem_layout<stride = [1, 8], block = [2, 4]>>
    xegpu.store_matrix %v, %m[%i, 2] : vector<3x5xf32>, !xegpu.mem_desc<8x8xf32, #xegpu.mem_layout<stride = [1, 8], block = [2, 4]>>, index
    gpu.barrier
    %f = xegpu.create_mem_desc %slm : memref<64xf32, 3> -> !xegpu.mem_desc<8x8xf32>
    %w = xegpu.load_matrix %f[0, 0] : !xegpu.mem_desc<8x8xf32> -> vector<8x8xf32>
    %tb = xegpu.create_nd_tdesc %b : memref<8x8xf32> -> !xegpu.tensor_desc<8x8xf32>
    xegpu.store_nd %w, %tb[0, 0] : vector<8x8xf32>, !xegpu.tensor_desc<8x8xf32>
""")


def test_subgroup_block_of_odd_shape():
    """A 3x5 block (15 elements: one-lane messages) at a dynamic row offset into column-major 2x4
    blocks, SLM read back flat (8x8 row-major, unblocked): every element at MemDesc.linear."""
    text = to_ours_text(ODD_SG, "o.mlir")
    assert "vector<15x1xindex>" in text and "memref.reinterpret_cast" in text
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    flat = simulate(import_upstream(ODD_SG, "o.mlir"), "main", [a, np.zeros_like(a), 3]).buffers[1].reshape(-1)
    md = parse_mem_desc("!xegpu.mem_desc<8x8xf32, #xegpu.mem_layout<stride = [1, 8], block = [2, 4]>>")
    want = np.zeros(64, np.float32)
    for r in range(3):
        for c in range(5):
            want[md.linear([3 + r, 2 + c])] = a[1 + r, 2 + c]
    assert np.array_equal(flat, want)
