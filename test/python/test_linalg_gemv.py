"""convert-linalg-to-xetile on gemv (linalg.matvec, vecmat, batch_matvec, batch_vecmat, gemv-shaped
generics with a host scalar alpha, mixed f16/bf16 -> f32) and ger (outer-product generics),
numerically: lowered through the VC-mode XeGPU stage (and SIMT for some), simulated and compared
with the original program run on the CPU by upstream MLIR, for unaligned shapes and each element
type; portable SPIR-V on the OpenCL CPU runtime; the planner's choices and reasons."""
import os
import sys

import pytest

import xedialects
from xedialects.arch import get_arch
from xedialects.lowering.linalg_to_xetile.memory_plan import plan_gemv
from xedialects.passes import run

sys.path.insert(0, os.path.dirname(__file__))
from linalg_support import assert_portable_spirv_matches_cpu, lowered, opencl_program  # noqa: E402
from test_linalg_lowering import XEGPU, Case, assert_ok, mr  # noqa: E402


def named(op, m, n, e, batch=0, out=None, tensor=False):
    """linalg.<op> on an m x n matrix (batched when batch > 0); `out`: output type (default e)."""
    out = out or e
    pre = (batch,) if batch else ()
    a = pre + (m, n)
    x = pre + ((n,) if "matvec" in op else (m,))
    y = pre + ((m,) if "matvec" in op else (n,))
    ins = [(a, e), (x, e)] if "matvec" in op else [(x, e), (a, e)]
    if tensor:
        tt = lambda s, t: "tensor<" + "x".join(map(str, s)) + f"x{t}>"  # noqa: E731
        ta, tb, ty = tt(ins[0][0], e), tt(ins[1][0], e), tt(y, out)
        src = (f"func.func @f(%P: {ta}, %Q: {tb}, %Y: {ty}) -> {ty} {{\n"
               f"  %r = linalg.{op} ins(%P, %Q : {ta}, {tb}) outs(%Y : {ty}) -> {ty}\n"
               f"  return %r : {ty}\n}}\n")
    else:
        ta, tb, ty = mr(ins[0][0], e), mr(ins[1][0], e), mr(y, out)
        src = (f"func.func @f(%P: {ta}, %Q: {tb}, %Y: {ty}) {{\n"
               f"  linalg.{op} ins(%P, %Q : {ta}, {tb}) outs(%Y : {ty})\n  return\n}}\n")
    k = n if "matvec" in op else m
    return Case(src, ins + [(y, out)], e, k, tensor=tensor)


def dynamic(op, m, n, e, static_n=False):
    """linalg.matvec / vecmat on dynamic memrefs (static_n: only A's rows and y are dynamic)."""
    a = (None, n) if static_n else (None, None)
    if op == "matvec":
        ins, out, shapes = [(a, e), ((n if static_n else None,), e)], ((None,), e), [(m, n), (n,), (m,)]
    else:
        ins, out, shapes = [((None,), e), (a, e)], ((n if static_n else None,), e), [(m,), (m, n), (n,)]
    ta, tb, ty = mr(*ins[0]), mr(*ins[1]), mr(*out)
    src = (f"func.func @f(%P: {ta}, %Q: {tb}, %Y: {ty}) {{\n"
           f"  linalg.{op} ins(%P, %Q : {ta}, {tb}) outs(%Y : {ty})\n  return\n}}\n")
    return Case(src, [(sh, e) for sh in shapes], e, n if op == "matvec" else m,
                dyn_shapes={i: sh for i, sh in enumerate(shapes)})


def _alpha_fma_region(e):
    """The region of a gemv-shaped generic with a host scalar %alpha: acc + alpha * (a * b)."""
    return (f"  ^bb0(%a: {e}, %b: {e}, %acc: {e}):\n"
            f"    %0 = arith.mulf %a, %b : {e}\n"
            f"    %1 = arith.mulf %alpha, %0 : {e}\n"
            f"    %2 = arith.addf %acc, %1 : {e}\n"
            f"    linalg.yield %2 : {e}\n  }}\n")


