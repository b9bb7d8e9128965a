"""convert-linalg-to-xetile, numerically: every input form (plain, transposed A/B, linalg.generic,
batch, dynamic shapes, each element type, fused epilogues, tensor programs, split-K, awkward
shapes) lowered to work-group XeTile and distributed by xetile-wg-to-sg, simulated, and compared
with the original linalg function run on the CPU by upstream MLIR (tolerances from
`xedialects.sim.reference.tolerances`). Structural checks make sure the epilogue really is fused
(no linalg op or dead temporary left on the host) and a broken epilogue fails the comparison."""
import ml_dtypes
import numpy as np
import pytest

import xedialects
from xedialects.passes import run
from xedialects.sim import simulate
from xedialects.sim.reference import compare, run_reference

STAGES = {
    "wg": "convert-linalg-to-xetile",
    "sg": "convert-linalg-to-xetile, xetile-wg-to-sg",
    # blocked 4D XeTile; xetile-check-hw fails the test on any block the hardware cannot execute
    "blocked": "convert-linalg-to-xetile, xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, xetile-check-hw",
}
# VC-mode XeGPU through the blocking stage: the fused epilogues stay arith/math on vectors,
# tile_broadcast becomes vector.broadcast per block
XEGPU = "convert-linalg-to-xetile, xetile-wg-to-sg, xetile-canonicalize, xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse"
# XeGPU stages of the named GEMM pipeline (xe-gemm-to-xegpu): "simt" distributes its VC-mode output
# to SIMT mode (sg_map on every descriptor, per-work-item vectors), bias broadcasts included
XEGPU_STAGES = {"simt": "xe-gemm-to-xegpu, xegpu-simt-distribute"}
DT = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32, "tf32": np.float32, "i8": np.int8, "i32": np.int32}
ID = "affine_map<(d0, d1) -> (d0, d1)>"
ROW = "affine_map<(d0, d1) -> (d1)>"
COL = "affine_map<(d0, d1) -> (d0)>"
SCALAR = "affine_map<(d0, d1) -> ()>"


def mr(shape, e):
    return "memref<" + "x".join("?" if d is None else str(d) for d in shape) + f"x{e}>"


class Case:
    """A source program, its argument specs ((shape, type) or ("scalar", type, value)), the GEMM
    input type (for the tolerance) and K."""

    def __init__(self, src, args, in_type, k, entry="f", dyn_shapes=None, tensor=False):
        self.src, self.args, self.in_type, self.k, self.entry = src, args, in_type, k, entry
        self.dyn_shapes = dyn_shapes or {}
        self.tensor = tensor

    def inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        out = []
        for i, a in enumerate(self.args):
            if a[0] == "scalar":
                out.append(np.asarray(a[2], dtype=DT[a[1]]))
                continue
            shape, e = a
            shape = self.dyn_shapes.get(i, shape)
            if e in ("i8", "i32"):
                out.append(rng.integers(-4, 5, shape).astype(DT[e]))
            else:
                out.append(rng.uniform(-1, 1, shape).astype(np.float32).astype(DT[e]))
        return out


def _reference_program(case):
    if not case.tensor:
        return case.src
    mod = xedialects.parse(case.src, "case.mlir")
    run(mod, "builtin.module(xe-bufferize)")
    return mod


def lower(case, stage):
    mod = xedialects.parse(case.src, "case.mlir")
    pipeline = XEGPU if stage == "vc" else XEGPU_STAGES.get(stage) or STAGES[stage]
    if case.tensor:
        pipeline = "xe-bufferize, " + pipeline
    run(mod, f"builtin.module({pipeline})")
    return mod


