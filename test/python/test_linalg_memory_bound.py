"""convert-linalg-to-xetile on memory-bound linalg ops (element-wise named ops and generics:
hadamard, axpby with scalar kernel arguments, integer add; tensor and dynamic forms), numerically:
lowered through the VC-mode XeGPU stage, simulated and compared with the original program run on
the CPU by upstream MLIR, for unaligned shapes and each element type; portable SPIR-V on the
OpenCL CPU runtime; the planner's choices and reasons."""
import os
import sys

import pytest

from xedialects.arch import get_arch
from xedialects.lowering.linalg_to_xetile.memory_plan import plan_memory_bound

sys.path.insert(0, os.path.dirname(__file__))
from linalg_support import assert_portable_spirv_matches_cpu, lowered, opencl_program  # noqa: E402
from test_linalg_lowering import XEGPU, Case, assert_ok, mr  # noqa: E402

ID = "affine_map<(d0, d1) -> (d0, d1)>"
SHAPES = [(37, 53), (100, 70), (5, 3), (129, 257)]


def named(op, shape, e, dyn=False):
    t = mr((None, None) if dyn else shape, e)
    src = (f"func.func @f(%A: {t}, %B: {t}, %C: {t}) {{\n"
           f"  linalg.{op} ins(%A, %B : {t}, {t}) outs(%C : {t})\n  return\n}}\n")
    return Case(src, [(shape, e)] * 3, e, 1, dyn_shapes={i: shape for i in range(3)} if dyn else None)


def axpby(shape, e):
    t = mr(shape, e)
    src = f"""func.func @f(%x: {t}, %y: {t}, %alpha: {e}, %beta: {e}) {{
  linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}}
      ins(%x : {t}) outs(%y : {t}) {{
  ^bb0(%a: {e}, %b: {e}):
    %0 = arith.mulf %alpha, %a : {e}
    %1 = arith.mulf %beta, %b : {e}
    %2 = arith.addf %0, %1 : {e}
    linalg.yield %2 : {e}
  }}
  return
}}
"""
    return Case(src, [(shape, e), (shape, e), ("scalar", e, 0.75), ("scalar", e, -1.5)], e, 1)


def hadamard_tensor(shape, e):
    t = f"tensor<{shape[0]}x{shape[1]}x{e}>"
    src = f"""func.func @f(%A: {t}, %B: {t}) -> {t} {{
  %e = tensor.empty() : {t}
  %r = linalg.mul ins(%A, %B : {t}, {t}) outs(%e : {t}) -> {t}
  return %r : {t}
}}
"""
    return Case(src, [(shape, e)] * 2, e, 1, tensor=True)


CASES = {}
for e in ("f32", "f16", "bf16"):
    for op in ("add", "sub", "mul", "div"):
        for shape in SHAPES[:3]:
            CASES[f"{op}-{e}-{shape[0]}x{shape[1]}"] = named(op, shape, e)
    CASES[f"axpby-{e}-37x53"] = axpby((37, 53), e)
    CASES[f"axpby-{e}-129x257"] = axpby((129, 257), e)
    CASES[f"hadamard-tensor-{e}-65x129"] = hadamard_tensor((65, 129), e)
CASES["add-i32-33x47"] = named("add", (33, 47), "i32")


def named_1d(op, n, e, dyn=False):
    t = f"memref<{'?' if dyn else n}x{e}>"
    src = (f"func.func @f(%A: {t}, %B: {t}, %C: {t}) {{\n"
           f"  linalg.{op} ins(%A, %B : {t}, {t}) outs(%C : {t})\n  return\n}}\n")
    return Case(src, [((n,), e)] * 3, e, 1, dyn_shapes={i: (n,) for i in range(3)} if dyn else None)


def axpby_1d(n, e):
    t = f"memref<{n}x{e}>"
    src = f"""func.func @f(%x: {t}, %y: {t}, %alpha: {e}, %beta: {e}) {{
  linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}}
      ins(%x : {t}) outs(%y : {t}) {{
  ^bb0(%a: {e}, %b: {e}):
    %0 = arith.mulf %alpha, %a : {e}
    %1 = arith.mulf %beta, %b : {e}
    %2 = arith.addf %0, %1 : {e}
    linalg.yield %2 : {e}
  }}
  return
}}
"""
    return Case(src, [((n,), e), ((n,), e), ("scalar", e, 0.75), ("scalar", e, -1.5)], e, 1)


