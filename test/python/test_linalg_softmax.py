"""linalg.softmax: the CPU reference's decomposition (memrefs, any rank and dimension, dynamic
shapes) against numpy, and convert-linalg-to-xetile's softmax kernels numerically (VC stage on the
simulator, portable SPIR-V on the OpenCL CPU runtime) for unaligned rows and each float type."""
import os
import sys

import ml_dtypes
import numpy as np
import pytest

from xedialects.sim.reference import run_reference

sys.path.insert(0, os.path.dirname(__file__))
from test_linalg_lowering import Case, mr  # noqa: E402

DT = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


def _np_softmax(x, d):
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(axis=d, keepdims=True))
    return e / e.sum(axis=d, keepdims=True)


def softmax_case(shape, e, dim=None, dyn=False, tensor=False):
    dim = len(shape) - 1 if dim is None else dim
    if tensor:
        t = "tensor<" + "x".join(str(s) for s in shape) + f"x{e}>"
        src = (f"func.func @f(%A: {t}, %O: {t}) -> {t} {{\n"
               f"  %r = linalg.softmax dimension({dim}) ins(%A : {t}) outs(%O : {t}) -> {t}\n  return %r : {t}\n}}\n")
    else:
        t = mr((None,) * len(shape) if dyn else shape, e)
        src = (f"func.func @f(%A: {t}, %O: {t}) {{\n"
               f"  linalg.softmax dimension({dim}) ins(%A : {t}) outs(%O : {t})\n  return\n}}\n")
    return Case(src, [(shape, e), (shape, e)], e, shape[dim], tensor=tensor,
                dyn_shapes={0: shape, 1: shape} if dyn else None)


@pytest.mark.parametrize("shape,e,dim,dyn", [((5, 33), "f32", 1, False), ((3, 9), "bf16", 1, False),
                                             ((6, 11), "f16", 1, True), ((2, 3, 5), "f32", 2, False),
                                             ((4, 7), "f32", 0, False)])
def test_reference_decomposes_memref_softmax(shape, e, dim, dyn):
    case = softmax_case(shape, e, dim, dyn)
    x = np.random.default_rng(0).uniform(-3, 3, shape).astype(np.float32).astype(DT[e])
    out = run_reference(case.src, "f", [x, np.zeros(shape, DT[e])])[1]
    tol = {"f32": 1e-6, "f16": 1e-3, "bf16": 8e-3}[e]    # one rounding of the output
    np.testing.assert_allclose(out.astype(np.float64), _np_softmax(x.astype(np.float64), dim), rtol=tol, atol=tol)