def check(case, stage, module=None, seed=0):
    """[(label, ok, max_abs, max_rel)] for every memref argument and returned buffer."""
    args = case.inputs(seed)
    want, want_ret = run_reference(_reference_program(case), case.entry, [np.copy(a) for a in args],
                                   returns=True)
    mod = module if module is not None else lower(case, stage)
    res = simulate(mod, case.entry, [np.copy(a) for a in args])
    out = []
    for i, (got, ref, a) in enumerate(zip(res.buffers, want, args)):
        if np.ndim(a):
            ok, mx, rel = compare(got, ref, case.in_type, np.asarray(ref).dtype, k=case.k)
            out.append((f"arg{i}", ok, mx, rel))
    for i, (got, ref) in enumerate(zip(res.returns, want_ret)):
        ok, mx, rel = compare(got, ref, case.in_type, np.asarray(ref).dtype, k=case.k)
        out.append((f"result{i}", ok, mx, rel))
    return out


def assert_ok(case, stage, name, module=None):
    results = check(case, stage, module=module)
    bad = [r for r in results if not r[1]]
    assert results and not bad, f"{name} at stage {stage}: " + ", ".join(
        f"{lab}: max abs {mx:.3g}, max rel {rel:.3g}" for lab, _, mx, rel in bad)


# ---- input forms -------------------------------------------------------------------------------

def mm(M, N, K, a="bf16", c="f32", dyn=False):
    dims = (None, None, None) if dyn else (M, N, K)
    m, n, k = dims
    ta, tb, tc = mr((m, k), a), mr((k, n), a), mr((m, n), c)
    src = f"""
func.func @f(%A: {ta}, %B: {tb}, %C: {tc}) {{
  linalg.matmul ins(%A, %B : {ta}, {tb}) outs(%C : {tc})
  return
}}"""
    shapes = {0: (M, K), 1: (K, N), 2: (M, N)} if dyn else None
    return Case(src, [((M, K), a), ((K, N), a), ((M, N), c)], a, K, dyn_shapes=shapes)


def mm_t(M, N, K, which):
    ta_, tb_ = which == "a", which == "b"
    sa = (K, M) if ta_ else (M, K)
    sb = (N, K) if tb_ else (K, N)
    amap = "affine_map<(m, n, k) -> (k, m)>" if ta_ else "affine_map<(m, n, k) -> (m, k)>"
    bmap = "affine_map<(m, n, k) -> (n, k)>" if tb_ else "affine_map<(m, n, k) -> (k, n)>"
    ta, tb, tc = mr(sa, "bf16"), mr(sb, "bf16"), mr((M, N), "f32")
    src = f"""
func.func @f(%A: {ta}, %B: {tb}, %C: {tc}) {{
  linalg.matmul indexing_maps = [{amap}, {bmap}, affine_map<(m, n, k) -> (m, n)>]
      ins(%A, %B : {ta}, {tb}) outs(%C : {tc})
  return
}}"""
    return Case(src, [(sa, "bf16"), (sb, "bf16"), ((M, N), "f32")], "bf16", K)


def generic(M, N, K):
    ta, tb, tc = mr((M, K), "f16"), mr((K, N), "f16"), mr((M, N), "f32")
    src = f"""
func.func @f(%A: {ta}, %B: {tb}, %C: {tc}) {{
  linalg.generic {{indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%A, %B : {ta}, {tb}) outs(%C : {tc}) {{
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }}
  return
}}"""
    return Case(src, [((M, K), "f16"), ((K, N), "f16"), ((M, N), "f32")], "f16", K)


def batch(Bt, M, N, K):
    ta, tb, tc = f"memref<{Bt}x{M}x{K}xbf16>", f"memref<{Bt}x{K}x{N}xbf16>", f"memref<{Bt}x{M}x{N}xf32>"
    src = f"""
func.func @f(%A: {ta}, %B: {tb}, %C: {tc}) {{
  linalg.batch_matmul ins(%A, %B : {ta}, {tb}) outs(%C : {tc})
  return
}}"""
    return Case(src, [((Bt, M, K), "bf16"), ((Bt, K, N), "bf16"), ((Bt, M, N), "f32")], "bf16", K)