def generic_alpha(m, n, e, vecmat=False):
    """y += alpha * A x (or x A) as a linalg.generic, alpha a host scalar."""
    ta, tx, ty = mr((m, n), e), mr((m if vecmat else n,), e), mr((n if vecmat else m,), e)
    if vecmat:   # loops (j, i): y[j] += alpha * x[i] * A[i, j]
        maps = "[affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>]"
    else:
        maps = "[affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>]"
    src = f"""func.func @f(%A: {ta}, %x: {tx}, %y: {ty}, %alpha: {e}) {{
  linalg.generic {{indexing_maps = {maps}, iterator_types = ["parallel", "reduction"]}}
      ins(%A, %x : {ta}, {tx}) outs(%y : {ty}) {{
{_alpha_fma_region(e)}  return
}}
"""
    return Case(src, [((m, n), e), ((m if vecmat else n,), e), ((n if vecmat else m,), e), ("scalar", e, 0.75)],
                e, m if vecmat else n)


def ger(m, n, e, alpha=False, accumulate=False):
    """C[i, j] = x[i] * y[j] (optionally alpha * ..., optionally C + ...)."""
    tx, ty, tc = mr((m,), e), mr((n,), e), mr((m, n), e)
    f = "f" if e.startswith(("f", "bf")) else "i"
    body = [f"%0 = arith.mul{f} %a, %b : {e}"]
    last = "%0"
    if alpha:
        body.append(f"%1 = arith.mul{f} %alpha, %0 : {e}")
        last = "%1"
    if accumulate:
        body.append(f"%2 = arith.add{f} %c, {last} : {e}")
        last = "%2"
    body = "\n    ".join(body)
    args = f", %alpha: {e}" if alpha else ""
    src = f"""func.func @f(%x: {tx}, %y: {ty}, %C: {tc}{args}) {{
  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %y : {tx}, {ty}) outs(%C : {tc}) {{
  ^bb0(%a: {e}, %b: {e}, %c: {e}):
    {body}
    linalg.yield {last} : {e}
  }}
  return
}}
"""
    return Case(src, [((m,), e), ((n,), e), ((m, n), e)] + ([("scalar", e, -1.25)] if alpha else []), e, 1)


def filled(m, n, e, batch=0):
    """y = fill(beta) then (batch_)matvec: the fill starts the accumulator (beta a host scalar)."""
    op = "batch_matvec" if batch else "matvec"
    pre = (batch,) if batch else ()
    ta, tx, ty = mr(pre + (m, n), e), mr(pre + (n,), e), mr(pre + (m,), e)
    src = f"""func.func @f(%A: {ta}, %x: {tx}, %y: {ty}, %beta: {e}) {{
  linalg.fill ins(%beta : {e}) outs(%y : {ty})
  linalg.{op} ins(%A, %x : {ta}, {tx}) outs(%y : {ty})
  return
}}
"""
    return Case(src, [(pre + (m, n), e), (pre + (n,), e), (pre + (m,), e), ("scalar", e, 0.5)], e, n)


CASES = {}
for e in ("f32", "f16", "bf16"):
    for shape in ((100, 70), (37, 129), (5, 3)):
        CASES[f"matvec-{e}-{shape[0]}x{shape[1]}"] = named("matvec", *shape, e)
        CASES[f"vecmat-{e}-{shape[0]}x{shape[1]}"] = named("vecmat", *shape, e)
    CASES[f"batch_matvec-{e}-3x45x77"] = named("batch_matvec", 45, 77, e, batch=3)
    CASES[f"generic-alpha-{e}-65x33"] = generic_alpha(65, 33, e)
    CASES[f"ger-{e}-37x53"] = ger(37, 53, e)
    CASES[f"ger-alpha-acc-{e}-100x70"] = ger(100, 70, e, alpha=True, accumulate=True)
