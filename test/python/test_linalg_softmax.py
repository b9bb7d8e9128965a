"""linalg.softmax: the CPU reference's decomposition (memrefs, any rank and dimension, dynamic
shapes) against numpy, and convert-linalg-to-xetile's softmax kernels numerically (VC stage on the
simulator, portable SPIR-V on the OpenCL CPU runtime) for unaligned rows and each float type."""
import os
import sys

import ml_dtypes
import numpy as np
import pytest

from xedialects.arch import get_arch
from xedialects.lowering.linalg_to_xetile.memory_plan import plan_softmax
from xedialects.sim.reference import run_reference

sys.path.insert(0, os.path.dirname(__file__))
from linalg_support import assert_portable_spirv_matches_cpu, lowered  # noqa: E402
from test_linalg_lowering import Case, assert_ok, mr  # noqa: E402

DT = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


def _np_softmax(x, d):
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(axis=d, keepdims=True))
    return e / e.sum(axis=d, keepdims=True)


def softmax_case(shape, e, dim=None, dyn=False, tensor=False, dyn_rows=False):
    dim = len(shape) - 1 if dim is None else dim
    if tensor:
        t = "tensor<" + "x".join(str(s) for s in shape) + f"x{e}>"
        src = (f"func.func @f(%A: {t}, %O: {t}) -> {t} {{\n"
               f"  %r = linalg.softmax dimension({dim}) ins(%A : {t}) outs(%O : {t}) -> {t}\n  return %r : {t}\n}}\n")
    else:
        t = mr((None,) * len(shape) if dyn else (None,) + tuple(shape[1:]) if dyn_rows else shape, e)
        src = (f"func.func @f(%A: {t}, %O: {t}) {{\n"
               f"  linalg.softmax dimension({dim}) ins(%A : {t}) outs(%O : {t})\n  return\n}}\n")
    return Case(src, [(shape, e), (shape, e)], e, shape[dim], tensor=tensor,
                dyn_shapes={0: shape, 1: shape} if dyn or dyn_rows else None)


@pytest.mark.parametrize("shape,e,dim,dyn", [((5, 33), "f32", 1, False), ((3, 9), "bf16", 1, False),
                                             ((6, 11), "f16", 1, True), ((2, 3, 5), "f32", 2, False),
                                             ((4, 7), "f32", 0, False)])
def test_reference_decomposes_memref_softmax(shape, e, dim, dyn):
    case = softmax_case(shape, e, dim, dyn)
    x = np.random.default_rng(0).uniform(-3, 3, shape).astype(np.float32).astype(DT[e])
    out = run_reference(case.src, "f", [x, np.zeros(shape, DT[e])])[1]
    tol = {"f32": 1e-6, "f16": 1e-3, "bf16": 8e-3}[e]    # one rounding of the output
    np.testing.assert_allclose(out.astype(np.float64), _np_softmax(x.astype(np.float64), dim), rtol=tol, atol=tol)


# ---- the XeTile kernels, numerically -----------------------------------------------------------

SCASES = {f"{e}-{m}x{n}": softmax_case((m, n), e) for e, m, n in
          [("f32", 37, 53), ("f32", 5, 3), ("f32", 20, 1000), ("f16", 37, 70), ("f16", 9, 600), ("bf16", 33, 100),
           ("bf16", 64, 32)]}
SCASES["f32-3d-3x5x40"] = softmax_case((3, 5, 40), "f32")
SCASES["f16-1d-77"] = softmax_case((77,), "f16")
SCASES["f32-tensor-65x130"] = softmax_case((65, 130), "f32", tensor=True)
SCASES["f32-d0-37x53"] = softmax_case((37, 53), "f32", dim=0)
SCASES["f16-d0-100x70"] = softmax_case((100, 70), "f16", dim=0)
SCASES["f32-d0-1000x20"] = softmax_case((1000, 20), "f32", dim=0)      # two passes over row chunks
SCASES["f32-3d-d1-4x33x21"] = softmax_case((4, 33, 21), "f32", dim=1)    # per batch (grid z)
SCASES["f16-3d-d0-3x37x20"] = softmax_case((3, 37, 20), "f16", dim=0)    # B x (M*N) view
SCASES["f32-strided-37x53"] = Case("""#s = strided<[64, 1]>
func.func @f(%A: memref<37x64xf32>, %O: memref<37x64xf32>) {
  %s = memref.subview %A[0, 0] [37, 53] [1, 1] : memref<37x64xf32> to memref<37x53xf32, #s>
  %t = memref.subview %O[0, 0] [37, 53] [1, 1] : memref<37x64xf32> to memref<37x53xf32, #s>
  linalg.softmax dimension(1) ins(%s : memref<37x53xf32, #s>) outs(%t : memref<37x53xf32, #s>)
  return
}
""", [((37, 64), "f32"), ((37, 64), "f32")], "f32", 53)
SCASES["f16-dynamic-rows-100x53"] = softmax_case((100, 53), "f16", dyn_rows=True)
SCASES["f32-dynamic-rows-37x1000"] = softmax_case((37, 1000), "f32", dyn_rows=True)


@pytest.mark.parametrize("name", sorted(SCASES))
def test_softmax_through_vc(name):
    assert_ok(SCASES[name], "vc", name)


def test_softmax_kernel_structure():
    text = str(lowered(SCASES["f32-37x53"]))
    assert "linalg.softmax" not in text
    for piece in ("xetile.tile_reduce", "maximumf", "xetile.tile_broadcast", "math.exp",
                  "arith.divf", "x48xf32>", "x5xf32>"):     # 3 full-width blocks + the 5-column tail
        assert piece in text, piece
    chunked = str(lowered(SCASES["f32-20x1000"]))
    assert chunked.count("scf.for") == 2 and "iter_args" in chunked      # online pass, then the write pass


def test_softmax_plan():
    hw = get_arch("pvc")
    big = plan_softmax(8192, 128, "f16", hw)
    assert big.chunk is None and big.sg_layout[1] == 1 and big.grid()[1] >= hw.xe_cores
    assert big.sg_data[1] * 2 == max(r.max_row_bytes for r in hw.blocks)
    wide = plan_softmax(4096, 4096, "f32", hw)
    assert wide.chunk and wide.chunk % wide.sg_data[1] == 0
    assert any("two passes" in r for r in wide.reasons)


def test_softmax_other_forms_left_alone():
    for case in (softmax_case((2, 8, 16), "f32", dim=1, dyn=True), softmax_case((8, 16), "f32", dyn=True),
                 softmax_case((8, 16), "f32", dim=0, dyn=True)):
        text = str(lowered(case))
        assert "linalg.softmax" in text and "gpu.launch_func" not in text


@pytest.mark.parametrize("name", ["f32-37x53", "f16-37x70", "f32-20x1000", "f32-3d-3x5x40", "f16-dynamic-rows-100x53",
                                  "f16-d0-100x70", "f32-3d-d1-4x33x21"])
def test_softmax_portable_spirv_on_opencl_matches_cpu(name):
    assert_portable_spirv_matches_cpu(name, SCASES[name])