FORMS = {
    "plain": mm(256, 256, 256),
    "unaligned": mm(100, 70, 50),
    "transposed_a": mm_t(64, 96, 48, "a"),
    "transposed_b": mm_t(96, 64, 48, "b"),
    "generic": generic(64, 64, 32),
    "batch": batch(3, 64, 32, 48),
    "dynamic": mm(72, 40, 56, dyn=True),
    "dynamic_aligned": mm(128, 128, 64, dyn=True),
    "bf16_f32": mm(64, 64, 64, "bf16", "f32"),
    "bf16_bf16": mm(64, 64, 64, "bf16", "bf16"),
    "f16_f32": mm(64, 64, 64, "f16", "f32"),
    "f16_f16": mm(64, 64, 64, "f16", "f16"),
    "f32_tf32": mm(64, 48, 40, "f32", "f32"),
    "tf32": mm(40, 48, 24, "tf32", "f32"),
    "k_1": mm(2, 64, 1, "bf16", "bf16"),         # B rows past K statically outside the surface
    "i8_i32": mm(64, 64, 96, "i8", "i32"),
}


@pytest.mark.parametrize("stage", list(STAGES))
@pytest.mark.parametrize("name", list(FORMS))
def test_input_form(name, stage):
    assert_ok(FORMS[name], stage, name)


# ---- epilogues ---------------------------------------------------------------------------------

def _gemm_head(M, N, K, a, c, extra_args=""):
    ta, tb, tc = mr((M, K), a), mr((K, N), a), mr((M, N), c)
    return ta, tb, tc, f"func.func @f(%A: {ta}, %B: {tb}, %C: {tc}{extra_args}) {{"


def bias_relu(M, N, K, a="bf16", c="f32", fill=True, col=False, dyn=False):
    """C = relu(A x B + bias) with a row (or column) bias vector, C zero-filled first."""
    n = M if col else N
    if dyn:
        ta, tb, tc = mr((None, None), a), mr((None, None), a), mr((None, None), c)
        head = f"func.func @f(%A: {ta}, %B: {tb}, %C: {tc}, %bias: {mr((None,), c)}) {{"
    else:
        ta, tb, tc, head = _gemm_head(M, N, K, a, c, f", %bias: {mr((n,), c)}")
    tbias = mr((None if dyn else n,), c)
    zero = "0.0" if c != "i32" else "0"
    mx = "arith.maxsi" if c == "i32" else "arith.maximumf"
    add = "arith.addi" if c == "i32" else "arith.addf"
    src = f"""
{head}
  %z = arith.constant {zero} : {c}
  {"linalg.fill ins(%z : " + c + ") outs(%C : " + tc + ")" if fill else ""}
  linalg.matmul ins(%A, %B : {ta}, {tb}) outs(%C : {tc})
  linalg.generic {{indexing_maps = [{COL if col else ROW}, {ID}], iterator_types = ["parallel", "parallel"]}}
      ins(%bias : {tbias}) outs(%C : {tc}) {{
  ^bb0(%b: {c}, %x: {c}):
    %s = {add} %x, %b : {c}
    %r = {mx} %s, %z : {c}
    linalg.yield %r : {c}
  }}
  return
}}"""
    shapes = {0: (M, K), 1: (K, N), 2: (M, N), 3: (n,)} if dyn else None
    return Case(src, [((M, K), a), ((K, N), a), ((M, N), c), ((n,), c)], a, K, dyn_shapes=shapes)


def gelu(M, N, K, form):
    """C = gelu(A x B) (tanh approximation or the exact erf form)."""
    ta, tb, tc, head = _gemm_head(M, N, K, "bf16", "f32")
    if form == "tanh":
        body = """
    %k0 = arith.constant 0.797884583 : f32
    %k1 = arith.constant 0.044715 : f32
    %x3 = arith.mulf %x, %x : f32
    %x3b = arith.mulf %x3, %x : f32
    %t1 = arith.mulf %x3b, %k1 : f32
    %t2 = arith.addf %x, %t1 : f32
    %t3 = arith.mulf %t2, %k0 : f32
    %th = math.tanh %t3 : f32
    %s = arith.addf %th, %one : f32"""
    else:
        body = """
    %r2 = arith.constant 0.707106769 : f32
    %xs = arith.mulf %x, %r2 : f32
    %e = math.erf %xs : f32
    %s = arith.addf %e, %one : f32"""
    src = f"""
{head}
  linalg.matmul ins(%A, %B : {ta}, {tb}) outs(%C : {tc})
  linalg.generic {{indexing_maps = [{ID}], iterator_types = ["parallel", "parallel"]}} outs(%C : {tc}) {{
  ^bb0(%x: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32{body}
    %hx = arith.mulf %x, %half : f32
    %y = arith.mulf %hx, %s : f32
    linalg.yield %y : f32
  }}
  return
}}"""
    return Case(src, [((M, K), "bf16"), ((K, N), "bf16"), ((M, N), "f32")], "bf16", K)