CASES["batch_vecmat-f32-2x33x47"] = named("batch_vecmat", 33, 47, "f32", batch=2)
CASES["generic-alpha-vecmat-f32-40x90"] = generic_alpha(40, 90, "f32", vecmat=True)
CASES["matvec-bf16-to-f32-70x300"] = named("matvec", 70, 300, "bf16", out="f32")
CASES["matvec-i32-45x77"] = named("matvec", 45, 77, "i32")
CASES["matvec-tensor-f32-65x130"] = named("matvec", 65, 130, "f32", tensor=True)
CASES["vecmat-tensor-f16-33x70"] = named("vecmat", 33, 70, "f16", tensor=True)
CASES["matvec-bf16-45x256"] = named("matvec", 45, 256, "bf16")     # 16-byte aligned pitches: 2D block loads
CASES["vecmat-f32-37x64"] = named("vecmat", 37, 64, "f32")
CASES["matvec-fill-f32-70x45"] = filled(70, 45, "f32")
CASES["matvec-dynamic-f32-77x45"] = dynamic("matvec", 77, 45, "f32")
CASES["vecmat-dynamic-f16-37x129"] = dynamic("vecmat", 37, 129, "f16")
CASES["matvec-dynamic-rows-bf16-100x70"] = dynamic("matvec", 100, 70, "bf16", static_n=True)
CASES["batch_matvec-fill-f16-2x33x40"] = filled(33, 40, "f16", batch=2)
CASES["ger-f32-5x3"] = ger(5, 3, "f32")
CASES["ger-acc-i32-33x47"] = ger(33, 47, "i32", accumulate=True)
CASES["batch_matvec-tensor-f32-2x33x40"] = named("batch_matvec", 33, 40, "f32", batch=2, tensor=True)


def ger_beta(m, n, e):
    """C = alpha x yT + beta C."""
    tx, ty, tc = mr((m,), e), mr((n,), e), mr((m, n), e)
    src = f"""func.func @f(%x: {tx}, %y: {ty}, %C: {tc}, %alpha: {e}, %beta: {e}) {{
  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %y : {tx}, {ty}) outs(%C : {tc}) {{
  ^bb0(%a: {e}, %b: {e}, %c: {e}):
    %0 = arith.mulf %a, %b : {e}
    %1 = arith.mulf %alpha, %0 : {e}
    %2 = arith.mulf %beta, %c : {e}
    %3 = arith.addf %1, %2 : {e}
    linalg.yield %3 : {e}
  }}
  return
}}
"""
    return Case(src, [((m,), e), ((n,), e), ((m, n), e), ("scalar", e, 0.5), ("scalar", e, -2.0)], e, 1)


def matvec_x_first(m, n, e):
    """A matvec generic whose first input is x."""
    ta, tx, ty = mr((m, n), e), mr((n,), e), mr((m,), e)
    src = f"""func.func @f(%x: {tx}, %A: {ta}, %y: {ty}) {{
  linalg.generic {{indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}}
      ins(%x, %A : {tx}, {ta}) outs(%y : {ty}) {{
  ^bb0(%b: {e}, %a: {e}, %acc: {e}):
    %0 = arith.mulf %b, %a : {e}
    %1 = arith.addf %0, %acc : {e}
    linalg.yield %1 : {e}
  }}
  return
}}
"""
    return Case(src, [((n,), e), ((m, n), e), ((m,), e)], e, n)


def batch_generic_alpha(b, m, n, e):
    """y[b] += alpha * A[b] x[b] as a 3-loop linalg.generic."""
    ta, tx, ty = mr((b, m, n), e), mr((b, n), e), mr((b, m), e)
    src = f"""func.func @f(%A: {ta}, %x: {tx}, %y: {ty}, %alpha: {e}) {{
  linalg.generic {{indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, j)>, affine_map<(b, i, j) -> (b, i)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%A, %x : {ta}, {tx}) outs(%y : {ty}) {{
  ^bb0(%a: {e}, %v: {e}, %acc: {e}):
    %0 = arith.mulf %a, %v : {e}
    %1 = arith.mulf %0, %alpha : {e}
    %2 = arith.addf %acc, %1 : {e}
    linalg.yield %2 : {e}
  }}
  return
}}
"""
    return Case(src, [((b, m, n), e), ((b, n), e), ((b, m), e), ("scalar", e, 1.5)], e, n)