for e in ("f32", "f16", "bf16"):
    CASES[f"axpby-1d-{e}-1000"] = axpby_1d(1000, e)
    CASES[f"mul-1d-{e}-37"] = named_1d("mul", 37, e)
CASES["sub-1d-bf16-dynamic-333"] = named_1d("sub", 333, "bf16", dyn=True)
CASES["add-1d-i32-77"] = named_1d("add", 77, "i32")
CASES["div-f32-dynamic-77x45"] = named("div", (77, 45), "f32", dyn=True)
CASES["add-f32-dynamic-129x257"] = named("add", (129, 257), "f32", dyn=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_through_vc(name):
    assert_ok(CASES[name], "vc", name)


def test_no_linalg_left_and_one_kernel():
    text = str(lowered(CASES["axpby-f32-37x53"]))
    assert "linalg." not in text.split("gpu.module")[0]
    assert text.count("gpu.launch_func") == 1
    assert "vector.broadcast" in text and "xetile.store_tile" in text


def test_plan_fills_xe_cores():
    for arch in ("pvc", "bmg"):
        hw = get_arch(arch)
        p = plan_memory_bound("add", 4096, 4096, "bf16", hw)
        gx, gy = p.grid()
        assert gx * gy >= hw.xe_cores
        assert p.sg_data[1] * 2 == max(r.max_row_bytes for r in hw.blocks)   # full-width rows
        assert any("Xe-cores" in r for r in p.reasons)
    small = plan_memory_bound("add", 300, 64, "f32", get_arch("pvc"))
    assert small.grid()[0] * small.grid()[1] >= 19


@pytest.mark.parametrize("name", ["add-f32-100x70", "axpby-f16-37x53", "axpby-1d-f32-1000", "hadamard-tensor-bf16-65x129",
                                  "add-i32-33x47"])
def test_portable_spirv_on_opencl_matches_cpu(name):
    assert_portable_spirv_matches_cpu(name, CASES[name])


# ---- reductions ---------------------------------------------------------------------------------

def reduce_case(shape, e, dim, comb, tensor=False, dyn=()):
    out = shape[1 - dim]
    if tensor:
        ti, to = f"tensor<{shape[0]}x{shape[1]}x{e}>", f"tensor<{out}x{e}>"
        src = f"""func.func @f(%A: {ti}, %O: {to}) -> {to} {{
  %r = linalg.reduce ins(%A : {ti}) outs(%O : {to}) dimensions = [{dim}]
    (%x: {e}, %acc: {e}) {{
      %s = {comb} %x, %acc : {e}
      linalg.yield %s : {e}
    }}
  return %r : {to}
}}
"""
    else:
        ti = mr(tuple(None if i in dyn else s for i, s in enumerate(shape)), e)
        to = mr((None if 1 - dim in dyn else out,), e)
        src = f"""func.func @f(%A: {ti}, %O: {to}) {{
  linalg.reduce ins(%A : {ti}) outs(%O : {to}) dimensions = [{dim}]
    (%x: {e}, %acc: {e}) {{
      %s = {comb} %x, %acc : {e}
      linalg.yield %s : {e}
    }}
  return
}}
"""
    return Case(src, [(shape, e), ((out,), e)], e, shape[dim], tensor=tensor,
                dyn_shapes={0: shape, 1: (out,)} if dyn else None)


RCASES = {}
for e in ("f32", "f16", "bf16"):
    for dim in (0, 1):
        for comb in ("arith.addf", "arith.maximumf"):
            for shape in ((100, 70), (37, 129), (300, 33)):
                RCASES[f"{comb[6:]}-d{dim}-{e}-{shape[0]}x{shape[1]}"] = reduce_case(shape, e, dim, comb)
RCASES["addi-d1-i32-45x77"] = reduce_case((45, 77), "i32", 1, "arith.addi")
RCASES["maxsi-d0-i32-45x77"] = reduce_case((45, 77), "i32", 0, "arith.maxsi")
RCASES["addf-d1-f32-tensor-65x130"] = reduce_case((65, 130), "f32", 1, "arith.addf", tensor=True)


def reduce_ext_case(shape, e, eo, dim, comb, full=False):
    """A reduce whose body extends the input to the init's type first (bf16 -> f32, i8 -> i32)."""
    ext = "arith.extf" if eo == "f32" else "arith.extsi"
    ti = mr(shape, e)
    if full:
        to, dims, oshape = f"memref<{eo}>", ", ".join(str(i) for i in range(len(shape))), ()
    else:
        oshape = (shape[1 - dim],)
        to, dims = mr(oshape, eo), str(dim)
    src = f"""func.func @f(%A: {ti}, %O: {to}) {{
  linalg.reduce ins(%A : {ti}) outs(%O : {to}) dimensions = [{dims}]
    (%x: {e}, %acc: {eo}) {{
      %w = {ext} %x : {e} to {eo}
      %s = {comb} %w, %acc : {eo}
      linalg.yield %s : {eo}
    }}
  return
}}
"""
    k = shape[0] * shape[1] if full and len(shape) == 2 else shape[0] if full else shape[dim]
    return Case(src, [(shape, e), (oshape, eo)], e, k)


RCASES["ext-addf-d1-bf16-f32-100x70"] = reduce_ext_case((100, 70), "bf16", "f32", 1, "arith.addf")
RCASES["ext-maximumf-d0-f16-f32-37x129"] = reduce_ext_case((37, 129), "f16", "f32", 0, "arith.maximumf")
RCASES["ext-addi-d1-i8-i32-45x77"] = reduce_ext_case((45, 77), "i8", "i32", 1, "arith.addi")
RCASES["addf-d1-f32-dynamic-100x70"] = reduce_case((100, 70), "f32", 1, "arith.addf", dyn=(0, 1))
RCASES["addf-d0-f16-dynamic-37x129"] = reduce_case((37, 129), "f16", 0, "arith.addf", dyn=(0, 1))
RCASES["maximumf-d1-f32-dynamic-rows-300x33"] = reduce_case((300, 33), "f32", 1, "arith.maximumf", dyn=(0,))
RCASES["addi-d0-i32-dynamic-45x77"] = reduce_case((45, 77), "i32", 0, "arith.addi", dyn=(0, 1))


@pytest.mark.parametrize("name", sorted(RCASES))
def test_reduce_through_vc(name):
    assert_ok(RCASES[name], "vc", name)


def test_reduce_uses_tile_reduce():
    text = str(lowered(RCASES["maximumf-d1-f32-100x70"]))
    assert "xetile.tile_reduce" in text and "maximumf" in text and "arith.minsi" in text   # clamped last tile
    assert "linalg.reduce" not in text


def test_reduce_too_narrow_for_max_is_left_alone():
    for case in (reduce_case((40, 5), "f32", 1, "arith.maximumf"),
                 reduce_case((40, 50), "f32", 1, "arith.maximumf", dyn=(1,))):    # dynamic reduced extent
        text = str(lowered(case))
        assert "linalg.reduce" in text and "gpu.launch_func" not in text


@pytest.mark.parametrize("name", ["addf-d1-f32-100x70", "maximumf-d0-f16-37x129", "addf-d1-f32-tensor-65x130"])
def test_reduce_portable_spirv_on_opencl_matches_cpu(name):
    assert_portable_spirv_matches_cpu(name, RCASES[name])


# ---- reductions to a scalar (two stages: partials, then one work-group) -------------------------

def full_case(shape, e, comb, tensor=False, dyn=False):
    dims = ", ".join(str(i) for i in range(len(shape)))
    k = 1
    for s in shape:
        k *= s
    if tensor:
        ti, to = "tensor<" + "x".join(map(str, shape)) + f"x{e}>", f"tensor<{e}>"
        src = f"""func.func @f(%A: {ti}, %O: {to}) -> {to} {{
  %r = linalg.reduce ins(%A : {ti}) outs(%O : {to}) dimensions = [{dims}]
    (%x: {e}, %acc: {e}) {{
      %s = {comb} %x, %acc : {e}
      linalg.yield %s : {e}
    }}
  return %r : {to}
}}
"""
    else:
        ti, to = mr((None,) * len(shape) if dyn else shape, e), f"memref<{e}>"
        src = f"""func.func @f(%A: {ti}, %O: {to}) {{
  linalg.reduce ins(%A : {ti}) outs(%O : {to}) dimensions = [{dims}]
    (%x: {e}, %acc: {e}) {{
      %s = {comb} %x, %acc : {e}
      linalg.yield %s : {e}
    }}
  return
}}
"""
    return Case(src, [(shape, e), ((), e)], e, k, tensor=tensor, dyn_shapes={0: shape} if dyn else None)


FCASES = {f"{comb[6:]}-{e}-{'x'.join(map(str, shape))}": full_case(shape, e, comb) for comb, e, shape in [
    ("arith.addf", "f32", (37, 53)), ("arith.addf", "f16", (300, 70)), ("arith.maximumf", "bf16", (45, 77)),
    ("arith.minimumf", "f32", (3, 5)), ("arith.addi", "i32", (45, 77)), ("arith.addf", "f32", (5000,)),
    ("arith.maximumf", "f16", (77,)), ("arith.maxsi", "i32", (2000,))]}
FCASES["addf-f32-tensor-65x130"] = full_case((65, 130), "f32", "arith.addf", tensor=True)
FCASES["ext-addf-bf16-f32-100x70"] = reduce_ext_case((100, 70), "bf16", "f32", None, "arith.addf", full=True)
FCASES["ext-addi-i8-i32-3000"] = reduce_ext_case((3000,), "i8", "i32", None, "arith.addi", full=True)
FCASES["maximumf-f32-strided-37x53"] = Case("""func.func @f(%A: memref<37x64xf32>, %O: memref<f32>) {
  %s = memref.subview %A[0, 0] [37, 53] [1, 1] : memref<37x64xf32> to memref<37x53xf32, strided<[64, 1]>>
  linalg.reduce ins(%s : memref<37x53xf32, strided<[64, 1]>>) outs(%O : memref<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) {
      %r = arith.maximumf %x, %acc : f32
      linalg.yield %r : f32
    }
  return
}
""", [((37, 64), "f32"), ((), "f32")], "f32", 37 * 53)      # not contiguous: bands of whole rows
FCASES["addf-f16-dynamic-37x70"] = full_case((37, 70), "f16", "arith.addf", dyn=True)
FCASES["addf-f32-dynamic-3000"] = full_case((3000,), "f32", "arith.addf", dyn=True)
FCASES["addi-i32-dynamic-45x53"] = full_case((45, 53), "i32", "arith.addi", dyn=True)


def _check_scalar(case, mod, runner):
    """The 0-D output (which the shared helpers skip as a scalar) against the CPU reference."""
    import numpy as np

    from test_linalg_lowering import _reference_program
    from xedialects.sim.reference import compare, run_reference

    args = case.inputs(0)
    want, want_ret = run_reference(_reference_program(case), case.entry, [np.copy(a) for a in args], returns=True)
    res = runner(mod, [np.copy(a) for a in args])
    got, ref = (res.returns[0], want_ret[0]) if case.tensor else (res.buffers[1], want[1])
    assert np.shape(got) == () and not np.array_equal(got, args[1])
    ok, mx, rel = compare(np.asarray(got), np.asarray(ref), case.in_type, np.asarray(ref).dtype, k=case.k)
    assert ok, f"got {got}, want {ref}: max abs {mx:.3g}, max rel {rel:.3g}"


@pytest.mark.parametrize("name", sorted(FCASES))
def test_full_reduce_through_vc(name):
    from xedialects.sim import simulate

    case = FCASES[name]
    _check_scalar(case, lowered(case, XEGPU), lambda m, a: simulate(m, case.entry, a))


def test_full_reduce_dynamic_max_is_left_alone():
    text = str(lowered(full_case((40, 50), "f32", "arith.maximumf", dyn=True)))
    assert "linalg.reduce" in text and "gpu.launch_func" not in text


def test_full_reduce_two_stages():
    text = str(lowered(FCASES["addf-f32-37x53"]))
    assert "linalg.reduce" not in text.split("gpu.module")[0]
    assert text.count("gpu.launch_func") == 2 and "memref.alloc" in text and "memref.dealloc" in text
    assert "_partials" in text and "_final" in text and "xetile.tile_reduce" in text


@pytest.mark.parametrize("name", ["addf-f32-37x53", "maximumf-f16-77", "addf-f32-5000", "addf-f16-dynamic-37x70"])
def test_full_reduce_portable_spirv_on_opencl_matches_cpu(name):
    from opencl_support import RT
    from xedialects.runtime.opencl import run_opencl

    case = FCASES[name]
    m, prog = opencl_program(case)
    _check_scalar(case, m, lambda mod, a: run_opencl(mod, case.entry, a, runtime=RT, program=prog).result)