def alpha_beta(M, N, K, scalars="const", c="f32", dyn=False):
    """C = alpha * (A x B) + beta * C through a zero-filled temporary (tinytc / BLAS form)."""
    m, n, k = (None, None, None) if dyn else (M, N, K)
    ta, tb, tc = mr((m, k), "f16"), mr((k, n), "f16"), mr((m, n), c)
    if scalars == "const":
        sig, consts = "", f"%alpha = arith.constant 1.5 : {c}\n  %beta = arith.constant -0.5 : {c}"
        args = []
    else:
        sig, consts = f", %alpha: {c}, %beta: {c}", ""
        args = [("scalar", c, 1.5), ("scalar", c, -0.5)]
    if dyn:
        alloc = ("%c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
                 f"  %m = memref.dim %C, %c0 : {tc}\n  %n = memref.dim %C, %c1 : {tc}\n"
                 f"  %t = memref.alloc(%m, %n) : {tc}")
    else:
        alloc = f"%t = memref.alloc() : {tc}"
    src = f"""
func.func @f(%A: {ta}, %B: {tb}, %C: {tc}{sig}) {{
  {consts}
  %zero = arith.constant 0.0 : {c}
  {alloc}
  linalg.fill ins(%zero : {c}) outs(%t : {tc})
  linalg.matmul ins(%A, %B : {ta}, {tb}) outs(%t : {tc})
  linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}}
      ins(%t : {tc}) outs(%C : {tc}) {{
  ^bb0(%p: {c}, %old: {c}):
    %ap = arith.mulf %alpha, %p : {c}
    %bc = arith.mulf %beta, %old : {c}
    %r = arith.addf %ap, %bc : {c}
    linalg.yield %r : {c}
  }}
  memref.dealloc %t : {tc}
  return
}}"""
    shapes = {0: (M, K), 1: (K, N), 2: (M, N)} if dyn else None
    return Case(src, [((M, K), "f16"), ((K, N), "f16"), ((M, N), c)] + args, "f16", K, dyn_shapes=shapes)


def named_chain(M, N, K):
    """Named ops: linalg.broadcast of a bias, linalg.add, linalg.max with a zero matrix, linalg.exp
    into a second output, all on memref temporaries."""
    ta, tb, tc, head = _gemm_head(M, N, K, "bf16", "f32", f", %bias: {mr((N,), 'f32')}, %E: {mr((M, N), 'f32')}")
    src = f"""
{head}
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : {tc}
  %zt = memref.alloc() : {tc}
  linalg.matmul ins(%A, %B : {ta}, {tb}) outs(%C : {tc})
  linalg.broadcast ins(%bias : {mr((N,), 'f32')}) outs(%t : {tc}) dimensions = [0]
  linalg.add ins(%C, %t : {tc}, {tc}) outs(%C : {tc})
  linalg.fill ins(%z : f32) outs(%zt : {tc})
  linalg.max ins(%C, %zt : {tc}, {tc}) outs(%C : {tc})
  linalg.exp ins(%C : {tc}) outs(%E : {tc})
  memref.dealloc %t : {tc}
  memref.dealloc %zt : {tc}
  return
}}"""
    return Case(src, [((M, K), "bf16"), ((K, N), "bf16"), ((M, N), "f32"), ((N,), "f32"), ((M, N), "f32")],
                "bf16", K)