def ger_tensor(m, n, e):
    """C = x yT on tensors (C from tensor.empty: written only)."""
    tx, ty, tc = f"tensor<{m}x{e}>", f"tensor<{n}x{e}>", f"tensor<{m}x{n}x{e}>"
    src = f"""func.func @f(%x: {tx}, %y: {ty}) -> {tc} {{
  %e = tensor.empty() : {tc}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %y : {tx}, {ty}) outs(%e : {tc}) {{
  ^bb0(%a: {e}, %b: {e}, %c: {e}):
    %0 = arith.mulf %a, %b : {e}
    linalg.yield %0 : {e}
  }} -> {tc}
  return %r : {tc}
}}
"""
    return Case(src, [((m,), e), ((n,), e)], e, 1, tensor=True)


def gemv_alpha_beta(m, n, e):
    """y = alpha A x + beta y as two ops: y *= beta (a 1D element-wise kernel), then y += alpha A x."""
    ta, tx, ty = mr((m, n), e), mr((n,), e), mr((m,), e)
    src = f"""func.func @f(%A: {ta}, %x: {tx}, %y: {ty}, %alpha: {e}, %beta: {e}) {{
  linalg.generic {{indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}} outs(%y : {ty}) {{
  ^bb0(%v: {e}):
    %0 = arith.mulf %beta, %v : {e}
    linalg.yield %0 : {e}
  }}
  linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}}
      ins(%A, %x : {ta}, {tx}) outs(%y : {ty}) {{
{_alpha_fma_region(e)}  return
}}
"""
    return Case(src, [((m, n), e), ((n,), e), ((m,), e), ("scalar", e, 0.75), ("scalar", e, -0.5)], e, n)