def residual_scale(M, N, K):
    """D = (A x B) * s + R with a rank-0 scale buffer and a full residual matrix; f16 result."""
    ta, tb, tc, head = _gemm_head(M, N, K, "f16", "f16",
                                  f", %s: memref<f16>, %R: {mr((M, N), 'f16')}, %D: {mr((M, N), 'f16')}")
    src = f"""
{head}
  linalg.matmul ins(%A, %B : {ta}, {tb}) outs(%C : {tc})
  linalg.generic {{indexing_maps = [{ID}, affine_map<(d0, d1) -> ()>, {ID}, {ID}],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%C, %s, %R : {tc}, memref<f16>, {tc}) outs(%D : {tc}) {{
  ^bb0(%x: f16, %sc: f16, %r: f16, %o: f16):
    %y = arith.mulf %x, %sc : f16
    %z = arith.addf %y, %r : f16
    linalg.yield %z : f16
  }}
  return
}}"""
    return Case(src, [((M, K), "f16"), ((K, N), "f16"), ((M, N), "f16"), ((), "f16"), ((M, N), "f16"),
                      ((M, N), "f16")], "f16", K)


EPILOGUES = {
    "bias_relu": bias_relu(128, 96, 64),
    "bias_relu_unaligned": bias_relu(100, 70, 50),
    "bias_col": bias_relu(64, 80, 32, col=True),
    "bias_row_dynamic": bias_relu(72, 40, 56, dyn=True),
    "bias_col_dynamic": bias_relu(40, 72, 24, col=True, dyn=True),
    "bias_no_fill": bias_relu(64, 64, 64, fill=False),
    "bias_relu_f16_out": bias_relu(64, 64, 32, "f16", "f16"),
    "bias_relu_i8": bias_relu(64, 64, 64, "i8", "i32"),
    "gelu_tanh": gelu(64, 128, 64, "tanh"),
    "gelu_erf": gelu(96, 64, 32, "erf"),
    "alpha_beta": alpha_beta(128, 64, 64),
    "alpha_beta_args": alpha_beta(64, 64, 32, scalars="args"),
    "alpha_beta_dynamic": alpha_beta(72, 40, 56, dyn=True),
    "named_chain": named_chain(64, 64, 32),
    "residual_scale_f16": residual_scale(64, 64, 32),
}


@pytest.mark.parametrize("stage", list(STAGES))
@pytest.mark.parametrize("name", list(EPILOGUES))
def test_epilogue(name, stage):
    assert_ok(EPILOGUES[name], stage, name)


@pytest.mark.parametrize("name", ["bias_relu_unaligned", "bias_col", "bias_row_dynamic", "gelu_erf",
                                  "alpha_beta_dynamic",
                                  "named_chain", "residual_scale_f16", "bias_relu_i8"])
def test_epilogue_through_xegpu(name):
    assert_ok(EPILOGUES[name], "vc", name)


@pytest.mark.parametrize("name", [f"epilogue:{n}" for n in EPILOGUES] + ["tensor:bias_relu"])
def test_epilogue_through_simt(name):
    """Every fused epilogue through xe-gemm-to-xegpu and xegpu-simt-distribute, simulated in SIMT
    mode: row biases (block loads of 1 x n, scattered loads when unaligned) and column biases
    (one-lane scattered loads, or an m x 1 block load reordered across work-items) broadcast to the
    DPAS C blocks per work-item (test/lit/Transforms/simt-distribute/broadcast.mlir)."""
    kind, key = name.split(":")
    case = (EPILOGUES if kind == "epilogue" else TENSORS)[key]
    mod = lower(case, "simt")
    text = xedialects.print_ir(mod)
    assert "mode = vc" not in text and "sg_map" in text
    assert_ok(case, "simt", name, module=mod)


def _host_ops(module):
    out = []
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func":
            for o in op.regions[0].blocks[0].operations:
                out.append(o.operation.name)
    return out