CASES["vecmat-split-f32-1000x40"] = named("vecmat", 1000, 40, "f32")   # 8 slices of 128 rows, atomics
CASES["vecmat-split-i32-700x33"] = named("vecmat", 700, 33, "i32")
CASES["matvec-split-f32-24x1000"] = named("matvec", 24, 1000, "f32")   # column of y added atomically
CASES["ger-alpha-beta-f16-45x70"] = ger_beta(45, 70, "f16")
CASES["gemv-alpha-beta-f32-77x45"] = gemv_alpha_beta(77, 45, "f32")
CASES["batch-generic-alpha-bf16-3x20x50"] = batch_generic_alpha(3, 20, 50, "bf16")
CASES["ger-tensor-f32-33x65"] = ger_tensor(33, 65, "f32")
CASES["generic-x-first-bf16-50x90"] = matvec_x_first(50, 90, "bf16")
CASES["ger-acc-f16-129x257"] = ger(129, 257, "f16", accumulate=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_through_vc(name):
    assert_ok(CASES[name], "vc", name)


@pytest.mark.parametrize("name", ["matvec-f16-37x129", "vecmat-bf16-100x70", "batch_matvec-f32-3x45x77",
                                  "ger-alpha-acc-f32-100x70", "vecmat-dynamic-f16-37x129",
                                  "vecmat-split-f32-1000x40", "vecmat-split-i32-700x33",
                                  "matvec-split-f32-24x1000"])
def test_through_simt(name):
    assert_ok(CASES[name], "simt", name)


def test_one_kernel_with_tile_reduce():
    text = str(lowered(CASES["matvec-f32-100x70"]))
    host, kernels = text.split("gpu.module")
    assert "linalg." not in host and host.count("gpu.launch_func") == 1
    assert "tile_reduce" in kernels and "tile_broadcast" in kernels


def test_alpha_beta_gemv_is_two_kernels():
    text = str(lowered(CASES["gemv-alpha-beta-f32-77x45"]))
    host = text.split("gpu.module")[0]
    assert host.count("gpu.launch_func") == 2 and "linalg." not in host


def test_split_reduction_for_few_outputs():
    pvc = get_arch("pvc")
    p = plan_gemv(1000, 40, 0, 1, "f32", pvc, can_split=True)
    assert p.slices == 8 and p.grid() == (3, 8) and "(K slices)" in p.describe()
    assert plan_gemv(1000, 40, 0, 1, "f32", pvc).slices == 1                      # f16/bf16 y, a fill: no atomics
    wide = plan_gemv(4096, 4096, 0, 1, "bf16", pvc, can_split=True)       # 128 work-groups, 2 KiB in flight
    assert wide.slices == 5 and "KiB in flight" in [r for r in wide.reasons if "slices" in r][0]
    col = plan_gemv(24, 1000, 1, 1, "f32", pvc, can_split=True)                  # matvec: y is a column
    assert col.slices > 1 and "grid x" in [r for r in col.reasons if "slices" in r][0]
    text = str(lowered(CASES["vecmat-split-f32-1000x40"]))
    assert "atomic_rmw_tile" in text and text.count("gpu.block_id") == 2


def test_fill_of_y_starts_the_accumulator():
    text = str(lowered(CASES["matvec-fill-f32-70x45"]))
    host, kernels = text.split("gpu.module")
    assert "linalg." not in host and "vector.broadcast" in kernels


def test_unsupported_gemv_is_left_alone():
    src = """func.func @f(%A: memref<2x?x?xf32>, %x: memref<2x?xf32>, %y: memref<2x?xf32>) {
  linalg.batch_matvec ins(%A, %x : memref<2x?x?xf32>, memref<2x?xf32>) outs(%y : memref<2x?xf32>)
  return
}
"""
    m = xedialects.parse(src, "case.mlir")
    run(m, "builtin.module(convert-linalg-to-xetile)")
    assert "linalg.batch_matvec" in str(m) and "gpu.launch_func" not in str(m)


def test_plan_fills_xe_cores_and_says_why_vector_fmas():
    for arch in ("pvc", "bmg"):
        hw = get_arch(arch)
        for dim in (0, 1):
            p = plan_gemv(8192, 8192, dim, 1, "bf16", hw)
            gx, gy = p.grid()
            assert gx * gy >= hw.xe_cores
            assert p.engine == "vector" and "vector FMAs" in p.reasons[0]
            assert max(p.sg_data) * 2 == max(r.max_row_bytes for r in hw.blocks)   # full-width rows
    import dataclasses
    pvc = get_arch("pvc")
    big = plan_gemv(4096, 4096, 1, 1, "bf16", pvc)    # 32 rows per Xe-core: 4 subgroups of 8, 4 tiles each
    assert (big.sg_layout, big.sg_data, big.unroll) == ((4, 1), (8, 32), 4)
    assert "KiB in flight per Xe-core" in big.reasons[3]
    assert plan_gemv(4096, 4096, 1, 1, "bf16", get_arch("bmg")).unroll == 1   # 16 KiB in flight already
    assert plan_gemv(45, 77, 1, 1, "f32", pvc).unroll * 16 <= 80             # no step beyond the padded extent
    slow = dataclasses.replace(pvc, peak=dataclasses.replace(pvc.peak, vector_ops_per_clk=(("f32", 2),)))
    assert "DPAS would keep up better" in plan_gemv(4096, 4096, 1, 1, "f32", slow).reasons[0]
    batched = plan_gemv(64, 512, 1, 32, "f32", get_arch("pvc"))
    assert "z=32 (batches)" in batched.describe()


@pytest.mark.usefixtures("spirv_val")
@pytest.mark.parametrize("target", ["pvc", "portable"])
def test_spirv_validates(target):
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv, validate

    for name in ("matvec-bf16-to-f32-70x300", "vecmat-f16-37x129", "ger-alpha-acc-bf16-100x70"):
        binary, _ = export_spirv(lowered(CASES[name], XEGPU + f", convert-xegpu-to-spirv{{target={target}}}"),
                                 target=target)
        validate(binary)


@pytest.mark.parametrize("name", ["matvec-bf16-45x256", "vecmat-f32-37x64", "ger-acc-f16-129x257",
                                  "vecmat-split-f32-1000x40"])
def test_pvc_binary_on_opencl_matches_cpu(name):
    """The pvc binary (2D block builtins emulated on the CPU device)."""
    from opencl_support import assert_opencl_matches_cpu

    case = CASES[name]
    m, program = opencl_program(case, "pvc")
    assert program.emulated
    assert_opencl_matches_cpu(name + " pvc", case, m, program)


@pytest.mark.parametrize("name", ["matvec-f32-100x70", "vecmat-f16-37x129", "batch_matvec-bf16-3x45x77",
                                  "generic-alpha-f32-65x33", "ger-alpha-acc-bf16-100x70", "vecmat-dynamic-f16-37x129",
                                  "vecmat-split-f32-1000x40", "matvec-split-f32-24x1000"])
def test_portable_spirv_on_opencl_matches_cpu(name):
    assert_portable_spirv_matches_cpu(name, CASES[name])


def test_ger_is_planned_as_an_outer_product():
    from xedialects.lowering.linalg_to_xetile.memory_plan import plan_ger

    p = plan_ger(4096, 4096, "bf16", get_arch("pvc"), accumulate=True)
    assert p.kind.startswith("ger") and "read and written" in p.reasons[0]
    gx, gy = p.grid()
    assert gx * gy >= 128
    text = str(lowered(CASES["ger-alpha-acc-f32-100x70"]))
    assert text.count("tile_broadcast") == 2 and "linalg." not in text.split("gpu.module")[0]


def test_strict_unsupported_gemv_is_a_located_error(tmp_path):
    import subprocess

    src = tmp_path / "g.mlir"
    src.write_text("""func.func @f(%A: memref<2x?x?xf32>, %x: memref<2x?xf32>, %y: memref<2x?xf32>) {
  linalg.batch_matvec ins(%A, %x : memref<2x?x?xf32>, memref<2x?xf32>) outs(%y : memref<2x?xf32>)
  return
}
""")
    out = tmp_path / "out.mlir"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run([sys.executable, os.path.join(root, "tools", "xe-opt.py"), str(src),
                        "--convert-linalg-to-xetile=strict=1", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 1 and "Traceback" not in r.stderr and not out.exists()
    assert "g.mlir:2:3: error: not lowered to XeTile: 'linalg.batch_matvec' with dynamic shapes" in r.stderr


@pytest.mark.parametrize("name,case,layout", [
    ("matvec-bmg-f32-1000x100", named("matvec", 1000, 100, "f32"), (4, 1)),
    ("vecmat-bmg-f32-100x1000", named("vecmat", 100, 1000, "f32"), (1, 2))])
def test_several_subgroups_on_bmg(name, case, layout):
    """Plans with several subgroups per work-group (bmg has 20 Xe-cores), numerically."""
    from xedialects.arch import get_arch as arch_of
    from xedialects.lowering.linalg_to_xetile import gemv as gemv_mod

    m = xedialects.parse(case.src, "case.mlir")
    op = next(o.operation for o in m.body.operations[0].regions[0].blocks[0].operations
              if o.operation.name.startswith("linalg."))
    form = gemv_mod.match_gemv(op)
    assert plan_gemv(form.m, form.n, form.dim, 1, form.elt_in, arch_of("bmg")).sg_layout == layout
    run(m, "builtin.module(xe-gemm-to-xegpu{arch=bmg})")
    assert_ok(case, "vc", name, module=m)
    simt = xedialects.parse(case.src, "case.mlir")
    run(simt, "builtin.module(xe-gemm-to-xegpu{arch=bmg}, xegpu-simt-distribute)")
    assert_ok(case, "simt", name + " simt", module=simt)