@pytest.mark.parametrize("name", ["bias_relu", "alpha_beta", "alpha_beta_dynamic", "named_chain"])
def test_epilogue_is_fused(name):
    """No linalg op and no temporary is left on the host; the kernel carries the element-wise ops
    with C's wg_map and (for bias) the tile_broadcast."""
    mod = lower(EPILOGUES[name], "wg")
    host = _host_ops(mod)
    assert not [n for n in host if n.startswith("linalg.")], host
    assert "memref.alloc" not in host and "memref.dealloc" not in host, host
    assert host.count("gpu.launch_func") == 1
    text = str(mod)
    if name in ("bias_relu", "named_chain"):
        assert "xetile.tile_broadcast" in text
    assert "wg_map" in text.split("scf.yield")[-1]


def test_broken_epilogue_fails():
    """The comparison sees the epilogue: turning relu into min(x, 0) must FAIL."""
    case = EPILOGUES["bias_relu"]
    mod = lower(case, "wg")
    text = str(mod).replace("arith.maximumf", "arith.minimumf")
    assert text != str(mod)
    broken = xedialects.parse(text, "broken.mlir")
    assert not all(r[1] for r in check(case, "wg", module=broken))


# ---- tensor programs ---------------------------------------------------------------------------

def tensor_bias_relu(M, N, K):
    t = lambda s, e: "tensor<" + "x".join(map(str, s)) + f"x{e}>"  # noqa: E731
    ta, tb, tc, tbias = t((M, K), "bf16"), t((K, N), "bf16"), t((M, N), "f32"), t((N,), "f32")
    src = f"""
func.func @f(%A: {ta}, %B: {tb}, %bias: {tbias}) -> {tc} {{
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : {tc}
  %z = linalg.fill ins(%cst : f32) outs(%e : {tc}) -> {tc}
  %m = linalg.matmul ins(%A, %B : {ta}, {tb}) outs(%z : {tc}) -> {tc}
  %e2 = tensor.empty() : {tc}
  %r = linalg.generic {{indexing_maps = [{ID}, {ROW}, {ID}], iterator_types = ["parallel", "parallel"]}}
      ins(%m, %bias : {tc}, {tbias}) outs(%e2 : {tc}) {{
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    %y = arith.maximumf %s, %cst : f32
    linalg.yield %y : f32
  }} -> {tc}
  return %r : {tc}
}}"""
    return Case(src, [((M, K), "bf16"), ((K, N), "bf16"), ((N,), "f32")], "bf16", K, tensor=True)


def tensor_inout(M, N, K, dyn=False):
    d = lambda s, e: "tensor<" + "x".join("?" if dyn else str(x) for x in s) + f"x{e}>"  # noqa: E731
    ta, tb, tc = d((M, K), "bf16"), d((K, N), "bf16"), d((M, N), "f32")
    src = f"""
func.func @f(%A: {ta}, %B: {tb}, %C: {tc}) -> {tc} {{
  %r = linalg.matmul ins(%A, %B : {ta}, {tb}) outs(%C : {tc}) -> {tc}
  return %r : {tc}
}}"""
    shapes = {0: (M, K), 1: (K, N), 2: (M, N)} if dyn else None
    return Case(src, [((M, K), "bf16"), ((K, N), "bf16"), ((M, N), "f32")], "bf16", K, tensor=True,
                dyn_shapes=shapes)


def tensor_batch(Bt, M, N, K):
    """Batched matmul on tensors into a zero-filled tensor.empty (the fill fuses for batches too)."""
    ta, tb, tc = f"tensor<{Bt}x{M}x{K}xf16>", f"tensor<{Bt}x{K}x{N}xf16>", f"tensor<{Bt}x{M}x{N}xf32>"
    src = f"""
func.func @f(%A: {ta}, %B: {tb}) -> {tc} {{
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : {tc}
  %z = linalg.fill ins(%cst : f32) outs(%e : {tc}) -> {tc}
  %m = linalg.batch_matmul ins(%A, %B : {ta}, {tb}) outs(%z : {tc}) -> {tc}
  return %m : {tc}
}}"""
    return Case(src, [((Bt, M, K), "f16"), ((Bt, K, N), "f16")], "f16", K, tensor=True)


TENSORS = {
    "bias_relu": tensor_bias_relu(64, 96, 32),
    "inout": tensor_inout(64, 64, 64),
    "inout_dynamic": tensor_inout(40, 72, 24, dyn=True),
    "batch_fill": tensor_batch(3, 40, 56, 24),
}


@pytest.mark.parametrize("stage", list(STAGES))
@pytest.mark.parametrize("name", list(TENSORS))
def test_tensor_program(name, stage):
    assert_ok(TENSORS[name], stage, name)


def test_tensor_program_through_named_pipeline():
    """xe-linalg-to-xetile = one-shot bufferization + convert-linalg-to-xetile: the function
    returns the kernel's output buffer, the temporaries of fill/matmul are gone."""
    case = TENSORS["bias_relu"]
    mod = xedialects.parse(case.src, "t.mlir")
    run(mod, "builtin.module(xe-linalg-to-xetile)")
    host = _host_ops(mod)
    assert host.count("memref.alloc") == 1 and "gpu.launch_func" in host
    assert not [n for n in host if n.startswith(("linalg.", "tensor.", "bufferization."))], host
    args = case.inputs()
    want = run_reference(_reference_program(case), "f", [np.copy(a) for a in args], returns=True)[1][0]
    got = simulate(mod, "f", args).returns[0]
    assert compare(got, want, "bf16", "f32", k=case.k)[0]
    assert float(np.abs(want).max()) > 0


def test_xe_run_checks_tensor_program(tmp_path, capsys):
    """xe-run bufferizes a tensor program, runs it through the pipeline and checks every buffer and
    the returned one against the CPU."""
    from xedialects.tools.xe_run import main as xe_run

    path = tmp_path / "t.mlir"
    path.write_text(TENSORS["bias_relu"].src)
    for pipeline in ("xe-linalg-to-xetile", "xe-linalg-to-xetile,xetile-wg-to-sg"):
        assert xe_run([str(path), "--pipeline", pipeline, "--check"]) == 0
        out = capsys.readouterr().out
        assert "result0:" in out and out.rstrip().endswith("PASS"), out


# ---- split-K and awkward shapes ----------------------------------------------------------------

def test_split_k_plan_and_numerics():
    case = mm(128, 128, 4096)
    for stage in STAGES:
        mod = lower(case, stage)
        text = str(mod)
        assert "xetile.atomic_rmw_tile" in text
        assert_ok(case, stage, "split-K")


def test_split_k_dropped_for_epilogue():
    """A fused epilogue needs the complete sum: the planner keeps K whole."""
    case = bias_relu(128, 128, 4096)
    mod = lower(case, "wg")
    assert "atomic_rmw_tile" not in str(mod)
    assert_ok(case, "sg", "bias_relu tall K")


@pytest.mark.parametrize("M,N,K", [(1000, 1000, 1000), (1, 4096, 4096), (4096, 7, 64)])
def test_awkward_shapes(M, N, K):
    for stage in STAGES:
        assert_ok(mm(M, N, K), stage, f"{M}x{N}x{K}")


def test_awkward_shape_plans_are_sane():
    from xedialects.lowering.linalg_to_xetile.gemm_plan import plan_gemm
    from xedialects.arch import get_arch

    hw = get_arch("pvc")
    for M, N, K in [(1000, 1000, 1000), (1, 4096, 4096), (4096, 7, 64)]:
        p = plan_gemm(M, N, K, "bf16", "bf16", "f32")
        # tiles cover the problem with little padding and fill the Xe-cores
        assert p.num_work_groups >= hw.xe_cores
        assert p.wg_tile[0] <= max(8, 2 * M) and p.wg_tile[1] <= max(16, 2 * N)
        assert p.k_step <= max(K, 32) and p.prefetch_distance <= -(-K // p.k_step)
